"""Render a :class:`~cranfield.compare.compare.Comparison` as text, markdown, LaTeX, HTML,
CSV or JSON.

Two layouts:

- ``detail``: one line per measure and compared pair -- means, difference, relative
  difference, p-values (raw and corrected), effect size, interval, win/tie/loss counts
  and a ``*`` when significant.
- ``summary``: the table of a paper -- one line per run, one column per measure with the
  run's mean; the best mean of each measure in bold; superscript letters name the runs
  a run is significantly better than (runs are lettered a, b, c, ... in input order and
  the letters are explained in a legend). Higher scores are taken to be better.

CSV and JSON always hold the detail rows (JSON adds the means and the settings).
"""

from __future__ import annotations

import html
import math
import string

from ..errors import ParameterError
from ..output import UNDEFINED, UNDERFLOW, delimited, dumps_json, markdown_table, text_table
from .stats import STAT_TESTS

__all__ = ["FORMATS", "UNDERFLOW", "format_pvalue", "render", "letters"]

FORMATS = ("text", "markdown", "latex", "html", "csv", "json")
_CORRECTION_LABEL = {
    "none": "no correction",
    "bonferroni": "Bonferroni correction",
    "holm": "Holm correction",
    "bh": "Benjamini-Hochberg correction",
}


def letters(runs) -> dict[str, str]:
    """Letter of each run: a, b, ..., z, aa, ab, ..."""
    out = {}
    for i, run in enumerate(runs):
        s, k = "", i
        while True:
            s = string.ascii_lowercase[k % 26] + s
            k = k // 26 - 1
            if k < 0:
                break
        out[run] = s
    return out


def _num(v: float, digits: int = 4) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return UNDEFINED
    return f"{v:.{digits}f}"


def format_pvalue(v: float) -> str:
    """A p-value for a table: 4 decimals from 1e-4 up, else scientific notation.

    ``nan`` (undefined, see :data:`cranfield.output.UNDEFINED`) stays ``nan``; a p-value
    that underflowed to 0 is written :data:`UNDERFLOW`, never ``0``.
    """
    if math.isnan(v):
        return UNDEFINED
    if v == 0:
        return UNDERFLOW
    return f"{v:.4f}" if v >= 1e-4 else f"{v:.1e}"


_p = format_pvalue


def _pct(v: float) -> str:
    return UNDEFINED if math.isnan(v) else f"{100 * v:+.1f}%"


def _detail(cmp) -> tuple[list[str], list[list[str]]]:
    head = ["measure", "run", "baseline", "mean", "base", "diff", "rel"]
    for t in cmp.tests:
        head += [f"p({t})", f"p_adj({t})"]
    head += ["d", f"{round(100 * cmp.confidence)}% CI", "W/T/L", "sig"]
    body = []
    for r in cmp.rows:
        line = [
            r.measure,
            r.run,
            r.baseline,
            _num(r.mean_run),
            _num(r.mean_baseline),
            f"{r.diff:+.4f}",
            _pct(r.rel_diff),
        ]
        for t in cmp.tests:
            line += [_p(r.pvalues[t]), _p(r.pvalues_adjusted[t])]
        line += [
            _num(r.effect_size, 3),
            f"[{_num(r.ci_low)}, {_num(r.ci_high)}]",
            f"{r.wins}/{r.ties}/{r.losses}",
            "*" if r.significant else "",
        ]
        body.append(line)
    return head, body


def _summary_cells(cmp):
    """Per run and measure: (mean text, is best, letters of the beaten runs)."""
    lett = letters(cmp.runs)
    cells = {}
    for m in cmp.measures:
        best = max(cmp.means[m].values())
        for run in cmp.runs:
            v = cmp.means[m][run]
            beaten = "".join(lett[b] for b in cmp.beaten(m, run))
            cells[run, m] = (_num(v), v == best, beaten)
    return lett, cells


def _legend(cmp) -> str:
    first = STAT_TESTS[cmp.tests[0]]
    # a test over all runs (tukey) is family-wise already: no correction was applied
    corr = "" if first.scope == "runs" else f", {_CORRECTION_LABEL[cmp.correction]}"
    test = first.label
    return (
        f"superscripts name the runs a run is significantly better than "
        f"({test}{corr}, alpha = {cmp.alpha:g})"
    )


def _aligned(head, body) -> str:
    """Compare's text layout: measure, run and baseline left-aligned, a rule."""
    return text_table(head, body, left=3, rule=True)


def _markdown(head, body) -> str:
    """Compare's Markdown layout: the first two columns left-aligned, ``|`` escaped."""
    return markdown_table(head, body, left=2, escape=True)


def _summary_rows(cmp, bold, sup) -> tuple[list[str], list[list[str]]]:
    lett, cells = _summary_cells(cmp)
    head = ["", "run"] + list(cmp.measures)
    body = []
    for run in cmp.runs:
        row = [lett[run], run]
        for m in cmp.measures:
            text, best, beaten = cells[run, m]
            row.append(bold(text) if best else text)
            row[-1] += sup(beaten) if beaten else ""
        body.append(row)
    return head, body


