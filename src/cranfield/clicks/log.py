"""Click logs: search sessions held as sessions x ranks arrays.

A session is one query, the documents shown for it in order (rank 1 first), which of
them were clicked and, optionally, a time per document (seconds from the query to the
click, or a dwell time) and a user or bucket id. A :class:`ClickLog` holds ``n``
sessions as arrays: ``query`` (``n``, integer codes), ``docs`` (``n x K`` document
codes, ``-1`` after the end of a shorter list), ``clicks`` (``n x K`` booleans, false
in the padding). Query and document ids are interned once into ``query_names`` and
``doc_names``.

Readers (:func:`read_log`): JSONL, CSV, TSV, Parquet and Arrow (the one table reader,
:mod:`cranfield.core.io.table`), PyClick's text format and the Yandex
relevance-prediction log. Every problem is an :class:`~cranfield.errors.InputError`
naming the file and, for the text formats, the line.

No input is held whole: JSONL, PyClick and Yandex text is handed to the engine in
pieces as it is read (:func:`read_stream`); a CSV, TSV, Parquet or Arrow IPC table a
record batch at a time (:class:`~cranfield.core.io.text_stream.TextStream`,
:class:`~cranfield.core.io.table.ParquetStream`,
:class:`~cranfield.core.io.table.ArrowStream`; gzip decompressed piece by piece,
standard input copied to a temporary file as it arrives; :func:`read_table`). Each
piece is reduced at once to the sessions' integer codes, so memory holds the interned
ids, the sessions' arrays and one piece.
"""

from __future__ import annotations

import json
import os

from .._lazy import lazy
from .._record import Record
from ..core.io.source import PieceFile, checked, read_pieces, source_name
from ..errors import InputError, ParameterError

np = lazy("numpy", __name__, "np")

MAX_RANKS = 1000
"""The most documents one session may show (bounds the ``n x K`` arrays)."""

FORMATS = ("jsonl", "csv", "tsv", "parquet", "arrow", "pyclick", "yandex")


class ClickLog(Record):
    """Sessions of a click log as arrays (see the module docstring). Two logs are equal
    only if they are the same object (their arrays are not compared)."""

    __slots__ = ("query", "docs", "clicks", "query_names", "doc_names", "times", "user", "source")
    __eq__ = object.__eq__
    __hash__ = object.__hash__
    query: np.ndarray
    docs: np.ndarray
    clicks: np.ndarray
    query_names: np.ndarray
    doc_names: np.ndarray
    times: np.ndarray | None
    user: np.ndarray | None
    source: str

    _defaults = {"times": None, "user": None, "source": "<log>"}

    @property
    def n_sessions(self) -> int:
        return int(self.query.shape[0])

    @property
    def max_rank(self) -> int:
        return int(self.docs.shape[1])

    @property
    def shown(self) -> np.ndarray:
        """``n x K`` booleans: a document is shown at that rank."""
        return self.docs >= 0

    def subset(self, rows: np.ndarray) -> ClickLog:
        """The sessions ``rows`` (a boolean mask or indices), names kept."""
        return ClickLog(
            self.query[rows],
            self.docs[rows],
            self.clicks[rows],
            self.query_names,
            self.doc_names,
            None if self.times is None else self.times[rows],
            None if self.user is None else self.user[rows],
            self.source,
        )


def from_arrays(
    query, docs, clicks, query_names=None, doc_names=None, *, times=None, user=None, source="<log>"
) -> ClickLog:
    """A :class:`ClickLog` from integer arrays, checked (shapes, padding, codes)."""
    query = np.asarray(query, dtype=np.int64)
    docs = np.asarray(docs, dtype=np.int64)
    clicks = np.asarray(clicks, dtype=bool)
    if docs.ndim != 2 or clicks.shape != docs.shape or query.shape != (docs.shape[0],):
        raise InputError("expected query (n), docs (n x K) and clicks (n x K) arrays", source)
    if docs.shape[0] == 0 or docs.shape[1] == 0:
        raise InputError("the log holds no session", source)
    shown = docs >= 0
    if not shown[:, 0].all():
        raise InputError("every session shows at least one document", source)
    if (shown[:, 1:] & ~shown[:, :-1]).any():
        raise InputError("a session's documents must be contiguous from rank 1", source)
    if (clicks & ~shown).any():
        raise InputError("a click on a rank where no document is shown", source)
    if (query < 0).any():
        raise InputError("negative query code", source)
    if query_names is None:
        query_names = np.array([str(i) for i in range(int(query.max()) + 1)], dtype=object)
    if doc_names is None:
        doc_names = np.array([str(i) for i in range(int(docs.max()) + 1)], dtype=object)
    query_names = np.asarray(query_names, dtype=object)
    doc_names = np.asarray(doc_names, dtype=object)
    if query.max() >= len(query_names) or docs.max() >= len(doc_names):
        raise InputError("a code without a name", source)
    return ClickLog(query, docs, clicks, query_names, doc_names, times, user, source)


