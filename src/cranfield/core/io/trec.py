"""TREC run and qrels files, read the way trec_eval 10.0 reads them.

Run lines are ``qid iter docno rank score tag`` (at least six whitespace-separated
fields, extra ones ignored; ``iter`` and ``rank`` ignored; the score is a double).
Qrels lines are exactly ``qid iter docno rel`` (the grade is an integer; a decimal such as
``2.7`` is truncated toward zero like C's ``atol``; with :data:`FRACTIONAL_QRELS` it is
kept as a finite real number, for fractional gains). Blank lines and lines whose first
field starts with ``#`` are skipped. The run's name is the tag of its last line.

The parsing is the compiled engine's (``cranfield._engine``, the crate ``rust/trec``):
lines end at ``\n``, ``\r`` or ``\r\n`` and split at any run of spaces, tabs, vertical
tabs or form feeds; pieces of about 8 MiB are parsed in parallel; the first problem is
reported by its physical line number. The columns come back as NumPy arrays owning
the engine's buffers, which become Arrow arrays without a copy (one chunk per piece).
A regular uncompressed file is read by the engine itself; anything else (standard
input, pipes, gzip, file objects) is read once by ``source.py`` and handed over as bytes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ... import _engine
from ...errors import InputError
from ..memory import input_budget
from . import dedup, problems
from .problems import shown  # noqa: F401  (re-exported)
from .source import MAX_LINE, is_gzip_file, resolve, source_name


@dataclass(frozen=True)
class Layout:
    kind: str  # "run" or "qrels"
    value: str  # "score" or "relevance"
    fractional: bool = False  # qrels: relevance read as a finite real number (float64)

    @property
    def engine_kind(self) -> str:
        return "fractional_qrels" if self.fractional else self.kind

    @property
    def value_type(self) -> pa.DataType:
        return pa.float64() if self.kind == "run" or self.fractional else pa.int64()


RUN = Layout("run", "score")
QRELS = Layout("qrels", "relevance")
#: Qrels with real-valued relevance (fractional gains: ``Qrels.read(..., fractional=True)``).
FRACTIONAL_QRELS = Layout("qrels", "relevance", fractional=True)


@dataclass
class Parsed:
    """A parsed TREC file: its rows in file order and their physical line numbers."""

    table: pa.Table  # query_id: string, doc_id: string, score: float64 | relevance: int64
    lines: np.ndarray | None  # line of each row; None when row i is line i + 1
    tag: str | None  # run tag of the last line

    def line_of(self, row: int) -> int:
        return row + 1 if self.lines is None else int(self.lines[row])


# -- public entry points -------------------------------------------------------------------


ENCODINGS = ("utf-8", "latin-1")


def read(
    path_or_file,
    layout: Layout,
    duplicates: str = "error",
    *,
    source: str | None = None,
    line_offset: int = 0,
    encoding: str = "utf-8",
) -> tuple[Parsed, str]:
    """Parse a TREC run or qrels input and apply the duplicates policy.

    Returns the parsed file and the source name used in messages. ``path_or_file``
    may also be ``bytes`` (a piece of a file): ``source`` then names the file and
    ``line_offset`` is the number of lines before the piece, added to the line
    numbers of messages.

    ``encoding`` is how id bytes become strings: ``"utf-8"`` (checked; a byte-order
    mark at the start of the input is dropped) or ``"latin-1"`` (every byte one
    character, so any bytes are accepted and written back unchanged by encoding the
    strings as Latin-1; a byte-order mark stays part of the first query id, as in
    trec_eval).
    """
    dedup.check_policy(duplicates)
    if encoding not in ENCODINGS:
        from ...errors import ParameterError

        raise ParameterError("encoding", "'utf-8' or 'latin-1'", encoding)
    source = source_name(path_or_file) if source is None else source
    try:
        parsed = parse(path_or_file, layout, source, encoding=encoding)
    except InputError as exc:
        if line_offset and exc.line is not None:
            raise InputError(exc.message, exc.source, exc.line + line_offset) from None
        raise
    line_of = parsed.line_of
    if line_offset:

        def line_of(row: int) -> int:
            return parsed.line_of(row) + line_offset

    parsed.table = dedup.resolve(parsed.table, layout.value, duplicates, source, line_of)
    return parsed, source


def parse(path_or_file, layout: Layout, source: str, *, encoding: str = "utf-8") -> Parsed:
    """Parse without the duplicates check.

    The input is read once (``source.resolve``): a regular uncompressed file by the
    engine from its path, anything else into memory first (the first MiB of a stream
    is parsed as soon as it arrives, so that what cannot be a TREC file stops there).
    """
    if isinstance(path_or_file, (bytes, bytearray, memoryview)):
        src = path_or_file
    else:

        def check(head: bytes) -> None:  # the first lines of a pipe, before the rest
            _parse(head, layout, source, encoding, require_lines=False)

        src = resolve(path_or_file, source, check=check, gzip=True)
    return _parse(src, layout, source, encoding)


def _parse(
    src: Path | bytes, layout: Layout, source: str, encoding: str, require_lines: bool = True
) -> Parsed | None:
    latin1 = encoding == "latin-1"
    try:
        if isinstance(src, Path):
            # a gzip file decompresses in the engine, within what memory allows
            budget = input_budget() if is_gzip_file(src) else None
            out = _engine.read_trec_file(
                os.fspath(src), layout.engine_kind, latin1, MAX_LINE, budget
            )
        else:
            data = src if isinstance(src, bytes) else bytes(src)
            out = _engine.read_trec_bytes(data, layout.engine_kind, latin1, MAX_LINE)
    except _engine.ReadError as exc:
        raise _problem(*exc.args, layout, source) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", source=source) from exc
    pieces, lines, _starts, tag, rows = out
    if not rows:
        if not require_lines:
            return None
        raise problems.no_lines(layout.kind, source)
    value_type = layout.value_type
    columns: dict[str, list] = {"query_id": [], "doc_id": [], layout.value: []}
    for q_offsets, q_data, d_offsets, d_data, values in pieces:
        n = len(values)
        columns["query_id"].append(_strings(n, q_offsets, q_data))
        columns["doc_id"].append(_strings(n, d_offsets, d_data))
        columns[layout.value].append(
            pa.Array.from_buffers(value_type, n, [None, pa.py_buffer(values)])
        )
    types = {"query_id": pa.string(), "doc_id": pa.string(), layout.value: value_type}
    table = pa.table({k: pa.chunked_array(v, types[k]) for k, v in columns.items()})
    if tag is not None:
        tag = tag.decode(encoding, "replace")
    return Parsed(table, lines, tag)


def _strings(n: int, offsets: np.ndarray, data: np.ndarray) -> pa.Array:
    """A string array on the engine's buffers (no copy; the ids are valid UTF-8)."""
    return pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def _problem(what: str, line: int | None, detail, layout: Layout, source: str) -> InputError:
    """The message for a problem the engine found (its kind, line and detail)."""
    return problems.read_problem(
        what, line, detail, layout.kind, source, fractional=layout.fractional
    )


