"""TREC run and qrels files, read the way trec_eval 10.0 reads them.

Run lines are ``qid iter docno rank score tag`` (at least six whitespace-separated
fields, extra ones ignored; ``iter`` and ``rank`` ignored; the score is a double).
Qrels lines are exactly ``qid iter docno rel`` (the grade is an integer; a decimal such as
``2.7`` is truncated toward zero like C's ``atol``). Blank lines and lines whose first
field starts with ``#`` are skipped. The run's name is the tag of its last line.

Two parsers give identical tables:

* the fast path hands the file to Arrow's multi-threaded CSV reader with a single-space
  (or single-tab) delimiter and fixed column types. It is accepted only when every
  physical line is a data line with exactly the expected fields: no empty field, no other
  whitespace or control byte inside a field (a byte scan of the file, ``io/scan.py``),
  no comment (the query id blocks), so row ``i`` is line ``i + 1``. Ids are read as
  binary and become strings without a copy (UTF-8 is checked unless the scan found
  the file all ASCII);
* otherwise the exact path splits every line like trec_eval (any run of spaces, tabs or
  other ASCII whitespace), skips blank and comment lines, reports the first malformed
  line by its physical line number, and parses the normalised lines with the *same* Arrow
  reader so both paths convert numbers identically.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from ...errors import InputError
from .._background import in_thread
from . import dedup, keys, scan
from .source import MAX_LINE, read_bytes, resolve, source_name

_BLOCK = 1 << 22  # Arrow CSV block size: 4 MiB blocks parse well on two cores


@dataclass(frozen=True)
class Layout:
    kind: str  # "run" or "qrels"
    names: tuple[str, ...]  # one per field, in file order
    value: str  # "score" or "relevance"
    exact: bool  # qrels need exactly len(names) fields; runs at least
    fractional: bool = False  # qrels: relevance read as a real number (parse_relevance)

    @property
    def nfields(self) -> int:
        return len(self.names)

    @property
    def kept(self) -> list[str]:
        """The columns the tables keep (the others are only validated)."""
        return ["query_id", "doc_id", self.value]

    def types(self) -> dict[str, pa.DataType]:
        # every text field as binary (no conversion cost); ids become UTF-8 strings
        # in _finish, where an all-ASCII buffer needs no per-value validation
        t = {name: pa.binary() for name in self.names}
        if self.kind == "run":
            t["score"] = pa.float64()
        return t


RUN = Layout("run", ("query_id", "iter", "doc_id", "rank", "score", "tag"), "score", False)
QRELS = Layout("qrels", ("query_id", "iter", "doc_id", "relevance"), "relevance", True)
FRACTIONAL_QRELS = Layout(
    "qrels", ("query_id", "iter", "doc_id", "relevance"), "relevance", True, fractional=True
)
_FIELDS = {"run": "qid iter docno rank score tag", "qrels": "qid iter docno rel"}


@dataclass
class Parsed:
    """A parsed TREC file: its rows in file order and their physical line numbers."""

    table: pa.Table  # query_id: string, doc_id: string, score: float64 | relevance: int64
    lines: np.ndarray | None  # line of each row; None when row i is line i + 1
    tag: str | None  # run tag of the last line
    index: object = None  # keys.PairIndex of the final table, when the duplicate check built it
    query_blocks: object = None  # keys.Blocks of the query ids, when the fast path found them

    def line_of(self, row: int) -> int:
        return row + 1 if self.lines is None else int(self.lines[row])


# -- public entry points -------------------------------------------------------------------


ENCODINGS = ("utf-8", "latin-1")
BOM = b"\xef\xbb\xbf"


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
    mark at the start of the file is dropped) or ``"latin-1"`` (every byte one
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
        parsed = parse(path_or_file, layout, source, encoding=encoding, first=line_offset == 0)
    except InputError as exc:
        if line_offset and exc.line is not None:
            raise InputError(exc.message, exc.source, exc.line + line_offset) from None
        raise
    line_of = parsed.line_of
    if line_offset:

        def line_of(row: int) -> int:
            return parsed.line_of(row) + line_offset

    index: list = []
    parsed.table = dedup.resolve(
        parsed.table,
        layout.value,
        duplicates,
        source,
        line_of,
        index_out=index,
        query_blocks=parsed.query_blocks,
    )
    parsed.index = index[0] if index else None
    return parsed, source


def parse(
    path_or_file, layout: Layout, source: str, *, encoding: str = "utf-8", first: bool = True
) -> Parsed:
    """Parse without the duplicates check (fast path first, exact path on any doubt).

    The input is read once (``source.resolve``): a regular uncompressed file by path,
    anything else into memory. ``first`` says that the input starts at the file's
    first byte (not so for the later pieces of a streamed file).
    """
    if isinstance(path_or_file, (bytes, bytearray, memoryview)):
        data = path_or_file
    else:

        def check(head: bytes) -> None:  # the first lines of a pipe, before the rest
            _exact(head, layout, source, encoding, require_lines=False)

        src = resolve(path_or_file, source, check=check)
        if isinstance(src, Path):
            try:
                head = _head(src)
                parsed = _fast(src, layout, _delimiter_of(head), source, encoding)
                if parsed is None:
                    data = read_bytes(src, source)
            except OSError as exc:
                raise InputError(f"cannot read: {exc.strerror or exc}", source=source) from exc
            if parsed is not None:
                return _keep_bom(parsed, head, encoding, first)
        else:
            data = src
    head = bytes(data[: 1 << 16])
    parsed = _fast(data, layout, _delimiter_of(head), source, encoding)
    if parsed is None:
        parsed = _exact(bytes(data), layout, source, encoding)
    return _keep_bom(parsed, head, encoding, first)


def _head(path: Path) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(1 << 16)


def _keep_bom(parsed: Parsed, head: bytes, encoding: str, first: bool) -> Parsed:
    """With Latin-1 ids, put back the byte-order mark Arrow's reader skips: it belongs
    to the first query id when the first line is a data line (as trec_eval reads it)."""
    if encoding != "latin-1" or not first or not head.startswith(BOM):
        return parsed
    if not parsed.table.num_rows or parsed.line_of(0) != 1:
        return parsed
    qid = parsed.table["query_id"].combine_chunks()
    fixed = pa.concat_arrays([pa.array([BOM.decode("latin-1") + qid[0].as_py()]), qid[1:]])
    parsed.table = parsed.table.set_column(0, "query_id", fixed)
    parsed.query_blocks = None  # the first query's block may split in two
    return parsed


# -- fast path -------------------------------------------------------------------------------


def _delimiter_of(head: bytes) -> str:
    return "\t" if b"\t" in head and b" " not in head else " "


def _read_csv(
    src, layout: Layout, delimiter: str = " ", kept_only: bool = False, block: int = _BLOCK
) -> pa.Table:
    """Arrow's CSV reader configured for one TREC layout (raises ArrowInvalid on any misfit).

    Every line must have exactly ``layout.nfields`` fields, even when only the kept
    columns are converted (``kept_only``). A line longer than ``block`` bytes is a
    misfit too (Arrow parses blocks of that size).
    """
    if isinstance(src, (bytes, bytearray, memoryview)):
        src = pa.BufferReader(src)
    elif isinstance(src, Path):
        # an open file, not the name: Arrow would guess a compression from ".gz"
        src = pa.OSFile(str(src))
    return pacsv.read_csv(
        src,
        read_options=pacsv.ReadOptions(column_names=list(layout.names), block_size=block),
        parse_options=pacsv.ParseOptions(
            delimiter=delimiter,
            quote_char=False,
            double_quote=False,
            escape_char=False,
            newlines_in_values=False,
            ignore_empty_lines=False,
        ),
        convert_options=pacsv.ConvertOptions(
            column_types=layout.types(),
            include_columns=layout.kept if kept_only else [],
            null_values=[],
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
        ),
    )


def _fast(
    src, layout: Layout, delimiter: str, source: str, encoding: str = "utf-8"
) -> Parsed | None:
    # The separator scan (io/scan.py) reads the file on its own: collected from a
    # prescan when the command line started one, otherwise run in a thread while Arrow
    # parses (Arrow leaves a core idle part of the time) and stopped early on failure.
    import threading

    found = scan.take(src) if isinstance(src, Path) else None
    stop = threading.Event()
    scanned = in_thread(scan.scan, src, stop) if found is None else (lambda: found)
    table = None
    try:
        table = _read_csv(src, layout, delimiter, kept_only=True)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    finally:
        if table is None:
            stop.set()
    if table.num_rows == 0:
        return None
    # the reader's block buffers are free now; hand them back to the system
    pa.default_memory_pool().release_unused()
    found = scanned()
    if not found.agrees(table.num_rows, layout.nfields):
        return None
    tail = found.tail
    # a '#' comment line: its query id starts with '#' and is the value of some block
    # of equal adjacent query ids (the other checks are covered by the scan)
    qb = keys.blocks(table["query_id"])
    if len(qb.values) and pc.any(pc.starts_with(qb.values, "#")).as_py():
        return None
    tag = None
    if layout.kind == "run":
        tag = _last_line(src, tail).split(delimiter.encode())[5]
    parsed = _finish(table, layout, None, source, tag, ascii=found.ascii, encoding=encoding)
    # the block values are query ids, valid UTF-8 now that _finish has checked them
    # (Latin-1 ones are converted like the column)
    values = qb.values.view(pa.string())
    if encoding == "latin-1" and not found.ascii:
        values = _latin1(pa.chunked_array([qb.values]), "query_id", source, None).chunk(0)
    parsed.query_blocks = keys.Blocks(qb.starts, values)
    return parsed


def _last_line(src, tail: bytes) -> bytes:
    """The last line of a file the fast path accepted (a line end after it or not),
    from the scan's tail when it holds the whole line, else read backwards."""
    body = tail[:-1] if tail.endswith(b"\n") else tail
    cut = body.rfind(b"\n")
    if cut >= 0:
        return body[cut + 1 :]
    if isinstance(src, (bytes, bytearray, memoryview)):
        data = bytes(src)
        body = data[:-1] if data.endswith(b"\n") else data
        return body[body.rfind(b"\n") + 1 :]
    with open(src, "rb") as fh:  # a regular file: read blocks from its end
        end = fh.seek(0, os.SEEK_END)
        if end:
            fh.seek(end - 1)
            end -= fh.read(1) == b"\n"
        parts: list[bytes] = []
        pos = end
        while pos > 0:
            step = min(pos, 1 << 20)
            pos -= step
            fh.seek(pos)
            block = fh.read(step)
            cut = block.rfind(b"\n")
            if cut >= 0:
                parts.append(block[cut + 1 :])
                break
            parts.append(block)
        return b"".join(reversed(parts))