def _log(out: tuple, source: str) -> ClickLog:
    """A :class:`ClickLog` from what the engine's readers return (flat row-major
    ``sessions x ranks`` arrays, interned names)."""
    query, docs, clicks, times, user, query_names, doc_names, user_names, k = out
    n = len(query)
    if n == 0:
        raise InputError("the log holds no session", source)
    if user is not None:  # code -1 (no user) picks the appended None
        user = np.array([*user_names, None], dtype=object)[user]
    return ClickLog(
        query,
        docs.reshape(n, k),
        clicks.reshape(n, k),
        np.array(query_names, dtype=object),
        np.array(doc_names, dtype=object),
        None if times is None else times.reshape(n, k),
        user,
        source,
    )


def read_text(data: bytes, source: str, format: str) -> ClickLog:
    """A JSONL, PyClick or Yandex log from its bytes, read by the engine in one pass
    (``cranfield._engine.read_click_text``; see :func:`read_log` for the formats)."""
    from .. import _engine

    try:
        return _log(_engine.read_click_text(data, format), source)
    except _engine.ReadError as exc:
        raise _refusal(exc.args, source, lambda line: _line(data, line)) from None


def _refusal(args: tuple, source: str, line_text) -> InputError:
    """The one-line error for the engine's ``ReadError(what, line, detail[, text])``;
    ``line_text(n)``: the bytes of line ``n``, when the engine did not give them."""
    what, line, detail, *text = args
    if what == "utf8":
        return InputError("not valid UTF-8 text (save the file as UTF-8)", source, line)
    if what == "click_json":
        detail = _json_words(text[0].encode() if text else line_text(line), detail)
    return InputError(detail, source, line)


_LINE_FORMATS = ("jsonl", "pyclick", "yandex")
"""The text formats read in pieces as they arrive."""

CHUNK = 16 << 20
"""Bytes handed to the engine at a time by :func:`read_stream`."""


PARALLEL_FROM = 1 << 16
"""Chunks of at least this many bytes are read in two halves on two threads."""


def read_stream(
    pieces, source: str, format: str, chunk: int = CHUNK, parallel_from: int | None = PARALLEL_FROM
) -> ClickLog:
    """A JSONL, PyClick or Yandex log from its checked pieces
    (:func:`~cranfield.core.io.source.checked`), handed to the engine ``chunk`` bytes at
    a time (``cranfield._engine.ClickTextReader``): it reads each chunk's complete lines
    (JSONL and PyClick in two halves on two threads from ``parallel_from`` bytes, None:
    one thread; Yandex on one, its clicks matched to pages of earlier lines) and
    carries the rest, so memory holds one chunk and the sessions' arrays, never the
    whole text."""
    from .. import _engine

    reader = _engine.ClickTextReader(format, parallel_from)
    held: list[bytes] = []
    size = 0
    try:
        for piece in pieces:
            held.append(piece)
            size += len(piece)
            if size >= chunk:
                reader.feed(b"".join(held))
                held, size = [], 0
        if held:
            reader.feed(b"".join(held))
        return _log(reader.finish(), source)
    except _engine.ReadError as exc:
        raise _refusal(exc.args, source, lambda line: b"") from None


def _line(data: bytes, number: int) -> bytes:
    """Line ``number`` (1-based) of ``data``, lines ended by LF, CRLF or CR as the
    engine counts them."""
    import re

    for i, match in enumerate(re.finditer(rb"[^\r\n]*(?:\r\n|\r|\n|$)", data), 1):
        if i == number:
            return match.group().rstrip(b"\r\n")
    return b""