def _tex(s: str) -> str:
    from ..output import tex_escape

    return tex_escape(s)


def _latex(cmp, table: str) -> str:
    if table == "summary":
        lett, cells = _summary_cells(cmp)
        cols = "ll" + "r" * len(cmp.measures)
        lines = [
            r"% requires \usepackage{booktabs}",
            r"\begin{table}",
            r"\centering",
            rf"\begin{{tabular}}{{{cols}}}",
            r"\toprule",
            " & ".join(["", "Run"] + [_tex(m) for m in cmp.measures]) + r" \\",
            r"\midrule",
        ]
        for run in cmp.runs:
            row = [lett[run], _tex(run)]
            for m in cmp.measures:
                text, best, beaten = cells[run, m]
                cell = rf"\textbf{{{text}}}" if best else text
                if beaten:
                    cell += rf"$^{{\mathrm{{{beaten}}}}}$"
                row.append(cell)
            lines.append(" & ".join(row) + r" \\")
        legend = "; ".join(f"{lett[r]}: {_tex(r)}" for r in cmp.runs)
        lines += [
            r"\bottomrule",
            r"\end{tabular}",
            rf"\caption{{Mean scores; best in bold; {_tex(_legend(cmp))}. Runs: {legend}.}}",
            r"\end{table}",
        ]
        return "\n".join(lines)
    from ..output import latex_table

    head, body = _detail(cmp)
    return latex_table(head, body, left=3)


def _html(cmp, table: str) -> str:
    from ..output import html_table

    if table != "summary":
        return html_table(*_detail(cmp))
    head, body = _summary_rows(
        cmp, lambda s: f"<strong>{s}</strong>", lambda s: f"<sup>{html.escape(s)}</sup>"
    )
    body = [[html.escape(row[0]), html.escape(row[1])] + row[2:] for row in body]
    lett = letters(cmp.runs)
    caption = (
        "Mean scores; best in bold; "
        + _legend(cmp)
        + ". Runs: "
        + "; ".join(f"{lett[r]}: {r}" for r in cmp.runs)
        + "."
    )
    return html_table(head, body, caption=caption, markup=True)


def render(cmp, fmt: str = "text", table: str | None = None, provenance: dict | None = None) -> str:
    """Render a comparison.

    Parameters
    ----------
    fmt
        ``text`` (aligned columns), ``markdown``, ``latex`` (booktabs), ``html``, ``csv``
        or ``json``.
    table
        ``detail`` or ``summary`` (see the module docstring). Default: ``summary`` for
        LaTeX and HTML, ``detail`` otherwise. CSV and JSON are always detail rows.
        Undefined values are :data:`cranfield.output.UNDEFINED` (``nan``) in text
        formats and CSV, ``null`` in JSON (as are infinite ones); a p-value that
        underflowed is :data:`UNDERFLOW` in the text formats.
    provenance
        Added to JSON output under ``provenance`` (:mod:`cranfield.provenance`).
    """
    if fmt not in FORMATS:
        raise ParameterError("format", "one of " + ", ".join(FORMATS), fmt)
    if table is None:
        table = "summary" if fmt in ("latex", "html") else "detail"
    if table not in ("detail", "summary"):
        raise ParameterError("table", "one of detail, summary", table)
    if fmt == "csv":
        rows = cmp.to_rows()
        head = list(rows[0]) if rows else []
        return delimited(head, ([r.get(k, "") for k in head] for r in rows)).rstrip("\n")
    if fmt == "json":
        doc = {
            "settings": {
                "baseline": cmp.baseline,
                "baselines": list(cmp.baselines),
                "tests": list(cmp.tests),
                "correction": cmp.correction,
                "alpha": cmp.alpha,
                "confidence": cmp.confidence,
                "ci": cmp.ci,
                **cmp.settings,
            },
            "means": cmp.means,
            "rows": cmp.to_rows(),
        }
        if provenance is not None:
            doc["provenance"] = provenance
        return dumps_json(doc)
    if fmt == "latex":
        return _latex(cmp, table)
    if fmt == "html":
        return _html(cmp, table)
    if table == "summary":
        if fmt == "markdown":
            head, body = _summary_rows(cmp, lambda s: f"**{s}**", lambda s: f"<sup>{s}</sup>")
            return _markdown(head, body) + "\n\n" + _sentence(_legend(cmp))
        head, body = _summary_rows(cmp, lambda s: s + " (best)", lambda s: f" ^{s}")
        return _aligned(head, body) + "\n" + _sentence(_legend(cmp))
    head, body = _detail(cmp)
    return _markdown(head, body) if fmt == "markdown" else _aligned(head, body)


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + "."