# -- exact path ------------------------------------------------------------------------------


def _field_error(layout: Layout, got: int, source: str, line: int) -> InputError:
    want = layout.nfields
    fields = _FIELDS[layout.kind]
    if layout.kind == "run":
        msg = f"expected 6 fields ({fields}), got {got}"
        if got == 4:
            msg += " — is this a qrels file?"
    else:
        msg = f"expected {want} fields ({fields}), got {got}"
        if got >= 6:
            msg += " — is this a run file?"
    return InputError(msg, source=source, line=line)


def _chunks(data: bytes, size: int = 1 << 23):
    """Split ``data`` after newlines into pieces of about ``size`` bytes."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start + size)
        end = len(data) if end < 0 else end + 1
        yield data[start:end]
        start = end


def _exact(
    data: bytes, layout: Layout, source: str, encoding: str = "utf-8", require_lines: bool = True
) -> Parsed | None:
    """Split lines like trec_eval; each piece of about 8 MiB is parsed as soon as it is
    split, so the first bad line stops the reading there (binary garbage fails fast)."""
    n = layout.nfields
    tables: list[pa.Table] = []
    lines: list[int] = []
    lineno = 0
    for chunk in _chunks(data):
        if not lineno and encoding == "utf-8" and chunk.startswith(BOM):
            chunk = chunk[len(BOM) :]  # dropped, as Arrow's reader drops it (a comment may follow)
        nul = chunk.find(b"\0")
        if nul >= 0:
            line = lineno + len(chunk[: nul + 1].splitlines())
            raise InputError("NUL byte: this is binary data, not a text file", source, line)
        out: list[bytes] = []
        first = len(lines)
        for line in chunk.splitlines():
            lineno += 1
            if len(line) > MAX_LINE:
                raise InputError(
                    f"line longer than {MAX_LINE >> 20} MiB (the most one line may hold)",
                    source=source,
                    line=lineno,
                )
            f = line.split()
            if not f or f[0][:1] == b"#":
                continue
            k = len(f)
            if k != n and (layout.exact or k < n):
                raise _field_error(layout, k, source, lineno)
            out.append(b" ".join(f[:n]))
            lines.append(lineno)
        if out:
            tables.append(_parse_rows(out, layout, source, lines[first:]))
    if not lines:
        if not require_lines:
            return None
        raise InputError(f"no {layout.kind} lines found (empty file?)", source=source)
    table = pa.concat_tables(tables) if len(tables) > 1 else tables[0]
    return _finish(table, layout, np.asarray(lines, dtype=np.int64), source, encoding=encoding)


def _parse_rows(rows: list[bytes], layout: Layout, source: str, lines: list[int]) -> pa.Table:
    """Normalised rows (fields joined by one space) through Arrow's reader."""
    text = b"\n".join(rows)
    try:
        return _read_csv(text, layout)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    # Arrow needs every line inside one of its blocks: try again with larger ones
    block = max(_BLOCK, 2 * max(map(len, rows)) + 2)
    try:
        if block > _BLOCK:
            return _read_csv(text, layout, block=block)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    bad = _first_bad_row(rows, layout, block)
    raise _diagnose(rows[bad], layout, source, int(lines[bad]))


