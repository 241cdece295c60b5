"""A CSV or TSV file read a piece at a time, exactly as :func:`~.table.read_table` reads
it whole.

The file is read twice, never held whole:

1. a first pass makes the checks the whole reader makes of the bytes before parsing
   them, in its order and with its messages: a NUL byte or a line over 64 MiB
   (:class:`.source.TextCheck`), a file with nothing but blanks (a byte-order mark
   aside), text that is not UTF-8 (each naming its line);
2. the rows are then parsed from pieces of about :data:`PIECE_BYTES` cut at a line end
   outside quotes (an even number of ``"`` before it, the rule
   :func:`~.table.record_lines` numbers records by), each with the options of the
   whole reader (:func:`~.table.parse_delimited`; the header's columns, the id
   columns kept as text), a row's line offset by the lines before its piece.

Arrow infers a column's type from all of a file's rows; here each piece's type is its
own, the types of the first rows telling :meth:`~.table.Table.require` what the
file holds. A later piece whose column no longer holds the kind asked for (a word in
a score column) makes the error the whole reader gives, the column's type as Arrow
reads it from the whole file (that column alone).
"""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa

from ...errors import InputError
from .source import TextCheck, file_pieces, open_binary
from .table import (
    Stream,
    _first,
    _utf8,
    fits,
    header_of,
    parse_delimited,
    record_lines,
    unique_names,
    wrong_type,
)

#: bytes of a piece parsed at a time (tests make it tiny)
PIECE_BYTES = 1 << 26
#: bytes of the first rows parsed when the file is opened (their column types)
HEAD_BYTES = 1 << 20

_BOM = b"\xef\xbb\xbf"
_INK = re.compile(rb"[^ \t\r\n]")


class TextStream(Stream):
    """A CSV or TSV file (``fmt``) named by a path, checked (its bytes, its header, the
    types of its first rows) but not read yet (see the module docstring); ``strings``
    and ``header`` as for :func:`~.table.read_table`."""

    def __init__(self, path, source: str, fmt: str, strings=(), header: bool = True, rows=True):
        self.path = path
        self._fmt, self._header = fmt, header
        self._kinds: dict[str, str] = {}
        self._index: list[tuple[int, int, int, int, int, int]] = []
        self._quotes, self._lines = _scan(path, source)
        self._names = self._types = None
        table = None
        for data, line, _ in self._cut(source, min(PIECE_BYTES, HEAD_BYTES)):  # (the types)
            if self._names is None:
                _, names, self._types = header_of(data, fmt, source, strings, header, True)
                table = self._parse(data, names, line, None, source)
                self._names = table.column_names
            else:
                table = self._parse(data, self._names, line, None, source)
            if table.num_rows:
                break
        super().__init__(table.schema.empty_table(), source, fmt)
        try:
            unique_names(self._names, source, True)
            if rows and not table.num_rows:
                raise InputError("no data rows after the header", source)
        except InputError:
            self._parse_all()
            raise

    def _parse_all(self) -> None:
        """Parse every row (an error found before them is the whole reader's only if
        they parse: its parse comes first)."""
        for _ in self.batches([self._names[0]], 1 << 20, check=False):
            pass

    @property
    def has_lines(self) -> bool:
        return True

    @property
    def max_rows(self) -> int:
        """At most this many rows: the file's lines (its records are counted as read)."""
        return self._lines

    def require(self, columns) -> None:
        """:meth:`Table.require` of the first rows; each later piece is checked as read."""
        try:
            super().require(columns)
        except InputError:
            self._parse_all()
            raise
        self._kinds.update(columns)

    def missing(self, name: str, role: str | None = None) -> InputError:
        self._parse_all()
        return super().missing(name, role)

    def _parse(self, data: bytes, names, line: int, include, source: str) -> pa.Table:
        return parse_delimited(
            data, self._fmt, source, names, self._types, self._header, self._quotes, True,
            line, include,
        )  # fmt: skip

    def _cut(self, source: str | None = None, size: int | None = None):
        """``(piece, its first line, its offset in the file)``: the file in pieces of
        about ``size`` bytes (:data:`PIECE_BYTES`) ending at a line end outside quotes
        (the first one holding the first record, without its byte-order mark)."""
        source = source or self.source
        size = size or PIECE_BYTES
        line, offset, carry = 1, 0, b""
        with open_binary(self.path, source) as fh:
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

    def batches(self, columns: list[str], rows: int, check: bool = True):
        """The ``columns`` a record batch of at most ``rows`` rows at a time, in order
        (``check``: each piece's types)."""
        self._index = []
        at, wrong = 0, None
        for n, (data, line, offset) in enumerate(self._cut()):
            names = None if n == 0 and self._header else self._names
            table = self._parse(data, names, line, columns, self.source)
            self._index.append((at, table.num_rows, offset, len(data), line, int(names is None)))
            at += table.num_rows
            for name, kind in self._kinds.items() if check else ():
                if wrong is None and name in columns:
                    if not fits(table.schema.field(name).type, kind):
                        wrong = name, kind  # (raised once every row is parsed, as whole)
            if wrong is None:
                yield from table.combine_chunks().to_batches(
                    max_chunksize=rows
                )  # (not 1 MiB blocks)
        if wrong is not None:
            raise wrong_type(wrong[0], self._whole_type(wrong[0]), wrong[1], self.source)

    def line(self, row: int) -> int | None:
        """The 1-based line where 0-based row ``row`` starts (its piece read again)."""
        if not self._index or row >= self._index[-1][0] + self._index[-1][1]:
            for _ in self.batches(list(self._names), 1 << 20):  # (every piece indexed)
                pass
        for first, n, offset, length, line, skip in self._index:
            if first <= row < first + n:
                with open_binary(self.path, self.source) as fh:
                    fh.seek(offset)
                    data = fh.read(length)
                starts = record_lines(data, True)[skip:]
                return int(starts[row - first]) + line - 1
        return None

    def _whole_type(self, name: str) -> pa.DataType:
        """The type of column ``name`` as Arrow infers it from the whole file (the
        column alone read: an error's message)."""
        import pyarrow.csv as pacsv

        try:
            table = pacsv.read_csv(
                str(self.path),
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


def _scan(path, source: str) -> tuple[bool, int]:
    """Check the bytes of the file as the whole reader does before parsing (see the
    module docstring); whether it holds a ``"`` and how many lines."""
    quotes = ink = False
    bad: InputError | None = None  # (not UTF-8: reported after the other checks)
    tail: list[bytes] = []  # the bytes since the last line end, when checking UTF-8
    tail_line = 1
    check = TextCheck(source)
    with open_binary(path, source) as fh:
        for n, piece in enumerate(file_pieces(fh, source)):
            check(piece)
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
    return quotes, check.lines + 1


def _not_utf8(data: bytes, source: str, line: int) -> InputError | None:
    """The error of ``data`` (starting at ``line``) not being UTF-8, or None."""
    try:
        _utf8(data, source)
    except InputError as exc:
        return InputError(exc.message, source, line + (exc.line or 1) - 1)
    return None