def _json_words(line: bytes, engine_words: str) -> str:
    """``not valid JSON: ...`` in the words of Python's :mod:`json` for the one line the
    engine refused (the engine's own words where Python would take the line)."""
    try:
        json.loads(line.decode("utf-8").removeprefix("\ufeff"))
    except json.JSONDecodeError as exc:
        return f"not valid JSON: {exc.msg}"
    except RecursionError:
        return "not valid JSON: too deeply nested"
    return f"not valid JSON: {engine_words}"


_FIELDS = ("query", "docs", "clicks", "clicked", "times", "dwell", "user", "bucket")


BATCH_ROWS = 1 << 17
"""Rows of a table handed to the engine at a time by :func:`read_table`."""


def read_table(
    data, source: str, format: str | None = None, batch_rows: int = BATCH_ROWS
) -> ClickLog:
    """A CSV, TSV, Parquet or Arrow log, one session a row, read by the one table
    reader (:func:`cranfield.core.io.table.read_table`, streamed a record batch at a
    time: a file, a gzip file, standard input; bytes are read whole) and handed to the engine
    ``batch_rows`` rows at a time as Arrow buffers (``cranfield._engine.
    ClickTableReader``), each batch reduced at once to the sessions' codes; text cells
    are kept as written (blank ones missing), a problem names the line (the row, for
    Parquet)."""
    from .. import _engine
    from ..core.io.table import read_table as read_any

    read = read_any(
        data, format=format, formats=_TABLES, strings=True, rows=False, source=source, stream=True
    )
    names = read.table.column_names
    wanted = [name for name in names if str(name).strip() in _FIELDS]
    reader = _engine.ClickTableReader()
    done = 0  # rows handed over
    for rows, batch in _batches(read, wanted, names, batch_rows):
        columns = [_column(str(name).strip(), batch.column(name), source) for name in wanted]
        try:
            reader.feed(columns, rows, read.has_lines)
        except _engine.ReadError as exc:
            _, row, message = exc.args
            if read.has_lines:
                raise InputError(message, source, read.line(done + row)) from None
            raise InputError(message, f"{source} row", done + row + 1) from None
        done += rows
    return _log(reader.finish(), source)


def _batches(read, wanted: list, names: list, batch_rows: int):
    """``(rows, batch)``: the table's ``wanted`` columns, ``batch_rows`` rows at a time
    (a stream's record batches; a table read whole in slices); a batch of the first
    column when none is wanted (the rows are still counted)."""
    from ..core.io.table import Stream

    if not isinstance(read, Stream):
        for start in range(0, read.num_rows, batch_rows):
            part = read.table.slice(start, batch_rows)
            yield part.num_rows, part
    elif not names:
        yield read.num_rows, None
    else:
        for batch in read.batches(wanted or names[:1], batch_rows):
            yield batch.num_rows, batch


def _kind(type_) -> str | None:
    """The engine's name of what a column's values are, None if not a scalar it takes."""
    import pyarrow as pa

    if pa.types.is_string(type_) or pa.types.is_large_string(type_) or pa.types.is_null(type_):
        return "s"
    if pa.types.is_integer(type_):
        return "i"
    if pa.types.is_floating(type_):
        return "f"
    if pa.types.is_boolean(type_):
        return "b"
    return None


