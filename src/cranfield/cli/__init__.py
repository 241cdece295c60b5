"""Command-line interface: one module per subcommand, dispatched by :mod:`cranfield.cli.main`."""
