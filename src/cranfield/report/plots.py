"""matplotlib figures of an evaluation (the ``plot`` extra, imported lazily).

``cranfield plot`` does not use them: its SVG, PDF and PNG files are one drawing of
:mod:`cranfield.report.svg_plots`, without matplotlib; both take the data of
:mod:`cranfield.report.data` and share titles and run colours. These figures are for
the Python API (a ``Figure`` to adjust) and ``cranfield rec plot``.

Each figure has two entry points:

* ``*_plot(...) -> (Figure, data)`` computes the data with the companion function of
  :mod:`cranfield.report.data` and draws it;
* ``draw_*(data) -> Figure`` draws data computed before (the HTML report uses these).

Figures are built on ``matplotlib.figure.Figure`` with the Agg canvas, never through
``pyplot``: no global state, no window, no ``plt.show``. :func:`save_figure` writes
PNG, SVG or PDF with the date and other volatile metadata removed, so the same data
gives the same bytes.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..errors import ParameterError, require
from . import data as _data
from .svg_plots import color as _color
from .svg_plots import delta_title, pr_title

FORMATS = ("png", "svg", "pdf")
WIDTH = 8.0  # inches; at DPI 100 an 800-pixel image
DPI = 100
# volatile metadata removed from saved files (dates; the software version is kept)
_METADATA = {
    "png": {"Software": None},
    "svg": {"Date": None},
    "pdf": {"CreationDate": None, "ModDate": None},
}
_RC = {"svg.hashsalt": "cranfield", "svg.fonttype": "path", "pdf.compression": 6}

__all__ = [
    "asl_plot",
    "swap_plot",
    "draw_asl",
    "draw_swap",
    "averages_plot",
    "coverage_plot",
    "delta_plot",
    "depth_plot",
    "distribution_plot",
    "draw_averages",
    "draw_coverage",
    "draw_delta",
    "draw_depth",
    "draw_distribution",
    "draw_popularity_bias",
    "draw_pr",
    "figure_bytes",
    "pr_plot",
    "save_figure",
]


def _figure(height: float, ncols: int = 1, nrows: int = 1, **kw):
    """A Figure with an Agg canvas and a grid of axes."""
    require("matplotlib", "plot")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(WIDTH, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=False, **kw)
    return fig, axes


def _legend_outside(fig, ax) -> None:
    """``ax``'s legend to the right of the axes (constrained layout makes room): inside,
    any corner may cover a curve (a good run's precision stays high up to recall 1)."""
    fig.legend(*ax.get_legend_handles_labels(), loc="outside right upper", fontsize="small")


def _unit_axes(ax, xlabel: str, ylabel: str) -> None:
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)


# --- precision-recall -----------------------------------------------------------


def draw_pr(
    data: dict,
    *,
    query: str | None = None,
    title: str | None = None,
    convention: str = "textbook",
):
    """Raw (thin) and interpolated (thick) precision-recall curves of each run.

    For one query the interpolated curve is the step curve of
    :func:`cranfield.report.data.step_curve` (``drawstyle="steps-pre"``, textbook
    interpolation); for the average it is the mean interpolated precision at fixed
    recall levels (markers), in the ``convention`` the data was computed with, named in
    the legend. Lines are added run by run, raw first: ``ax.lines[2 * i]`` is run i's
    raw curve.
    """
    shown = "textbook" if query is not None else convention
    fig, axes = _figure(5.0)
    ax = axes[0, 0]
    for i, (name, d) in enumerate(data.items()):
        c = _color(i)
        ax.plot(
            d["raw_recall"],
            d["raw_precision"],
            color=c,
            linewidth=0.9,
            alpha=0.55,
            label=f"{name} (raw)",
        )
        style = dict(drawstyle="steps-pre") if query is not None else dict(marker="o")
        ax.plot(
            d["interp_recall"],
            d["interp_precision"],
            color=c,
            linewidth=2.0,
            label=f"{name} (interpolated, {shown})",
            **style,
        )
    _unit_axes(ax, "recall", "precision")
    _legend_outside(fig, ax)
    ax.set_title(pr_title(query) if title is None else title, fontsize="medium")
    return fig


def pr_plot(qrels, runs, *, query: str | None = None, **options):
    """Precision-recall curves of one query or averaged: ``(Figure, pr_data(...))``."""
    d = _data.pr_data(qrels, runs, query=query, **options)
    return draw_pr(d, query=query, convention=options.get("convention", "textbook")), d


