"""A progress bar on a terminal, nothing otherwise.

``Progress(total, "report")`` draws ``report [#####.....] 3/7 figures`` on standard
error when it is a terminal (``isatty()``), redrawing the line in place; when
standard error is a file or a pipe (CI logs, tests) it writes nothing at all. No
dependency: tqdm is not needed.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: the CLI's cold path)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TextIO


class Progress:
    """Count steps of long work; show them only on a terminal.

    Parameters
    ----------
    total
        Number of steps.
    label
        Text in front of the bar.
    stream
        Where to draw (standard error by default).
    width
        Characters of the bar.
    """

    def __init__(
        self,
        total: int,
        label: str = "",
        stream: TextIO | None = None,
        width: int = 30,
        unit: str = "",
    ):
        self.total = max(int(total), 1)
        self.label = label
        self.stream = sys.stderr if stream is None else stream
        self.width = width
        self.unit = unit  # "bytes": counts drawn in MB
        self.done = 0
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = bool(isatty and isatty())

    def step(self, what: str = "") -> None:
        """One step done; ``what`` names the next piece of work."""
        self.done = min(self.done + 1, self.total)
        self._draw(what)

    def set(self, done: int, what: str = "") -> None:
        """``done`` steps (or bytes) done so far."""
        self.done = max(0, min(int(done), self.total))
        self._draw(what)

    def watch(self, count: Callable[[], int], interval: float = 0.2, delay: float = 0.0) -> _Watch:
        """Redraw from ``count()`` every ``interval`` seconds while a ``with`` block runs.

        For work that cannot call :meth:`step` itself, such as one call into the compiled
        engine (which releases the interpreter while it works): a background thread
        polls the work's counter, drawing from ``delay`` seconds on (work done sooner
        draws nothing), and the bar's line is cleared when the block ends. Nothing is
        started when the bar is not drawn.
        """
        return _Watch(self, count, interval, delay)

    def _draw(self, what: str) -> None:
        if not self.enabled:
            return
        filled = round(self.width * self.done / self.total)
        bar = "#" * filled + "." * (self.width - filled)
        if self.unit == "bytes":
            counts = f"{self.done / 1e6:,.0f}/{self.total / 1e6:,.0f} MB"
        else:
            counts = f"{self.done}/{self.total}"
        line = f"{self.label} [{bar}] {counts} {what}"
        self.stream.write("\r" + line[:120].ljust(120))
        self.stream.flush()

    def close(self) -> None:
        """Clear the bar's line."""
        if self.enabled:
            self.stream.write("\r" + " " * 120 + "\r")
            self.stream.flush()

    def __enter__(self) -> Progress:
        self._draw("")
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class _Watch:
    """:meth:`Progress.watch`'s context: a thread redrawing the bar from a counter."""

    def __init__(self, bar: Progress, count: Callable[[], int], interval: float, delay: float):
        self.bar, self.count, self.interval, self.delay = bar, count, interval, delay
        self.thread = self.stop = None
        self.drawn = False

    def __enter__(self) -> Progress:
        if self.bar.enabled:
            import threading

            self.stop = threading.Event()
            self.thread = threading.Thread(
                target=self._poll, name="cranfield-progress", daemon=True
            )
            self.thread.start()
        return self.bar

    def _poll(self) -> None:
        if self.delay > 0 and self.stop.wait(self.delay):
            return
        while True:
            self.bar.set(self.count())
            self.drawn = True
            if self.stop.wait(self.interval):
                return

    def __exit__(self, *exc) -> None:
        if self.thread is None:
            return
        self.stop.set()
        self.thread.join()
        if self.drawn:
            self.bar.set(self.count())
            self.bar.close()


# the engine's reading: drawn for inputs of at least MIN_BYTES, from DELAY seconds on
MIN_BYTES = 32 << 20
DELAY = 0.5


class ReadProgress:
    """A bar of the bytes one engine call reads from TREC files, on a terminal.

    ``counter`` is the ``_engine.ReadCounter`` to pass as the call's ``progress=``, or
    None when no bar is drawn: standard error is not a terminal, an input is not a
    regular file (standard input, a pipe: no size to count against) or the inputs are
    small. Use it as a ``with`` block around the call.
    """

    def __init__(self, paths, label: str):
        import os
        import stat

        self.counter = self._watch = None
        bar = Progress(1, label, unit="bytes")
        if not bar.enabled:
            return
        total = 0
        for path in paths:
            try:
                st = os.stat(path)
            except (OSError, TypeError, ValueError):
                return
            if not stat.S_ISREG(st.st_mode):
                return
            total += st.st_size
        if total < MIN_BYTES:
            return
        from . import _engine

        bar.total = total
        self.counter = counter = _engine.ReadCounter()
        self._watch = bar.watch(lambda: counter.bytes, delay=DELAY)

    def __enter__(self) -> ReadProgress:
        if self._watch is not None:
            self._watch.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self._watch is not None:
            self._watch.__exit__(*exc)
