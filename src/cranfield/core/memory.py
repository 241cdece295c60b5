"""How much of an input this process may hold in memory, and how the compiled engine
reads a run.

The compiled engine (``cranfield._engine``) reads a TREC run — on every path of the
command line — whole when it is small and in query-aligned pieces of bounded size
otherwise, and decides that inside itself; :func:`engine_reading` gives it the budget
for a run it must read whole (one not grouped by query, or with ``--no-stream``) and
maps ``--stream``/``--no-stream``. :func:`input_budget` is that budget, also the most
any reader holds of an input that is not a regular file:

* the memory the system has available (``MemAvailable``), of which at most
  ``RAM_SHARE`` is taken, so that other programs keep theirs;
* the memory limit of the process's control group (containers, ``systemd-run``);
* the address-space limit (``ulimit -v``, ``prlimit --as``), of which the interpreter,
  its libraries and Arrow's allocator take about ``ADDRESS_SPACE_BASE`` before any
  data.

Reading a TREC run whole into Arrow's columns needs about ``NEED_PER_BYTE`` times its
text. Only the standard library is imported here: the command line decides before the
heavy imports.
"""

from __future__ import annotations

import os

RAM_SHARE = 0.6
NEED_PER_BYTE = 1.4
NEED_BASE = 200 << 20  # interpreter, NumPy, Arrow and the qrels
ADDRESS_SPACE_PER_BYTE = 2.0
ADDRESS_SPACE_BASE = 3 << 29  # 1.5 GiB: libraries and allocator reservations
WHOLE_BYTES = 1 << 29
"""The compiled engine reads plain run files up to this size whole (fastest), larger
ones in pieces (bounded memory)."""


ARRAY_LIBRARIES_ROOM = 240 << 20
"""Address space NumPy and PyArrow need to load. Importing them grows the address space
by about 290 MB (their libraries, OpenBLAS's buffers, Arrow's thread pools); under a
limit that leaves them less than this, PyArrow's C++ start-up was seen to abort the
process (``std::bad_alloc`` during ``import pyarrow.compute``), which no handler can
turn into a message."""


def check_room_for_arrays() -> None:
    """Raise :class:`MemoryError` (the command line's "out of memory" line) before NumPy
    and PyArrow are imported when the address-space limit leaves them less than
    :data:`ARRAY_LIBRARIES_ROOM`; nothing when they are loaded or there is no limit."""
    import sys

    if "numpy" in sys.modules and "pyarrow.compute" in sys.modules:
        return
    limit = _address_space_limit()
    used = _address_space_used()
    if limit is not None and used is not None and limit - used < ARRAY_LIBRARIES_ROOM:
        raise MemoryError("too little address space left to load NumPy and PyArrow")


def _address_space_used() -> int | None:
    """This process's address space (``VmSize``), or None where /proc does not say."""
    try:
        with open("/proc/self/status", "rb") as fh:
            for line in fh:
                if line.startswith(b"VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


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


#: glibc's mallopt parameter for the most malloc arenas (malloc.h: M_ARENA_MAX)
M_ARENA_MAX = -8


def one_malloc_arena_under_a_limit() -> bool:
    """Under an address-space limit (``ulimit -v``), have glibc's malloc keep one arena.

    Each thread that allocates while another holds the lock may get an arena of its own,
    which reserves 64 MiB of address space (up to 8 per core): the engine's reader
    threads could then exhaust a small limit by reservations alone, or not, depending
    on timing. Returns whether the setting was made (False: no limit, or not glibc)."""
    if _address_space_limit() is None:
        return False
    try:
        import ctypes

        return bool(ctypes.CDLL(None).mallopt(M_ARENA_MAX, 1))
    except (OSError, AttributeError):  # not glibc: nothing to set
        return False


def input_budget() -> int | None:
    """The most bytes an input that is not a regular file (standard input, a pipe, a
    device, decompressed gzip) may hold when it is read whole into memory: what
    reading a file of that size whole may take. None when no memory figure
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


def regrouped(query: str, source: str, line: int | None):
    """The error for a run read piece by piece by the compiled engine whose
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


def read_once(path) -> bool:
    """Whether the input at ``path`` can be read only once: standard input (``-``), a
    named pipe or a device — not a regular file nor a directory (nor a path that cannot
    be examined: its reading reports why)."""
    import stat

    if str(path) == "-":
        return True
    try:
        mode = os.stat(path).st_mode
    except (OSError, TypeError, ValueError):
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def engine_reading(stream: bool | None) -> dict:
    """The reading options of the compiled engine for ``--stream`` (True: pieces only,
    a query reappearing in a later piece is an error),
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
