"""A named pipe with a writer thread, for tests of readers given a FIFO."""

from __future__ import annotations

import os
import threading
from pathlib import Path


def fifo_with_writer(fifo: Path, data: bytes) -> tuple[Path, threading.Thread]:
    """Make the named pipe ``fifo`` and start a daemon thread that writes ``data`` to it
    (it blocks until a reader opens the pipe)."""
    os.mkfifo(fifo)

    def feed():
        with open(fifo, "wb") as fh:
            fh.write(data)

    thread = threading.Thread(target=feed, daemon=True)
    thread.start()
    return fifo, thread
