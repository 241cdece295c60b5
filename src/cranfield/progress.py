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

    def watch(self, count: Callable[[], int], interval: float = 0.2) -> _Watch:
        """Redraw from ``count()`` every ``interval`` seconds while a ``with`` block runs.

        For work that cannot call :meth:`step` itself, such as one call into the compiled
        engine (which releases the interpreter while it works): a background thread
        polls the work's counter. Nothing is started when the bar is not drawn.
        """
        return _Watch(self, count, interval)

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

    def __init__(self, bar: Progress, count: Callable[[], int], interval: float):
        self.bar, self.count, self.interval = bar, count, interval
        self.thread = self.stop = None

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
        while not self.stop.wait(self.interval):
            self.bar.set(self.count())

    def __exit__(self, *exc) -> None:
        if self.thread is not None:
            self.stop.set()
            self.thread.join()
            self.bar.set(self.count())
