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
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from .._lazy import lazy
from ..core.io.source import read_bytes, source_name
from ..errors import InputError, ParameterError

np = lazy("numpy", __name__, "np")

MAX_RANKS = 1000
"""The most documents one session may show (bounds the ``n x K`` arrays)."""

FORMATS = ("jsonl", "csv", "tsv", "parquet", "arrow", "pyclick", "yandex")


@dataclass(frozen=True, eq=False)
class ClickLog:
    """Sessions of a click log as arrays (see the module docstring)."""

    query: np.ndarray
    docs: np.ndarray
    clicks: np.ndarray
    query_names: np.ndarray
    doc_names: np.ndarray
    times: np.ndarray | None = None
    user: np.ndarray | None = None
    source: str = "<log>"

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


class _Builder:
    """Collects sessions one by one, interning ids, then builds the arrays once."""

    def __init__(self, source: str):
        self.source = source
        self.queries: dict[str, int] = {}
        self.docs: dict[str, int] = {}
        self.query: list[int] = []
        self.flat_docs: list[int] = []
        self.flat_clicks: list[bool] = []
        self.flat_times: list[float] = []
        self.lengths: list[int] = []
        self.users: list[str | None] = []
        self.any_time = False
        self.any_user = False

    def add(self, query, docs, clicks, line, times=None, user=None) -> int:
        src = self.source
        if not isinstance(query, str) or query == "":
            raise InputError("expected a non-empty query id", src, line)
        if not docs:
            raise InputError("a session shows no document", src, line)
        if len(docs) > MAX_RANKS:
            raise InputError(f"a session shows more than {MAX_RANKS} documents", src, line)
        if len(clicks) != len(docs):
            raise InputError(f"{len(docs)} documents but {len(clicks)} click flags", src, line)
        for d in docs:
            if not isinstance(d, str) or d == "":
                raise InputError(f"expected a non-empty document id, got {d!r}", src, line)
        self.query.append(self.queries.setdefault(query, len(self.queries)))
        self.flat_docs.extend(self.docs.setdefault(d, len(self.docs)) for d in docs)
        self.flat_clicks.extend(clicks)
        if times is not None:
            if len(times) != len(docs):
                raise InputError(f"{len(docs)} documents but {len(times)} times", src, line)
            self.any_time = True
            self.flat_times.extend(np.nan if t is None else _time(t, src, line) for t in times)
        else:
            self.flat_times.extend([np.nan] * len(docs))
        self.lengths.append(len(docs))
        self.users.append(None if user is None else str(user))
        self.any_user |= user is not None
        return len(self.query) - 1

    def build(self) -> ClickLog:
        if not self.query:
            raise InputError("the log holds no session", self.source)
        lengths = np.asarray(self.lengths, dtype=np.int64)
        n, k = len(lengths), int(lengths.max())
        mask = np.arange(k)[None, :] < lengths[:, None]
        docs = np.full((n, k), -1, dtype=np.int64)
        docs[mask] = np.asarray(self.flat_docs, dtype=np.int64)
        clicks = np.zeros((n, k), dtype=bool)
        clicks[mask] = np.asarray(self.flat_clicks, dtype=bool)
        times = None
        if self.any_time:
            times = np.full((n, k), np.nan)
            times[mask] = np.asarray(self.flat_times, dtype=float)
        user = np.asarray(self.users, dtype=object) if self.any_user else None
        return ClickLog(
            np.asarray(self.query, dtype=np.int64),
            docs,
            clicks,
            np.asarray(list(self.queries), dtype=object),
            np.asarray(list(self.docs), dtype=object),
            times,
            user,
            self.source,
        )


def _time(value, source, line) -> float:
    try:
        t = float(value)
    except (TypeError, ValueError):
        raise InputError(f"expected a time in seconds, got {value!r}", source, line) from None
    if not np.isfinite(t) or t < 0:
        raise InputError(f"expected a finite time >= 0, got {value!r}", source, line)
    return t


def _flags(values, n_docs, source, line) -> list[bool]:
    out = []
    for v in values:
        if isinstance(v, bool):
            out.append(v)
        elif str(v).strip() in ("0", "1"):
            out.append(str(v).strip() == "1")
        else:
            raise InputError(f"expected click flags 0 or 1, got {v!r}", source, line)
    return out


