"""Columnar sources: Arrow tables, pandas and polars DataFrames, Parquet, CSV/TSV, dicts.

Every source is normalised to cranfield's schema — ``query_id: string``,
``doc_id: string`` and ``relevance: int64`` (qrels; float64 with ``fractional=True``)
or ``score: float64`` (runs) — with
the rows in their original order. Column names are matched case-insensitively against
common aliases (``qid``, ``docno``, ``rel``, ``grade``, ...). Integer id columns become
their decimal text (``str(7) == "7"``); floating-point ids are refused because ``7.0``
would silently become ``"7.0"``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...errors import InputError, shown
from . import dedup
from .formats import FORMATS, infer_format  # noqa: F401 - re-exported
from .source import read_bytes, resolve, source_name

ALIASES: dict[str, tuple[str, ...]] = {
    "query_id": ("query_id", "qid", "query", "topic", "topic_id", "queryid", "q_id"),
    "doc_id": ("doc_id", "docid", "docno", "doc", "document", "document_id", "did", "pid"),
    "relevance": ("relevance", "rel", "grade", "label", "judgment", "judgement", "qrel"),
    "score": ("score", "sim", "similarity", "rsv", "value"),
    "subtopic": ("subtopic", "subtopic_id", "intent", "intent_id", "aspect", "iteration", "iter"),
}

#: The ``value`` of subtopic (intent) qrels: ``query_id``, ``subtopic``, ``doc_id`` and
#: ``relevance``, subtopic and grade natural numbers (ndeval's format), lines not
#: deduplicated (ndeval reads every one: see cranfield.core.subtopics).
SUBTOPICS = "subtopics"


def _rename(table: pa.Table, value: str, source: str | None) -> pa.Table:
    """Select and rename the three columns, matching aliases case-insensitively."""
    lower: dict[str, str] = {}
    aliases = {a for names in ALIASES.values() for a in names}
    for name in table.column_names:
        if name.lower() in lower and name.lower() in aliases:  # which one is meant?
            first = lower[name.lower()]
            raise InputError(
                f"column {name!r} appears twice in the header"
                + (f" (also as {first!r})" if first != name else ""),
                source=source,
            )
        lower[name.lower()] = name
    picked = {}
    for target in ("query_id", "doc_id", value):
        found = next((lower[a] for a in ALIASES[target] if a in lower), None)
        if found is None:
            raise InputError(
                f"no {target} column: expected one of {', '.join(ALIASES[target])}; "
                f"found {', '.join(table.column_names) or 'no columns'}",
                source=source,
            )
        picked[target] = table[found]
    return pa.table(picked)


def id_column(col: pa.ChunkedArray, name: str, source: str | None, row_of) -> pa.ChunkedArray:
    """The id column ``name`` as Arrow strings: integers and dictionaries cast, binary
    decoded as UTF-8; anything else, a null or undecodable bytes is an
    :class:`~cranfield.errors.InputError` naming ``source`` and the row (``row_of(i)``:
    the line or row number of the table's row ``i``)."""
    t = col.type
    if pa.types.is_dictionary(t):
        col = col.cast(t.value_type)
        t = t.value_type
    if pa.types.is_integer(t):
        col = col.cast(pa.string())
    elif pa.types.is_string(t) or pa.types.is_large_string(t) or t == pa.string_view():
        col = col.cast(pa.string())
    elif pa.types.is_binary(t) or pa.types.is_large_binary(t):
        try:
            col = col.cast(pa.string())
        except pa.ArrowInvalid as exc:
            raise InputError(f"{name} column is not valid UTF-8", source=source) from exc
    else:
        raise InputError(
            f"{name} column has type {t}; ids must be strings or integers "
            "(convert them to strings explicitly)",
            source=source,
        )
    _no_nulls(col, name, source, row_of)
    return col


def _no_nulls(col: pa.ChunkedArray, name: str, source: str | None, row_of) -> None:
    if col.null_count:
        row = int(np.flatnonzero(col.is_null().to_numpy(zero_copy_only=False))[0])
        raise InputError(f"{name} is missing (null) in {row_of(row)}", source=source)


def _first(mask, message: str, source: str | None, row_of) -> None:
    if isinstance(mask, (pa.Array, pa.ChunkedArray)) and not pc.any(mask).as_py():
        return  # (no conversion: Arrow's to_numpy imports pandas, ~0.4 s)
    mask = np.asarray(mask.to_numpy(zero_copy_only=False) if hasattr(mask, "to_numpy") else mask)
    if mask.any():
        row = int(np.flatnonzero(mask)[0])
        raise InputError(f"{message} in {row_of(row)}", source=source)


def _fractional_column(col: pa.ChunkedArray, source: str | None, row_of) -> pa.ChunkedArray:
    """Relevance as real numbers (float64): fractional gains, e.g. expected gains."""
    t = col.type
    if pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t):
        _no_nulls(col, "relevance", source, row_of)
        f = col.cast(pa.float64())
        _first(pc.invert(pc.is_finite(f)), "relevance grade is not a finite number", source, row_of)
        return f
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        _not_numbers(col, "relevance grade", "a number", source, row_of)
    raise InputError(f"relevance column has type {t}; expected numbers", source=source)


