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

from .._background import in_thread
from ..errors import InputError
from . import dedup, keys, scan
from .source import check_path, is_gzip_file, read_bytes, source_name

_BLOCK = 1 << 22  # Arrow CSV block size: 4 MiB blocks parse well on two cores


@dataclass(frozen=True)
class Layout:
    kind: str  # "run" or "qrels"
    names: tuple[str, ...]  # one per field, in file order
    value: str  # "score" or "relevance"
    exact: bool  # qrels need exactly len(names) fields; runs at least

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


def read(
    path_or_file,
    layout: Layout,
    duplicates: str = "error",
    *,
    source: str | None = None,
    line_offset: int = 0,
) -> tuple[Parsed, str]:
    """Parse a TREC run or qrels input and apply the duplicates policy.

    Returns the parsed file and the source name used in messages. ``path_or_file``
    may also be ``bytes`` (a piece of a file): ``source`` then names the file and
    ``line_offset`` is the number of lines before the piece, added to the line
    numbers of messages.
    """
    dedup.check_policy(duplicates)
    source = source_name(path_or_file) if source is None else source
    try:
        parsed = parse(path_or_file, layout, source)
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


def parse(path_or_file, layout: Layout, source: str) -> Parsed:
    """Parse without the duplicates check (fast path first, exact path on any doubt)."""
    data: bytes | None = None
    if isinstance(path_or_file, (str, os.PathLike)) and str(path_or_file) != "-":
        path = check_path(path_or_file, source)
        try:
            if is_gzip_file(path):
                data = read_bytes(path, source)
            else:
                parsed = _fast(path, layout, _guess_delimiter(path), source)
                if parsed is not None:
                    return parsed
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror or exc}", source=source) from exc
    if isinstance(path_or_file, (bytes, bytearray, memoryview)):
        data = path_or_file
    if data is None:
        data = read_bytes(path_or_file if not isinstance(path_or_file, Path) else path, source)
    parsed = _fast(data, layout, _delimiter_of(bytes(data[: 1 << 16])), source)
    return parsed if parsed is not None else _exact(bytes(data), layout, source)


# -- fast path -------------------------------------------------------------------------------


def _delimiter_of(head: bytes) -> str:
    return "\t" if b"\t" in head and b" " not in head else " "


def _guess_delimiter(path: Path) -> str:
    with open(path, "rb") as fh:
        return _delimiter_of(fh.read(1 << 16))


def _read_csv(src, layout: Layout, delimiter: str = " ", kept_only: bool = False) -> pa.Table:
    """Arrow's CSV reader configured for one TREC layout (raises ArrowInvalid on any misfit).

    Every line must have exactly ``layout.nfields`` fields, even when only the kept
    columns are converted (``kept_only``).
    """
    if isinstance(src, (bytes, bytearray, memoryview)):
        src = pa.BufferReader(src)
    elif isinstance(src, Path):
        src = str(src)
    return pacsv.read_csv(
        src,
        read_options=pacsv.ReadOptions(column_names=list(layout.names), block_size=_BLOCK),
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


def _fast(src, layout: Layout, delimiter: str, source: str) -> Parsed | None:
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
        tag = tail.rstrip(b"\n").rsplit(b"\n", 1)[-1].split(delimiter.encode())[5]
    parsed = _finish(table, layout, None, source, tag, ascii=found.ascii)
    # the block values are query ids, valid UTF-8 now that _finish has checked them
    parsed.query_blocks = keys.Blocks(qb.starts, qb.values.view(pa.string()))
    return parsed


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


def _exact(data: bytes, layout: Layout, source: str) -> Parsed:
    n = layout.nfields
    pieces: list[bytes] = []
    lines: list[int] = []
    lineno = 0
    for chunk in _chunks(data):
        out: list[bytes] = []
        for line in chunk.splitlines():
            lineno += 1
            f = line.split()
            if not f or f[0][:1] == b"#":
                continue
            k = len(f)
            if k != n and (layout.exact or k < n):
                raise _field_error(layout, k, source, lineno)
            out.append(b" ".join(f[:n]))
            lines.append(lineno)
        if out:
            pieces.append(b"\n".join(out))
    if not lines:
        raise InputError(f"no {layout.kind} lines found (empty file?)", source=source)
    text = b"\n".join(pieces)
    line_arr = np.asarray(lines, dtype=np.int64)
    try:
        table = _read_csv(text, layout)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        rows = text.split(b"\n")
        bad = _first_bad_row(rows, layout)
        raise _diagnose(rows[bad], layout, source, int(line_arr[bad])) from None
    return _finish(table, layout, line_arr, source)


def _first_bad_row(rows: list[bytes], layout: Layout) -> int:
    """Bisect to the first normalised row that Arrow's reader rejects."""
    lo, hi = 0, len(rows)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        try:
            _read_csv(b"\n".join(rows[lo:mid]), layout)
            lo = mid
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            hi = mid
    return lo


def _diagnose(row: bytes, layout: Layout, source: str, line: int) -> InputError:
    fields = row.split(b" ")
    for name, field in zip(layout.names, fields, strict=False):
        if name in ("query_id", "doc_id"):
            try:
                field.decode("utf-8")
            except UnicodeDecodeError:
                return InputError(f"{name} is not valid UTF-8: {field!r}", source=source, line=line)
    score = fields[layout.names.index(layout.value)]
    what = "score" if layout.kind == "run" else "relevance grade"
    return InputError(
        f"{what} {score.decode('utf-8', 'replace')!r} is not a number", source=source, line=line
    )


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


def _finish(
    table: pa.Table,
    layout: Layout,
    lines: np.ndarray | None,
    source: str,
    tag_bytes: bytes | None = None,
    ascii: bool = False,
) -> Parsed:
    """Drop ignored fields, convert grades, check scores, pick the run tag."""

    def line_of(row: int) -> int:
        return row + 1 if lines is None else int(lines[row])

    tag = None
    if layout.kind == "run":
        if tag_bytes is None:
            tag_bytes = table["tag"][-1].as_py()
        tag = tag_bytes.decode("utf-8", "replace")
        score = table["score"]
        nan = pc.is_nan(score)
        if pc.any(nan).as_py():
            row = int(np.flatnonzero(nan.to_numpy(zero_copy_only=False))[0])
            raise InputError("score is NaN", source=source, line=line_of(row))
        value = score
    else:
        value, bad = parse_grades(table["relevance"])
        if bad is not None:
            raw = table["relevance"][bad].as_py().decode("utf-8", "replace")
            raise InputError(
                f"relevance grade {raw!r} is not an integer", source=source, line=line_of(bad)
            )
    ids = {
        name: _utf8(table[name], name, source, line_of, ascii) for name in ("query_id", "doc_id")
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
                            f"{name} is not valid UTF-8: {value!r}",
                            source=source,
                            line=line_of(pos + i),
                        ) from None
                raise
        pos += len(chunk)
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
