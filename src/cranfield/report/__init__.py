"""Figures and a self-contained HTML report of an evaluation.

* :mod:`.data` — what each figure draws, as NumPy arrays (no matplotlib needed);
* :mod:`.plots` — the figures as matplotlib figures, for the Python API and ``rec plot``
  (the ``plot`` extra, imported lazily);
* :mod:`.svg_plots` — the figures of ``cranfield plot`` as SVG without matplotlib,
  drawn by :mod:`.chart` (panels of lines, bars and boxes; also the report's ASL and
  swap-rate curves); :mod:`.pdf` writes that SVG as PDF (no dependency) and
  :mod:`.png` rasterises it with resvg (the ``png`` extra), so ``plot -o FILE.svg|pdf|png``
  is one drawing;
* :mod:`.svg` — the report's other figures as inline SVG, drawn from arrays;
* :mod:`.script` — the report's inline script (selectors, detail view, sorting);
* :mod:`.html` — one HTML file: leaderboard, per-measure and per-topic figures,
  coverage, a detail view of one run, comparison and provenance;

Nothing heavy is imported by ``import cranfield.report``.
"""

from __future__ import annotations

from .._lazy import exports

_EXPORTS = {
    "pr_data": "data",
    "averages_data": "data",
    "delta_data": "data",
    "distribution_data": "data",
    "depth_cutoffs": "data",
    "depth_data": "data",
    "coverage_data": "data",
    "pr_plot": "plots",
    "averages_plot": "plots",
    "delta_plot": "plots",
    "distribution_plot": "plots",
    "depth_plot": "plots",
    "coverage_plot": "plots",
    "save_figure": "plots",
    "build_report": "html",
    "write_report": "html",
}

__all__ = sorted(_EXPORTS)


exports(__name__, _EXPORTS)
