"""Figures draw exactly their data; saved files are deterministic and date-free."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from cranfield import evaluate
from cranfield.errors import ParameterError
from cranfield.report import data, plots
from fresh import loaded_after

LABELS = {"a": [1, 0, 1, 0, 0, 1, 0], "b": [0, 1, 1, 0, 0, 0, 0], "c": [0, 0, 0, 0, 1, 0, 0]}


def collection():
    qrels = {
        q: {f"{q}{i}": g for i, g in enumerate(lab)} | {f"{q}-miss": 1} for q, lab in LABELS.items()
    }
    fwd = {q: {f"{q}{i}": float(10 - i) for i in range(len(lab))} for q, lab in LABELS.items()}
    rev = {q: {d: -s for d, s in docs.items()} for q, docs in fwd.items()}
    return qrels, {"fwd": fwd, "rev": rev}


def test_pr_plot_lines_are_the_data_per_query_and_averaged():
    qrels, runs = collection()
    for query in ("a", None):
        fig, d = plots.pr_plot(qrels, runs, query=query)
        lines = fig.axes[0].lines
        assert len(lines) == 4
        for i, name in enumerate(runs):
            raw, interp = lines[2 * i], lines[2 * i + 1]
            assert np.allclose(raw.get_xdata(), d[name]["raw_recall"])
            assert np.allclose(raw.get_ydata(), d[name]["raw_precision"])
            assert np.allclose(interp.get_xdata(), d[name]["interp_recall"])
            assert np.allclose(interp.get_ydata(), d[name]["interp_precision"])
            assert interp.get_drawstyle() == ("steps-pre" if query else "default")
    # query a of run fwd: relevant at 1, 3, 6 of R = 4 -> step corners 1, 1, 2/3, 1/2, 0
    _, d = plots.pr_plot(qrels, runs, query="a")
    assert np.allclose(d["fwd"]["interp_precision"], [1, 1, 2 / 3, 1 / 2, 0])
    assert np.allclose(d["fwd"]["interp_recall"], [0, 0.25, 0.5, 0.75, 1])


def test_averages_plot_two_axes_carry_both_averages():
    qrels, runs = collection()
    fig, d = plots.averages_plot(qrels, runs, ranks=(1, 2, 5))
    left, right = fig.axes
    for i, name in enumerate(runs):
        assert np.allclose(left.lines[i].get_xdata(), d[name]["rank_recall"])
        assert np.allclose(left.lines[i].get_ydata(), d[name]["rank_precision"])
        assert np.allclose(right.lines[i].get_ydata(), d[name]["precision"])
    # mean P@2 of run fwd: (1/2 + 1/2 + 0) / 3
    assert np.isclose(d["fwd"]["rank_precision"][1], 1 / 3)


def test_delta_plot_bars_are_sorted_differences():
    qrels, runs = collection()
    scores = evaluate(qrels, runs, ["AP"]).per_query_table()["AP"]
    fig, d = plots.delta_plot(scores, "fwd", measure="AP")
    heights = np.array([p.get_height() for p in fig.axes[0].patches])
    assert np.allclose(heights, d["rev"]["delta"])
    assert np.all(np.diff(heights) <= 0)
    expected = sorted((scores["rev"][q] - scores["fwd"][q] for q in LABELS), reverse=True)
    assert np.allclose(heights, expected)
    labels = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert labels == list(d["rev"]["query_id"])


def test_distribution_plot_boxes_have_the_medians_and_means():
    scores = {"x": {str(i): v for i, v in enumerate([0.1, 0.5, 0.2, 0.9])}, "y": {"1": 0.3}}
    fig, d = plots.distribution_plot(scores, measure="AP")
    ax = fig.axes[0]
    medians = [
        line.get_ydata()[0] for line in ax.lines if line.get_color() == "C1"
    ]  # matplotlib draws medians in C1
    assert np.allclose(medians, [np.median(d["x"]), np.median(d["y"])])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["x", "y"]
    assert np.allclose(sorted(d["x"]), [0.1, 0.2, 0.5, 0.9])


def test_depth_and_coverage_plots_lines():
    qrels, runs = collection()
    fig, d = plots.depth_plot(qrels, runs, ("P", "nDCG"), 5)
    assert len(fig.axes) == 2
    for j, m in enumerate(("P", "nDCG")):
        for i, name in enumerate(runs):
            line = fig.axes[j].lines[i]
            assert list(line.get_xdata()) == [1, 2, 3, 4, 5]
            assert np.allclose(line.get_ydata(), d[m][name])
    assert np.isclose(d["P"]["fwd"][0], 1 / 3)  # only query a starts with a relevant doc
    fig, d = plots.coverage_plot(qrels, runs, (1, 3, 10))
    for i, name in enumerate(runs):
        assert np.allclose(fig.axes[0].lines[i].get_ydata(), d[name]["judged"])
    assert np.allclose(d["fwd"]["judged"], 1.0)  # every retrieved document is judged


@pytest.mark.parametrize("fmt", ["png", "svg", "pdf"])
def test_saved_figures_are_byte_identical_and_dateless(fmt, tmp_path):
    qrels, runs = collection()
    first = plots.figure_bytes(plots.pr_plot(qrels, runs)[0], fmt)
    second = plots.figure_bytes(plots.pr_plot(qrels, runs)[0], fmt)
    assert first == second and len(first) > 1000
    if fmt == "svg":
        assert b"<dc:date>" not in first
    if fmt == "pdf":
        assert b"CreationDate" not in first
    path = plots.save_figure(plots.pr_plot(qrels, runs)[0], tmp_path / f"f.{fmt}")
    assert path.read_bytes() == first


def test_save_figure_rejects_unknown_suffix(tmp_path):
    qrels, runs = collection()
    with pytest.raises(ParameterError, match="png, .svg or .pdf"):
        plots.save_figure(plots.pr_plot(qrels, runs)[0], tmp_path / "f.gif")


def test_plots_do_not_touch_pyplot():
    qrels, runs = collection()
    plots.pr_plot(qrels, runs)
    if "matplotlib.pyplot" in sys.modules:  # imported by another test: no figure left open
        assert sys.modules["matplotlib.pyplot"].get_fignums() == []


def test_distribution_data_unchanged_by_plotting():
    scores = {"x": {"b": 0.2, "a": 0.4}}
    assert list(data.distribution_data(scores)["x"]) == [0.4, 0.2]


def test_report_modules_import_no_matplotlib():
    code = (
        "import cranfield.report, cranfield.report.data, cranfield.report.html, "
        "cranfield.cli.report_cmd, cranfield.cli.plot_cmd, cranfield.report.plots, "
        "cranfield.report.svg_plots, cranfield.report.chart"
    )
    assert loaded_after(code, "matplotlib") == []


@pytest.mark.parametrize("which", ["pr", "averages"])
def test_the_legend_covers_no_curve(which):
    """The legend is drawn beside the axes, never over them: a run whose precision
    stays high to recall 1 (the sample's best) runs through every corner of the axes."""
    qrels, runs = collection()
    fig, _ = plots.pr_plot(qrels, runs) if which == "pr" else plots.averages_plot(qrels, runs)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    (legend,) = fig.legends
    assert [t.get_text() for t in legend.get_texts()]  # it names the curves
    box = legend.get_window_extent(renderer)
    assert all(a.get_legend() is None for a in fig.axes)
    for ax in fig.axes:
        axes_box = ax.get_window_extent(renderer)
        assert box.x0 >= axes_box.x1 or box.y1 <= axes_box.y0 or box.y0 >= axes_box.y1
