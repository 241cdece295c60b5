"""Work started in a thread now and collected later (NumPy and Arrow release the GIL
in their whole-array operations, so such work overlaps with the caller's)."""

from __future__ import annotations

import threading
from collections.abc import Callable


def in_thread(function: Callable, *args) -> Callable:
    """Start ``function(*args)`` in a daemon thread; the returned callable waits for
    its result and returns it (or raises its exception in the caller's thread)."""
    out: list = []

    def work():
        try:
            out.append((True, function(*args)))
        except BaseException as exc:  # handed to the caller's thread
            out.append((False, exc))

    thread = threading.Thread(target=work, daemon=True)
    thread.start()

    def result():
        thread.join()
        ok, value = out[0]
        if not ok:
            raise value
        return value

    return result