def draw_averages(data: dict, convention: str = "textbook"):
    """The two averages over queries: mean P vs mean R at ranks 5, 10, ...; mean interpolated P.

    Left axes: one line per run through ``(rank_recall, rank_precision)``; right axes:
    one line per run through ``(recall, precision)``.
    """
    fig, axes = _figure(4.2, ncols=2)
    left, right = axes[0]
    for i, (name, d) in enumerate(data.items()):
        c = _color(i)
        left.plot(d["rank_recall"], d["rank_precision"], marker=".", color=c, label=name)
        right.plot(d["recall"], d["precision"], marker="o", color=c, label=name)
    _unit_axes(left, "mean recall", "mean precision")
    _unit_axes(right, "recall level", "mean interpolated precision")
    first = next(iter(data.values()), None)
    if first is not None:
        shown = ", ".join(str(k) for k in first["rank"][:3])
        left.set_title(f"Mean P and R at ranks {shown}, …", fontsize="medium")
        levels = len(first["recall"])
        right.set_title(
            f"Mean interpolated precision, {levels} points ({convention})", fontsize="medium"
        )
    _legend_outside(fig, right)
    return fig


def averages_plot(qrels, runs, **options):
    """``(Figure, averages_data(...))``."""
    d = _data.averages_data(qrels, runs, **options)
    return draw_averages(d, options.get("convention", "textbook")), d


# --- per-topic differences and distributions ------------------------------------


def draw_delta(data: dict, *, baseline: str = "baseline", measure: str = ""):
    """Sorted bars of ``run - baseline`` per query, one axes per run.

    ``axes[i].patches`` are the bars of run i in the order of ``data[run]["delta"]``.
    """
    n = max(len(data), 1)
    fig, axes = _figure(2.6 * n + 0.4, nrows=n, sharey=True)
    for i, (name, d) in enumerate(data.items()):
        ax = axes[i, 0]
        delta = d["delta"]
        x = np.arange(len(delta))
        colors = np.where(delta > 0, "#2ca02c", np.where(delta < 0, "#d62728", "#7f7f7f"))
        ax.bar(x, delta, color=list(colors), width=0.8)
        ax.axhline(0.0, color="black", linewidth=0.8)
        if len(x) <= 60:
            ax.set_xticks(x, d["query_id"], rotation=90, fontsize="x-small")
        else:
            ax.set_xticks([])
        ax.set_title(delta_title(name, baseline, measure, delta), fontsize="medium")
        ax.set_ylabel("difference")
        ax.grid(True, axis="y", alpha=0.3)
    return fig


def delta_plot(scores: dict, baseline: str | None = None, *, measure: str = ""):
    """Per-topic differences against a baseline: ``(Figure, delta_data(...))``."""
    d = _data.delta_data(scores, baseline)
    base = next(iter(scores)) if baseline is None else baseline
    return draw_delta(d, baseline=base, measure=measure), d


def draw_distribution(data: dict, *, measure: str = ""):
    """Box plot of the per-query values of each run (mean as a triangle).

    Box i is run i; whiskers at 1.5 IQR (matplotlib's default).
    """
    fig, axes = _figure(4.0)
    ax = axes[0, 0]
    names = list(data)
    ax.boxplot(
        [data[n] for n in names],
        showmeans=True,
        patch_artist=False,
    )
    ax.set_xticks(range(1, len(names) + 1), names)  # tick_labels= needs matplotlib 3.9
    ax.set_ylabel(measure or "value")
    ax.set_title(f"Per-query {measure or 'values'} of each run", fontsize="medium")
    ax.grid(True, axis="y", alpha=0.3)
    return fig


def distribution_plot(scores: dict, *, measure: str = ""):
    """``(Figure, distribution_data(scores))``."""
    d = _data.distribution_data(scores)
    return draw_distribution(d, measure=measure), d


# --- depth and coverage --------------------------------------------------------


def draw_depth(data: dict):
    """Mean ``M@k`` against k, one axes per measure, one line per run."""
    n = max(len(data), 1)
    fig, axes = _figure(3.6, ncols=n)
    for j, (measure, d) in enumerate(data.items()):
        ax = axes[0, j]
        runs = [r for r in d if r != "k"]
        for i, name in enumerate(runs):
            ax.plot(d["k"], d[name], marker=".", color=_color(i), label=name)
        ax.set_xlabel("k (depth)")
        ax.set_ylabel(f"mean {measure}@k")
        ax.set_ylim(-0.02, 1.02)
        ax.set_title(f"{measure}@k for k = 1..{d['k'][-1]}", fontsize="medium")
        ax.grid(True, alpha=0.3)
    axes[0, -1].legend(fontsize="small")
    return fig


def depth_plot(qrels, runs, measures: Sequence[str] = ("P", "nDCG"), max_depth: int = 20, **kw):
    """``(Figure, depth_data(...))``."""
    d = _data.depth_data(qrels, runs, measures, max_depth, **kw)
    return draw_depth(d), d


def draw_coverage(data: dict):
    """Mean Judged@k against depth k (log scale), one line per run."""
    fig, axes = _figure(3.6)
    ax = axes[0, 0]
    for i, (name, d) in enumerate(data.items()):
        ax.plot(d["depth"], d["judged"], marker="o", color=_color(i), label=name)
    ax.set_xscale("log")
    first = next(iter(data.values()), None)
    if first is not None:
        ax.set_xticks(first["depth"], [str(k) for k in first["depth"]])
        ax.minorticks_off()
    ax.set_xlabel("depth k")
    ax.set_ylabel("mean Judged@k")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title("Judged fraction of the top k (assessment coverage)", fontsize="medium")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    return fig


