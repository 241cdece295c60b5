"""Argument definitions shared by several subcommands."""

from __future__ import annotations


def add_measures(parser, help_text: str) -> None:
    """``-m/--measure MEASURE ...``: several measures after one flag, or the flag repeated."""
    parser.add_argument(
        "-m",
        "--measure",
        dest="measures",
        action="extend",
        nargs="+",
        metavar="MEASURE",
        help=help_text,
    )
