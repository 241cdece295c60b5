"""Render confusion matrices and tables as text, Markdown or HTML.

The textbook binary layout (Fawcett 2006): predicted condition in rows, actual
condition in columns, the 2x2 core surrounded by the rates it defines. Rates to
the right of a core cell divide it by its row total (PPV, FDR / FOR, NPV); rates
below divide it by its column total (TPR, FNR / FPR, TNR); ACC and ERR sit in the
corner. ``orientation="actual_rows"`` transposes the whole grid (scikit-learn's
layout, the default of ``cranfield classify``), margins included. The corner cell of
every confusion table names its orientation. Rates are shown with 4 significant
digits (percentages as ``66.67%``).
"""

from __future__ import annotations

import html
import math
import warnings

from ..errors import ParameterError
from ..output import markdown_table, text_table
from . import rates as R
from .confusion import BinaryConfusion, ConfusionMatrix, check_orientation
from .roc import RocTable

FORMATS = ("text", "markdown", "html")

# rates shown as percentages; the others (MCC, BM, MK, LR+, LR-, DOR) as numbers
PERCENT_RATES = {"TPR", "FNR", "TNR", "FPR", "PPV", "FDR", "NPV", "FOR", "ACC", "ERR"}
PERCENT_RATES |= {"prevalence", "F1", "BA"}


def check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise ParameterError("format", " or ".join(map(repr, FORMATS)), fmt)
    return fmt


def fmt_value(value: float, percent: bool = False, digits: int = 4) -> str:
    """A number for display with ``digits`` significant digits (``66.67%``, ``0.2335``).

    NaN is ``nan``, infinities ``inf``/``-inf``, integers print whole.
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "nan"
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if percent:
        return f"{100 * value:#.{digits}g}%"
    if isinstance(value, int):
        return str(value)
    return f"{value:#.{digits}g}"


def corner(total: int, orientation: str) -> str:
    """The corner cell of a confusion table: the orientation and the number of items."""
    if check_orientation(orientation) == "actual_rows":
        return f"rows: actual, columns: predicted (n={total})"
    return f"rows: predicted, columns: actual (n={total})"


def grid(header: list[str], rows: list[list[str]], fmt: str = "text") -> str:
    """A table with a header row; the first column is a row header.

    Text is aligned (the row header left, the rest right), Markdown left-aligned with
    ``|`` escaped (:mod:`cranfield.output`'s table renderer); HTML marks the row
    header with ``<th>``.
    """
    check_format(fmt)
    if fmt == "markdown":
        return markdown_table(header, rows, left=len(header), escape=True)
    if fmt == "html":
        out = ["<table>", "<thead><tr>"]
        out += [f"<th>{html.escape(c)}</th>" for c in header]
        out.append("</tr></thead>")
        out.append("<tbody>")
        for r in rows:
            cells = [f"<th>{html.escape(r[0])}</th>"] + [
                f"<td>{html.escape(c)}</td>" for c in r[1:]
            ]
            out.append("<tr>" + "".join(cells) + "</tr>")
        out.append("</tbody>")
        out.append("</table>")
        return "\n".join(out)
    return text_table(header, rows)


def binary_grid(
    cm: BinaryConfusion,
    orientation: str = "predicted_rows",
    zero_division: R.ZeroDivision = "warn",
) -> tuple[list[str], list[list[str]]]:
    """The 2x2 layout with rates around the core, as header + rows of strings."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", R.UndefinedRatioWarning)
        r = cm.rates(zero_division=zero_division)

    def pct(name):
        return f"{name} = {fmt_value(r[name], percent=True)}"

    pos = "positive" if cm.positive is None else f"{cm.positive}"
    cells = [
        [corner(cm.total, orientation), f"Actual {pos} (P={cm.p})", f"Actual not {pos} (N={cm.n})"]
        + ["", ""],
        [f"Predicted {pos} ({cm.predicted_positive})", f"TP={cm.tp}", f"FP={cm.fp}"]
        + [pct("PPV"), pct("FDR")],
        [f"Predicted not {pos} ({cm.predicted_negative})", f"FN={cm.fn}", f"TN={cm.tn}"]
        + [pct("FOR"), pct("NPV")],
        ["", pct("TPR"), pct("FPR"), pct("ACC"), ""],
        ["", pct("FNR"), pct("TNR"), "", pct("ERR")],
    ]
    if check_orientation(orientation) == "actual_rows":
        cells = [list(col) for col in zip(*cells, strict=True)]
    return cells[0], cells[1:]