def coverage_plot(qrels, runs, depths: Sequence[int] = _data.DEFAULT_DEPTHS, **kw):
    """``(Figure, coverage_data(...))``."""
    d = _data.coverage_data(qrels, runs, depths, **kw)
    return draw_coverage(d), d


# --- meta-evaluation: ASL and swap-rate curves --------------------------------


def draw_asl(power: dict, alpha: float = 0.05, method: str = "bootstrap"):
    """Sakai's (2006) ASL curves: the sorted ASLs of all pairs of runs, one line per
    measure (``power``: :func:`cranfield.meta.discriminative_power`'s result)."""
    fig, axes = _figure(3.6)
    ax = axes[0, 0]
    for i, (measure, e) in enumerate(power.items()):
        asl = e[method]["asl"]
        ax.plot(np.arange(1, len(asl) + 1), asl, color=_color(i), label=measure)
    ax.axhline(alpha, color="#7f7f7f", linestyle="--", linewidth=1)
    ax.set_xlabel("run pairs, sorted by ASL")
    ax.set_ylabel(f"ASL ({method})")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title("Discriminative power: ASL curves", fontsize="medium")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    return fig


def asl_plot(aligned: dict, *, samples: int = 1000, seed: int = 0, method: str = "bootstrap"):
    """``(Figure, discriminative_power(...))`` of ``aligned`` (``align_scores``'s result)."""
    from ..meta import discriminative_power

    d = discriminative_power(aligned, (method,), n_samples=samples, seed=seed)
    return draw_asl(d, method=method), d


def draw_swap(rates: list[dict], measure: str = ""):
    """Voorhees & Buckley's (2002) swap-rate curves: swap rate against the difference
    of means, one line per topic-set size (``rates``: :func:`cranfield.meta.swap_rates`)."""
    fig, axes = _figure(3.6)
    ax = axes[0, 0]
    for i, r in enumerate(rates):
        x = [(b["low"] + b["high"]) / 2 for b in r["bins"]]
        ax.plot(
            x,
            [b["swap_rate"] for b in r["bins"]],
            marker=".",
            color=_color(i),
            label=f"{r['size']} topics",
        )
    ax.set_xlabel(f"difference of mean {measure} on one set".replace("  ", " "))
    ax.set_ylabel("swap rate")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title("Swap rate by difference and topic-set size", fontsize="medium")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    return fig


def swap_plot(matrix, *, measure: str = "", bin_width: float = 0.05, seed: int = 0):
    """``(Figure, swap_rates(...))`` of one runs x topics matrix."""
    from ..meta import swap_rates

    d = swap_rates(matrix, bin_width=bin_width, seed=seed)
    return draw_swap(d, measure), d


# --- saving --------------------------------------------------------------------


def draw_popularity_bias(data: dict, *, k: int = 10):
    """Each user's mean recommended item popularity against their profile's (the share
    of training users who have each item), with the line where they are equal: points
    above it are users pushed towards more popular items (Abdollahpouri et al. 2019)."""
    fig, axes = _figure(4.5)
    ax = axes[0, 0]
    x, y = data["profile"], data["recommended"]
    ax.scatter(x, y, s=8, alpha=0.5, color=_color(0), label="users")
    top = float(max(np.max(x, initial=0.0), np.max(y, initial=0.0))) * 1.05 or 1.0
    ax.plot([0, top], [0, top], color="0.5", linewidth=1, label="recommended = profile")
    ax.set_xlim(0, top)
    ax.set_ylim(0, top)
    ax.set_xlabel("profile popularity (mean share of users, training items)")
    ax.set_ylabel(f"recommended popularity (top {k})")
    ax.set_title("Popularity bias: recommended versus profile popularity", fontsize="medium")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small", loc="upper left")
    return fig


def figure_bytes(fig, fmt: str = "png") -> bytes:
    """The figure encoded as PNG, SVG or PDF, without dates (same data, same bytes)."""
    if fmt not in FORMATS:
        raise ParameterError("format", ", ".join(FORMATS), fmt)
    mpl = require("matplotlib", "plot")
    buf = io.BytesIO()
    with mpl.rc_context(_RC):
        fig.savefig(buf, format=fmt, dpi=DPI, metadata=_METADATA[fmt])
    return buf.getvalue()


def save_figure(fig, path: str | Path) -> Path:
    """Write the figure; the format comes from the suffix (.png, .svg or .pdf)."""
    path = Path(path)
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise ParameterError("output", "a file name ending in .png, .svg or .pdf", str(path))
    from ..core.io.atomic import write_bytes

    write_bytes(path, figure_bytes(fig, fmt))
    return path
