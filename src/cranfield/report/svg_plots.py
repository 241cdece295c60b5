"""The figures of ``cranfield plot`` as SVG documents, without matplotlib.

Each ``*_svg(data, ...)`` draws the data of the companion function of
:mod:`cranfield.report.data` (or of :mod:`cranfield.meta`) that
:mod:`cranfield.report.plots` draws with matplotlib: the same points, axes, titles and
run colours, through :mod:`cranfield.report.chart`. ``cranfield plot`` writes this SVG
as it is, as PDF (:mod:`cranfield.report.pdf`) or as PNG (:mod:`cranfield.report.png`). The HTML report
draws its ASL curves with :func:`asl_svg` too. ``standalone=False`` gives an element to
place in a page.
"""

from __future__ import annotations

import numpy as np

from .chart import Box, Line, Panel, distinct, render

# run colours in run order, the same in every figure and format (matplotlib's tab10)
COLORS = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)
UNIT = (-0.02, 1.02)  # the axes of values in [0, 1]

__all__ = [
    "COLORS",
    "asl_svg",
    "averages_svg",
    "coverage_svg",
    "delta_svg",
    "depth_svg",
    "distribution_svg",
    "pr_svg",
    "swap_svg",
]


def color(i: int) -> str:
    return COLORS[i % len(COLORS)]


def pr_title(query: str | None) -> str:
    return (
        f"Precision-recall, query {query}"
        if query is not None
        else "Precision-recall averaged over queries (raw: mean P and R at each rank)"
    )


def pr_svg(
    data: dict,
    *,
    query: str | None = None,
    title: str | None = None,
    convention: str = "textbook",
    standalone: bool = True,
) -> str:
    """Raw (thin) and interpolated (thick) precision-recall curves of each run, as
    :func:`cranfield.report.plots.draw_pr` draws them."""
    shown = "textbook" if query is not None else convention
    lines = []
    for i, (name, d) in enumerate(data.items()):
        c = color(i)
        lines.append(Line(d["raw_recall"], d["raw_precision"], c, f"{name} (raw)", 0.9, 0.55))
        lines.append(
            Line(
                d["interp_recall"],
                d["interp_precision"],
                c,
                f"{name} (interpolated, {shown})",
                2.0,
                marker=query is None,
                steps=query is not None,
            )
        )
    panel = Panel(
        title if title is not None else pr_title(query),
        "recall",
        "precision",
        lines,
        x_range=UNIT,
        y_range=UNIT,
    )
    return render([panel], height=500, label="precision-recall curves", standalone=standalone)


def averages_svg(data: dict, convention: str = "textbook", *, standalone: bool = True) -> str:
    """Mean P against mean R at ranks 5, 10, ... (left) and mean interpolated precision
    at the recall levels (right), one line per run."""
    left = Panel(x_title="mean recall", y_title="mean precision", x_range=UNIT, y_range=UNIT)
    right = Panel(
        x_title="recall level",
        y_title="mean interpolated precision",
        x_range=UNIT,
        y_range=UNIT,
    )
    for i, (name, d) in enumerate(data.items()):
        left.lines.append(Line(d["rank_recall"], d["rank_precision"], color(i), name, marker=True))
        right.lines.append(Line(d["recall"], d["precision"], color(i), name, marker=True))
    first = next(iter(data.values()), None)
    if first is not None:
        shown = ", ".join(str(k) for k in first["rank"][:3])
        left.title = f"Mean P and R at ranks {shown}, …"
        right.title = f"Mean interpolated precision, {len(first['recall'])} points ({convention})"
    return render(
        [left, right],
        height=420,
        ncols=2,
        label="averaged precision-recall curves",
        standalone=standalone,
    )


def delta_title(name: str, baseline: str, measure: str, delta: np.ndarray) -> str:
    wins, losses = int((delta > 0).sum()), int((delta < 0).sum())
    return (
        f"{name} − {baseline}{', ' + measure if measure else ''}: "
        f"{wins} better, {losses} worse, {len(delta) - wins - losses} tied"
    )


def delta_svg(
    data: dict, *, baseline: str = "baseline", measure: str = "", standalone: bool = True
) -> str:
    """Sorted bars of ``run - baseline`` per query, one panel per run (green better,
    red worse, grey tied); query ids under the bars up to 60 queries."""
    panels = []
    for name, d in data.items():
        delta = np.asarray(d["delta"], dtype=float)
        colors = np.where(delta > 0, "#2ca02c", np.where(delta < 0, "#d62728", "#7f7f7f"))
        panels.append(
            Panel(
                delta_title(name, baseline, measure, delta),
                "query",
                "difference",
                bars=(list(d["query_id"]), delta, colors.tolist()),
            )
        )
    height = 260 * max(len(panels), 1) + 40
    return render(
        panels, height=height, legend=False, label="per-query differences", standalone=standalone
    )


