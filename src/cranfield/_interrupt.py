"""Ctrl-C on the command line: one line and status 130, wherever the signal lands.

The console script (and ``python -m cranfield``) installs :func:`on_interrupt` as the
SIGINT handler when the package is first imported, before any other import of
cranfield, so a signal during the imports, an engine call or a half-imported module
(which may surface as another exception) is recognised by :data:`interrupted` and
``cli/main.py`` ends the command with ``cranfield COMMAND: interrupted``. A program that
imports cranfield as a library keeps its own handling. Only the interpreter's own
start-up, before the package is imported, is out of reach.
"""

from __future__ import annotations

# the C module behind `signal` (which imports enum: 4 ms of every cold start)
import _signal
import sys

interrupted = False
#: set by ``cli/main.entry`` once it runs: before, nothing is written yet, and the signal
#: ends the process at once
running = False


_stderr = 2  # where say() writes: standard error as it was when the signal came


def on_interrupt(signum, frame) -> None:
    """Remember the signal, ignore any further one while the process ends, and raise
    :class:`KeyboardInterrupt` where Python is (before the command runs: end now).

    What the unwinding prints (a compiled extension's panic message when the exception
    cuts through it, a module's warning) is noise: standard error is pointed at
    ``/dev/null`` from here on, and :func:`say` writes the one line to the real one.
    """
    import os

    global interrupted, _stderr
    interrupted = True
    _signal.signal(_signal.SIGINT, _signal.SIG_IGN)
    try:
        saved = os.dup(2)
        quiet = os.open(os.devnull, os.O_WRONLY)
        os.dup2(quiet, 2)
        os.close(quiet)
        _stderr = saved
    except OSError:  # no standard error, or no descriptors left: keep what there is
        pass
    if not running:
        say(f"cranfield {sys.argv[1]}" if sys.argv[1:2] else "cranfield")
        os._exit(130)
    raise KeyboardInterrupt


def say(command: str) -> None:
    """``COMMAND: interrupted`` on the real standard error."""
    import os

    try:
        os.write(_stderr, f"{command}: interrupted\n".encode("utf-8", "replace"))
    except OSError:
        pass


def install() -> None:
    """Make :func:`on_interrupt` the SIGINT handler (main thread only)."""
    try:
        _signal.signal(_signal.SIGINT, on_interrupt)
    except ValueError:  # not the main thread
        pass


def ignore() -> None:
    """Ignore SIGINT from now on (the result is complete and being delivered)."""
    try:
        _signal.signal(_signal.SIGINT, _signal.SIG_IGN)
    except ValueError:
        pass


def is_command_line() -> bool:
    """Whether this process is the ``cranfield`` command (console script or ``-m``)."""
    script = sys.argv[0] if sys.argv else ""
    return script.rsplit("/", 1)[-1] in ("cranfield", "__main__.py")