def _first_bad_row(rows: list[bytes], layout: Layout, block: int = _BLOCK) -> int:
    """Bisect to the first normalised row that Arrow's reader rejects."""
    lo, hi = 0, len(rows)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        try:
            _read_csv(b"\n".join(rows[lo:mid]), layout, block=block)
            lo = mid
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            hi = mid
    return lo


def _diagnose(row: bytes, layout: Layout, source: str, line: int) -> InputError:
    """The message for a normalised row Arrow rejected (ids are binary there: only the
    score can fail)."""
    fields = row.split(b" ")
    value = fields[layout.names.index(layout.value)]
    what = "score" if layout.kind == "run" else "relevance grade"
    return InputError(f"{what} {shown(value)} is not a number", source=source, line=line)


def shown(value: bytes | str, limit: int = 60) -> str:
    """A field quoted for a one-line message, cut to ``limit`` characters."""
    if isinstance(value, bytes):
        try:
            value = value.decode("utf-8")
        except UnicodeDecodeError:
            text = repr(value)[1:]  # b'...' without the b
            return text if len(text) <= limit else f"{text[: limit - 5]}...' ({len(value)} bytes)"
    text = repr(value)
    if len(text) > limit:
        text = f"{text[: limit - 5]}...{text[-1]} ({len(value)} characters)"
    return text