def _column(name: str, column, source: str) -> tuple:
    """One column as ``read_click_table`` takes it: its values (or its lists' items) as
    text buffers, what they were, and the lists' offsets."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from ..core.io.arrays import as_array, bools, text_buffers

    arr = as_array(column)
    if pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_decode()
    lists = None
    if pa.types.is_list(arr.type) or pa.types.is_large_list(arr.type):
        arr = arr.cast(pa.large_list(arr.type.value_type))
        starts = arr.offsets.to_numpy()
        valid = bools(pc.is_valid(arr)) if arr.null_count else None
        lists = (np.ascontiguousarray(starts - starts[0], dtype=np.int64), valid)
        arr = arr.values.slice(int(starts[0]), int(starts[-1] - starts[0]))
        if pa.types.is_dictionary(arr.type):
            arr = arr.dictionary_decode()
    kind = _kind(arr.type)
    if kind is None:
        raise InputError(
            f"column {name!r} holds {arr.type}: expected text, numbers or lists of them", source
        )
    offsets, data, valid = text_buffers(arr.cast(pa.large_string()))
    if len(offsets) and (offsets[0] or offsets[-1] < len(data)):  # (a slice of a batch:
        data = data[offsets[0] : offsets[-1]]  # only its own bytes, as views)
        offsets = offsets - offsets[0]
    return (name, kind, lists, offsets, data, valid)


_TABLES = ("csv", "tsv", "parquet", "arrow")


def sniff_format(data: bytes, hint: str | None = None) -> str | None:
    """The log format told from the content, ``None`` when nothing fits.

    Parquet and Arrow by their magic bytes (:func:`cranfield.core.io.formats.sniff`);
    else by the first non-blank line: a JSON object is JSONL;
    ``SessionID<TAB>TimePassed<TAB>Q|C...`` the Yandex log; ``query<TAB>docs : clicks;``
    PyClick's format (one tab, a ``:``, a ``;``). ``hint`` (the format the file name
    suggests) comes next; then a header of tab- or comma-separated names is TSV or CSV.
    """
    from ..core.io.formats import sniff

    told = sniff(data[:65536])
    if told in ("parquet", "arrow", "jsonl"):
        return told
    head = next((line for line in data[:65536].splitlines() if line.strip()), b"")
    head = head.removeprefix(b"\xef\xbb\xbf").strip()
    fields = head.split(b"\t")
    if len(fields) >= 4 and fields[2] in (b"Q", b"C"):
        return "yandex"
    if len(fields) == 2 and b":" in fields[1] and head.endswith(b";"):
        return "pyclick"
    if hint is not None:
        return hint
    return told if told in ("csv", "tsv") and (b"," in head or b"\t" in head) else None


_HINTS = {".pyclick": "pyclick", ".yandex": "yandex"}


def infer_format(path, format: str | None, data: bytes | None = None) -> str:
    """``format`` checked, else the format told from ``data`` (the content:
    :func:`sniff_format`), the file name's extension deciding what the content leaves
    open."""
    from ..core.io.formats import extension_format, file_suffixes

    if format is not None:
        if format not in FORMATS:
            raise ParameterError("format", "one of " + ", ".join(FORMATS), format)
        return format
    hint = extension_format(path)
    if hint is None and isinstance(path, (str, os.PathLike)):
        suffixes = [x.lower() for x in file_suffixes(path) if x.lower() != ".gz"]
        hint = _HINTS.get(suffixes[-1]) if suffixes else None
    sniffed = sniff_format(data or b"", hint if hint in FORMATS else None)
    if sniffed is not None:
        return sniffed
    raise InputError(
        "cannot tell the log format from the content or the file name: give --log-format "
        "(" + ", ".join(FORMATS) + ")",
        source_name(path),
    )


def read_log(path: str | os.PathLike, format: str | None = None) -> ClickLog:
    """Read a click log; ``format`` is one of :data:`FORMATS`, else told from the
    content (:func:`sniff_format`), the file name's extension a hint."""
    return _read(path, format)


def _read(
    path, format: str | None, chunk: int = CHUNK, parallel_from: int | None = PARALLEL_FROM
) -> ClickLog:
    """:func:`read_log`; ``chunk`` and ``parallel_from`` as :func:`read_stream` takes them."""
    import itertools

    source = source_name(path)
    read = read_pieces(path, source, text=False)
    head: list[bytes] = []
    size = 0
    for piece in read:  # enough of the content to tell the format from
        head.append(piece)
        size += len(piece)
        if size >= 65536:
            break
    fmt = infer_format(path, format, b"".join(head))
    pieces = itertools.chain(head, read)
    if fmt in _LINE_FORMATS:
        return read_stream(checked(pieces, source), source, fmt, chunk, parallel_from)
    if isinstance(path, (str, os.PathLike)) and str(path) != "-" and os.path.isfile(path):
        read.close()  # (a file read again: the table reader streams what it can)
        return read_table(path, source, fmt)
    return read_table(PieceFile(pieces, read.close), source, fmt)  # (copied to a temporary
    # file as it is read, then streamed: :func:`cranfield.core.io.table.read_table`)
