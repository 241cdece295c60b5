"""The byte scan that lets Arrow's CSV reader stand in for trec_eval's line splitter.

Arrow splits a line at one delimiter byte; trec_eval splits it at any run of
whitespace. The two agree when the file holds no byte below 0x21 other than the
delimiters and line ends Arrow saw (no tab, CR, other whitespace or control byte inside
a field) and no two such bytes touch (no empty field, blank line, or space at either end
of a line). :func:`scan` gathers what decides that in one pass over the bytes;
:meth:`Scan.agrees` decides it once Arrow has counted the rows.

A scan of a 250 MB file costs about 0.1 s of one core. The command line starts it
while the interpreter is still importing (:func:`prescan`), when the second core is
idle; the reader then collects the result instead of scanning while Arrow keeps both
cores busy. Only NumPy is imported here.
"""

from __future__ import annotations

import os
import stat
import sys
import threading
from collections import namedtuple

_CHUNK = 1 << 20


# (a named tuple, not a dataclass: importing dataclasses would delay the prescan)
class Scan(namedtuple("Scan", "separators tail ends_with_separator ascii")):
    """What one pass over a file's bytes found: the count of bytes below 0x21 (None when
    two of them touch), the last 4 KiB (the run tag is on the last line), whether the
    last byte is below 0x21, and whether every byte is ASCII (ids need no UTF-8 check)."""

    __slots__ = ()

    def agrees(self, rows: int, nfields: int) -> bool:
        """True when the separators are exactly Arrow's ``rows`` lines of ``nfields``
        fields: ``nfields - 1`` delimiters and a line end each (the last line may lack
        its newline, but then it must not end with a delimiter)."""
        if self.separators is None or not self.tail:
            return False
        if self.tail.endswith(b"\n"):
            return self.separators == nfields * rows
        return not self.ends_with_separator and self.separators == nfields * rows - 1


_TOUCHING = Scan(None, b"", False, False)


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
    ascii = True
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
        ascii = ascii and int(a.max()) < 0x80
        last = np.concatenate((last, a[-4096:]))[-4096:]
    return Scan(separators, last.tobytes(), prev, ascii)


def _identity(path) -> tuple | None:
    try:
        st = os.stat(path)
    except (OSError, TypeError, ValueError):
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return (os.path.realpath(path), st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev)


PRESCAN_LIMIT = 1 << 30  # larger runs are streamed piece by piece, not read whole

# key -> ("fork", pid, read end of a pipe) or ("thread", thread, [result])
_pending: dict[tuple, tuple] = {}
_lock = threading.Lock()


def _can_fork() -> bool:
    # a forked copy of a process with other threads may inherit a held lock
    return sys.platform.startswith("linux") and threading.active_count() == 1


def prescan(path, limit: int | None = PRESCAN_LIMIT) -> None:
    """Start scanning ``path`` in the background, for :func:`take` to collect.

    Does nothing unless ``path`` is a regular, uncompressed file of at most ``limit``
    bytes. The scan is keyed by the file's path, size, modification time and inode, so
    a file changed in between is scanned again.

    On Linux, from a process with one thread (the command line), the scan runs in a
    forked child process: a thread would share the interpreter lock with the imports,
    which hold it for long stretches of module initialisation, and would advance at a
    fraction of its speed until they end. Elsewhere it runs in a thread.
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
    with _lock:
        if key in _pending:
            return
        if _can_fork():
            _pending[key] = _fork_scan(path)
            return
        out: list = []

        def work():
            try:
                out.append(scan(path))
            except BaseException as exc:  # re-raised by take(), in the caller's thread
                out.append(exc)

        thread = threading.Thread(target=work, name="cranfield-prescan", daemon=True)
        _pending[key] = ("thread", thread, out)
    thread.start()


def _fork_scan(path) -> tuple:
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: scan, report, leave without any clean-up
        status = 0
        try:
            os.close(read_end)
            found = scan(path)
            message = b"%d %d %d\n" % (
                -1 if found.separators is None else found.separators,
                found.ends_with_separator,
                found.ascii,
            )
            with os.fdopen(write_end, "wb") as fh:
                fh.write(message + found.tail)
        except BaseException:  # the parent scans on its own
            status = 1
        finally:
            os._exit(status)
    os.close(write_end)
    return ("fork", pid, read_end)


def _collect_fork(pid: int, read_end: int) -> Scan | None:
    with os.fdopen(read_end, "rb") as fh:
        data = fh.read()
    os.waitpid(pid, 0)
    head, sep, tail = data.partition(b"\n")
    if not sep:
        return None
    separators, ends, ascii = (int(x) for x in head.split())
    return Scan(None if separators < 0 else separators, tail, bool(ends), bool(ascii))


def take(path) -> Scan | None:
    """The result of :func:`prescan` for ``path`` (waiting for it), or None."""
    key = _identity(path)
    with _lock:
        entry = _pending.pop(key, None) if key is not None else None
    if entry is None:
        return None
    if entry[0] == "fork":
        return _collect_fork(entry[1], entry[2])
    _, thread, out = entry
    thread.join()
    if isinstance(out[0], BaseException):
        raise out[0]
    return out[0]
