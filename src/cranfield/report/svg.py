"""Inline SVG figures of the HTML report, drawn directly from arrays (no matplotlib).

Every function returns one ``<svg>`` element as text: a ``viewBox`` in pixels of a
fixed width and ``width="100%"``, so a figure shrinks with its container and never
overflows it. Coordinates are computed with whole-array NumPy and written with one
decimal; labels are HTML-escaped and long ones shortened (the full text stays in a
``<title>`` tooltip). Legibility rules: at most a handful of coloured series per panel
(the rest grey), labelled axes, every topic id written on per-topic axes.

* :func:`interval_rows` — one row per run: mean and confidence interval;
* :func:`heatmap` — runs x topics, one colour per value bin;
* :func:`topic_summary` — per topic: worst-best range, median and the baseline;
* :func:`marker_rows` — one row per run, one marker per depth (judged coverage);
* :func:`scatter` — points on two axes (popularity bias of recommendations).

Line charts (ASL and swap-rate curves, and every figure of ``plot -o FILE.svg``) are
drawn by :mod:`cranfield.report.chart`.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

import numpy as np

WIDTH = 760
ROW = 16  # pixels per run row
LABEL_CHARS = 28
# sequential colours of the heat map, light (low) to dark (high): 8 bins
HEAT = ("#f7fbff", "#deebf7", "#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#084594")
MISSING = "#e8e8e8"
# the few highlighted series (colour-blind safe, Okabe & Ito 2008)
SERIES = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
GREY = "#9a9a9a"

__all__ = [
    "heatmap",
    "interval_rows",
    "marker_rows",
    "nice_ticks",
    "scatter",
    "short",
    "topic_summary",
]


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def short(text, limit: int = LABEL_CHARS) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis (not escaped)."""
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _label(text, x: float, y: float, anchor: str = "end", limit: int = LABEL_CHARS, **attrs):
    extra = "".join(f' {k.replace("_", "-")}="{v}"' for k, v in attrs.items())
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}"{extra}>'
        f"<title>{_e(text)}</title>{_e(short(text, limit))}</text>"
    )


def _fmt(values: np.ndarray) -> list[str]:
    """Coordinates with one decimal (``-0.0`` written as ``0.0``)."""
    return [f"{v:.1f}" for v in (np.round(np.asarray(values, dtype=float), 1) + 0.0).tolist()]


def nice_ticks(low: float, high: float, count: int = 5) -> np.ndarray:
    """Round tick values covering ``[low, high]`` (steps of 1, 2 or 5 times 10^k)."""
    if not math.isfinite(low) or not math.isfinite(high) or high <= low:
        high = low + 1.0 if math.isfinite(low) else 1.0
        low = low if math.isfinite(low) else 0.0
    raw = (high - low) / max(count, 1)
    mag = 10.0 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    start = math.floor(low / step + 1e-9) * step
    stop = math.ceil(high / step - 1e-9) * step
    return np.round(np.arange(start, stop + step / 2, step), 10)


def _domain(*arrays) -> tuple[float, float]:
    """Value range of the axes: ``[0, 1]`` widened to every finite value."""
    finite = [a[np.isfinite(a)] for a in (np.asarray(x, dtype=float) for x in arrays)]
    values = np.concatenate(finite) if finite else np.zeros(0)
    low = min(0.0, float(values.min())) if values.size else 0.0
    high = max(1.0, float(values.max())) if values.size else 1.0
    ticks = nice_ticks(low, high)
    return float(ticks[0]), float(ticks[-1])


def _open(fig_id: str, height: float, label: str) -> str:
    return (
        f'<svg id="{_e(fig_id)}" class="chart" role="img" aria-label="{_e(label)}" '
        f'viewBox="0 0 {WIDTH} {height:.0f}" width="100%" '
        f'preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg">'
    )


def _x_axis(x0: float, x1: float, y: float, lo: float, hi: float, title: str) -> list[str]:
    ticks = nice_ticks(lo, hi)
    ticks = ticks[(ticks >= lo - 1e-9) & (ticks <= hi + 1e-9)]
    xs = x0 + (ticks - lo) / (hi - lo) * (x1 - x0)
    out = [f'<line class="axis" x1="{x0}" y1="{y:.1f}" x2="{x1}" y2="{y:.1f}"/>']
    for t, x in zip(ticks.tolist(), _fmt(xs), strict=True):
        out.append(f'<line class="grid" x1="{x}" y1="0" x2="{x}" y2="{y:.1f}"/>')
        out.append(f'<text x="{x}" y="{y + 14:.1f}" text-anchor="middle">{t:g}</text>')
    out.append(
        f'<text class="title" x="{(x0 + x1) / 2:.1f}" y="{y + 30:.1f}" '
        f'text-anchor="middle">{_e(title)}</text>'
    )
    return out


