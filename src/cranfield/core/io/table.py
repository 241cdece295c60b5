"""The one reader of tables: any table input becomes an Arrow table and the source
line of each of its rows.

An input is a path, ``"-"`` (standard input) or a file object; every input is read the
same way (:mod:`.source`: gzip recognised by its magic bytes, text stopped at a NUL
byte or a line over 64 MiB). Its format is told from the content (:func:`.formats.sniff`:
Parquet and Arrow IPC by their magic bytes, CSV, TSV, whitespace-separated columns or
JSON lines by the first line), the file's extension deciding only what the content
leaves open, and an explicit ``format`` winning over both. Text inputs are UTF-8 with a
header row (a byte-order mark and CRLF line ends accepted; quoted CSV fields may hold
line breaks, RFC 4180); their rows keep the 1-based line where each starts
(:attr:`Table.lines`), so that a problem with a row is reported as ``FILE:LINE:
message`` -- or ``FILE: row N: message`` for binary formats, which have no lines.

Every problem is an :class:`~cranfield.errors.InputError` worded once here: an empty
file, a header without rows, a row with a different number of fields, text that is not
UTF-8, a Parquet file that is not one or is cut short, a missing or duplicated column,
a column of the wrong type.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pyarrow as pa

from ...errors import InputError, ParameterError
from .formats import TABLE_FORMATS, compression, extension_format, sniff
from .source import open_binary, read_bytes, resolve, source_name

BINARY = ("parquet", "arrow")
_HEAD = 1 << 16


@dataclass(frozen=True)
class Text:
    """What the lines of a text table are found from, when they are asked for (only
    messages need them): the parsed bytes, how they were parsed, the header rows."""

    data: bytes
    quoted: bool
    blanks: bool
    skip: int
    first_line: int


class Table:
    """A table as read: its Arrow ``table``, the ``source`` name for messages, the
    ``format`` it was read as and, for text, the 1-based source line where each row
    starts (``lines``, found on first use; None for Parquet, Arrow and in-memory
    tables)."""

    def __init__(self, table: pa.Table, source: str, format: str, text: Text | None = None):
        self.table = table
        self.source = source
        self.format = format
        self._text = text

    @property
    def num_rows(self) -> int:
        return self.table.num_rows

    @property
    def has_lines(self) -> bool:
        """Whether rows have source lines (text formats)."""
        return self._text is not None

    @property
    def first_line(self) -> int | None:
        """The line of the first record of a text table (the header, if any)."""
        return None if self._text is None else self._text.first_line

    @cached_property
    def lines(self) -> np.ndarray | None:
        """The 1-based line where each row starts (None without lines)."""
        text = self._text
        if text is None:
            return None
        lines = record_lines(text.data, text.quoted, text.blanks)[text.skip :]
        return lines if len(lines) == self.table.num_rows else None

    def line(self, row: int) -> int | None:
        """The 1-based line where 0-based row ``row`` starts (None without lines)."""
        lines = self.lines
        return None if lines is None else int(lines[row])

    def error(self, row: int, message: str) -> InputError:
        """The one wording of a problem in row ``row`` (0-based): ``FILE:LINE: message``
        for text, ``FILE: row N: message`` (1-based) otherwise."""
        if not self.has_lines:
            return InputError(f"row {row + 1}: {message}", self.source)
        return InputError(message, self.source, self.line(row))

    def column(self, name: str) -> pa.ChunkedArray:
        """Column ``name``; a missing one is an error listing the columns there are."""
        if name not in self.table.column_names:
            raise self.missing(name)
        return self.table.column(name)

    def missing(self, name: str, role: str | None = None) -> InputError:
        """The error for a column that is not there."""
        what = f"{role} column {name!r}" if role else f"column {name!r}"
        found = ", ".join(self.table.column_names) or "none"
        return InputError(f"no {what} (columns: {found})", self.source)

    def require(self, columns: Mapping[str, str]) -> None:
        """Check that each column exists and holds its kind of values: ``"number"``
        (integers or floats), ``"integer"``, ``"string"`` or ``"any"``."""
        for name, kind in columns.items():
            col = self.column(name)
            if not fits(col.type, kind):
                raise wrong_type(name, col.type, kind, self.source)
            if col.null_count:
                row = int(np.flatnonzero(col.is_null().to_numpy(zero_copy_only=False))[0])
                raise self.error(row, f"missing value in column {name!r}")


_KINDS = {"number": "numbers", "integer": "integers", "string": "text", "any": "values"}


def fits(t: pa.DataType, kind: str) -> bool:
    """Whether a column of type ``t`` holds ``kind`` of values (see :meth:`Table.require`;
    a column of nulls holds any kind)."""
    if pa.types.is_dictionary(t):
        t = t.value_type
    return (
        pa.types.is_null(t)
        or {
            "number": pa.types.is_integer(t) or pa.types.is_floating(t),
            "integer": pa.types.is_integer(t),
            "string": pa.types.is_string(t) or pa.types.is_large_string(t),
            "any": True,
        }[kind]
    )


def wrong_type(name: str, t: pa.DataType, kind: str, source: str) -> InputError:
    """The error for column ``name`` holding type ``t`` instead of ``kind``."""
    if pa.types.is_dictionary(t):
        t = t.value_type
    return InputError(f"column {name!r} holds {t}, expected {_KINDS[kind]}", source)


def read_table(
    path_or_file,
    *,
    format: str | None = None,
    formats: Iterable[str] = TABLE_FORMATS,
    strings: Iterable[str] | bool = (),
    header: bool = True,
    rows: bool = True,
    source: str | None = None,
    dictionary: Iterable[str] = (),
    stream: bool = False,
) -> Table:
    """Read a table input (see the module docstring).

    Parameters
    ----------
    path_or_file
        A path, ``"-"`` for standard input, a file object, or an in-memory table
        (a ``pyarrow.Table`` or a pandas/polars DataFrame, taken as it is).
    format
        One of ``formats``; by default told from the content (:func:`.formats.sniff`).
    formats
        The formats the caller accepts; another one is an error.
    strings
        Columns of a text format to keep as text (matched case-insensitively, after
        stripping blanks), or ``True`` for every column: ids such as ``007`` stay as
        written instead of becoming numbers.
    header
        Whether a text input starts with a header row; without one, columns are
        named ``1``, ``2``, ...
    rows
        Whether a table without rows is an error (``"no data rows after the header"``).
    source
        The name of the input in messages (default: the path, ``<stdin>``, ``<file>``;
        for ``bytes`` already read, ``<bytes>``).
    dictionary
        Text columns of a Parquet file to read dictionary-encoded (as Parquet stores
        them: one copy of each distinct value and an int32 index per row, instead of
        the value per row), matched as ``strings`` is.
    stream
        A Parquet, CSV, TSV or Arrow IPC input other than bytes is not read: a
        :class:`Stream` (its columns, its rows a record batch at a time) is returned
        instead, a :class:`ParquetStream`, an :class:`ArrowStream` or a
        :class:`~cranfield.core.io.text_stream.TextStream` (gzip decompressed piece by
        piece; standard input, a pipe or a file object first copied to a temporary
        file as it arrives: :func:`_streamed`). JSON lines and whitespace-separated
        columns are read whole.
    """
    formats = tuple(formats)
    if format is not None and format not in formats:
        raise ParameterError("format", "one of " + ", ".join(formats), format)
    is_bytes = isinstance(path_or_file, (bytes, bytearray, memoryview))
    if not isinstance(path_or_file, (str, os.PathLike)) and not hasattr(path_or_file, "read"):
        if not is_bytes:
            return _in_memory(path_or_file, rows, source or "<table>")
    source = source or ("<bytes>" if is_bytes else source_name(path_or_file))
    hint = extension_format(path_or_file)
    if stream and not is_bytes:
        data = _streamed(
            path_or_file, source, hint, format, formats, strings, header, rows, dictionary
        )
        if isinstance(data, Stream):
            return data
    else:
        data = resolve(path_or_file, source, text=False)
    head = _head(data)
    fmt = _format_of(head, format, hint, formats, source)
    if fmt in BINARY:
        table, text = _binary(data, fmt, source, dictionary), None
    else:
        content = read_bytes(data, source)  # read, or checked, as text: NUL, line length
        table, text = _text(content, fmt, source, strings, header)
    unique_names(table.column_names, source, text is not None)
    if rows and table.num_rows == 0:
        raise InputError(
            "no data rows after the header" if text is not None else "the table has no rows",
            source,
        )
    return Table(table, source, fmt, text)


def _format_of(head: bytes, format: str | None, hint: str | None, formats, source: str) -> str:
    """The format of a table whose (decompressed) content starts with ``head``: the
    explicit ``format``, else told from the content (``hint``, the name's, deciding
    what it leaves open); refused when it is not one of ``formats``."""
    packed = compression(head)
    if packed is not None:
        raise InputError(
            f"{packed}-compressed data: decompress it first (cranfield reads gzip)", source
        )
    if not head:
        raise InputError("empty file", source)
    fmt = format or sniff(head, hint)
    if format is None and hint in BINARY and fmt not in BINARY:
        magic = "PAR1" if hint == "parquet" else "ARROW1"
        raise InputError(f"not a {_NAMES[hint]} file (it does not start with {magic})", source)
    if fmt not in formats:
        raise InputError(
            f"{_NAMES[fmt]} data; expected {', '.join(_NAMES[f] for f in formats)}", source
        )
    return fmt


def _streamed(path_or_file, source: str, hint, format, formats, strings, header, rows, dictionary):
    """A :class:`Stream` of a table input (``stream=True``), or its content as bytes
    when its format is read whole (JSON lines, whitespace-separated columns).

    A regular file is read where it is (gzip decompressed piece by piece, every time
    it is read); standard input, a pipe or a file object is first copied as it
    arrives to a temporary file (:func:`~.source.spool`; deleted with the stream), and
    a gzip-compressed Parquet file decompressed to one (Parquet is read from its end).
    """
    from .source import GZIP_MAGIC, is_regular, open_content, spool

    spooled = None
    if isinstance(path_or_file, (str, os.PathLike)) and str(path_or_file) != "-":
        with open_binary(path_or_file, source) as fh:
            if not is_regular(fh):
                spooled = spool(fh, source)
    else:
        spooled = spool(path_or_file, source)
    path = spooled.name if spooled is not None else path_or_file
    try:
        with open_binary(path, source) as fh:
            try:
                gz = fh.read(2) == GZIP_MAGIC
            except OSError as exc:
                raise InputError(f"cannot read: {exc.strerror or exc}", source) from None
        if gz:
            with open_content(path, source) as fh:
                head = fh.read(_HEAD)
        else:
            head = _head(path, source)
        fmt = _format_of(head, format, hint, formats, source)
        if fmt == "parquet" and gz:
            with open_content(path, source) as fh:
                unpacked = spool(fh, source)
            if spooled is not None:
                spooled.close()
            spooled, path, gz = unpacked, unpacked.name, False
        if fmt == "parquet":
            found: Stream = ParquetStream(path, source, dictionary, rows)
        elif fmt in ("csv", "tsv"):
            from .text_stream import TextStream

            found = TextStream(path, source, fmt, strings, header, rows, gzip=gz)
        elif fmt == "arrow":
            found = ArrowStream(path, source, rows, gzip=gz)
        else:
            return read_bytes(path, source, text=False)
        found._spool, spooled = spooled, None  # (the temporary file lives as long)
        return found
    finally:
        if spooled is not None:
            spooled.close()


_NAMES = {
    "parquet": "Parquet",
    "arrow": "Arrow IPC",
    "csv": "CSV",
    "tsv": "TSV",
    "whitespace": "whitespace-separated",
    "jsonl": "JSON lines",
}


def _in_memory(obj, rows: bool, source: str) -> Table:
    from ..columnar import arrow_of

    try:
        table = arrow_of(obj)
        if not isinstance(table, pa.Table):
            table = pa.table(table)
    except (TypeError, ValueError, pa.ArrowInvalid) as exc:
        raise InputError(f"cannot read as a table: {_first(exc)}", source) from None
    if rows and table.num_rows == 0:
        raise InputError("the table has no rows", source)
    return Table(table, source, "arrow")


def _head(data, source: str | None = None) -> bytes:
    if isinstance(data, bytes):
        return data[:_HEAD]
    source = source or str(data)
    with open_binary(data, source) as fh:
        try:
            return fh.read(_HEAD)
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror or exc}", source) from None


def _first(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class Stream(Table):
    """A table file not read yet: :attr:`table` is empty (the file's columns and their
    types, for :meth:`Table.require`); ``batches(columns, rows)`` reads its rows a
    record batch at a time, in order (nulls are not looked for until then:
    :meth:`first_null`); :attr:`max_rows` bounds the number of rows."""

    @property
    def max_rows(self) -> int:
        return self.num_rows

    @staticmethod
    def first_null(column) -> int | None:
        """The first row of ``column`` (one batch's) holding no value, or None."""
        if not column.null_count:
            return None
        return int(np.flatnonzero(column.is_null().to_numpy(zero_copy_only=False))[0])


class ParquetStream(Stream):
    """A Parquet file not read yet (a :class:`Stream`), :attr:`num_rows` the file's."""

    def __init__(self, path, source: str, dictionary: Iterable[str] = (), rows: bool = True):
        import pyarrow.parquet as pq

        self.path = path
        wanted = {c.lower().strip() for c in dictionary}
        try:
            schema = pq.ParquetFile(path).schema_arrow
            unique_names(schema.names, source, False)
            self._coded = [
                f.name
                for f in schema
                if f.name.lower().strip() in wanted
                and (pa.types.is_string(f.type) or pa.types.is_large_string(f.type))
            ]
            self._file = pq.ParquetFile(path, read_dictionary=self._coded or None)
        except (pa.ArrowException, OSError, ValueError) as exc:
            raise InputError(f"cannot read Parquet: {_first(exc)}", source) from None
        super().__init__(self._file.schema_arrow.empty_table(), source, "parquet")
        self._rows = self._file.metadata.num_rows
        if rows and self._rows == 0:
            raise InputError("the table has no rows", source)

    @property
    def num_rows(self) -> int:
        return self._rows

    def batches(self, columns: list[str], rows: int):
        """The ``columns`` a record batch of at most ``rows`` rows at a time, in order."""
        try:
            yield from self._file.iter_batches(batch_size=rows, columns=columns, use_threads=False)
        except (pa.ArrowException, OSError, ValueError) as exc:
            raise InputError(f"cannot read Parquet: {_first(exc)}", self.source) from None


class ArrowStream(Stream):
    """An Arrow IPC file (the file format, also Feather 2, or the stream format) not
    read yet (a :class:`Stream`): its record batches read one at a time from the file
    (``gzip``: decompressed piece by piece, the file format then read in order as the
    stream it holds after its 8-byte magic), never mapped or read whole; a batch the
    file holds is the least read at a time. :attr:`num_rows` counts the rows (a pass
    over the batches' headers for the file format, over the batches otherwise)."""

    def __init__(self, path, source: str, rows: bool = True, gzip: bool = False):
        self.path, self._gzip = path, gzip
        self.source = source
        with self._reader() as reader:
            schema = reader.schema
        unique_names(schema.names, source, False)
        super().__init__(schema.empty_table(), source, "arrow")
        if rows and self.num_rows == 0:
            raise InputError("the table has no rows", source)

    @cached_property
    def num_rows(self) -> int:  # type: ignore[override]
        with self._reader() as reader:
            if hasattr(reader, "count_rows"):
                return self._guard(reader.count_rows)
            return sum(batch.num_rows for batch in self._each(reader))

    def _guard(self, call, *args):
        try:
            return call(*args)
        except InputError:  # (the gzip stream's, raised through Arrow's read)
            raise
        except (pa.ArrowException, OSError, ValueError) as exc:
            raise InputError(f"cannot read Arrow IPC: {_first(exc)}", self.source) from None

    def _reader(self):
        """A context holding Arrow's reader of the file (see the class docstring)."""
        import contextlib

        import pyarrow.ipc as ipc

        from .source import open_content

        @contextlib.contextmanager
        def opened():
            if self._gzip:
                with open_content(self.path, self.source) as fh:
                    head = fh.read(8)
                if not head.startswith(b"ARROW1"):
                    head = b""  # (the stream format: read from the start)
                with open_content(self.path, self.source) as fh:
                    fh.read(len(head))  # (the file format's magic: its stream follows)
                    yield self._guard(ipc.open_stream, fh)
                    while fh.read(_HEAD):  # the rest (the footer) decompressed too: a
                        pass  # truncated or corrupt gzip stream is refused
                return
            fh = self._guard(pa.OSFile, str(self.path))
            try:
                if _head(self.path, self.source).startswith(b"ARROW1"):
                    yield self._guard(ipc.open_file, fh)
                else:
                    yield self._guard(ipc.open_stream, fh)
            finally:
                fh.close()

        return opened()

    def _each(self, reader):
        """The reader's record batches, in order."""
        if hasattr(reader, "get_batch"):
            for i in range(reader.num_record_batches):
                yield self._guard(reader.get_batch, i)
            return
        while True:
            try:
                yield reader.read_next_batch()
            except StopIteration:
                return
            except InputError:
                raise
            except (pa.ArrowException, OSError, ValueError) as exc:
                raise InputError(f"cannot read Arrow IPC: {_first(exc)}", self.source) from None

    def batches(self, columns: list[str], rows: int):
        """The ``columns`` at most ``rows`` rows at a time, in order (a batch the file
        holds sliced)."""
        with self._reader() as reader:
            for batch in self._each(reader):
                batch = batch.select(columns)
                for start in range(0, batch.num_rows, rows):
                    yield batch.slice(start, rows)


def _binary(data, fmt: str, source: str, dictionary: Iterable[str] = ()) -> pa.Table:
    from .tabular import arrow_threads

    size = len(data) if isinstance(data, bytes) else os.path.getsize(data)
    src = pa.BufferReader(data) if isinstance(data, bytes) else str(data)
    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            wanted = {c.lower().strip() for c in dictionary}
            file = pq.ParquetFile(src)
            unique_names(file.schema_arrow.names, source, False)  # (Arrow fails on them unclearly)
            coded = [
                f.name
                for f in file.schema_arrow
                if f.name.lower().strip() in wanted
                and (pa.types.is_string(f.type) or pa.types.is_large_string(f.type))
            ]
            if coded:
                again = pa.BufferReader(data) if isinstance(data, bytes) else str(data)
                file = pq.ParquetFile(again, read_dictionary=coded)
            return file.read(use_threads=arrow_threads(size))
        import pyarrow.ipc as ipc

        stream = src if isinstance(src, pa.BufferReader) else pa.memory_map(src)
        if _head(data).startswith(b"ARROW1"):
            return ipc.open_file(stream).read_all()
        return ipc.open_stream(stream).read_all()
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise InputError(f"cannot read {_NAMES[fmt]}: {_first(exc)}", source) from None


def unique_names(names: list[str], source: str, text: bool = True) -> None:
    """Refuse a column name that appears twice (the header is line 1 of a text input)."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise InputError(
                f"column {name!r} appears twice in the header", source, 1 if text else None
            )
        seen.add(name)


# -- text ---------------------------------------------------------------------------------


def record_lines(data: bytes, quoted: bool = True, blanks: bool = False) -> np.ndarray:
    """The 1-based line where each record of delimited text starts: every line that is
    not empty (nor, with ``blanks``, only spaces and tabs) and, with ``quoted``, does not
    continue a quoted field (an odd number of ``"`` before it).

    Whole-array: a few passes of NumPy over the bytes, whatever the number of lines,
    with one byte of scratch per byte (counts of quotes are kept modulo 256: only their
    parity matters) and eight per line.
    """
    buf = np.frombuffer(data, np.uint8)
    if not len(buf):
        return np.zeros(0, np.int64)
    starts = np.flatnonzero(buf == 10) + 1
    starts = np.concatenate(([0], starts[starts < len(buf)]))  # (a final line end opens none)
    if blanks:
        ink = buf != 10
        ink &= buf != 13
        ink &= buf != 32
        ink &= buf != 9
        begins = np.logical_or.reduceat(ink, starts)
        del ink
    else:  # a line is empty when nothing but its line end (LF or CRLF) is on it
        end = len(buf) + (buf[-1] != 10)  # where a line end after the last line would be
        length = np.diff(starts, append=end) - 1  # without the LF
        first = buf[np.minimum(starts, len(buf) - 1)]
        begins = (length > 1) | ((length == 1) & (first != 13))
    if quoted and data.find(b'"') >= 0:
        quotes = np.cumsum(buf == 34, dtype=np.uint8)  # wraps at 256: the parity stays
        before = np.where(starts > 0, quotes[np.maximum(starts - 1, 0)], 0)
        begins &= (before & 1) == 0
    return np.flatnonzero(begins).astype(np.int64) + 1


_INK = re.compile(rb"[^ \t\r\n]")
_BLANKS = re.compile(rb"(?m)^[ \t]+|[ \t]+(?=\r?$)")
_RUNS = re.compile(rb"[ \t]+")


def _text(data: bytes, fmt: str, source: str, strings, header: bool):
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]  # a byte-order mark: the lines stay where they are
    if _INK.search(data) is None:  # (the first non-blank byte: no copy of the data)
        raise InputError("empty file", source)
    _utf8(data, source)
    if fmt == "jsonl":
        return _jsonl(data, source)
    if fmt == "whitespace":
        data = _RUNS.sub(b"\t", _BLANKS.sub(b"", data))
    return _delimited(data, fmt, source, strings, header, fmt != "whitespace")


def _delimited(data, fmt, source, strings, header, quoted):
    import pyarrow.csv as pacsv

    delimiter = "," if fmt == "csv" else "\t"
    at, names, types = header_of(data, fmt, source, strings, header, quoted)
    bad: list = []

    def invalid(row) -> str:
        bad.append(row)
        return "error"  # the first one is reported: stop there

    from .tabular import arrow_threads

    threads = arrow_threads(len(data))
    block = 1 << 20
    while True:
        bad.clear()
        try:
            table = pacsv.read_csv(
                pa.BufferReader(data),
                read_options=pacsv.ReadOptions(
                    block_size=block,
                    use_threads=threads,
                    column_names=names,
                ),
                parse_options=pacsv.ParseOptions(
                    delimiter=delimiter,
                    quote_char='"' if quoted else False,
                    newlines_in_values=quoted and data.find(b'"') >= 0,
                    invalid_row_handler=invalid,
                ),
                convert_options=pacsv.ConvertOptions(
                    column_types=types, strings_can_be_null=False, null_values=[""]
                ),
            )
            break
        except pa.ArrowInvalid as exc:
            if bad and bad[0].number is None and threads:  # threads do not number rows:
                threads = False  # read again in order to name its line
                continue
            if bad:
                break
            message = str(exc)
            if "straddl" in message and block < len(data):  # a row longer than a block
                block = min(4 * block, len(data) + 1)
                continue
            if "UTF8" in message or "UTF-8" in message:
                decode(data, source, 1)
            raise InputError(f"cannot parse {_NAMES[fmt]}: {_first(exc)}", source) from None
    if bad:
        row = bad[0]
        starts = record_lines(data, quoted)
        record = row.number if row.number is not None and row.number > 0 else None
        line = int(starts[record - 1]) if record is not None and record <= len(starts) else None
        raise InputError(
            f"expected {row.expected_columns} fields (as in the "
            f"{'header' if header else 'first line'}), got {row.actual_columns}",
            source,
            line,
        )
    return table, Text(data, quoted, False, 1 if header else 0, at)


def header_of(data: bytes, fmt: str, source: str, strings, header: bool, quoted: bool):
    """The line of the first record of delimited text ``data``, the column names to
    give Arrow (None: it reads the header) and the columns' fixed types (``strings``:
    text), from the first record."""
    import csv

    delimiter = "," if fmt == "csv" else "\t"
    at, offset = 1, 0
    while True:  # (only the empty lines before the first record)
        end = data.find(b"\n", offset)
        if end < 0 or data[offset:end] not in (b"", b"\r"):
            break
        at, offset = at + 1, end + 1
    first = decode(data[offset : end if end >= 0 else len(data)].rstrip(b"\r"), source, at)
    if quoted:
        heads = next(csv.reader([first], delimiter=delimiter), [])
    else:
        heads = first.split(delimiter)
    names = None if header else [str(i + 1) for i in range(len(heads))]
    heads = [h.strip() for h in heads] if header else names
    if strings is True:
        types = {h: pa.string() for h in heads}
    else:
        wanted = {s.strip().lower() for s in strings}
        types = {h: pa.string() for h in heads if h.strip().lower() in wanted}
    return at, names, types


def _utf8(data: bytes, source: str) -> None:
    """Fail unless ``data`` is UTF-8 (checked by Arrow, without a Python string)."""
    if data.isascii():
        return
    offsets = pa.py_buffer(np.array([0, len(data)], np.int64).tobytes())
    array = pa.Array.from_buffers(pa.large_binary(), 1, [None, offsets, pa.py_buffer(data)])
    try:
        array.cast(pa.large_string()).validate(full=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        decode(data, source)  # names the line


def decode(data: bytes, source: str, line: int = 1) -> str:
    """``data`` as UTF-8 text; else the one error, naming the line (``data`` starts at
    ``line``)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        at = line + data.count(b"\n", 0, exc.start)
        raise InputError("not valid UTF-8 text (save the file as UTF-8)", source, at) from None


def _jsonl(data: bytes, source: str):
    import pyarrow.json as pajson

    try:
        table = pajson.read_json(pa.BufferReader(data))
    except pa.ArrowInvalid as exc:
        decode(data, source, 1)
        starts = record_lines(data, quoted=False, blanks=True)
        match = re.search(r"[Rr]ow #?(\d+)", str(exc))
        line = None
        if match and 0 < int(match.group(1)) <= len(starts):
            line = int(starts[int(match.group(1)) - 1])
        raise InputError(f"cannot parse JSON lines: {_first(exc)}", source, line) from None
    return table, Text(data, False, True, 0, 1)


def binary_format(path_or_file) -> str | None:
    """``"parquet"`` or ``"arrow"`` when a file holds one (its magic bytes; its name when
    it cannot be peeked at, as standard input, or names one), else None: for readers
    that take other, non-tabular formats too (the learning-to-rank reader's SVMlight
    lines) and for listing a directory's Parquet files."""
    hint = extension_format(path_or_file)
    if hint in BINARY:
        return hint
    if not isinstance(path_or_file, (str, os.PathLike)) or os.fspath(path_or_file) == "-":
        return None
    try:
        with open(path_or_file, "rb") as fh:
            head = fh.read(8)
    except OSError:
        return None  # the reader that follows reports it
    told = sniff(head)
    return told if told in BINARY else None


def holds_binary_table(path_or_file) -> bool:
    """Whether :func:`binary_format` finds Parquet or Arrow IPC."""
    return binary_format(path_or_file) is not None
