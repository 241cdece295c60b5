"""The byte scan that lets Arrow's CSV reader stand in for trec_eval's line splitter.

Arrow splits a line at one delimiter byte; trec_eval splits it at any run of
whitespace. The two agree when the file holds no byte below 0x21 other than the
delimiters and line ends Arrow saw (no tab, CR, other whitespace or control byte inside
a field) and no two such bytes touch (no empty field, blank line, or space at either end
of a line). :func:`scan` gathers what decides that in one pass over the bytes;
:meth:`Scan.agrees` decides it once Arrow has counted the rows.

A scan of a 250 MB file costs about 0.1 s of one core. The command line starts it in
a thread while the interpreter is still importing (:func:`prescan`), when the second
core is idle; the reader then collects the result instead of scanning while Arrow keeps
both cores busy. Only NumPy is imported here.
"""

from __future__ import annotations

import os
import stat
import threading
from dataclasses import dataclass

_CHUNK = 1 << 20


@dataclass(frozen=True)
class Scan:
    """What one pass over a file's bytes found."""

    separators: int | None  # bytes below 0x21; None when two of them touch
    tail: bytes  # the last 4 KiB (the run tag is on the last line)
    ends_with_separator: bool  # the last byte is below 0x21

    def agrees(self, rows: int, nfields: int) -> bool:
        """True when the separators are exactly Arrow's ``rows`` lines of ``nfields``
        fields: ``nfields - 1`` delimiters and a line end each (the last line may lack
        its newline, but then it must not end with a delimiter)."""
        if self.separators is None or not self.tail:
            return False
        if self.tail.endswith(b"\n"):
            return self.separators == nfields * rows
        return not self.ends_with_separator and self.separators == nfields * rows - 1


_TOUCHING = Scan(None, b"", False)


def _chunks(src):
    import numpy as np

    if isinstance(src, (bytes, bytearray, memoryview)):
        view = memoryview(src)
        for start in range(0, len(view), _CHUNK):
            yield np.frombuffer(view[start : start + _CHUNK], dtype=np.uint8)
        return
    buf = bytearray(_CHUNK)
    with open(src, "rb", buffering=0) as fh:
        while True:
            k = fh.readinto(buf)
            if not k:
                return
            yield np.frombuffer(buf, dtype=np.uint8, count=k)


def scan(src, stop: threading.Event | None = None) -> Scan:
    """Scan a path or a bytes-like object; ``stop`` ends the scan early (a failed scan)."""
    import numpy as np

    separators = 0
    prev = True  # a separator at the very start is an empty field
    last = np.zeros(0, dtype=np.uint8)
    for a in _chunks(src):
        if stop is not None and stop.is_set():
            return _TOUCHING
        small = a < 0x21
        separators += int(np.count_nonzero(small))
        if (prev and small[0]) or (small[1:] & small[:-1]).any():
            return _TOUCHING
        prev = bool(small[-1])
        last = np.concatenate((last, a[-4096:]))[-4096:]
    return Scan(separators, last.tobytes(), prev)


def _identity(path) -> tuple | None:
    try:
        st = os.stat(path)
    except (OSError, TypeError, ValueError):
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return (os.path.realpath(path), st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev)


_pending: dict[tuple, tuple[threading.Thread, list]] = {}
_lock = threading.Lock()


PRESCAN_LIMIT = 1 << 30  # larger runs are streamed piece by piece, not read whole


def prescan(path, limit: int | None = PRESCAN_LIMIT) -> None:
    """Start scanning ``path`` in a background thread, for :func:`take` to collect.

    Does nothing unless ``path`` is a regular, uncompressed file of at most ``limit``
    bytes. The scan is keyed by the file's path, size, modification time and inode, so
    a file changed in between is scanned again.
    """
    key = _identity(path)
    if key is None or (limit is not None and key[1] > limit):
        return
    try:
        with open(path, "rb") as fh:
            if fh.read(2) == b"\x1f\x8b":  # gzip: its bytes are not the text
                return
    except OSError:
        return
    out: list = []

    def work():
        try:
            out.append(scan(path))
        except BaseException as exc:  # re-raised by take(), in the caller's thread
            out.append(exc)

    thread = threading.Thread(target=work, name="cranfield-prescan", daemon=True)
    with _lock:
        if key in _pending:
            return
        _pending[key] = (thread, out)
    thread.start()


def take(path) -> Scan | None:
    """The result of :func:`prescan` for ``path`` (waiting for it), or None."""
    key = _identity(path)
    with _lock:
        entry = _pending.pop(key, None) if key is not None else None
    if entry is None:
        return None
    thread, out = entry
    thread.join()
    if isinstance(out[0], BaseException):
        raise out[0]
    return out[0]
