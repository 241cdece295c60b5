"""Whether a run file fits in memory, or must be streamed piece by piece.

The compiled engine (``cranfield._engine``) always reads a TREC run in query-aligned
pieces of bounded size and decides inside itself; :func:`engine_reading` gives it the
budget for a run it must read whole (one not grouped by query). The rest of this
module decides for the NumPy path (``streaming.py``), which the command line takes only
where the engine does not.

Reading a TREC run whole is the fastest path, and it needs about 1.4 times the file's
size in memory (Arrow's columns, the pair index, the judged labels: measured 3.4 GB of
peak RSS for a 2.6 GB, 70-million-line run). The command line reads a run whole when
that fits in what this process may use, and streams it otherwise (``streaming.py``):

* the memory the system has available (``MemAvailable``), of which at most
  ``RAM_SHARE`` is taken, so that other programs keep theirs;
* the memory limit of the process's control group (containers, ``systemd-run``);
* the address-space limit (``ulimit -v``, ``prlimit --as``), of which the interpreter,
  its libraries and Arrow's allocator take about ``ADDRESS_SPACE_BASE`` before any
  data.

Where none of these can be read (not Linux), runs above ``STREAM_THRESHOLD`` bytes
are streamed. Only the standard library is imported here: the command line decides
before the heavy imports.
"""

from __future__ import annotations

import os

STREAM_THRESHOLD = 1 << 30
"""Without readable memory limits, run files larger than this (bytes) are streamed."""
RAM_SHARE = 0.6
NEED_PER_BYTE = 1.4
NEED_BASE = 200 << 20  # interpreter, NumPy, Arrow and the qrels
ADDRESS_SPACE_PER_BYTE = 2.0
ADDRESS_SPACE_BASE = 3 << 29  # 1.5 GiB: libraries and allocator reservations
WHOLE_BYTES = 1 << 29
"""The compiled engine reads plain run files up to this size whole (fastest), larger
ones in pieces (bounded memory)."""


def _meminfo_available() -> int | None:
    try:
        with open("/proc/meminfo", "rb") as fh:
            for line in fh:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _cgroup_room() -> int | None:
    """The memory limit of this process's control group minus its current use, or None
    when there is no limit (cgroup v2, or v1's memory controller)."""
    try:
        with open("/proc/self/cgroup") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        hierarchy, controllers, path = parts
        if hierarchy == "0" and not controllers:
            base, files = "/sys/fs/cgroup", ("memory.max", "memory.current")
        elif "memory" in controllers.split(","):
            base, files = (
                "/sys/fs/cgroup/memory",
                ("memory.limit_in_bytes", "memory.usage_in_bytes"),
            )
        else:
            continue
        try:
            with open(os.path.join(base, path.lstrip("/"), files[0])) as fh:
                limit = fh.read().strip()
            if limit == "max" or int(limit) >= 1 << 60:  # no limit
                continue
            with open(os.path.join(base, path.lstrip("/"), files[1])) as fh:
                return max(0, int(limit) - int(fh.read().strip()))
        except (OSError, ValueError):
            continue
    return None


def _address_space_limit() -> int | None:
    try:
        import resource
    except ImportError:  # not POSIX
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    return None if soft == resource.RLIM_INFINITY else soft


def _data_size(path) -> int | None:
    """The size of the text in a file: its size, or for gzip the size the trailer
    records (modulo 4 GiB, so at least four times the compressed size is assumed)."""
    try:
        size = os.stat(path).st_size
        with open(path, "rb") as fh:
            if fh.read(2) != b"\x1f\x8b" or size < 20:
                return size
            fh.seek(-4, os.SEEK_END)
            recorded = int.from_bytes(fh.read(4), "little")
        return max(recorded, 4 * size)
    except (OSError, TypeError, ValueError):
        return None


