"""Ctrl-C on the command line: one line and status 130, wherever the signal lands.

The console script (and ``python -m cranfield``) installs :func:`on_interrupt` as the
SIGINT handler when the package is first imported, before any other import of
cranfield, so a signal during the imports, an engine call or a half-imported module
(which may surface as another exception) is recognised by :data:`interrupted` and
``cli/main.py`` ends the command with ``cranfield COMMAND: interrupted``. A program that
imports cranfield as a library keeps its own handling. Only the interpreter's own
start-up, before the package is imported, is out of reach.

The ``KeyboardInterrupt`` alone is not enough: Python runs the handler only between
bytecodes of the main thread, so a long engine call (which releases the GIL but does
not look for signals) delays it, and a compiled module may swallow the exception (an
``import pandas`` that pyarrow starts inside ``to_numpy`` loses it, and the command ran
on to status 0). So the signal also wakes a watcher thread (:func:`_watch`, through
``signal.set_wakeup_fd``, which the C-level handler writes to at once, whatever the
main thread is doing): if the process still runs :data:`GRACE` seconds later, it
removes the temporary output files, writes the one line and ends with status 130.
"""

from __future__ import annotations

# the C module behind `signal` (which imports enum: 4 ms of every cold start)
import _signal
import _thread
import sys

interrupted = False
#: set by ``cli/main.entry`` once it runs: before, nothing is written yet, and the signal
#: ends the process at once
running = False


_stderr = 2  # where say() writes: standard error as it was when the signal came

#: seconds the main thread has, after the signal, to end the command itself
GRACE = 1.0
#: ``cranfield COMMAND`` as the watcher names it (set by ``cli/main.entry``)
command = "cranfield"
_said = False
_say_lock = _thread.allocate_lock()
_watching = False


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
    """``COMMAND: interrupted`` on the real standard error, once (the main thread and
    the watcher may both come here)."""
    import os

    global _said
    with _say_lock:
        if _said:
            return
        _said = True
        try:
            os.write(_stderr, f"{command}: interrupted\n".encode("utf-8", "replace"))
        except OSError:
            pass


def install() -> None:
    """Make :func:`on_interrupt` the SIGINT handler and start the watcher (main thread
    only)."""
    try:
        _signal.signal(_signal.SIGINT, on_interrupt)
    except ValueError:  # not the main thread
        return
    _start_watcher()


def _start_watcher() -> None:
    """A thread blocked on the read end of the signal wakeup pipe (about 0.1 ms)."""
    import os

    global _watching
    if _watching:
        return
    try:
        read, write = _above_standard(*os.pipe())
        os.set_blocking(write, False)  # set_wakeup_fd requires it; the watcher blocks
        other = _signal.set_wakeup_fd(write, warn_on_full_buffer=False)
        if other != -1:  # another part of the process waits on signals so: leave it
            _signal.set_wakeup_fd(other)
            os.close(read)
            os.close(write)
            return
        _thread.start_new_thread(_watch, (read,))
    except (OSError, ValueError, RuntimeError, ImportError):  # no fcntl: not POSIX
        return
    _watching = True


def _above_standard(*fds: int) -> list[int]:
    """``fds`` moved above 2: a standard stream closed at the start stays closed (it
    gets ``/dev/null`` later, ``cli/main._standard_streams``), not our pipe."""
    import os

    if min(fds) > 2:
        return list(fds)
    import fcntl

    high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3) for fd in fds]
    for fd in fds:
        os.close(fd)
    return high


def _watch(fd: int) -> None:  # pragma: no cover - runs in a thread of the child process
    """Wait for SIGINT, give the main thread :data:`GRACE` seconds, then end the process:
    the temporary output files removed, the one line written, status 130."""
    import os
    import time

    while True:
        try:
            woken = os.read(fd, 64)
        except InterruptedError:
            continue
        except OSError:
            return
        if not woken:
            return
        if _signal.SIGINT in woken and _interrupts():
            break
    time.sleep(GRACE)
    atomic = sys.modules.get("cranfield.core.io.atomic")
    for tmp in list(getattr(atomic, "_live", ())):
        try:
            os.unlink(tmp)
        except OSError:
            pass
    say(command)
    os._exit(130)


def _interrupts() -> bool:
    """Whether the SIGINT that woke the watcher interrupts the command: it does unless
    the command has finished (SIGINT ignored since, see :func:`ignore`)."""
    return _signal.getsignal(_signal.SIGINT) is not _signal.SIG_IGN or interrupted


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
