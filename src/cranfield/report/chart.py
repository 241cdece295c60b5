"""Charts of one or more panels as SVG text, drawn from arrays (no matplotlib).

The figures of ``cranfield plot ... -o FILE.svg`` and the line figures of the HTML
report are built here: a :class:`Panel` holds axes (linear or logarithmic x), lines
(:class:`Line`: plain, with markers, or a step curve), bars and box plots; :func:`render`
lays panels out in a grid with one legend of the named lines to their right and returns
one ``<svg>`` element (``standalone=True``: a document of its own, with its size in
pixels and the style the report's page gives inline figures).

What a reader needs to read values back is in the file: every axis has ticks labelled
with their values; every line is one ``<polyline>`` whose ``<title>`` is its name;
every bar is a ``<rect>`` titled ``label: value``; every box is a ``<g class="box">``
titled with its name. A line of more than 4 points per pixel column keeps the first,
last, highest and lowest of each column (:func:`pixel_extremes`). Coordinates are written with two decimals (a hundredth of a
pixel), so the same data gives the same bytes.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .svg import nice_ticks, short

#: Width of every chart in pixels (matplotlib's 8 inches at 100 dpi, as ``plot`` draws).
WIDTH = 800
LEGEND = 215  # pixels right of the panels for the legend
#: The style of charts, shared by the report's page and standalone files.
STYLE = (
    "svg.chart { display: block; max-width: 100%; height: auto; font-size: 11px;\n"
    "            font-family: inherit; }\n"
    "svg.chart text { fill: #333; } svg.chart .title { font-size: 12px; fill: #111; }\n"
    "svg.chart .topic { font-size: 9px; }\n"
    "svg.chart .axis { stroke: #444; } svg.chart .grid { stroke: #e4e4e4; }\n"
)
# after STYLE, whose ``inherit`` would give a document of its own the reader's default
# font (often a serif)
_STANDALONE_STYLE = STYLE + "svg.chart { font-family: sans-serif; }\n"

__all__ = ["STYLE", "WIDTH", "Box", "Line", "Panel", "box_stats", "render"]


@dataclass
class Line:
    """Points ``(x, y)`` joined by a line; ``steps``: drawn as a step curve whose ``y[j]``
    holds on ``(x[j-1], x[j]]`` (matplotlib's ``steps-pre``); ``name=None``: not in the
    legend."""

    x: np.ndarray
    y: np.ndarray
    color: str
    name: str | None = None
    width: float = 1.5
    opacity: float = 1.0
    marker: bool = False
    steps: bool = False
    dashed: bool = False


@dataclass
class Box:
    """A box plot of ``values``: see :func:`box_stats`."""

    name: str
    values: np.ndarray


@dataclass
class Panel:
    """One set of axes. ``x_range``/``y_range`` ``None``: round values covering the data
    (and 0 to 1); ``x_ticks``: ``(values, labels)`` instead of round values; bars:
    ``(labels, values, colours)`` on categorical x positions 0..n-1; boxes: on x
    positions 1..n, labelled with their names."""

    title: str = ""
    x_title: str = ""
    y_title: str = ""
    lines: list[Line] = field(default_factory=list)
    x_range: tuple[float, float] | None = None
    y_range: tuple[float, float] | None = None
    x_log: bool = False
    x_ticks: tuple[Sequence[float], Sequence[str]] | None = None
    bars: tuple[Sequence[str], np.ndarray, Sequence[str]] | None = None
    boxes: list[Box] = field(default_factory=list)
    rules: list[float] = field(default_factory=list)


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _c(values) -> list[str]:
    """Coordinates with two decimals (``-0.0`` written as ``0``)."""
    arr = np.round(np.asarray(values, dtype=float), 2) + 0.0
    return [f"{v:.2f}".rstrip("0").rstrip(".") for v in arr.tolist()]


def box_stats(values: np.ndarray, whis: float = 1.5) -> dict[str, float | np.ndarray]:
    """Tukey's box plot of ``values`` (Tukey 1977; matplotlib's ``boxplot`` defaults).

    ``q1, med, q3``: linearly interpolated percentiles 25, 50, 75 (``np.percentile``);
    whiskers at the most extreme values within ``[q1 - whis IQR, q3 + whis IQR]``;
    ``fliers``: the values outside the whiskers; ``mean``: the arithmetic mean. NaN
    values are left out.
    """
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if not v.size:
        nan = float("nan")
        return dict(q1=nan, med=nan, q3=nan, whislo=nan, whishi=nan, mean=nan, fliers=np.zeros(0))
    q1, med, q3 = np.percentile(v, [25, 50, 75])
    iqr = q3 - q1
    inside = v[(v >= q1 - whis * iqr) & (v <= q3 + whis * iqr)]
    lo = float(inside.min()) if inside.size else float(q1)
    hi = float(inside.max()) if inside.size else float(q3)
    return dict(
        q1=float(q1),
        med=float(med),
        q3=float(q3),
        whislo=min(lo, float(q1)),
        whishi=max(hi, float(q3)),
        mean=float(v.mean()),
        fliers=v[(v < lo) | (v > hi)],
    )


def _span(
    values: list[np.ndarray], fixed, log: bool = False, unit: bool = True
) -> tuple[float, float]:
    if fixed is not None:
        return float(fixed[0]), float(fixed[1])
    finite = [a[np.isfinite(a)] for a in values]
    v = np.concatenate(finite) if finite else np.zeros(0)
    if log:
        v = v[v > 0]
        if not v.size:
            return 0.0, 1.0
        lo, hi = math.log10(float(v.min())), math.log10(float(v.max()))
        pad = max(hi - lo, 1.0) * 0.05
        return lo - pad, hi + pad
    lo = min(0.0, float(v.min())) if v.size else 0.0
    hi = max(1.0 if unit else 0.0, float(v.max())) if v.size else 1.0
    if hi <= lo:
        hi = lo + 1.0
    ticks = nice_ticks(lo, hi, count=8)
    return float(ticks[0]), float(ticks[-1])


class _Axes:
    """Maps data to pixels inside ``(x0, x1) x (top, bottom)``."""

    def __init__(self, x0, x1, top, bottom, xr, yr, log):
        self.x0, self.x1, self.top, self.bottom = x0, x1, top, bottom
        self.xr, self.yr, self.log = xr, yr, log

    def px(self, x) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        if self.log:
            with np.errstate(divide="ignore", invalid="ignore"):
                x = np.log10(x)
        lo, hi = self.xr
        return self.x0 + (x - lo) / (hi - lo) * (self.x1 - self.x0)

    def py(self, y) -> np.ndarray:
        lo, hi = self.yr
        return self.bottom - (np.asarray(y, dtype=float) - lo) / (hi - lo) * (
            self.bottom - self.top
        )


def _frame(ax: _Axes, p: Panel, x_ticks, x_labels, rotate: bool) -> list[str]:
    out = []
    y_ticks = nice_ticks(*ax.yr, count=8)
    y_ticks = y_ticks[(y_ticks >= ax.yr[0] - 1e-9) & (y_ticks <= ax.yr[1] + 1e-9)] + 0.0
    left, right = _c([ax.x0, ax.x1])
    for t, y in zip(y_ticks.tolist(), _c(ax.py(y_ticks)), strict=True):
        out.append(f'<line class="grid" x1="{left}" y1="{y}" x2="{right}" y2="{y}"/>')
        out.append(
            f'<text class="ytick" x="{ax.x0 - 5:.2f}" y="{float(y) + 4:.2f}" '
            f'text-anchor="end" data-value="{t!r}">{t:g}</text>'
        )
    bottom = f"{ax.bottom:.2f}"
    for t, x, label in zip(
        np.asarray(x_ticks, float).tolist(), _c(ax.px(x_ticks)), x_labels, strict=True
    ):
        out.append(f'<line class="grid" x1="{x}" y1="{ax.top:.2f}" x2="{x}" y2="{bottom}"/>')
        if rotate:
            out.append(
                f'<text class="xtick topic" data-value="{t!r}" text-anchor="end" '
                f'transform="translate({float(x) + 3:.2f},{ax.bottom + 5:.2f}) rotate(-90)">'
                f"<title>{_e(label)}</title>{_e(short(label, 12))}</text>"
            )
        else:
            out.append(
                f'<text class="xtick" x="{x}" y="{ax.bottom + 14:.2f}" text-anchor="middle" '
                f'data-value="{t!r}">{_e(label)}</text>'
            )
    out.append(f'<path class="axis" fill="none" d="M{left} {ax.top:.2f}V{bottom}H{right}"/>')
    mid_y = (ax.top + ax.bottom) / 2
    out.append(
        f'<text class="title ylabel" x="{ax.x0 - 42:.2f}" y="{mid_y:.2f}" text-anchor="middle" '
        f'transform="rotate(-90 {ax.x0 - 42:.2f} {mid_y:.2f})">{_e(p.y_title)}</text>'
    )
    below = 52 if rotate else 32
    out.append(
        f'<text class="title xlabel" x="{(ax.x0 + ax.x1) / 2:.2f}" y="{ax.bottom + below:.2f}" '
        f'text-anchor="middle">{_e(p.x_title)}</text>'
    )
    if p.title:
        out.append(
            f'<text class="title heading" x="{(ax.x0 + ax.x1) / 2:.2f}" y="{ax.top - 8:.2f}" '
            f'text-anchor="middle">{_e(p.title)}</text>'
        )
    for r in p.rules:
        if ax.yr[0] <= r <= ax.yr[1]:
            y = _c([ax.py(r)])[0]
            out.append(
                f'<line class="rule" x1="{left}" y1="{y}" x2="{right}" y2="{y}" '
                'stroke="#7f7f7f" stroke-dasharray="4 3"/>'
            )
    return out


def pixel_extremes(px: np.ndarray, py: np.ndarray, columns: float) -> np.ndarray:
    """The indices of the vertices of a line to draw: all of them, unless the line has
    more than 4 vertices per pixel column of the axes and its ``px`` never decreases
    (a curve over recall or depth); then the first, last, highest and lowest vertex of
    each pixel column, in order (M4 aggregation: Jugel et al. 2014, "M4: a
    visualization-oriented time series data aggregation", PVLDB 7(10)), which draws the
    same pixels at the figure's size with at most 4 vertices per column, so a run of
    100,000 ranks costs the SVG, the PDF and the rasteriser no more than a screen's
    width of them."""
    n = len(px)
    if n <= 4 * max(columns, 1.0) or bool(np.any(np.diff(px) < 0)):
        return np.arange(n)
    column = np.floor(px).astype(np.int64)
    first = np.flatnonzero(np.r_[True, column[1:] != column[:-1]])
    last = np.r_[first[1:] - 1, n - 1]
    # columns in order (px never decreases), then y up or down; of equal ones the first
    lowest = np.lexsort((py, column))[first]
    highest = np.lexsort((-py, column))[first]
    return distinct(np.concatenate((first, last, lowest, highest)))


def _polyline(ax: _Axes, line: Line) -> list[str]:
    x, y = np.asarray(line.x, dtype=float), np.asarray(line.y, dtype=float)
    if line.steps and len(x) > 1:
        # vertices (x[j-1], y[j-1]) -> (x[j-1], y[j]) -> (x[j], y[j])
        x = np.concatenate((x[:1], np.column_stack((x[:-1], x[1:])).ravel()))
        y = np.concatenate((y[:1], np.repeat(y[1:], 2)))
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0 if ax.log else True)
    fx, fy = ax.px(x[ok]), ax.py(y[ok])
    keep = pixel_extremes(fx, fy, ax.x1 - ax.x0)
    px, py = _c(fx[keep]), _c(fy[keep])
    points = " ".join(f"{a},{b}" for a, b in zip(px, py, strict=True))
    style = f' stroke-opacity="{line.opacity:g}"' if line.opacity != 1 else ""
    style += ' stroke-dasharray="4 3"' if line.dashed else ""
    title = f"<title>{_e(line.name)}</title>" if line.name is not None else ""
    out = [
        f'<polyline class="series" fill="none" stroke="{line.color}" '
        f'stroke-width="{line.width:g}"{style} points="{points}">{title}</polyline>'
    ]
    if line.marker and not line.steps:
        circles = "".join(f'<circle cx="{a}" cy="{b}" r="3"/>' for a, b in zip(px, py, strict=True))
        out.append(f'<g class="markers" fill="{line.color}">{circles}</g>')
    return out


def _bars(ax: _Axes, labels, values, colors) -> list[str]:
    values = np.asarray(values, dtype=float)
    n = len(values)
    xs = ax.px(np.arange(n) - 0.4)
    w = (ax.px(0.8) - ax.px(0.0)).item() if n else 0.0
    zero = ax.py(0.0).item()
    tops = ax.py(values)
    out = []
    for i, (x, t) in enumerate(zip(_c(xs), tops.tolist(), strict=True)):
        if not math.isfinite(t):  # no value, no bar (its tick label stays)
            continue
        y, h = min(t, zero), abs(t - zero)
        out.append(
            f'<rect class="bar" x="{x}" y="{y:.2f}" width="{w:.2f}" height="{h:.2f}" '
            f'fill="{colors[i]}"><title>{_e(labels[i])}: {values[i]:+.6g}</title></rect>'
        )
    z = f"{zero:.2f}"
    out.append(
        f'<line class="zero" x1="{ax.x0:.2f}" y1="{z}" x2="{ax.x1:.2f}" y2="{z}" stroke="#000"/>'
    )
    return out


def _boxes(ax: _Axes, boxes: list[Box]) -> list[str]:
    out = []
    half = 0.25
    for i, b in enumerate(boxes, start=1):
        s = box_stats(b.values)
        if not math.isfinite(s["med"]):
            continue
        xl, xc, xr = _c(ax.px([i - half, i, i + half]))
        wl, wr = _c(ax.px([i - half / 2, i + half / 2]))
        q1, med, q3, lo, hi, mean = _c(
            ax.py([s["q1"], s["med"], s["q3"], s["whislo"], s["whishi"], s["mean"]])
        )
        fliers = "".join(
            f'<circle class="flier" cx="{xc}" cy="{y}" r="3" fill="none" stroke="#000"/>'
            for y in _c(ax.py(s["fliers"]))
        )
        out.append(
            f'<g class="box"><title>{_e(b.name)}</title>'
            f'<path class="iqr" fill="none" stroke="#000" '
            f'd="M{xl} {q1}H{xr}V{q3}H{xl}Z"/>'
            f'<path class="median" stroke="#ff7f0e" stroke-width="1.5" d="M{xl} {med}H{xr}"/>'
            f'<path class="whiskers" stroke="#000" fill="none" '
            f'd="M{xc} {q1}V{lo}M{wl} {lo}H{wr}M{xc} {q3}V{hi}M{wl} {hi}H{wr}"/>'
            f'<path class="mean" fill="#2ca02c" transform="translate({xc},{mean})" '
            'd="M-4 3.5H4L0 -4Z"/>'
            f"{fliers}</g>"
        )
    return out


def _panel(p: Panel, x0: float, x1: float, top: float, bottom: float) -> list[str]:
    xs = [np.asarray(line.x, float) for line in p.lines]
    ys = [np.asarray(line.y, float) for line in p.lines]
    rotate = False
    if p.bars is not None:
        labels, values, _ = p.bars
        xr = (-0.6, len(values) - 0.4) if len(values) else (-0.6, 0.6)
        ys.append(np.asarray(values, float))
        shown = len(values) <= 60
        x_ticks = np.arange(len(values)) if shown else np.zeros(0)
        x_labels = [str(v) for v in labels] if shown else []
        rotate = shown
    elif p.boxes:
        xr = (0.5, len(p.boxes) + 0.5)
        for b in p.boxes:
            v = np.asarray(b.values, float)
            ys.append(v)
        x_ticks = np.arange(1, len(p.boxes) + 1)
        x_labels = [short(b.name, 24) for b in p.boxes]
    else:
        xr = _span(xs, p.x_range, p.x_log)
        if p.x_ticks is not None:
            x_ticks = np.asarray(p.x_ticks[0], float)
            x_labels = list(p.x_ticks[1])
        elif p.x_log:  # powers of ten
            x_ticks = 10.0 ** np.arange(math.ceil(xr[0]), math.floor(xr[1]) + 1)
            x_labels = [f"{t:g}" for t in x_ticks.tolist()]
        else:
            x_ticks = nice_ticks(*xr)
            x_ticks = x_ticks[(x_ticks >= xr[0] - 1e-9) & (x_ticks <= xr[1] + 1e-9)] + 0.0
            x_labels = [f"{t:g}" for t in x_ticks.tolist()]
    yr = _span(ys, p.y_range, unit=p.bars is None)
    if rotate:
        bottom -= 58
    ax = _Axes(x0, x1, top, bottom, xr, yr, p.x_log)
    out = ['<g class="panel">']
    out += _frame(ax, p, x_ticks, x_labels, rotate)
    if p.bars is not None:
        out += _bars(ax, *p.bars)
    out += _boxes(ax, p.boxes)
    for line in p.lines:
        out += _polyline(ax, line)
    out.append("</g>")
    return out


def _legend(lines: list[Line], x: float, y: float) -> list[str]:
    out = ['<g class="legend">']
    for k, line in enumerate(lines):
        yy = y + 16 * k
        dash = ' stroke-dasharray="4 3"' if line.dashed else ""
        out.append(
            f'<path stroke="{line.color}" stroke-width="{line.width:g}"{dash} '
            f'd="M{x:.2f} {yy - 4:.2f}h18"/>'
            f'<text class="entry" x="{x + 24:.2f}" y="{yy:.2f}"><title>{_e(line.name)}</title>'
            f"{_e(short(line.name, 30))}</text>"
        )
    out.append("</g>")
    return out


def render(
    panels: Sequence[Panel],
    *,
    height: float,
    ncols: int = 1,
    fig_id: str = "figure",
    label: str = "",
    legend: bool = True,
    standalone: bool = False,
) -> str:
    """The panels in a grid of ``ncols`` columns (row by row) as one ``<svg>`` element.

    ``legend``: the named lines of all panels (each name once) listed right of the grid.
    ``standalone``: an SVG document (XML declaration, size in pixels, the chart style
    inline) rather than an element sized to its container (``width="100%"``).
    """
    named: dict[str, Line] = {}
    for p in panels:
        for line in p.lines:
            if line.name is not None:
                named.setdefault(line.name, line)
    right = WIDTH - (LEGEND if legend and named else 10)
    nrows = max(math.ceil(len(panels) / ncols), 1)
    cell_w, cell_h = (right - 10) / ncols, (height - 10) / nrows
    size = (
        f'width="{WIDTH}" height="{height:.0f}"'
        if standalone
        else 'width="100%" preserveAspectRatio="xMinYMin meet"'
    )
    out = [
        '<?xml version="1.0" encoding="utf-8"?>\n' if standalone else "",
        f'<svg id="{_e(fig_id)}" class="chart" role="img" aria-label="{_e(label)}" '
        f'viewBox="0 0 {WIDTH} {height:.0f}" {size} xmlns="http://www.w3.org/2000/svg">',
    ]
    if standalone:
        out.append(f"<style>\n{_STANDALONE_STYLE}</style>")
        out.append(f'<rect width="{WIDTH}" height="{height:.0f}" fill="#fff"/>')
    if label:
        out.append(f"<title>{_e(label)}</title>")
    for k, p in enumerate(panels):
        row, col = divmod(k, ncols)
        x0 = 10 + col * cell_w + 62
        x1 = 10 + (col + 1) * cell_w - 12
        top = 10 + row * cell_h + 22
        bottom = 10 + (row + 1) * cell_h - 44
        out += _panel(p, x0, x1, top, bottom)
    if legend and named:
        out += _legend(list(named.values()), right + 8, 40)
    out.append("</svg>\n" if standalone else "</svg>")
    return "".join(out)


def distinct(values) -> np.ndarray:
    """The values of a 1-D array without NaN, sorted, each once: ``numpy.unique(values)``
    without the ``numpy.ma`` it imports (NumPy 2.4 asks whether the array is masked;
    16 ms of a small ``plot`` or ``report``)."""
    v = np.sort(np.asarray(values).ravel())
    return v[np.concatenate(([True], v[1:] != v[:-1]))] if v.size else v
