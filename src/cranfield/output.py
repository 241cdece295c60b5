"""Render :class:`~cranfield.evaluation.Results` as text, markdown, JSON, CSV, TSV or trec.

The shapes:

* ``text`` / ``markdown``: one row per run (``--per-query``: per run and query, the
  run's aggregate last as query ``all``), one column per measure;
* ``csv`` / ``tsv``: the same table, machine-readable, full precision;
* ``json``: ``{"runs": [{"name", "aggregate": {measure: value}, "per_query": ...}]}``;
* ``trec``: trec_eval's ``measure<TAB>qid<TAB>value`` lines, one block per run.
"""

from __future__ import annotations

import csv
import io
import json
import math

FORMATS = ("text", "markdown", "json", "csv", "tsv", "trec")

#: The one policy for undefined values (a measure or statistic that is NaN, e.g. a
#: correlation of a constant ordering): text, markdown, CSV, TSV and trec output write
#: this token (``float("nan")`` and pandas read it back as NaN); JSON writes ``null``.
UNDEFINED = "nan"


def json_safe(obj):
    """``obj`` with every non-finite float (NaN, infinity) replaced by ``None``.

    JSON has no NaN or infinity; ``json.dumps`` would write the invalid bare tokens
    ``NaN``/``Infinity``. Containers are copied (dicts, lists, tuples), the caller's
    objects are not modified; NumPy scalars become Python numbers.
    """
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    if hasattr(obj, "item") and not isinstance(obj, (str, bytes)):  # NumPy scalar
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def dumps_json(obj, indent: int | None = 2) -> str:
    """Valid JSON text of ``obj`` (non-finite numbers as ``null``, see :func:`json_safe`).

    ``allow_nan=False`` makes any value that slipped through an error, never invalid JSON.
    """
    return json.dumps(json_safe(obj), indent=indent, allow_nan=False)


def _cell(value, digits: int) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, float) and math.isnan(value):
        return UNDEFINED
    if isinstance(value, float) and value.is_integer() and abs(value) >= 1 and digits == 0:
        return str(int(value))
    return f"{value:.{digits}f}"


def _full(v: float) -> str:
    """Full precision (the shortest text that reads back as the same double)."""
    return UNDEFINED if math.isnan(v) else repr(v)


def _rows(results, per_query: bool):
    """Header and rows (run, [query,] values...) with raw values."""
    names = [str(m) for m in results.measures]
    kinds = [m.definition.kind for m in results.measures]
    header = ["run"] + (["query"] if per_query else []) + names
    rows = []
    for r in results.runs:
        if per_query:
            for i, q in enumerate(r.query_ids):
                rows.append(
                    [r.name, q]
                    + [
                        _value(r.values[m][i], k)
                        for m, k in zip(results.measures, kinds, strict=True)
                    ]
                )
            agg = [_value(r.aggregates[m], k) for m, k in zip(results.measures, kinds, strict=True)]
            rows.append([r.name, "all"] + agg)
        else:
            rows.append(
                [r.name]
                + [_value(r.aggregates[m], k) for m, k in zip(results.measures, kinds, strict=True)]
            )
    return header, rows, kinds


def _value(v, kind):
    if v is None:
        return None
    if kind == "str":
        return str(v)
    if kind == "int":
        return int(round(float(v)))
    return float(v)


def render(results, fmt: str = "text", *, per_query: bool = False, digits: int = 4) -> str:
    """Format results; ``digits`` applies to text, markdown and trec output."""
    if fmt == "json":
        return dumps_json(results.to_json(per_query)) + "\n"
    if fmt == "trec":
        return _trec(results, per_query, digits)
    header, rows, kinds = _rows(results, per_query)
    if fmt in ("csv", "tsv"):
        buf = io.StringIO()
        writer = csv.writer(buf, delimiter="," if fmt == "csv" else "\t", lineterminator="\n")
        writer.writerow(header)
        for row in rows:
            writer.writerow(
                ["" if v is None else (_full(v) if isinstance(v, float) else v) for v in row]
            )
        return buf.getvalue()
    offset = 2 if per_query else 1
    cells = [
        [str(v) for v in row[:offset]]
        + [_cell(v, 0 if kinds[i] == "int" else digits) for i, v in enumerate(row[offset:])]
        for row in rows
    ]
    if fmt == "markdown":
        lines = ["| " + " | ".join(header) + " |"]
        lines.append("|" + "|".join(["---"] * offset + ["---:"] * (len(header) - offset)) + "|")
        lines += ["| " + " | ".join(c) + " |" for c in cells]
        return "\n".join(lines) + "\n"
    if fmt != "text":
        from .errors import ParameterError

        raise ParameterError("format", ", ".join(FORMATS), fmt)
    widths = [
        max(len(h), *(len(c[i]) for c in cells)) if cells else len(h) for i, h in enumerate(header)
    ]

    def line(values):
        parts = [
            v.ljust(widths[i]) if i < offset else v.rjust(widths[i]) for i, v in enumerate(values)
        ]
        return "  ".join(parts).rstrip()

    return "\n".join([line(header)] + [line(c) for c in cells]) + "\n"


def _trec(results, per_query: bool, digits: int) -> str:
    out = []
    for r in results.runs:
        out.append(f"{'runid':<22}\tall\t{r.name}")
        for m in results.measures:
            kind = m.definition.kind
            name = str(m)
            if per_query:
                for q, v in zip(r.query_ids, r.values[m], strict=True):
                    out.append(f"{name:<22}\t{q}\t{_trec_value(v, kind, digits)}")
            if kind != "str":
                out.append(f"{name:<22}\tall\t{_trec_value(r.aggregates[m], kind, digits)}")
    return "\n".join(out) + "\n"


def _trec_value(v, kind, digits):
    if kind == "str":
        return f"'{v}'"
    if kind == "int":
        return str(int(round(float(v))))
    return f"{float(v):{digits + 2}.{digits}f}"