def _positions(values, n_docs, source, line) -> list[bool]:
    flags = [False] * n_docs
    for v in values:
        try:
            r = int(str(v).strip()) if not isinstance(v, bool) else None
        except ValueError:
            r = None
        if r is None or not 1 <= r <= n_docs:
            raise InputError(f"expected clicked ranks in [1, {n_docs}], got {v!r}", source, line)
        flags[r - 1] = True
    return flags


def _record(builder: _Builder, rec: dict, line: int, split) -> None:
    """One session from a mapping with ``query``, ``docs`` and ``clicks`` or ``clicked``."""
    src = builder.source
    for key in ("query", "docs"):
        if rec.get(key) is None:
            raise InputError(f"missing field {key!r}", src, line)
    docs = split(rec["docs"])
    query = rec["query"]
    if isinstance(query, (int, float)) and not isinstance(query, bool):
        query = str(query)
    docs = [str(d) if isinstance(d, int) and not isinstance(d, bool) else d for d in docs]
    has_flags = rec.get("clicks") is not None
    has_ranks = rec.get("clicked") is not None
    if has_flags == has_ranks:
        raise InputError(
            "expected exactly one of 'clicks' (0/1 per document) or 'clicked' (1-based ranks)",
            src,
            line,
        )
    if has_flags:
        clicks = _flags(split(rec["clicks"]), len(docs), src, line)
    else:
        clicks = _positions(split(rec["clicked"]), len(docs), src, line)
    times = rec.get("times", rec.get("dwell"))
    times = None if times is None else split(times)
    user = rec.get("user", rec.get("bucket"))
    builder.add(query, docs, clicks, line, times, user)


def _split_text(value):
    """A list as given, or a comma/space separated string split into items."""
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, str):
        text = value.replace(",", " ").split()
        return text
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [value]
    raise InputError(f"expected a list or a separated string, got {value!r}")


def _lines(data: bytes, source: str):
    from ..core.io.table import decode

    return decode(data, source).splitlines()


def read_jsonl(data: bytes, source: str) -> ClickLog:
    b = _Builder(source)
    for i, raw in enumerate(_lines(data, source), 1):
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw)
        except (json.JSONDecodeError, RecursionError) as exc:
            msg = getattr(exc, "msg", "too deeply nested")
            raise InputError(f"not valid JSON: {msg}", source, i) from None
        if not isinstance(rec, dict):
            raise InputError("expected a JSON object per line", source, i)
        _wrap(lambda rec=rec, i=i: _record(b, rec, i, _split_text), source, i)
    return b.build()


def _wrap(fn, source, line):
    try:
        fn()
    except InputError as exc:
        if exc.source is None:
            raise InputError(exc.message, source, line) from None
        raise


def read_table(data, source: str, format: str | None = None) -> ClickLog:
    """A CSV, TSV, Parquet or Arrow log, one session per row, read by the one table
    reader (:func:`cranfield.core.io.table.read_table`); text cells are kept as
    written (empty ones missing), a problem names the line (the row, for Parquet)."""
    from ..core.io.table import read_table as read_any

    read = read_any(data, format=format, formats=_TABLES, strings=True, rows=False, source=source)
    b = _Builder(source)
    names = [str(n).strip() for n in read.table.column_names]
    for i, rec in enumerate(read.table.rename_columns(names).to_pylist()):
        if read.has_lines:
            rec = {k: (None if isinstance(v, str) and not v.strip() else v) for k, v in rec.items()}
            if rec.get("clicked") is None and "clicked" in rec and rec.get("clicks") is None:
                rec["clicked"] = []
        where = (source, read.line(i)) if read.has_lines else (f"{source} row", i + 1)
        _wrap(lambda rec=rec, line=where[1]: _record(b, rec, line, _split_text), *where)
    return b.build()


_TABLES = ("csv", "tsv", "parquet", "arrow")


