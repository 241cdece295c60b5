"""Render :class:`~cranfield.core.evaluation.Results` as text, markdown, JSON, CSV, TSV or trec.

The shapes:

* ``text`` / ``markdown``: one row per run (``--per-query``: per run and query, the
  run's aggregate last as query ``all``), one column per measure;
* ``csv`` / ``tsv``: the same table, machine-readable, full precision;
* ``json``: ``{"runs": [{"name", "aggregate": {measure: value}, "per_query": ...}]}``;
* ``trec``: trec_eval's ``measure<TAB>qid<TAB>value`` lines, one block per run.
"""

from __future__ import annotations

import io
import math

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a cold CLI)
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

FORMATS = ("text", "markdown", "json", "csv", "tsv", "trec")

#: The one policy for undefined values (a measure or statistic that is NaN, e.g. a
#: correlation of a constant ordering): text, markdown, CSV, TSV and trec output write
#: this token (``float("nan")`` and pandas read it back as NaN); JSON writes ``null``.
UNDEFINED = "nan"


#: How a p-value of exactly 0 is shown: every p-value computed here is positive in
#: exact arithmetic, so 0 means it fell below the smallest double (about 5e-324).
UNDERFLOW = "<1e-300"


def monte_carlo_bound(replicates: int, sides: int = 2) -> float:
    """The resolution of a Monte Carlo p-value none of whose ``replicates`` draws was
    as extreme as the data: ``sides / (replicates + 1)``, the add-one estimate
    ``(1 + 0) / (B + 1)`` of Davison & Hinkley (1997, ch. 4), doubled for a
    two-sided p-value that is twice the smaller tail."""
    return min(1.0, sides / (replicates + 1))


def p_cell(p, bound: bool = False) -> str:
    """A p-value as a table cell: :data:`UNDEFINED` for none or NaN, ``<B`` when ``p``
    is an upper bound ``B`` (written with 2 significant digits, rounded up, so the
    statement stays true), :data:`UNDERFLOW` for an exact 0, else 4 significant
    digits."""
    if p is None or p != p:
        return UNDEFINED
    if bound:
        scale = 10.0 ** (math.floor(math.log10(p)) - 1)
        return f"<{math.ceil(p / scale - 1e-9) * scale:.2g}"
    return UNDERFLOW if p == 0 else f"{p:.4g}"


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


def dumps_json(obj, indent: int | None = 2, *, plain: bool = False) -> str:
    """Valid JSON text of ``obj`` (non-finite numbers as ``null``, see :func:`json_safe`).

    ``allow_nan=False`` makes any value that slipped through an error, never invalid JSON.
    ``plain``: ``obj`` holds only Python numbers, strings, None, lists and dicts, with
    non-finite numbers already None (a caller writing a million rows skips the walk of
    :func:`json_safe`; a NaN left in is still an error, never invalid JSON).
    """
    import json  # (here: a text table needs neither json nor csv; a cold CLI)

    return json.dumps(obj if plain else json_safe(obj), indent=indent, allow_nan=False)


def json_texts(values) -> list[str]:
    """The JSON text of each item along the first axis of a numeric array, exactly as
    :func:`dumps_json` writes the item with ``indent=None`` (non-finite numbers as
    ``null``), from one ``json.dumps`` of the whole array split at its separators: a
    column of a million rows at the cost of one dump, not a million.

    Items of a 2-D or deeper array are nested lists (``[[1, 2], [3, 4]]``); numbers and
    brackets hold no separator, so the split is exact. Floats are written by the engine
    (Python's ``repr`` digits from Ryū, ~15x ``json.dumps``'s speed here; the same
    bytes, tests/judgments/test_assessors_json.py).
    """
    import json

    import numpy as np

    a = np.asarray(values)
    if a.dtype.kind not in "biuf" or a.ndim == 0:
        raise TypeError(f"json_texts takes a numeric array, not {a.dtype} of shape {a.shape}")
    if len(a) == 0:
        return []
    if a.dtype.kind == "f" and 0 not in a.shape:  # as doubles, which tolist() gives too
        from ._engine import json_float_items

        flat = np.ascontiguousarray(a, dtype=np.float64).ravel()
        return json_float_items(flat, list(a.shape[1:])).split("\n")
    items = a.tolist()
    if 0 in a.shape[1:]:  # items of empty lists: no separator to split at
        return [json.dumps(item) for item in items]
    depth = a.ndim - 1
    text = json.dumps(items, allow_nan=False)
    pieces = text[1 + depth : len(text) - 1 - depth].split("]" * depth + ", " + "[" * depth)
    return ["[" * depth + piece + "]" * depth for piece in pieces]


def json_objects(columns: dict[str, list[str]]) -> list[str]:
    """One JSON object per row, each on one line, from columns of JSON texts (a key per
    column, in the dict's order): what :func:`dumps_json` writes for each row's dict
    with ``indent=None``, laid out by one format string."""
    import json

    template = "{" + ", ".join(json.dumps(k).replace("%", "%%") + ": %s" for k in columns) + "}"
    return [template % row for row in zip(*columns.values(), strict=True)]


