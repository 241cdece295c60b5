"""Evaluate a TREC run larger than memory, one query-aligned piece at a time.

The file is read in blocks of about ``chunk_bytes`` bytes, cut at the start of the
last query's lines (a run lists each query's documents together), and every piece
is parsed, checked for duplicates and judged exactly as a whole file would be
(``io.trec.read`` and ``judged.judge``, with line numbers counted from the start of
the file). Only the judged labels (one byte per ranked document) are kept;
``judged.concat`` joins them into the :class:`~cranfield.core.judged.JudgedRun` the
in-memory path builds, so every per-query value and every mean is the same, bit for
bit, and measures run once on the whole.

A query whose lines are split over two pieces (the file is not grouped by query) is
an input error naming the line where it reappears.
"""

from __future__ import annotations

import gzip
import math
import os
import re
import sys
import time
import zlib
from collections.abc import Iterator

from ..errors import InputError
from .io import trec
from .io.source import GZIP_MAGIC, MAX_LINE, is_regular, open_binary, source_name
from .judged import JudgedRun, concat, judge
from .memory import STREAM_THRESHOLD, should_stream  # noqa: F401  (re-exported)
from .options import JudgeOptions, merged

_NON_SPACE = re.compile(rb"[^ \t\n\r\x0b\x0c]")

CHUNK_BYTES = 1 << 26
"""Bytes read per piece (64 MiB: about 2 million run lines)."""


def use_system_allocator() -> None:
    """Make Arrow allocate with the C library's malloc from now on.

    Arrow's default allocator (mimalloc) reserves over a gigabyte of address space up
    front, which fails under an address-space limit (``ulimit -v``, ``prlimit --as``)
    long before memory runs out. The command line tools call this before reading
    anything when they stream.
    """
    import pyarrow as pa

    if pa.default_memory_pool().backend_name != "system":
        pa.set_memory_pool(pa.system_memory_pool())


def _last_group_start(data, end: int) -> int:
    """Where the lines of the last query of ``data[:end]`` begin (0: all one query).

    Only complete lines count; blank and comment lines belong to the lines after them.
    Reads backwards line by line through the last query's lines only.
    """
    pos = data.rfind(b"\n", 0, end)
    last = None
    while pos >= 0:
        start = data.rfind(b"\n", 0, pos) + 1
        fields = bytes(data[start:pos]).split(None, 1)
        if fields and not fields[0].startswith(b"#"):
            if last is None:
                last = fields[0]
            elif fields[0] != last:
                return pos + 1
        pos = start - 1
    return 0


def _fill(fh, view: memoryview) -> int:
    """Read into ``view`` until it is full or the file ends; bytes read."""
    got = 0
    while got < len(view):
        k = fh.readinto(view[got:])
        if not k:
            break
        got += k
    return got


def _check(buf: bytearray, start: int, end: int, lines_before: int, source: str) -> None:
    """The new bytes ``buf[start:end]`` hold no NUL byte, and the unfinished last line
    of ``buf[:end]`` is not over ``MAX_LINE`` bytes (what cannot be a run stops the
    reading at once; finished long lines are the parser's to report)."""
    nul = buf.find(b"\0", start, end)
    if nul >= 0:
        line = lines_before + buf.count(b"\n", 0, nul) + 1
        raise InputError("NUL byte: this is binary data, not a text file", source, line)
    if end - buf.rfind(b"\n", 0, end) - 1 > MAX_LINE:
        line = lines_before + buf.count(b"\n", 0, end) + 1
        raise InputError(
            f"line longer than {MAX_LINE >> 20} MiB (the most one line may hold)", source, line
        )


def pieces(
    fh, chunk_bytes: int = CHUNK_BYTES, source: str = "<file>"
) -> Iterator[tuple[memoryview, int]]:
    """``(bytes, lines before them)`` of whole queries, from a binary file object.

    Each piece is a view of a fresh buffer, valid until the next piece is asked for.
    A NUL byte or a line longer than ``MAX_LINE`` is an :class:`InputError` (so that
    ``/dev/zero`` cannot grow a piece without end).
    """
    carry = b""
    lines_before = 0
    while True:
        buf = bytearray(len(carry) + chunk_bytes)
        buf[: len(carry)] = carry
        view = memoryview(buf)
        got = _fill(fh, view[len(carry) :])
        end = len(carry) + got
        _check(buf, len(carry), end, lines_before, source)
        if not got:
            if carry:
                yield memoryview(carry), lines_before
            return
        if got < chunk_bytes:  # the file ends here: the rest is one piece
            yield view[:end], lines_before
            return
        cut = _last_group_start(buf, end)
        if cut == 0:  # one query so far: read on
            carry = bytes(view[:end])
            continue
        yield view[:cut], lines_before
        lines_before += buf.count(b"\n", 0, cut)
        carry = bytes(view[cut:end])


def _open(path, source: str):
    """Open the input once (a pipe cannot be opened twice); gzip by its first bytes."""
    if str(path) == "-":
        if sys.stdin is None:
            raise InputError("standard input is closed", source=source)
        fh = sys.stdin.buffer
    else:
        fh = open_binary(path, source)
    head = fh.peek(2)[:2] if hasattr(fh, "peek") else b""
    return gzip.GzipFile(fileobj=fh, mode="rb") if head == GZIP_MAGIC else fh


