"""A CSV or TSV file read a block at a time, exactly as :func:`~.table.read_table` reads
it whole.

The file is never held whole (a gzip-compressed one is decompressed piece by piece at
each pass, :func:`~.source.open_content`):

1. a first pass makes the checks the whole reader makes of the bytes before parsing
   them, in its order and with its messages: a NUL byte or a line over 64 MiB
   (:class:`.source.TextCheck`), a file with nothing but blanks (a byte-order mark
   aside), text that is not UTF-8 (each naming its line);
2. the rows are then parsed by Arrow's streaming reader (``pyarrow.csv.open_csv``) with
   the whole reader's options (the header's columns, the id columns kept as text,
   quoted line breaks allowed when the file holds a quote), in blocks of
   :data:`BLOCK_BYTES`: Arrow finds the records across blocks by its own rules, quotes
   inside unquoted fields included. A row longer than a block reads the file again
   with larger blocks, the rows already given skipped.

Arrow's streaming reader takes a column's type from the first block; a column asked
for numbers (:meth:`TextStream.require`) is read as float64 throughout (the whole
reader's integers become the same float64 when the lists are read), and a value that
is not a number makes the whole reader's error, the column's type as Arrow infers it
from the whole file (that column alone read). An error the header or the first rows
show waits until every row has parsed, as the whole reader parses first. An error's
line is found as the whole reader finds it (:func:`~.table.record_lines`, over pieces
of :data:`PIECE_BYTES` cut at a line end after an even number of ``"``), from the
record number Arrow gives.
"""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa

from ...errors import InputError
from .source import TextCheck, file_pieces, open_binary, open_content
from .table import (
    _NAMES,
    Stream,
    _first,
    _utf8,
    fits,
    header_of,
    record_lines,
    unique_names,
    wrong_type,
)

#: bytes of a piece of text cut at a line end (an error's line is found a piece at a time)
PIECE_BYTES = 1 << 26
#: bytes of the first piece, where the header is read
HEAD_BYTES = 1 << 20
#: bytes of a block Arrow parses at a time (tests make it tiny)
BLOCK_BYTES = 1 << 20

_BOM = b"\xef\xbb\xbf"
_INK = re.compile(rb"[^ \t\r\n]")