# -- tables ------------------------------------------------------------------------------
#
# The one renderer of tables of strings, used by every text report (evaluation results,
# comparisons, confusion matrices, clustering scores, pool statistics). Callers format
# their cells; these functions only lay them out.

#: The layouts :func:`table` writes.
TABLE_FORMATS = ("text", "markdown", "csv", "tsv", "latex", "html")

_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def tex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters written as text."""
    return "".join(_LATEX_SPECIAL.get(c, c) for c in text)


def latex_table(head: Sequence[str], body: Sequence[Sequence[str]], *, left: int = 1) -> str:
    """A booktabs ``tabular`` (cells escaped; the first ``left`` columns left-aligned,
    the others right-aligned), no final newline."""
    lines = [
        r"% requires \usepackage{booktabs}",
        r"\begin{tabular}{" + "l" * min(left, len(head)) + "r" * (len(head) - left) + "}",
        r"\toprule",
        " & ".join(tex_escape(h) for h in head) + r" \\",
        r"\midrule",
    ]
    lines += [" & ".join(tex_escape(c) for c in row) + r" \\" for row in body]
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines)


def html_table(
    head: Sequence[str], body: Sequence[Sequence[str]], *, caption: str = "", markup: bool = False
) -> str:
    """An HTML ``<table>``, no final newline: the header and ``caption`` escaped, the
    cells too unless ``markup`` (cells that are HTML already, escaped by the caller)."""
    import html

    out = ["<table>"]
    if caption:
        out.append(f"<caption>{html.escape(caption)}</caption>")
    out.append(
        "<thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr></thead>"
    )
    out.append("<tbody>")
    cell = (lambda c: c) if markup else html.escape
    out += ["<tr>" + "".join(f"<td>{cell(c)}</td>" for c in row) + "</tr>" for row in body]
    out += ["</tbody>", "</table>"]
    return "\n".join(out)


def text_table(
    head: Sequence[str] | None,
    body: Sequence[Sequence[str]],
    *,
    left: int = 1,
    rule: bool = False,
    strip: bool = True,
) -> str:
    """Columns aligned for a fixed-width font, no final newline.

    Each column is as wide as its widest cell (header included); the first ``left``
    columns are left-aligned, the others right-aligned, and columns are separated by
    two spaces. ``head`` None: no header line; ``rule``: a line of dashes under the
    header; ``strip``: trailing spaces of each line removed.
    """
    rows = list(body) if head is None else [head, *body]
    if not rows:
        return ""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]

    def line(row) -> str:
        text = "  ".join(
            c.ljust(w) if i < left else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        )
        return text.rstrip() if strip else text

    lines = [line(r) for r in rows]
    if rule and head is not None:
        lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def markdown_table(
    head: Sequence[str], body: Sequence[Sequence[str]], *, left: int = 1, escape: bool = False
) -> str:
    """A GitHub-flavoured Markdown table, no final newline.

    The first ``left`` columns are left-aligned (``---``), the others right-aligned
    (``---:``); ``left >= len(head)`` aligns none to the right. ``escape``: ``|`` in a
    cell is written ``\\|`` so that it does not end the cell.
    """

    def row(cells) -> str:
        cells = [c.replace("|", "\\|") for c in cells] if escape else cells
        return "| " + " | ".join(cells) + " |"

    align = "|" + "|".join("---" if i < left else "---:" for i in range(len(head))) + "|"
    return "\n".join([row(head), align] + [row(r) for r in body])


def delimited(head: Sequence[str], body: Iterable[Sequence], delimiter: str = ",") -> str:
    """CSV (``delimiter=","``) or TSV (``"\\t"``) text: the header, then one line per row,
    each ended by a newline; quoting as Python's :mod:`csv` (minimal)."""
    import csv

    buf = io.StringIO()
    writer = csv.writer(buf, delimiter=delimiter, lineterminator="\n")
    writer.writerow(head)
    writer.writerows(body)
    return buf.getvalue()


def table(
    head: Sequence[str],
    body: Sequence[Sequence[str]],
    fmt: str = "text",
    *,
    left: int = 1,
    rule: bool = False,
    escape: bool = False,
) -> str:
    """A table in one of :data:`TABLE_FORMATS` (see :func:`text_table`,
    :func:`markdown_table`, :func:`delimited`); no final newline for text and markdown."""
    if fmt == "text":
        return text_table(head, body, left=left, rule=rule)
    if fmt == "markdown":
        return markdown_table(head, body, left=left, escape=escape)
    if fmt in ("csv", "tsv"):
        return delimited(head, body, "," if fmt == "csv" else "\t")
    if fmt == "latex":
        return latex_table(head, body, left=left)
    if fmt == "html":
        return html_table(head, body)
    from .errors import ParameterError

    raise ParameterError("format", "one of " + ", ".join(TABLE_FORMATS), fmt)