# -- shared conversion ----------------------------------------------------------------------


_DECIMAL = r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$"


def _only_digits_and_minus(col: pa.Array) -> bool:
    """Every byte of a binary/string column is 0-9 or '-' (Arrow's integer cast would
    also accept forms such as ``0x10`` that ``atol`` reads differently)."""
    _, off_buf, data_buf = col.buffers()
    off = np.frombuffer(off_buf, dtype=np.int32)[col.offset : col.offset + len(col) + 1]
    if data_buf is None:
        return False
    data = np.frombuffer(data_buf, dtype=np.uint8)[off[0] : off[-1]]
    return bool((((data >= 0x30) & (data <= 0x39)) | (data == 0x2D)).all())


def parse_grades(col: pa.ChunkedArray | pa.Array) -> tuple[pa.Array, int | None]:
    """Integer grades from text the way ``atol`` reads a decimal: ``"2.7"`` -> 2, ``"-0.5"`` -> 0.

    A grade must match ``[+-]?(digits[.digits] | .digits)``; exponents, ``inf`` and
    ``nan`` are rejected rather than silently read as ``atol`` would (``"1e3"`` -> 1).
    Returns the int64 array and ``None``, or an empty array and the index of the first
    invalid value.
    """
    if isinstance(col, pa.ChunkedArray):
        col = col.combine_chunks()
    if len(col) and _only_digits_and_minus(col):  # plain integers: Arrow's cast reads them
        try:
            return pc.cast(col.cast(pa.string()), pa.int64()), None
        except pa.ArrowInvalid:  # e.g. "1-2", "-", out of range: the careful path decides
            pass
    try:
        text = col.cast(pa.string())
    except pa.ArrowInvalid:  # not UTF-8: certainly not a number
        text = pa.array([v.decode("utf-8", "replace") for v in col.to_pylist()], pa.string())
    ok = keys.bools(pc.match_substring_regex(text, _DECIMAL))
    if not ok.all():
        return pa.array([], pa.int64()), int(np.flatnonzero(~ok)[0])
    whole = pc.replace_substring_regex(text, r"\.[0-9]*$", "")
    whole = pc.replace_substring_regex(whole, r"^\+", "")  # Arrow rejects a leading '+'
    whole = pc.replace_substring_regex(whole, r"^-?$", "0")
    try:
        return pc.cast(whole, pa.int64()), None
    except pa.ArrowInvalid:  # out of the int64 range
        limit = 2**63
        for i, v in enumerate(whole.to_pylist()):
            if not -limit <= int(v) < limit:
                return pa.array([], pa.int64()), i
        raise