def interval_rows(
    fig_id: str,
    labels: Sequence[str],
    mean: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
    *,
    axis_title: str,
    highlight: Sequence[bool] | None = None,
    label: str = "",
) -> str:
    """One row per run (in the given order): a dot at the mean and a line over the
    confidence interval; highlighted rows are drawn in colour, the rest in grey."""
    mean, low, high = (np.asarray(a, dtype=float) for a in (mean, low, high))
    n = len(labels)
    lo, hi = _domain(mean, low, high)
    x0, x1, top = 200.0, WIDTH - 20.0, 8.0
    bottom = top + n * ROW
    scale = (x1 - x0) / (hi - lo)
    y = top + (np.arange(n) + 0.5) * ROW
    xm = x0 + (mean - lo) * scale
    xl = x0 + (np.where(np.isfinite(low), low, mean) - lo) * scale
    xh = x0 + (np.where(np.isfinite(high), high, mean) - lo) * scale
    hl = np.zeros(n, bool) if highlight is None else np.asarray(highlight, bool)
    out = [_open(fig_id, bottom + 40, label)]
    out += _x_axis(x0, x1, bottom, lo, hi, axis_title)
    for i, (ys, a, b, m) in enumerate(zip(_fmt(y), _fmt(xl), _fmt(xh), _fmt(xm), strict=True)):
        colour = SERIES[0] if hl[i] else "#555"
        out.append(_label(labels[i], x0 - 6, float(ys) + 4))
        if math.isfinite(mean[i]):
            out.append(
                f'<line x1="{a}" y1="{ys}" x2="{b}" y2="{ys}" stroke="{colour}" '
                f'stroke-width="2"/><circle cx="{m}" cy="{ys}" r="4" fill="{colour}"/>'
            )
    out.append("</svg>")
    return "".join(out)


def _topic_axis(topics: Sequence[str], xs: np.ndarray, y: float, title: str) -> list[str]:
    """Topic ids under a per-topic axis, written vertically; every one of them when
    they fit (up to 120), else every k-th."""
    n = len(topics)
    step = 1 if n <= 120 else math.ceil(n / 120)
    out = []
    for i in range(0, n, step):
        x = float(xs[i])
        out.append(
            f'<text class="topic" transform="translate({x + 3:.1f},{y + 4:.1f}) rotate(-90)" '
            f'text-anchor="end"><title>{_e(topics[i])}</title>{_e(short(topics[i], 10))}</text>'
        )
    out.append(
        f'<text class="title" x="{(xs[0] + xs[-1]) / 2 if n else WIDTH / 2:.1f}" '
        f'y="{y + 70:.1f}" text-anchor="middle">{_e(title)}</text>'
    )
    return out


def heatmap(
    fig_id: str,
    runs: Sequence[str],
    topics: Sequence[str],
    values: np.ndarray,
    *,
    measure: str,
    label: str = "",
) -> str:
    """Runs (rows) x topics (columns); each cell coloured by its value's bin of
    ``[lo, hi]`` (8 equal bins), missing values light grey. One ``<path>`` per bin."""
    values = np.asarray(values, dtype=float).reshape(len(runs), len(topics))
    finite = values[np.isfinite(values)]
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if hi <= lo:
        hi = lo + 1.0
    x0, x1, top = 200.0, WIDTH - 20.0, 8.0
    n_runs, n_topics = values.shape
    cw = (x1 - x0) / max(n_topics, 1)
    rh = 12.0
    bottom = top + n_runs * rh
    scaled = np.nan_to_num((values - lo) / (hi - lo) * len(HEAT), nan=0.0)
    bins = np.clip(scaled.astype(int), 0, len(HEAT) - 1)
    bins = np.where(np.isfinite(values), bins, -1)
    r_idx, t_idx = np.indices(values.shape)
    xs = np.round(x0 + t_idx * cw, 1)
    ys = top + r_idx * rh
    out = [_open(fig_id, bottom + 120, label)]
    for b, colour in [(-1, MISSING), *enumerate(HEAT)]:
        sel = bins == b
        if not sel.any():
            continue
        cells = [
            f"M{x:g} {y:g}h{cw:.2f}v{rh:g}h-{cw:.2f}z"
            for x, y in zip(xs[sel].tolist(), ys[sel].tolist(), strict=True)
        ]
        out.append(f'<path fill="{colour}" d="{"".join(cells)}"/>')
    for i, name in enumerate(runs):
        out.append(_label(name, x0 - 6, top + (i + 0.5) * rh + 4))
    centres = x0 + (np.arange(n_topics) + 0.5) * cw
    out += _topic_axis(topics, centres, bottom, "topic")
    # colour key
    kx, ky = WIDTH - 20.0 - 8 * 30, bottom + 84
    out.append(f'<text x="{kx - 6:.1f}" y="{ky + 10:.1f}" text-anchor="end">{_e(measure)}</text>')
    edges = np.linspace(lo, hi, len(HEAT) + 1)
    for k, colour in enumerate(HEAT):
        out.append(
            f'<rect x="{kx + 30 * k:.1f}" y="{ky:.1f}" width="30" height="10" '
            f'fill="{colour}" stroke="#999" stroke-width="0.5"/>'
        )
    for k in range(0, len(HEAT) + 1, 2):  # every other edge: the labels stay apart
        out.append(
            f'<text x="{kx + 30 * k:.1f}" y="{ky + 22:.1f}" text-anchor="middle">'
            f"{edges[k]:.3g}</text>"
        )
    out.append("</svg>")
    return "".join(out)


