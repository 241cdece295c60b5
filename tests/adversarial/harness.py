"""Run ``cranfield`` as a real process under hostile conditions and check the promise.

The promise (docs/input-formats.md, "Guarantees"): whatever it is given, cranfield ends
in bounded time and memory with either a correct result or exactly one line on stderr and
a non-zero status; never a traceback, a hang, a modified input or a half-written output.

Every subcommand's adversarial tests use these helpers:

* :func:`run_cli` runs ``python -m cranfield ARGS`` in a subprocess with a wall-clock
  timeout and an address-space limit (``ulimit -v``), optionally with stdin, stdout or
  stderr closed;
* :func:`assert_clean_failure` / :func:`assert_success` check status and stderr;
* :class:`Unchanged` checksums files before and after (content and mtime);
* :func:`run_main` runs the same command line in-process (pytest's ``capsys``), for
  tests that need no separate process (the ``cli`` fixture of ``tests/conftest.py``).
"""

from __future__ import annotations

import hashlib
import os
import resource
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[2] / "src")
DEFAULT_TIMEOUT = 60.0
DEFAULT_MEMORY = 3 << 30  # bytes of address space; NumPy and Arrow reserve ~1 GiB at start


@dataclass
class Outcome:
    argv: list[str]
    status: int
    stdout: bytes
    stderr: str

    def __str__(self) -> str:  # shown when an assertion fails
        return (
            f"cranfield {' '.join(self.argv)}\n  status {self.status}\n"
            f"  stderr {self.stderr!r}\n  stdout {self.stdout[:400]!r}"
        )


def _limits(memory: int | None):
    def apply() -> None:
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return apply


def run_cli(
    *argv: str | os.PathLike,
    stdin: bytes | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    memory: int | None = DEFAULT_MEMORY,
    cwd: str | os.PathLike | None = None,
    close_stdin: bool = False,
    close_stdout: bool = False,
    close_stderr: bool = False,
    env: dict[str, str] | None = None,
) -> Outcome:
    """Run the command line as a separate process; fail the test if it does not end.

    ``close_*`` start the process with that standard stream closed (as the shell's
    ``<&-``, ``>&-``, ``2>&-`` do). A closed stderr leaves ``Outcome.stderr`` empty.
    """
    args = [str(a) for a in argv]
    full_env = {**os.environ, "PYTHONPATH": SRC, "PYTHONFAULTHANDLER": "", **(env or {})}
    code = (
        "import os, runpy, sys\n"
        f"for fd, closed in ((0, {close_stdin}), (1, {close_stdout}), (2, {close_stderr})):\n"
        "    if closed:\n"
        "        os.close(fd)\n"
        "sys.argv = ['cranfield', *sys.argv[1:]]\n"
        "runpy.run_module('cranfield', run_name='__main__')\n"
    )
    # Closing inside the child (after the interpreter started) is the only portable way to
    # hand Python a closed standard stream: it then sees sys.stdout etc. as None or broken,
    # exactly as under `cranfield ... >&-`.
    cmd = [sys.executable, "-c", code, *args]
    try:
        done = subprocess.run(
            cmd,
            input=stdin if not close_stdin else None,
            stdin=subprocess.DEVNULL if stdin is None and not close_stdin else None,
            capture_output=True,
            timeout=timeout,
            cwd=cwd,
            env=full_env,
            preexec_fn=_limits(memory),
            check=False,
        )
    except subprocess.TimeoutExpired as exc:  # a hang is a defect, never a skip
        raise AssertionError(f"cranfield {' '.join(args)} did not end within {timeout} s") from exc
    return Outcome(args, done.returncode, done.stdout, done.stderr.decode("utf-8", "replace"))


def run_main(capsys, *argv: str | os.PathLike) -> tuple[int, str, str]:
    """``cranfield ARGV`` in this process: (status, stdout, stderr) captured by ``capsys``."""
    from cranfield.cli.main import main

    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def assert_clean_failure(outcome: Outcome, *mentions: str, status: int | None = 2) -> str:
    """One line on stderr, no traceback, a non-zero status (``status`` if given)."""
    assert outcome.status != 0, outcome
    if status is not None:
        assert outcome.status == status, outcome
    err = outcome.stderr
    assert "Traceback" not in err, outcome
    assert err.endswith("\n") and err.count("\n") == 1, outcome
    for text in mentions:
        assert text in err, f"{text!r} not in stderr\n{outcome}"
    return err.rstrip("\n")


def assert_success(outcome: Outcome, *, quiet: bool = False) -> None:
    """Status 0 and no traceback; with ``quiet``, nothing at all on stderr."""
    assert outcome.status == 0, outcome
    assert "Traceback" not in outcome.stderr, outcome
    if quiet:
        assert outcome.stderr == "", outcome


def digest(path: str | os.PathLike) -> tuple[str, int] | None:
    """(sha256 of the content, mtime in ns), or None when the file does not exist."""
    p = Path(path)
    if not p.exists():
        return None
    return hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns


class Unchanged:
    """Context manager: the given files have the same content and mtime afterwards."""

    def __init__(self, *paths: str | os.PathLike) -> None:
        self.paths = [Path(p) for p in paths]

    def __enter__(self) -> Unchanged:
        self.before = {p: digest(p) for p in self.paths}
        return self

    def __exit__(self, *exc) -> None:
        if exc[0] is None:
            for p in self.paths:
                assert digest(p) == self.before[p], f"{p} was modified"