def _value_column(
    col: pa.ChunkedArray, value: str, source: str | None, row_of, fractional: bool = False
) -> pa.ChunkedArray:
    t = col.type
    if pa.types.is_dictionary(t):
        col = col.cast(t.value_type)
        t = t.value_type
    if pa.types.is_null(t):  # every value missing
        _no_nulls(col, value, source, row_of)
    if value == "relevance" and fractional:
        return _fractional_column(col, source, row_of)
    if value == "relevance":
        if pa.types.is_integer(t):
            _no_nulls(col, value, source, row_of)
            try:
                return col.cast(pa.int64())
            except pa.ArrowInvalid:  # uint64 above 2**63 - 1
                big = pc.greater(col, pa.scalar(2**63 - 1, t))
                _first(big, "relevance grade is outside the 64-bit integer range", source, row_of)
                raise
        if pa.types.is_floating(t):
            _no_nulls(col, value, source, row_of)
            f = col.cast(pa.float64())
            bad = pc.or_(pc.invert(pc.is_finite(f)), pc.not_equal(pc.trunc(f), f))
            _first(bad, "relevance grade is not an integer", source, row_of)
            # doubles in [-2**63, 2**63) are the ones int64 holds
            out = pc.or_(pc.less(f, -(2.0**63)), pc.greater_equal(f, 2.0**63))
            _first(out, "relevance grade is outside the 64-bit integer range", source, row_of)
            return f.cast(pa.int64())
        if pa.types.is_string(t) or pa.types.is_large_string(t):
            _not_numbers(col, "relevance grade", "an integer", source, row_of)
        raise InputError(f"relevance column has type {t}; expected integers", source=source)
    if pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t):
        _no_nulls(col, value, source, row_of)
        f = col.cast(pa.float64())
        _first(pc.is_nan(f), "score is NaN", source, row_of)
        return f
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        _not_numbers(col, "score", "a number", source, row_of)
    raise InputError(f"score column has type {t}; expected numbers", source=source)


def _not_numbers(col: pa.ChunkedArray, what: str, expected: str, source: str | None, row_of):
    """A text column where numbers were expected: name its first value that is not one."""
    from .trec import shown

    _no_nulls(col, what.split()[0], source, row_of)
    for row, text in enumerate(col.to_pylist()):  # only on the way to an error
        try:
            number = float(text)
            if expected == "an integer" and not number.is_integer():
                raise ValueError
        except ValueError:
            raise InputError(
                f"{what} {shown(text)} is not {expected} in {row_of(row)}", source=source
            ) from None


_NOT_IN_IDS = r"[\x00-\x20\x7f]"


def _plain_ids(col: pa.ChunkedArray, name: str, source: str | None, row_of) -> None:
    """Ids read from a file become TREC ids (``-f trec`` output, ``to_trec``), which
    cannot hold whitespace: refuse whitespace and control characters where read."""
    from .trec import shown

    bad = pc.match_substring_regex(col, _NOT_IN_IDS)
    if pc.any(bad).as_py():
        row = int(np.flatnonzero(bad.to_numpy(zero_copy_only=False))[0])
        raise InputError(
            f"{name} {shown(col[row].as_py())} in {row_of(row)} contains whitespace or a "
            "control character (TREC ids cannot)",
            source=source,
        )