def topic_summary(
    fig_id: str,
    topics: Sequence[str],
    worst: np.ndarray,
    median: np.ndarray,
    best: np.ndarray,
    baseline: np.ndarray,
    *,
    measure: str,
    baseline_name: str,
    label: str = "",
) -> str:
    """Per topic: a grey bar from the worst to the best run, a black tick at the
    median run and a coloured dot at the baseline (the TREC per-topic summary)."""
    worst, median, best, baseline = (
        np.asarray(a, dtype=float) for a in (worst, median, best, baseline)
    )
    n = len(topics)
    lo, hi = _domain(worst, best, baseline)
    x0, x1, top, h = 60.0, WIDTH - 20.0, 20.0, 220.0
    bottom = top + h
    cw = (x1 - x0) / max(n, 1)
    xs = x0 + (np.arange(n) + 0.5) * cw

    def ypos(v):
        return bottom - (v - lo) / (hi - lo) * h

    out = [_open(fig_id, bottom + 120, label)]
    ticks = nice_ticks(lo, hi)
    for t, yy in zip(ticks.tolist(), _fmt(ypos(ticks)), strict=True):
        out.append(f'<line class="grid" x1="{x0}" y1="{yy}" x2="{x1}" y2="{yy}"/>')
        out.append(f'<text x="{x0 - 6}" y="{float(yy) + 4:.1f}" text-anchor="end">{t:g}</text>')
    out.append(
        f'<text class="title" transform="translate(14,{top + h / 2:.1f}) rotate(-90)" '
        f'text-anchor="middle">{_e(measure)}</text>'
    )
    bw = max(min(cw * 0.6, 10.0), 1.0)
    finite = np.isfinite(worst) & np.isfinite(best)
    bars = [
        f"M{x - bw / 2:.1f} {yt:.1f}h{bw:.1f}V{yb:.1f}h-{bw:.1f}z"
        for x, yt, yb in zip(
            xs[finite].tolist(),
            ypos(best[finite]).tolist(),
            ypos(worst[finite]).tolist(),
            strict=True,
        )
    ]
    out.append(f'<path fill="#d9d9d9" stroke="#aaa" stroke-width="0.5" d="{"".join(bars)}"/>')
    ok = np.isfinite(median)
    ticks_d = [
        f"M{x - bw / 2 - 1:.1f} {y:.1f}h{bw + 2:.1f}"
        for x, y in zip(xs[ok].tolist(), ypos(median[ok]).tolist(), strict=True)
    ]
    out.append(f'<path stroke="#000" stroke-width="2" d="{"".join(ticks_d)}"/>')
    ok = np.isfinite(baseline)
    for x, y in zip(_fmt(xs[ok]), _fmt(ypos(baseline[ok])), strict=True):
        out.append(f'<circle cx="{x}" cy="{y}" r="2.5" fill="{SERIES[1]}"/>')
    out.append(f'<line class="axis" x1="{x0}" y1="{bottom}" x2="{x1}" y2="{bottom}"/>')
    out += _topic_axis(topics, xs, bottom, "topic")
    ky = bottom + 100
    out.append(
        f'<rect x="{x0}" y="{ky - 8}" width="10" height="10" fill="#d9d9d9" stroke="#aaa"/>'
        f'<text x="{x0 + 14}" y="{ky + 1}">worst to best run</text>'
        f'<path stroke="#000" stroke-width="2" d="M{x0 + 150} {ky - 3}h12"/>'
        f'<text x="{x0 + 166}" y="{ky + 1}">median run</text>'
        f'<circle cx="{x0 + 260}" cy="{ky - 3}" r="3" fill="{SERIES[1]}"/>'
    )
    out.append(_label(f"baseline: {baseline_name}", x0 + 268, ky + 1, anchor="start", limit=40))
    out.append("</svg>")
    return "".join(out)