class TextStream(Stream):
    """A CSV or TSV file (``fmt``) named by a path, checked (its bytes, its header, the
    types of its first rows) but not read yet (see the module docstring); ``strings``
    and ``header`` as for :func:`~.table.read_table`."""

    def __init__(
        self,
        path,
        source: str,
        fmt: str,
        strings=(),
        header: bool = True,
        rows=True,
        gzip: bool = False,
    ):
        self.path = path
        self._gzip = gzip
        self._fmt, self._header = fmt, header
        self._kinds: dict[str, str] = {}
        self._quotes, self._lines, self._size = _scan(self._open, source)
        self.source = source
        first, _, _ = next(self._cut(source, HEAD_BYTES))
        _, self._names, self._types = header_of(first, fmt, source, strings, header, True)
        head = None
        for batch in self._read(None, self._types):  # (the first rows' types)
            head = batch
            if batch.num_rows:
                break
        schema = self._schema
        self._names = schema.names
        super().__init__(schema.empty_table(), source, fmt)
        try:
            unique_names(self._names, source, True)
            if rows and (head is None or not head.num_rows):
                raise InputError("no data rows after the header", source)
        except InputError:
            self._parse_all()
            raise

    @property
    def has_lines(self) -> bool:
        return True

    def _open(self, source: str | None = None):
        """The file opened for reading, gunzipped piece by piece when it is
        gzip-compressed (:func:`~.source.open_content`)."""
        if self._gzip:
            return open_content(self.path, source or self.source)
        return open_binary(self.path, source or self.source)

    @property
    def max_rows(self) -> int:
        """At most this many rows: the file's lines (its records are counted as read)."""
        return self._lines

    def require(self, columns) -> None:
        """:meth:`Table.require` of the first rows; the later rows are converted to the
        kind asked (a value that is not one: the whole reader's error)."""
        try:
            super().require(columns)
        except InputError:
            self._parse_all()
            raise
        self._kinds.update(columns)

    def missing(self, name: str, role: str | None = None) -> InputError:
        self._parse_all()
        return super().missing(name, role)

    def batches(self, columns: list[str], rows: int):
        """The ``columns`` a record batch of about ``rows`` rows at a time, in order."""
        types = dict(self._types)
        for name, kind in self._kinds.items():
            if name in columns and kind in _FIXED:
                types[name] = _FIXED[kind]
        held, count, size = [], 0, 0
        try:
            for batch in self._read(columns, types):
                held.append(batch)
                count += batch.num_rows
                size += batch.nbytes
                if count >= rows or size >= _JOINED_BYTES:  # (long ids: offsets stay int32)
                    yield _joined(held)
                    held, count, size = [], 0, 0
        except _Unconverted:
            self._parse_all()  # (a row with too few or many fields comes first)
            for name, kind in self._kinds.items():
                if name in columns and not fits(t := self._whole_type(name), kind):
                    raise wrong_type(name, t, kind, self.source) from None
            raise InputError(f"cannot parse {_NAMES[self._fmt]}", self.source) from None
        if held:
            yield _joined(held)

    def _parse_all(self) -> None:
        """Parse every row (an error found before them is the whole reader's only if
        they parse: its parse comes first)."""
        text = {name: pa.string() for name in self._names}
        for _ in self._read([self._names[0]], text):
            pass

    def _read(self, columns, types):
        """Arrow's record batches of the file (``columns``, None for all), read as the
        whole reader parses it; a row longer than a block reads the file again with
        larger blocks (the rows already given skipped)."""
        import pyarrow.csv as pacsv

        from .tabular import arrow_threads

        block = BLOCK_BYTES
        threads = arrow_threads(self._size)
        done = 0  # rows given
        while True:
            bad: list = []

            def invalid(row, bad=bad) -> str:
                bad.append(row)
                return "error"  # the first one is reported: stop there

            at = 0
            with self._open() as fh:
                try:
                    reader = pacsv.open_csv(
                        fh,
                        read_options=pacsv.ReadOptions(
                            block_size=block,
                            use_threads=threads,
                            column_names=None if self._header else self._names,
                        ),
                        parse_options=pacsv.ParseOptions(
                            delimiter="," if self._fmt == "csv" else "\t",
                            newlines_in_values=self._quotes,
                            invalid_row_handler=invalid,
                        ),
                        convert_options=pacsv.ConvertOptions(
                            column_types=types,
                            strings_can_be_null=False,
                            null_values=[""],
                            include_columns=columns,
                        ),
                    )
                    self._schema = reader.schema
                    for batch in reader:
                        if at + batch.num_rows > done:
                            yield batch.slice(max(done - at, 0))
                            done = at + batch.num_rows
                        at += batch.num_rows
                    return
                except pa.ArrowInvalid as exc:
                    message = str(exc)
                    if bad and bad[0].number is None and threads:  # (threads do not number
                        threads = False  # rows: read again in order to name its line)
                        continue
                    if bad:
                        raise self._bad_row(bad[0]) from None
                    short = "straddl" in message or "Empty CSV file or block" in message
                    if short and block < self._size:
                        block *= 4  # a row longer than a block, or blank lines only in it
                        continue
                    if "conversion error" in message:
                        raise _Unconverted from None
                    raise InputError(
                        f"cannot parse {_NAMES[self._fmt]}: {_first(exc)}", self.source
                    ) from None

    def _bad_row(self, row) -> InputError:
        record = row.number if row.number is not None and row.number > 0 else None
        return InputError(
            f"expected {row.expected_columns} fields (as in the "
            f"{'header' if self._header else 'first line'}), got {row.actual_columns}",
            self.source,
            None if record is None else self._record_line(record - 1),
        )

    def line(self, row: int) -> int | None:
        """The 1-based line where 0-based row ``row`` starts (the file read again)."""
        return self._record_line(row + int(self._header))

    def _record_line(self, record: int) -> int | None:
        """The line where 0-based record ``record`` starts (the header one), as the
        whole reader numbers them (:func:`~.table.record_lines`), or None past the end."""
        for data, line, _ in self._cut():
            starts = record_lines(data, True)
            if record < len(starts):
                return int(starts[record]) + line - 1
            record -= len(starts)
        return None

    def _cut(self, source: str | None = None, size: int | None = None):
        """``(piece, its first line, its offset in the file)``: the file in pieces of
        about ``size`` bytes (:data:`PIECE_BYTES`) ending at a line end outside quotes
        (the first one holding the first record, without its byte-order mark)."""
        source = source or self.source
        size = size or PIECE_BYTES
        line, offset, carry = 1, 0, b""
        with self._open(source) as fh:
            while True:
                try:
                    more = fh.read(size)
                except OSError as exc:
                    raise InputError(f"cannot read: {exc.strerror or exc}", source) from None
                buf = carry + more if carry else more
                if not more:
                    if buf:
                        yield buf, line, offset
                    return
                if not offset and buf.startswith(_BOM):
                    buf, offset = buf[3:], 3
                end = _end(buf, self._quotes)
                if end == 0 or (line == 1 and _INK.search(buf, 0, end) is None):
                    carry = buf  # (no cut yet: read on)
                    continue
                piece, carry = buf[:end], buf[end:]
                yield piece, line, offset
                line += piece.count(b"\n")
                offset += end

    def _whole_type(self, name: str) -> pa.DataType:
        """The type of column ``name`` as Arrow infers it from the whole file (the
        column alone read: an error's message)."""
        import pyarrow.csv as pacsv

        try:
            with self._open() as fh:
                table = pacsv.read_csv(
                    fh,
                    read_options=pacsv.ReadOptions(
                        use_threads=False,
                        column_names=None if self._header else self._names,
                    ),
                    parse_options=pacsv.ParseOptions(
                        delimiter="," if self._fmt == "csv" else "\t",
                        newlines_in_values=self._quotes,
                    ),
                    convert_options=pacsv.ConvertOptions(
                        column_types=self._types,
                        strings_can_be_null=False,
                        null_values=[""],
                        include_columns=[name],
                    ),
                )
        except (pa.ArrowException, OSError) as exc:
            raise InputError(f"cannot read: {_first(exc)}", self.source) from None
        return table.schema.field(name).type