_REAL = r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$"


def parse_relevance(
    col: pa.ChunkedArray | pa.Array, fractional: bool = False
) -> tuple[pa.Array, int | None]:
    """The relevance field: :func:`parse_grades` (int64, as trec_eval's ``atol``), or
    with ``fractional`` a real number (float64: ``[+-]digits[.digits][e[+-]digits]``;
    ``inf``, ``nan`` and hexadecimal forms are refused).

    Returns the array and ``None``, or an empty array and the index of the first
    invalid value.
    """
    if not fractional:
        return parse_grades(col)
    if isinstance(col, pa.ChunkedArray):
        col = col.combine_chunks()
    ok = keys.bools(pc.match_substring_regex(col, _REAL))  # bytes that are not UTF-8 fail
    if not ok.all():
        return pa.array([], pa.float64()), int(np.flatnonzero(~ok)[0])
    values = pc.cast(col.cast(pa.string()), pa.float64())  # ASCII now
    finite = keys.bools(pc.is_finite(values))
    if not finite.all():  # beyond the double range, e.g. 1e999
        return pa.array([], pa.float64()), int(np.flatnonzero(~finite)[0])
    return values, None


def _finish(
    table: pa.Table,
    layout: Layout,
    lines: np.ndarray | None,
    source: str,
    tag_bytes: bytes | None = None,
    ascii: bool = False,
    encoding: str = "utf-8",
) -> Parsed:
    """Drop ignored fields, convert grades, check scores, pick the run tag."""

    def line_of(row: int) -> int:
        return row + 1 if lines is None else int(lines[row])

    tag = None
    if layout.kind == "run":
        if tag_bytes is None:
            tag_bytes = table["tag"][-1].as_py()
        tag = tag_bytes.decode(encoding, "replace")
        score = table["score"]
        nan = pc.is_nan(score)
        if pc.any(nan).as_py():
            row = int(np.flatnonzero(nan.to_numpy(zero_copy_only=False))[0])
            raise InputError("score is NaN", source=source, line=line_of(row))
        value = score
    else:
        value, bad = parse_relevance(table["relevance"], layout.fractional)
        if bad is not None:
            raw = table["relevance"][bad].as_py()
            kind = "a finite number" if layout.fractional else "an integer"
            raise InputError(
                f"relevance grade {shown(raw)} is not {kind}", source=source, line=line_of(bad)
            )
    convert = _latin1 if encoding == "latin-1" else _utf8
    ids = {
        name: convert(table[name], name, source, line_of, ascii) for name in ("query_id", "doc_id")
    }
    out = pa.table({**ids, layout.value: value})
    return Parsed(out, lines, tag)