def marker_rows(
    fig_id: str,
    labels: Sequence[str],
    values: np.ndarray,
    keys: Sequence[str],
    *,
    axis_title: str,
    label: str = "",
) -> str:
    """One row per run, one coloured marker per column of ``values`` (runs x keys,
    at most ``len(SERIES)`` keys), with a legend of the keys."""
    values = np.asarray(values, dtype=float).reshape(len(labels), len(keys))
    keys = list(keys)[: len(SERIES)]
    values = values[:, : len(keys)]
    n = len(labels)
    lo, hi = _domain(values)
    x0, x1, top = 200.0, WIDTH - 20.0, 26.0
    bottom = top + n * ROW
    scale = (x1 - x0) / (hi - lo)
    y = top + (np.arange(n) + 0.5) * ROW
    out = [_open(fig_id, bottom + 40, label)]
    for k, key in enumerate(keys):
        out.append(
            f'<circle cx="{18 + 95 * k}" cy="10" r="4" fill="{SERIES[k]}"/>'
            f'<text x="{26 + 95 * k}" y="14">{_e(short(key, 12))}</text>'
        )
    out += _x_axis(x0, x1, bottom, lo, hi, axis_title)
    for i, name in enumerate(labels):
        out.append(_label(name, x0 - 6, float(y[i]) + 4))
    for k in range(len(keys)):
        ok = np.isfinite(values[:, k])
        for cx, cy in zip(_fmt(x0 + (values[ok, k] - lo) * scale), _fmt(y[ok]), strict=True):
            out.append(f'<circle cx="{cx}" cy="{cy}" r="3.5" fill="{SERIES[k]}"/>')
    out.append("</svg>")
    return "".join(out)


def scatter(
    fig_id: str,
    x: np.ndarray,
    y: np.ndarray,
    *,
    x_title: str,
    y_title: str,
    diagonal: bool = False,
    max_points: int = 4000,
    label: str = "",
) -> str:
    """The points ``(x, y)`` as dots on axes from 0 (both axes on one scale when
    ``diagonal``, with the line ``y = x``); beyond ``max_points`` points an evenly
    spaced subset of them is drawn (the caller says so)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if len(x) > max_points:
        keep = np.linspace(0, len(x) - 1, max_points).round().astype(np.int64)
        x, y = x[keep], y[keep]
    x_hi = float(x.max()) if x.size else 1.0
    y_hi = float(y.max()) if y.size else 1.0
    if diagonal:
        x_hi = y_hi = max(x_hi, y_hi)
    x_ticks, y_ticks = nice_ticks(0.0, x_hi or 1.0), nice_ticks(0.0, y_hi or 1.0)
    x_lo, x_hi = float(x_ticks[0]), float(x_ticks[-1])
    y_lo, y_hi = float(y_ticks[0]), float(y_ticks[-1])
    x0, x1, top, height = 60.0, WIDTH - 20.0, 12.0, 300.0
    bottom = top + height
    out = [_open(fig_id, bottom + 40, label)]
    out += _x_axis(x0, x1, bottom, x_lo, x_hi, x_title)
    for t in y_ticks.tolist():
        yy = bottom - (t - y_lo) / (y_hi - y_lo) * height
        out.append(f'<line class="grid" x1="{x0}" y1="{yy:.1f}" x2="{x1}" y2="{yy:.1f}"/>')
        out.append(f'<text x="{x0 - 6}" y="{yy + 4:.1f}" text-anchor="end">{t:g}</text>')
    out.append(
        f'<text class="title" x="14" y="{top + height / 2:.1f}" text-anchor="middle" '
        f'transform="rotate(-90 14 {top + height / 2:.1f})">{_e(y_title)}</text>'
    )
    if diagonal:
        out.append(
            f'<line x1="{x0}" y1="{bottom}" x2="{x1}" y2="{top}" stroke="{GREY}" '
            'stroke-dasharray="4 3"/>'
        )
    px = _fmt(x0 + (x - x_lo) / (x_hi - x_lo) * (x1 - x0))
    py = _fmt(bottom - (y - y_lo) / (y_hi - y_lo) * height)
    out.append(f'<g fill="{SERIES[0]}" fill-opacity="0.5">')
    out += [f'<circle cx="{a}" cy="{b}" r="2"/>' for a, b in zip(px, py, strict=True)]
    out.append("</g></svg>")
    return "".join(out)