def fits_in_memory(path) -> bool | None:
    """True when reading ``path`` whole fits in this process's memory, False when it
    does not, None when no memory figure could be read."""
    size = _data_size(path)
    if size is None:
        return True  # not a file: read as usual (errors are reported by the reader)
    need = NEED_PER_BYTE * size + NEED_BASE
    known = False
    available = _meminfo_available()
    if available is not None:
        known = True
        if need > RAM_SHARE * available:
            return False
    room = _cgroup_room()
    if room is not None:
        known = True
        if need > room:
            return False
    limit = _address_space_limit()
    if limit is not None:
        known = True
        if ADDRESS_SPACE_PER_BYTE * size + ADDRESS_SPACE_BASE > limit:
            return False
    return True if known else None


def input_budget() -> int | None:
    """The most bytes an input that is not a regular file (standard input, a pipe, a
    device, decompressed gzip) may hold when it is read whole into memory: what
    :func:`fits_in_memory` would allow a file of that size. None when no memory figure
    can be read (then only the interpreter's own ``MemoryError`` stops it)."""
    budgets = []
    available = _meminfo_available()
    if available is not None:
        budgets.append((RAM_SHARE * available - NEED_BASE) / NEED_PER_BYTE)
    room = _cgroup_room()
    if room is not None:
        budgets.append((room - NEED_BASE) / NEED_PER_BYTE)
    limit = _address_space_limit()
    if limit is not None:
        budgets.append((limit - ADDRESS_SPACE_BASE) / ADDRESS_SPACE_PER_BYTE)
    if not budgets:
        return None
    return max(1 << 20, int(min(budgets)))


def should_stream(path, stream: bool | None = None) -> bool:
    """``stream`` if given; else whether the run file ``path`` should be streamed
    because reading it whole would not fit (see the module's notes). Standard input
    and file objects are never streamed by default."""
    if stream is not None:
        return bool(stream)
    if not isinstance(path, (str, os.PathLike)) or str(path) == "-":
        return False
    if not os.path.isfile(path):
        return False
    fits = fits_in_memory(path)
    if fits is None:
        size = _data_size(path)
        return size is not None and size > STREAM_THRESHOLD
    return not fits


def regrouped(query: str, source: str, line: int | None):
    """The error for a run read piece by piece (here or by the compiled engine) whose
    query ``query`` reappears at ``line`` after another query's lines."""
    from ..errors import InputError

    return InputError(
        f"query {query!r} appears again after other queries: streaming needs each query's "
        "lines together (sort the run by query id, or evaluate it in memory)",
        source=source,
        line=line,
    )


def engine_error(exc: BaseException):
    """The :class:`~cranfield.errors.InputError` for a failure of the compiled engine's
    streamed reading that no other path would read differently — a query reappearing
    in a later piece, memory lacking for a piece — or None (the caller's general path
    then reports the problem)."""
    args = getattr(exc, "args", ())  # (what, input, line, detail[, run index])
    if len(args) < 4 or args[0] not in ("regrouped", "memory"):
        return None
    what, _, line, (detail, path) = args[:4]
    source = "<stdin>" if str(path) == "-" else str(path)
    if what == "regrouped":
        return regrouped(detail, source, line)
    from ..errors import InputError

    return InputError(detail, source=source)


def engine_stdin() -> bool:
    """Whether the compiled engine may read standard input (``-``): it reads file
    descriptor 0, so only when ``sys.stdin`` is that descriptor (not a stream put in its
    place, as by a test or a program calling the command line's ``main``)."""
    import sys

    try:
        return sys.stdin is not None and sys.stdin.fileno() == 0
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both
        return False


def engine_reading(stream: bool | None) -> dict:
    """The reading options of the compiled engine for ``--stream`` (True: pieces only,
    a query reappearing in a later piece is an error, as in ``streaming.py``),
    ``--no-stream`` (False: the run read whole) or neither (None: a plain file up to
    ``WHOLE_BYTES`` — or what fits, if less — read whole, larger runs in pieces, and a
    run not grouped by query read whole when it fits: :func:`input_budget`)."""
    budget = input_budget()
    if stream is None:
        whole = WHOLE_BYTES if budget is None else min(WHOLE_BYTES, budget)
        return {"max_bytes": budget, "whole_bytes": whole}
    if stream:  # (the budget still caps a gzip qrels file's text)
        return {"max_bytes": budget, "whole_bytes": 0, "regroup_bytes": 0}
    return {"max_bytes": budget, "piece_bytes": 0}