class _Bar:
    """The report progress bar, shown only once the work has taken a second."""

    def __init__(self, total: int, label: str):
        self.total, self.label = total, label
        self.t0 = time.monotonic()
        self.bar = None
        self.done = 0

    def step(self) -> None:
        self.done += 1
        if self.bar is None and time.monotonic() - self.t0 > 1.0:
            from ..progress import Progress

            self.bar = Progress(max(self.total, self.done), self.label)
            self.bar.done = self.done - 1
        if self.bar is not None:
            self.bar.total = max(self.bar.total, self.done)
            self.bar.step("pieces")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def judge_file(
    qrels,
    path,
    options: JudgeOptions | None = None,
    *,
    name: str | None = None,
    chunk_bytes: int | None = None,
    progress: bool = True,
    encoding: str = "utf-8",
    **judging,
) -> JudgedRun:
    """Judge a TREC run file piece by piece: the JudgedRun ``judge`` gives for the
    whole file (``doc_rows`` aside), in bounded memory.

    ``options`` (or its fields as keyword arguments) are the
    :class:`~cranfield.core.options.JudgeOptions`, ``duplicates`` included;
    ``name`` the run's name (default: its TREC tag); ``chunk_bytes`` is the size of the
    blocks read (default ``CHUNK_BYTES``); ``progress`` draws a bar on a terminal when
    the work takes more than a second; ``encoding`` is that of ``io.trec.read``. The
    input is opened and read once (a named pipe or standard input works).
    """
    from .run import Run, _default_name

    opts = merged(options, judging)
    piece_options = JudgeOptions.of(opts, complete=False)  # concat applies -c to the whole
    source = source_name(path)
    chunk_bytes = CHUNK_BYTES if chunk_bytes is None else chunk_bytes
    if not isinstance(chunk_bytes, int) or chunk_bytes <= 0:
        from ..errors import ParameterError

        raise ParameterError("chunk_bytes", "a positive integer", chunk_bytes)
    parts: list[JudgedRun] = []
    seen: set = set()
    tag = None
    bar = None
    try:
        with _open(path, source) as fh:
            size = os.fstat(fh.fileno()).st_size if is_regular(fh) else 0
            if progress:
                bar = _Bar(math.ceil(size / chunk_bytes) if size else 0, "evaluating")
            for data, before in pieces(fh, chunk_bytes, source):
                if not _NON_SPACE.search(data):  # only blank lines
                    continue
                parsed, _ = trec.read(
                    data,
                    trec.RUN,
                    opts.duplicates,
                    source=source,
                    line_offset=before,
                    encoding=encoding,
                )
                run = Run._wrap(parsed.table, source, name="")
                starts, ids = _query_blocks(parsed.table)
                again = [i for i, q in enumerate(ids) if q in seen]  # one per query block
                if again:
                    row = int(starts[again[0]])
                    raise InputError(
                        f"query {ids[again[0]]!r} appears again after other queries: streaming "
                        "needs each query's lines together (sort the run by query id, or "
                        "evaluate it in memory)",
                        source=source,
                        line=parsed.line_of(row) + before,
                    )
                seen.update(ids)
                tag = parsed.tag if parsed.tag is not None else tag
                parts.append(judge(qrels, run, piece_options))
                del run, parsed
                if bar is not None:
                    bar.step()
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise InputError(f"truncated or corrupt gzip data ({exc})", source=source) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", source=source) from exc
    finally:
        if bar is not None:
            bar.close()
    if not parts:
        raise InputError("no run lines found (empty file?)", source=source)
    run_name = name if name is not None else (tag if tag is not None else _default_name(source))
    return concat(qrels, parts, opts, run_name=run_name)


def evaluate_file(
    qrels,
    path,
    measures=None,
    options: JudgeOptions | None = None,
    *,
    aggregate_by: str = "macro",
    skip_no_relevant: bool = False,
    collection_size: int | None = None,
    name: str | None = None,
    chunk_bytes: int | None = None,
    progress: bool = True,
    **judging,
):
    """:func:`cranfield.evaluate` for one TREC run file, streamed (same Results).

    Parameters are those of :func:`cranfield.evaluate` and :func:`judge_file`
    (``measures=None``: :data:`cranfield.core.evaluation.DEFAULT_MEASURES`).
    """
    from ..errors import ParameterError
    from .evaluation import (
        DEFAULT_MEASURES,
        Results,
        _with_collection_size,
        as_measures,
        run_result,
    )
    from .qrels import Qrels

    opts = merged(options, judging)
    if aggregate_by not in ("macro", "micro"):
        raise ParameterError("aggregate_by", "'macro' or 'micro'", aggregate_by)
    qrels = qrels if isinstance(qrels, Qrels) else Qrels.coerce(qrels)
    measure_list = as_measures(DEFAULT_MEASURES if measures is None else measures)
    if collection_size is not None:
        measure_list = [_with_collection_size(m, collection_size) for m in measure_list]
    jr = judge_file(qrels, path, opts, name=name, chunk_bytes=chunk_bytes, progress=progress)
    result = run_result(jr, jr.run_name, measure_list, aggregate_by, skip_no_relevant)
    return Results(measure_list, [result], opts.as_dict())


def _query_blocks(table) -> tuple[list[int], list[str]]:
    """The first row of each block of adjacent rows with one query id, and its id."""
    import numpy as np
    import pyarrow.compute as pc

    from .io.arrays import bools, ints

    q = table.column("query_id").combine_chunks()  # a piece: bounded
    new = np.ones(len(q), dtype=bool)
    if len(q) > 1:
        new[1:] = ~bools(pc.equal(q[1:], q[:-1]))
    starts = np.flatnonzero(new)
    return starts.tolist(), q.take(ints(starts)).to_pylist()