class _Unconverted(Exception):
    """A value Arrow could not convert to the type a column was read as."""


_FIXED = {"number": pa.float64(), "integer": pa.int64()}
_JOINED_BYTES = 1 << 28


def _joined(batches: list) -> pa.RecordBatch:
    """Arrow's blocks as one record batch (a few large batches, as Parquet's)."""
    if len(batches) == 1:
        return batches[0]
    return pa.Table.from_batches(batches).combine_chunks().to_batches()[0]


def _end(buf: bytes, quotes: bool) -> int:
    """Where ``buf`` may be cut: after its last line end preceded by an even number of
    ``"`` (``quotes``: the file holds some), 0 if nowhere."""
    end = buf.rfind(b"\n") + 1
    if not quotes or not end or buf.count(b'"', 0, end) % 2 == 0:
        return end
    raw = np.frombuffer(buf, np.uint8)
    ends = np.flatnonzero(raw == 10)
    odd = np.cumsum(raw == 34, dtype=np.uint8)[ends] & 1  # (wraps at 256: the parity stays)
    even = ends[odd == 0]
    return int(even[-1]) + 1 if len(even) else 0


def _scan(opener, source: str) -> tuple[bool, int, int]:
    """Check the bytes of the file (``opener(source)`` opens it) as the whole reader
    does before parsing (see the module docstring); whether it holds a ``"``, how many
    lines and bytes."""
    quotes = ink = False
    bad: InputError | None = None  # (not UTF-8: reported after the other checks)
    tail: list[bytes] = []  # the bytes since the last line end, when checking UTF-8
    tail_line = 1
    check = TextCheck(source)
    size = 0
    with opener(source) as fh:
        for n, piece in enumerate(file_pieces(fh, source)):
            check(piece)
            size += len(piece)
            if n == 0 and piece.startswith(_BOM):
                piece = piece[3:]
            quotes = quotes or b'"' in piece
            ink = ink or _INK.search(piece) is not None
            if bad is None and (tail or not piece.isascii()):
                end = piece.rfind(b"\n") + 1
                tail.append(piece[:end] if end else piece)
                if end:
                    bad = _not_utf8(b"".join(tail), source, tail_line)
                    tail = [piece[end:]] if end < len(piece) else []
                    tail_line = check.lines + 1
    if bad is None and tail:
        bad = _not_utf8(b"".join(tail), source, tail_line)
    if not ink:
        raise InputError("empty file", source)
    if bad is not None:
        raise bad
    return quotes, check.lines + 1, size


def _not_utf8(data: bytes, source: str, line: int) -> InputError | None:
    """The error of ``data`` (starting at ``line``) not being UTF-8, or None."""
    try:
        _utf8(data, source)
    except InputError as exc:
        return InputError(exc.message, source, line + (exc.line or 1) - 1)
    return None