def distribution_svg(data: dict, *, measure: str = "", standalone: bool = True) -> str:
    """A box plot of the per-query values of each run (mean as a triangle; whiskers at
    1.5 IQR: :func:`cranfield.report.chart.box_stats`)."""
    panel = Panel(
        f"Per-query {measure or 'values'} of each run",
        "run",
        measure or "value",
        boxes=[Box(name, v) for name, v in data.items()],
    )
    return render(
        [panel], height=400, legend=False, label="per-query distributions", standalone=standalone
    )


def depth_svg(data: dict, *, standalone: bool = True) -> str:
    """Mean ``M@k`` against k, one panel per measure, one line per run."""
    panels = []
    for measure, d in data.items():
        runs = [r for r in d if r != "k"]
        panels.append(
            Panel(
                f"{measure}@k for k = 1..{d['k'][-1]}",
                "k (depth)",
                f"mean {measure}@k",
                [Line(d["k"], d[r], color(i), r, marker=True) for i, r in enumerate(runs)],
                y_range=UNIT,
            )
        )
    return render(
        panels,
        height=360,
        ncols=max(len(panels), 1),
        label="measures by depth",
        standalone=standalone,
    )


def coverage_svg(data: dict, *, standalone: bool = True) -> str:
    """Mean Judged@k against depth k (logarithmic axis), one line per run."""
    first = next(iter(data.values()), None)
    ticks = None
    if first is not None:
        ticks = (first["depth"], [str(int(k)) for k in first["depth"]])
    panel = Panel(
        "Judged fraction of the top k (assessment coverage)",
        "depth k",
        "mean Judged@k",
        [
            Line(d["depth"], d["judged"], color(i), name, marker=True)
            for i, (name, d) in enumerate(data.items())
        ],
        y_range=UNIT,
        x_log=True,
        x_ticks=ticks,
    )
    return render([panel], height=360, label="assessment coverage", standalone=standalone)


#: Most points of an ASL curve drawn (the curve is monotone: thinning keeps its shape).
CURVE_POINTS = 400


def asl_svg(
    power: dict,
    alpha: float = 0.05,
    method: str = "bootstrap",
    *,
    fig_id: str = "figure",
    standalone: bool = True,
) -> str:
    """Sakai's (2006) ASL curves: the sorted ASLs of all pairs of runs, one line per
    measure (``power``: :func:`cranfield.meta.discriminative_power`'s result, or the
    entries of :func:`cranfield.meta.summary.trust`), at most :data:`CURVE_POINTS`
    evenly spread points each; the dashed line is ``alpha``."""
    lines = []
    for i, (measure, e) in enumerate(power.items()):
        asl = np.asarray(e[method]["asl"], dtype=float)
        keep = distinct(np.linspace(0, asl.size - 1, min(asl.size, CURVE_POINTS)).astype(int))
        lines.append(Line(keep + 1.0, asl[keep], color(i), measure))
    panel = Panel(
        "Discriminative power: ASL curves",
        "run pairs, sorted by ASL",
        f"ASL ({method})",
        lines,
        y_range=UNIT,
        rules=[alpha],
    )
    return render(
        [panel],
        height=360,
        fig_id=fig_id,
        label=f"ASL curves of the paired {method} test, one per measure",
        standalone=standalone,
    )


def swap_series(bins: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    """Centres of the difference bins and their swap rates."""
    x = np.array([(b["low"] + b["high"]) / 2 for b in bins], dtype=float)
    return x, np.array([b["swap_rate"] for b in bins], dtype=float)


def swap_svg(rates: list[dict], measure: str = "", *, standalone: bool = True) -> str:
    """Voorhees & Buckley's (2002) swap-rate curves: swap rate against the difference
    of means, one line per topic-set size (``rates``: :func:`cranfield.meta.swap_rates`)."""
    lines = [
        Line(*swap_series(r["bins"]), color(i), f"{r['size']} topics", marker=True)
        for i, r in enumerate(rates)
    ]
    panel = Panel(
        "Swap rate by difference and topic-set size",
        f"difference of mean {measure} on one set".replace("  ", " "),
        "swap rate",
        lines,
        y_range=UNIT,
    )
    return render([panel], height=360, label="swap rates", standalone=standalone)