# -- writing ----------------------------------------------------------------------------------


def delimited_lines(columns: list, delimiter: str) -> bytes:
    """The rows of ``columns`` (Arrow arrays of one length, or ``str`` constants for
    every row) as text lines, the fields separated by ``delimiter``: numbers as Arrow
    writes them (as its CSV writer does), strings as they are. Unlike the CSV writer
    with quoting off, a field may hold ``"`` or ``,`` (a TREC id may: only whitespace
    and control characters separate fields, and the readers refuse those in ids). Arrow
    formats the numbers; the engine joins the fields (``_engine.join_lines``)."""
    import pyarrow.compute as pc

    from ... import _engine
    from .arrays import _string_buffers

    arrays_ = [c for c in columns if isinstance(c, (pa.Array, pa.ChunkedArray))]
    if not columns or not arrays_ or len(arrays_[0]) == 0:
        return b""
    n = len(arrays_[0])
    fields = []
    for c in columns:
        if not isinstance(c, (pa.Array, pa.ChunkedArray)):
            fields.append(str(c).encode("utf-8"))
            continue
        text = pc.cast(c, pa.large_string())  # 64-bit offsets: any size
        if isinstance(text, pa.ChunkedArray):
            text = text.combine_chunks()
        fields.append(_string_buffers(text, "column"))
    return _engine.join_lines(fields, delimiter.encode("utf-8"), n)


def write(table: pa.Table, path_or_file, columns: list) -> None:
    """Write space-separated columns (arrays or scalars) to a path, ``"-"`` or a binary file."""
    import sys

    data = delimited_lines(list(columns), " ")
    if isinstance(path_or_file, (str, os.PathLike)) and str(path_or_file) == "-":
        stream = sys.stdout
        (stream.buffer if hasattr(stream, "buffer") else stream).write(
            data if hasattr(stream, "buffer") else data.decode("utf-8")
        )
    elif isinstance(path_or_file, (str, os.PathLike)):
        if str(path_or_file).endswith(".gz"):
            import gzip

            data = gzip.compress(data, mtime=0)
        from .atomic import write_bytes

        write_bytes(path_or_file, data)
    else:
        try:
            path_or_file.write(data)
        except TypeError:
            path_or_file.write(data.decode("utf-8"))


def check_writable_ids(table: pa.Table, source: str | None) -> None:
    """Ids written to a TREC file must be non-empty and contain no whitespace."""
    for name in ("query_id", "doc_id"):
        col = table[name]
        if not _may_hold_whitespace_or_empty(col):
            continue
        bad = pc.or_(pc.match_substring_regex(col, r"[\s]"), pc.equal(pc.utf8_length(col), 0))
        if pc.any(bad).as_py():
            row = int(np.flatnonzero(bad.to_numpy(zero_copy_only=False))[0])
            raise InputError(
                f"{name} {col[row].as_py()!r} (row {row + 1}) cannot be written to a TREC "
                "file: ids must be non-empty and contain no whitespace",
                source=source,
            )


# the bytes RE2's ``\s`` matches (ASCII whitespace but vertical tab)
_SPACE_BYTES = np.zeros(256, dtype=bool)
_SPACE_BYTES[[9, 10, 12, 13, 32]] = True


def _may_hold_whitespace_or_empty(col) -> bool:
    """Whether a string column may hold an empty id or one with whitespace: a scan of
    its bytes, so that the exact (and much slower) per-row check of
    :func:`check_writable_ids` runs only when one might be there."""
    chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
    for chunk in chunks:
        if not len(chunk):
            continue
        if chunk.null_count or not (
            pa.types.is_string(chunk.type) or pa.types.is_large_string(chunk.type)
        ):
            return True
        width = np.int64 if pa.types.is_large_string(chunk.type) else np.int32
        _, offsets_buffer, data_buffer = chunk.buffers()
        offsets = np.frombuffer(offsets_buffer, dtype=width)[
            chunk.offset : chunk.offset + len(chunk) + 1
        ]
        if np.any(offsets[1:] == offsets[:-1]):
            return True
        if data_buffer is not None:
            data = np.frombuffer(data_buffer, dtype=np.uint8)[offsets[0] : offsets[-1]]
            if _SPACE_BYTES[data].any():
                return True
    return False