def normalise(
    table: pa.Table,
    value: str,
    source: str | None,
    duplicates: str = "error",
    line_of: Callable[[int], int] | None = None,
    plain_ids: bool = False,
    fractional: bool = False,
) -> pa.Table:
    """Validate and convert any Arrow table to the cranfield schema (order kept).

    ``line_of`` maps a 0-based row to a file line number for messages (CSV files);
    without it rows are quoted as ``row N`` (1-based). ``plain_ids`` refuses ids
    with whitespace or control characters (files: CSV, TSV, Parquet). ``fractional``
    (qrels only) keeps relevance as real numbers (float64) instead of integer grades.
    """
    dedup.check_policy(duplicates)
    if fractional and value != "relevance":
        from ...errors import ParameterError

        raise ParameterError("fractional", "False for runs (it applies to qrels)", fractional)
    if not isinstance(table, pa.Table):
        raise InputError(f"expected a pyarrow.Table, got {type(table).__name__}", source=source)

    def row_of(r: int) -> str:
        return f"line {line_of(r)}" if line_of is not None else f"row {r + 1}"

    if value == SUBTOPICS:
        return _subtopic_table(table, source, row_of, plain_ids)
    t = _rename(table, value, source)
    out = pa.table(
        {
            "query_id": id_column(t["query_id"], "query_id", source, row_of),
            "doc_id": id_column(t["doc_id"], "doc_id", source, row_of),
            value: _value_column(t[value], value, source, row_of, fractional),
        }
    )
    if plain_ids:
        for name in ("query_id", "doc_id"):
            _plain_ids(out[name], name, source, row_of)
    unit = "line" if line_of is not None else "row"
    return dedup.resolve(out, value, duplicates, source, line_of, unit=unit)


def _subtopic_table(table: pa.Table, source: str | None, row_of, plain_ids: bool) -> pa.Table:
    """Subtopic qrels (:data:`SUBTOPICS`): the four columns, subtopics and grades whole
    numbers >= 0 (ndeval's natural numbers; a grade above 1 counts as 1)."""
    t = _rename(table, "relevance", source)
    found = {n.lower(): n for n in table.column_names}
    name = next((found[a] for a in ALIASES["subtopic"] if a in found), None)
    if name is None:
        raise InputError(
            f"no subtopic column: expected one of {', '.join(ALIASES['subtopic'])}; "
            f"found {', '.join(table.column_names)}",
            source=source,
        )
    columns = {"query_id": id_column(t["query_id"], "query_id", source, row_of)}
    for target, col in (("subtopic", table[name]), ("relevance", t["relevance"])):
        what = "subtopic" if target == "subtopic" else "relevance grade"
        try:
            ints = _value_column(col, "relevance", source, row_of)
        except InputError as exc:  # the integer check's words, about this column
            message = exc.message.replace("relevance grade", what)
            message = message.replace("relevance column", name)
            message = message.replace("relevance is missing", f"{target} is missing")
            raise InputError(message, source=exc.source) from None
        _first(
            pc.less(ints, 0), f"{what} is negative (ndeval reads natural numbers)", source, row_of
        )
        columns[target] = ints
        if target == "subtopic":
            columns["doc_id"] = id_column(t["doc_id"], "doc_id", source, row_of)
    out = pa.table(columns)
    if plain_ids:
        for id_name in ("query_id", "doc_id"):
            _plain_ids(out[id_name], id_name, source, row_of)
    return out


# -- files -----------------------------------------------------------------------------------


# Arrow's thread pools for inputs of at least this many bytes only
ARROW_THREADS_FROM = 8 << 20


def arrow_threads(nbytes: int) -> bool:
    """Whether Arrow should read ``nbytes`` of CSV or Parquet with its thread pools.

    Below :data:`ARROW_THREADS_FROM` starting the pools costs more than they save,
    and under an address-space limit (``ulimit -v``) the threads' stacks and memory
    arenas are where Arrow's C++ code aborts instead of reporting the lack of memory.
    """
    return nbytes >= ARROW_THREADS_FROM


def read_parquet(
    path, value: str, duplicates: str = "error", fractional: bool = False
) -> tuple[pa.Table, str]:
    import pyarrow.parquet as pq

    source = source_name(path)

    def check(head: bytes) -> None:  # the first MiB of a pipe or device
        if head[:4] != b"PAR1":
            raise InputError("not a Parquet file (it does not start with PAR1)", source=source)

    src = resolve(path, source, text=False, check=check)  # read once: a pipe cannot be reread
    try:
        size = src.stat().st_size if isinstance(src, Path) else len(src)
        table = pq.read_table(
            str(src) if isinstance(src, Path) else pa.BufferReader(src),
            use_threads=arrow_threads(size),
        )
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(f"cannot read Parquet: {exc}", source=source) from exc
    return normalise(
        table, value, source, duplicates, plain_ids=True, fractional=fractional
    ), source


