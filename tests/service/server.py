"""``cranfield serve`` as a real process on a free localhost port, for the load, demo
and browser tests."""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[2] / "src")
#: a folder whose sitecustomize.py lowers the Argon2 costs in the server's processes
CHEAP_HASHING = str(Path(__file__).resolve().parent / "cheap_hashing")
START_TIMEOUT = 90.0


def free_port() -> int:
    """A free localhost port below the kernel's ephemeral range (32768 on), so no
    socket bound to port 0 takes it before the server binds it. Under pytest-xdist each
    worker only takes ports of its own residue modulo the number of workers: another
    worker's server can never be on the port chosen here (and answer this one's health
    check)."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
    rng = random.Random()
    for _ in range(1000):
        port = rng.randrange(20000, 32000, workers) + worker % workers
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port
    raise RuntimeError("no free localhost port between 20000 and 32000")


class Server:
    """``cranfield serve ARGS --port PORT``; :meth:`start`, :meth:`kill` (SIGKILL),
    :meth:`stop`; the output is kept in ``log``. Its passwords are hashed at the tests'
    small Argon2 costs unless ``cheap_hashing`` is false (the deployed costs)."""

    def __init__(self, *args: str, port: int | None = None, cwd=None, cheap_hashing: bool = True):
        self.args = [str(a) for a in args]
        self.path = os.pathsep.join([SRC, CHEAP_HASHING] if cheap_hashing else [SRC])
        self.port = port or free_port()
        self.cwd = cwd
        self.proc: subprocess.Popen | None = None
        self.log = Path(cwd or ".") / f"server-{self.port}.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> str:
        """Start and wait until ``/api/health`` answers; returns what it printed so far."""
        env = {**os.environ, "PYTHONPATH": self.path, "PYTHONUNBUFFERED": "1"}
        out = open(self.log, "ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "cranfield", "serve", *self.args, "--port", str(self.port)],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=self.cwd,
            start_new_session=True,
        )
        out.close()
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited: {self.log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(self.url + "/api/health", timeout=2) as r:
                    if r.status == 200:
                        return self.log.read_text()
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"the server did not start: {self.log.read_text()[-2000:]}")

    def kill(self) -> None:
        """SIGKILL: no shutdown handler runs."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(30)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.kill()

    def __enter__(self) -> Server:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