def read_pyclick(data: bytes, source: str) -> ClickLog:
    """PyClick's text format, as in the WSCD sample logs of PyClick's examples
    (the companion code of Chuklin, Markov & de Rijke 2015):
    ``query<TAB>d1,d2,...,dN : c1 , c2 , ...;`` gives the documents shown, in rank order,
    then the *clicked documents* by id, in click order (a document clicked twice is
    listed twice; ``query<TAB>d1,...,dN :;`` is a session without clicks). Several
    sessions share a line, each ended by ``;``; spaces around ids are ignored.

    A clicked id that is not among the documents shown is ignored, as PyClick does
    (the sample logs hold such clicks); a document clicked several times is one click.
    """
    b = _Builder(source)
    for i, raw in enumerate(_lines(data, source), 1):
        for part in raw.split(";"):
            part = part.strip()
            if not part:
                continue
            if "\t" not in part:
                raise InputError("expected 'query<TAB>documents : clicked documents'", source, i)
            query, rest = part.split("\t", 1)
            if rest.count(":") != 1:
                raise InputError(
                    "expected one ':' between the documents and the clicked documents", source, i
                )
            docs_text, clicks_text = rest.split(":")
            docs = [d.strip() for d in docs_text.split(",")]
            clicked = set()
            if clicks_text.strip():
                for c in clicks_text.split(","):
                    if not c.strip():
                        raise InputError("expected a non-empty clicked document id", source, i)
                    clicked.add(c.strip())
            b.add(query.strip(), docs, [d in clicked for d in docs], i)
    return b.build()


def read_yandex(data: bytes, source: str) -> ClickLog:
    """The Yandex relevance-prediction challenge log (tab-separated, one action a line).

    ``SessionID TimePassed Q QueryID RegionID URL1 ... URLn`` is a result page;
    ``SessionID TimePassed C URLID`` a click. A click belongs to the latest page of its
    session that shows the URL (a user may go back to an earlier page of the session);
    a click on a URL no page of the session shows is ignored, as PyClick's parser does.
    The time of a document's first click, from its page, is kept in ``times``.
    """
    b = _Builder(source)
    pages: list[tuple[str, list[str], list[bool], list, float, int]] = []
    shown_on: dict[str, dict[str, int]] = {}  # session -> URL -> its latest page
    for i, raw in enumerate(_lines(data, source), 1):
        if not raw.strip():
            continue
        f = raw.rstrip("\r").split("\t")
        if len(f) >= 3 and f[2] == "Q":
            if len(f) < 6:
                raise InputError(
                    "a query record needs SessionID TimePassed Q QueryID "
                    "RegionID and at least one URL",
                    source,
                    i,
                )
            t = _time(f[1], source, i)
            docs = f[5:]
            latest = shown_on.setdefault(f[0], {})
            latest.update(dict.fromkeys(docs, len(pages)))
            pages.append((f[3], docs, [False] * len(docs), [None] * len(docs), t, i))
        elif len(f) >= 3 and f[2] == "C":
            if len(f) != 4:
                raise InputError("a click record is SessionID TimePassed C URLID", source, i)
            t = _time(f[1], source, i)
            if f[0] not in shown_on:
                raise InputError(f"a click in session {f[0]!r} before any query", source, i)
            at = shown_on[f[0]].get(f[3])
            if at is not None:
                _, docs, clicks, times, t0, _ = pages[at]
                r = docs.index(f[3])
                if not clicks[r]:
                    clicks[r] = True
                    times[r] = max(t - t0, 0.0)
        else:
            raise InputError("expected a query (Q) or click (C) record", source, i)
    for query, docs, clicks, times, _, line in pages:
        b.add(query, docs, clicks, line, times if any(clicks) else None)
    return b.build()


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
    source = source_name(path)
    raw = read_bytes(path, source, text=False)
    fmt = infer_format(path, format, raw)
    if fmt in _TABLES:
        return read_table(raw, source, fmt)
    return _read_text(read_bytes(raw, source), source, fmt)


def _read_text(data: bytes, source: str, fmt: str) -> ClickLog:
    """A text-format log from its content."""
    if fmt == "jsonl":
        return read_jsonl(data, source)
    if fmt == "pyclick":
        return read_pyclick(data, source)
    return read_yandex(data, source)