def read_delimited(
    path_or_file, value: str, delimiter: str, duplicates: str = "error", fractional: bool = False
):
    """A CSV/TSV file with a header row naming the columns (aliases accepted)."""
    import pyarrow.csv as pacsv

    source = source_name(path_or_file)
    data = read_bytes(path_or_file, source)
    try:
        header = data.split(b"\n", 1)[0].decode("utf-8").strip().split(delimiter)
    except UnicodeDecodeError:
        raise InputError("header is not valid UTF-8 text", source=source, line=1) from None
    ids = set(ALIASES["query_id"] + ALIASES["doc_id"])
    types = {name: pa.string() for name in header if name.strip().lower() in ids}
    if not data.strip():
        raise InputError("empty file", source=source)
    block = 1 << 20
    while True:
        try:
            table = pacsv.read_csv(
                pa.BufferReader(data),
                read_options=pacsv.ReadOptions(
                    block_size=block, use_threads=arrow_threads(len(data))
                ),
                parse_options=pacsv.ParseOptions(delimiter=delimiter),
                convert_options=pacsv.ConvertOptions(
                    column_types=types,
                    strings_can_be_null=False,
                    null_values=[""],  # only an empty field is missing: "nan" is NaN
                ),
            )
            break
        except pa.ArrowInvalid as exc:
            if "straddl" in str(exc) and block < len(data):  # a line longer than a block
                block = min(4 * block, len(data) + 1)
                continue
            if "UTF8" in str(exc) or "UTF-8" in str(exc):
                raise InputError(
                    "not valid UTF-8 text (save the file as UTF-8)", source=source
                ) from None
            raise InputError(
                f"cannot parse {'TSV' if delimiter == chr(9) else 'CSV'}: {exc}", source=source
            ) from None
    if table.num_rows == 0:
        raise InputError("no data rows after the header", source=source)
    return normalise(
        table,
        value,
        source,
        duplicates,
        line_of=lambda r: r + 2,
        plain_ids=True,
        fractional=fractional,
    ), source


# -- in-memory objects ------------------------------------------------------------------------


def from_dict(
    d: Mapping, value: str, source: str | None, duplicates: str = "error", fractional: bool = False
) -> pa.Table:
    if not isinstance(d, Mapping):
        raise InputError(
            f"expected a mapping {{qid: {{docid: value}}}}, got {type(d).__name__}", source=source
        )
    qids: list[str] = []
    docs: list[str] = []
    vals: list = []
    for q, inner in d.items():
        if not isinstance(inner, Mapping):
            raise InputError(
                f"query {q!r}: expected a mapping {{docid: value}}, got {type(inner).__name__}",
                source=source,
            )
        qids.extend([str(q)] * len(inner))
        docs.extend(str(k) for k in inner)
        vals.extend(inner.values())
    if value == "relevance" and fractional:
        numeric = (int, float, np.integer, np.floating)
        bad = next((v for v in vals if not isinstance(v, numeric) or isinstance(v, bool)), None)
        if bad is not None:
            raise InputError(f"relevance grade {shown(bad)} is not a number", source=source)
        arr = pa.array([float(v) for v in vals], pa.float64())
    elif value == "relevance":
        if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in vals):
            bad = next(
                v for v in vals if not isinstance(v, (int, np.integer)) or isinstance(v, bool)
            )
            if not (isinstance(bad, (float, np.floating)) and float(bad).is_integer()):
                raise InputError(f"relevance grade {shown(bad)} is not an integer", source=source)
        arr = pa.array([int(v) for v in vals], pa.int64())
    else:
        try:
            arr = pa.array([float(v) for v in vals], pa.float64())
        except (TypeError, ValueError) as exc:
            raise InputError(f"score is not a number: {exc}", source=source) from exc
    table = pa.table(
        {"query_id": pa.array(qids, pa.string()), "doc_id": pa.array(docs, pa.string()), value: arr}
    )
    return normalise(table, value, source, duplicates, fractional=fractional)


def from_pandas(
    df, value: str, source: str | None, duplicates: str = "error", fractional: bool = False
) -> pa.Table:
    pa_table = pa.Table.from_pandas(df, preserve_index=False)
    return normalise(pa_table, value, source, duplicates, fractional=fractional)


def from_polars(
    df, value: str, source: str | None, duplicates: str = "error", fractional: bool = False
) -> pa.Table:
    return normalise(df.to_arrow(), value, source, duplicates, fractional=fractional)


def to_dict(table: pa.Table, value: str) -> dict[str, dict]:
    out: dict[str, dict] = {}
    cols = table.to_pydict()
    for q, d, v in zip(cols["query_id"], cols["doc_id"], cols[value], strict=True):
        out.setdefault(q, {})[d] = v
    return out
