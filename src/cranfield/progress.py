"""A progress bar on a terminal, nothing otherwise.

``Progress(total, "report")`` draws ``report [#####.....] 3/7 figures`` on standard
error when it is a terminal (``isatty()``), redrawing the line in place; when
standard error is a file or a pipe (CI logs, tests) it writes nothing at all. No
dependency: tqdm is not needed.
"""

from __future__ import annotations

import sys
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

    def __init__(self, total: int, label: str = "", stream: TextIO | None = None, width: int = 30):
        self.total = max(int(total), 1)
        self.label = label
        self.stream = sys.stderr if stream is None else stream
        self.width = width
        self.done = 0
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = bool(isatty and isatty())

    def step(self, what: str = "") -> None:
        """One step done; ``what`` names the next piece of work."""
        self.done = min(self.done + 1, self.total)
        self._draw(what)

    def _draw(self, what: str) -> None:
        if not self.enabled:
            return
        filled = round(self.width * self.done / self.total)
        bar = "#" * filled + "." * (self.width - filled)
        line = f"{self.label} [{bar}] {self.done}/{self.total} {what}"
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