def render_binary(
    cm: BinaryConfusion,
    fmt: str = "text",
    orientation: str = "predicted_rows",
    zero_division: R.ZeroDivision = "warn",
    beta: float = 1.0,
) -> str:
    """The binary confusion matrix with every rate: the grid, then the rest."""
    header, rows = binary_grid(cm, orientation, zero_division)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", R.UndefinedRatioWarning)
        r = cm.rates(zero_division=zero_division, beta=beta)
    shown = {"TPR", "FNR", "TNR", "FPR", "PPV", "FDR", "NPV", "FOR", "ACC", "ERR"}
    extra = [
        [name, R.RATES[name][1] if name in R.RATES else f"F-beta (beta={beta:g})"]
        + [fmt_value(value, percent=name in PERCENT_RATES)]
        for name, value in r.items()
        if name not in shown
    ]
    return "\n\n".join([grid(header, rows, fmt), grid(["measure", "meaning", "value"], extra, fmt)])


def multiclass_grid(
    cm: ConfusionMatrix, orientation: str = "predicted_rows"
) -> tuple[list[str], list[list[str]]]:
    """The K x K table with class totals, predicted classes in rows by default."""
    counts = cm.table(orientation)
    row_kind, col_kind = (
        ("Predicted", "Actual") if orientation == "predicted_rows" else ("Actual", "Predicted")
    )
    col_tot = counts.sum(axis=0)
    row_tot = counts.sum(axis=1)
    header = [corner(cm.total, orientation)] + [
        f"{col_kind} {lab} ({int(t)})" for lab, t in zip(cm.labels, col_tot, strict=True)
    ]
    rows = [
        [f"{row_kind} {lab} ({int(t)})"] + [str(int(v)) for v in counts[i]]
        for i, (lab, t) in enumerate(zip(cm.labels, row_tot, strict=True))
    ]
    return header, rows


def render_multiclass(
    cm: ConfusionMatrix,
    fmt: str = "text",
    orientation: str = "predicted_rows",
    zero_division: R.ZeroDivision = "warn",
    beta: float = 1.0,
) -> str:
    """K x K matrix, accuracy and error, per-class rates and their averages."""
    header, rows = multiclass_grid(cm, orientation)
    fname = "F1" if beta == 1 else f"F{beta:g}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", R.UndefinedRatioWarning)
        p, r, f, s = cm.precision_recall_fscore(beta, None, zero_division)
        per = cm.per_class(("TNR", "FPR", "ACC"), zero_division)
        avgs = {
            a: cm.precision_recall_fscore(beta, a, zero_division)
            for a in ("macro", "micro", "weighted")
        }
        acc, err = cm.accuracy(zero_division), cm.error_rate(zero_division)
        kappa, mcc = cm.cohen_kappa(zero_division), cm.mcc(zero_division)
    summary = [
        ["accuracy", fmt_value(acc, percent=True)],
        ["error rate", fmt_value(err, percent=True)],
        ["Cohen's kappa", fmt_value(kappa)],
        ["MCC (multi-class, Gorodkin 2004)", fmt_value(mcc)],
    ]
    cls_header = ["class", "support", "PPV (precision)", "TPR (recall)", fname]
    cls_header += ["TNR (specificity)", "FPR", "ACC (one-vs-rest)"]
    cls_rows = [
        [str(lab), str(int(s[i]))]
        + [fmt_value(float(x[i]), percent=True) for x in (p, r, f)]
        + [fmt_value(float(per[k][i]), percent=True) for k in ("TNR", "FPR", "ACC")]
        for i, lab in enumerate(cm.labels)
    ]
    cls_rows += [
        [f"{a} average", str(v[3])] + [fmt_value(x, percent=True) for x in v[:3]] + ["", "", ""]
        for a, v in avgs.items()
    ]
    return "\n\n".join(
        [
            grid(header, rows, fmt),
            grid(["measure", "value"], summary, fmt),
            grid(cls_header, cls_rows, fmt),
        ]
    )


def render_roc_table(table: RocTable, fmt: str = "text") -> str:
    """The ROC table (Fawcett 2006): Class, Score, TP, FP, FN, TN, TPR, FPR, ACC."""
    cols = table.columns()
    rows = []
    for i in range(len(table)):
        rows.append(
            [str(cols["Class"][i]), f"{float(cols['Score'][i]):g}"]
            + [str(int(cols[k][i])) for k in ("TP", "FP", "FN", "TN")]
            + [fmt_value(float(cols[k][i]), percent=True) for k in ("TPR", "FPR", "ACC")]
        )
    return grid(list(RocTable.COLUMNS), rows, fmt)


def render_pairs(pairs: list[tuple[str, str]], fmt: str = "text") -> str:
    """A two-column table of measure and value."""
    return grid(["measure", "value"], [[k, v] for k, v in pairs], fmt)
