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


def scan(src, stop=None) -> Scan:
    """Scan a path or a bytes-like object; ``stop`` (anything with ``is_set()``, such as
    a ``threading.Event``) ends the scan early, as a failed scan."""
    import numpy as np

    separators = 0
    ascii = True
    prev = True  # a separator at the very start is an empty field
    last = np.zeros(0, dtype=np.uint8)
    small_buf = np.empty(_CHUNK, dtype=bool)  # reused: no fresh pages per chunk
    touch_buf = np.empty(_CHUNK, dtype=bool)
    for a in _chunks(src):
        if stop is not None and stop.is_set():
            return _TOUCHING
        small = np.less(a, 0x21, out=small_buf[: len(a)])
        separators += int(np.count_nonzero(small))
        touching = np.logical_and(small[1:], small[:-1], out=touch_buf[: len(a) - 1])
        if (prev and small[0]) or touching.any():
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


PRESCAN_MIN = 1 << 22  # smaller files are scanned in a few milliseconds: not worth a process

# file identity -> (batch scanning it, its index in the batch)
_pending: dict[tuple, tuple] = {}
_lock = threading.Lock()


def _threads() -> int:
    """Threads of this process, Python's and native ones (Arrow's pool)."""
    try:
        with open("/proc/self/status", "rb") as fh:
            for line in fh:
                if line.startswith(b"Threads:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return threading.active_count() + 1  # unknown: assume more than one


def _can_fork() -> bool:
    # a forked copy of a process with other threads may inherit a lock one of them held
    return sys.platform.startswith("linux") and _threads() == 1


def prescan(paths) -> None:
    """Start scanning ``paths`` (one path or several) in the background, one after the
    other, for :func:`take` to collect.

    Skips what is not a regular, uncompressed file of at least ``PRESCAN_MIN`` bytes
    (callers leave out the runs they will stream). Scans are keyed by the file's path,
    size, modification time and inode, so a file changed in between is scanned again by
    its reader.

    On Linux, from a process with one thread (the command line, before the imports),
    the scans run in a forked child process: a thread would share the interpreter lock
    with the imports, which hold it for long stretches of module initialisation, and
    would advance at a fraction of its speed until they end. Elsewhere they run in a
    thread.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    chosen = []
    with _lock:
        for path in paths:
            key = _identity(path)
            if key is None or key in _pending or key[1] < PRESCAN_MIN:
                continue
            if any(key == k for k, _ in chosen) or _is_gzip(path):
                continue
            chosen.append((key, path))
        if not chosen:
            return
        files = [path for _, path in chosen]
        try:
            batch = _Forked(files) if _can_fork() else _Threaded(files)
        except OSError:  # no fork here (a sandbox, a process limit): a thread then
            batch = _Threaded(files)
        for i, (key, _) in enumerate(chosen):
            _pending[key] = (batch, i)


def _is_gzip(path) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(2) == b"\x1f\x8b"  # its bytes are not the text
    except OSError:
        return True


def _record(index: int, found: Scan | None) -> bytes:
    if found is None:  # the scan failed: the reader scans on its own
        return b"%d -2 0 0 0\n" % index
    separators = -1 if found.separators is None else found.separators
    head = (index, separators, found.ends_with_separator, found.ascii, len(found.tail))
    return b"%d %d %d %d %d\n" % head + found.tail


class _Orphaned:
    """``is_set()`` once the process ``parent`` has ended (a stop flag for :func:`scan`)."""

    def __init__(self, parent: int):
        self.parent = parent

    def is_set(self) -> bool:
        return os.getppid() != self.parent


class _Forked:
    """A child process that scans files in order and reports each through a pipe."""

    def __init__(self, paths: list):
        read_end, write_end = os.pipe()
        parent = os.getpid()
        try:
            pid = os.fork()
        except OSError:
            os.close(read_end)
            os.close(write_end)
            raise
        if pid == 0:  # the child: scan, report, leave without any clean-up
            try:
                os.close(read_end)
                # let go of the standard streams: whoever reads the command's output
                # must see it end when the command ends, not when this child does
                null = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(null, fd)
                orphaned = _Orphaned(parent)  # stop when the command is gone
                with os.fdopen(write_end, "wb", buffering=0) as out:
                    for i, path in enumerate(paths):
                        try:
                            found = scan(path, orphaned)
                        except Exception:
                            found = None
                        if orphaned.is_set():
                            break
                        out.write(_record(i, found))
            finally:
                os._exit(0)
        os.close(write_end)
        self.pid = pid
        self.pipe = os.fdopen(read_end, "rb")
        self.results: dict[int, Scan | None] = {}
        self.left = len(paths)
        self.lock = threading.Lock()

    def result(self, index: int) -> Scan | None:
        with self.lock:
            while index not in self.results and self.left:
                head = self.pipe.readline().split()
                if len(head) != 5:  # the child died
                    self.left = 0
                    break
                i, separators, ends, ascii, size = (int(x) for x in head)
                tail = self.pipe.read(size)
                self.results[i] = (
                    None
                    if separators == -2
                    else Scan(None if separators < 0 else separators, tail, bool(ends), bool(ascii))
                )
                self.left -= 1
            if not self.left and self.pid:
                self.pipe.close()
                os.waitpid(self.pid, 0)
                self.pid = 0
            return self.results.pop(index, None)


class _Threaded:
    """A thread that scans files in order."""

    def __init__(self, paths: list):
        self.results: dict[int, Scan | None] = {}
        self.done = [threading.Event() for _ in paths]

        def work():
            for i, path in enumerate(paths):
                try:
                    self.results[i] = scan(path)
                except Exception:  # the reader scans on its own (and reports the error)
                    self.results[i] = None
                self.done[i].set()

        threading.Thread(target=work, name="cranfield-prescan", daemon=True).start()

    def result(self, index: int) -> Scan | None:
        self.done[index].wait()
        return self.results.pop(index)


def take(path) -> Scan | None:
    """The result of :func:`prescan` for ``path`` (waiting for it), or None when there
    is none or the scan failed (the reader then scans on its own)."""
    key = _identity(path)
    with _lock:
        entry = _pending.pop(key, None) if key is not None else None
    if entry is None:
        return None
    batch, index = entry
    return batch.result(index)