def number_cell(value, digits: int | None = 4, *, significant: int | None = None) -> str:
    """The one way a number is written in a table cell for people.

    ``None`` is an empty cell, NaN is :data:`UNDEFINED`, a bool ``yes``/``no``, a string
    itself; a float ``digits`` decimals (or ``significant`` digits, ``%g``), never a
    negative zero (``-0.0000`` is written ``0.0000``: the sign of a value that rounds to
    zero says nothing), from 1e15 up in exponent notation; integers as they are.
    """
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "yes" if value else "no"
    if type(value).__module__ == "numpy" and getattr(value, "ndim", None) == 0:
        value = value.item()
    if isinstance(value, int):
        return str(value)
    value = float(value)
    if math.isnan(value):
        return UNDEFINED
    if significant is not None:
        text = f"{value:.{significant}g}"
    elif value.is_integer() and abs(value) >= 1 and digits == 0 and abs(value) < 1e15:
        return str(int(value))
    elif abs(value) >= 1e15:  # not hundreds of digits for a value near 1e308
        text = f"{value:.{max(digits or 0, 1)}e}"
    else:
        text = f"{value:.{digits}f}"
    if text.startswith("-") and not any(c in "123456789" for c in text.split("e")[0]):
        text = text[1:]
    return text


def number_cells(values, digits: int = 4) -> list[str]:
    """:func:`number_cell` of each value of a float column, a whole column at a time:
    the same text, cell for cell, without number_cell's checks on every cell (the values that
    need :func:`number_cell`'s rules, huge, or negative above -1 where a sign may need
    dropping, go through it; NaN is :data:`UNDEFINED`; the rest is one format each)."""
    import numpy as np

    a = np.asarray(values, dtype=np.float64).reshape(-1)
    if not digits:  # None or 0: number_cell's own integer rules
        return [number_cell(v, digits) for v in a.tolist()]
    undefined = np.isnan(a)
    texts = [f"{v:.{digits}f}" for v in np.where(undefined, 0.0, a).tolist()]
    for i in np.flatnonzero(undefined).tolist():
        texts[i] = UNDEFINED
    with np.errstate(invalid="ignore"):
        # huge values, and negative ones whose sign may round away (-0.0 included)
        special = (np.abs(a) >= 1e15) | ((a > -1) & np.signbit(a))
    for i in np.flatnonzero(special).tolist():
        texts[i] = number_cell(float(a[i]), digits)
    return texts


def _cell(value, digits: int) -> str:
    return number_cell(value, digits)


def _full(v: float) -> str:
    """Full precision (the shortest text that reads back as the same double)."""
    return UNDEFINED if math.isnan(v) else repr(v)


def _rows(results, per_query: bool, groups: dict | None = None):
    """Header and rows (run, [query or group,] values...) with raw values."""
    names = [str(m) for m in results.measures]
    kinds = [m.definition.kind for m in results.measures]
    second = ["query"] if per_query else ["group"] if groups else []
    header = ["run"] + second + names
    rows = []
    for i, r in enumerate(results.runs):
        if groups:  # the overall means, then each group's (cranfield.core.groups)
            for label, res in (("all", results), *groups.items()):
                run = res.runs[i]
                rows.append(
                    [r.name, label]
                    + [
                        _value(run.aggregates[m], k)
                        for m, k in zip(results.measures, kinds, strict=True)
                    ]
                )
            continue
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


def render(
    results,
    fmt: str = "text",
    *,
    per_query: bool = False,
    digits: int = 4,
    provenance: dict | None = None,
    groups: dict | None = None,
) -> str:
    """Format results; ``digits`` applies to text, markdown and trec output; JSON adds
    ``provenance`` (:mod:`cranfield.provenance`) when given. ``groups`` (``{group:
    Results}``, :func:`cranfield.core.groups.by_group`) adds each group's means: a
    ``group`` column (``all`` for the overall means), ``groups`` in JSON; not with
    ``per_query`` or the trec format."""
    if groups and (per_query or fmt == "trec"):
        from .errors import ParameterError

        raise ParameterError(
            "--topic-groups", "the aggregate table (not with -q or -f trec)", "per-query output"
        )
    if fmt == "json":
        doc = results.to_json(per_query)
        if groups:
            doc["groups"] = {g: res.to_json()["runs"] for g, res in groups.items()}
        if provenance is not None:
            doc["provenance"] = provenance
        return dumps_json(doc) + "\n"
    if fmt == "trec":
        return _trec(results, per_query, digits)
    header, rows, kinds = _rows(results, per_query, groups)
    if fmt in ("csv", "tsv"):
        full = [
            ["" if v is None else (_full(v) if isinstance(v, float) else v) for v in row]
            for row in rows
        ]
        return delimited(header, full, "," if fmt == "csv" else "\t")
    offset = 2 if per_query or groups else 1
    cells = [
        [str(v) for v in row[:offset]]
        + [_cell(v, 0 if kinds[i] == "int" else digits) for i, v in enumerate(row[offset:])]
        for row in rows
    ]
    if fmt == "markdown":
        return markdown_table(header, cells, left=offset) + "\n"
    if fmt != "text":
        from .errors import ParameterError

        raise ParameterError("format", ", ".join(FORMATS), fmt)
    return text_table(header, cells, left=offset) + "\n"


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