def _utf8(
    col: pa.ChunkedArray, name: str, source: str, line_of, ascii: bool = False
) -> pa.ChunkedArray:
    """A binary id column as strings: all-ASCII chunks (every chunk when the file is
    known to be ASCII) are relabelled without a copy, the others validated (the first
    invalid value is reported by its line)."""
    if ascii:
        return pa.chunked_array([c.view(pa.string()) for c in col.chunks], pa.string())
    chunks = []
    pos = 0
    for chunk in col.chunks:
        _, data = keys.binary_buffers(chunk)
        if not len(data) or int(data.max()) < 0x80:
            chunks.append(chunk.view(pa.string()))
        else:
            try:
                chunks.append(chunk.cast(pa.string()))
            except pa.ArrowInvalid:
                for i, value in enumerate(chunk.to_pylist()):
                    try:
                        value.decode("utf-8")
                    except UnicodeDecodeError:
                        raise InputError(
                            f"{name} is not valid UTF-8: {shown(value)}",
                            source=source,
                            line=line_of(pos + i),
                        ) from None
                raise
        pos += len(chunk)
    return pa.chunked_array(chunks, pa.string())


def _latin1(
    col: pa.ChunkedArray, name: str, source: str, line_of, ascii: bool = False
) -> pa.ChunkedArray:
    """A binary id column as strings of one character per byte (Latin-1): ASCII chunks
    are relabelled; the others re-encoded with whole-array NumPy operations (each byte
    0x80-0xFF becomes its two-byte UTF-8 form)."""
    chunks = []
    for chunk in col.chunks:
        offsets, data = keys.binary_buffers(chunk)
        high = data >= 0x80
        if ascii or not high.any():
            chunks.append(chunk.view(pa.string()))
            continue
        shift = np.concatenate(([0], np.cumsum(high, dtype=np.int64)))
        pos = np.arange(len(data), dtype=np.int64) + shift[:-1]
        out = np.empty(len(data) + int(shift[-1]), dtype=np.uint8)
        out[pos] = np.where(high, 0xC0 | (data >> 6), data)
        out[pos[high] + 1] = 0x80 | (data[high] & 0x3F)
        rel = (offsets - offsets[0]).astype(np.int64)
        new_offsets = (rel + shift[rel]).astype(np.int32)
        chunks.append(
            pa.Array.from_buffers(
                pa.string(), len(chunk), [None, pa.py_buffer(new_offsets), pa.py_buffer(out)]
            )
        )
    return pa.chunked_array(chunks, pa.string())


# -- writing ----------------------------------------------------------------------------------


def write(table: pa.Table, path_or_file, columns: list) -> None:
    """Write space-separated columns (arrays or scalars) to a path, ``"-"`` or a binary file."""
    import io
    import sys

    n = table.num_rows
    cols = {}
    for i, c in enumerate(columns):
        cols[f"c{i}"] = c if isinstance(c, (pa.Array, pa.ChunkedArray)) else pa.array([c] * n)
    out = pa.table(cols)
    sink = io.BytesIO()
    pacsv.write_csv(
        out,
        sink,
        write_options=pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none"),
    )
    data = sink.getvalue()
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
        bad = pc.or_(pc.match_substring_regex(col, r"[\s]"), pc.equal(pc.utf8_length(col), 0))
        if pc.any(bad).as_py():
            row = int(np.flatnonzero(bad.to_numpy(zero_copy_only=False))[0])
            raise InputError(
                f"{name} {col[row].as_py()!r} (row {row + 1}) cannot be written to a TREC "
                "file: ids must be non-empty and contain no whitespace",
                source=source,
            )
