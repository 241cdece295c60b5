"""The report and plots say which interpolation convention their curves use."""

from __future__ import annotations

from html import escape

import numpy as np
import pytest

from cranfield import curves, evaluate
from cranfield.cli.main import main
from cranfield.report import data, plots
from cranfield.report.html import build_report


def test_default_report_names_the_textbook_convention(report):
    _, text, _ = report
    # label and caption of the averaged curves and of the query's curve (detail view)
    assert text.count(escape(curves.CONVENTIONS["textbook"])) == 4
    assert escape(curves.CONVENTIONS["trec_eval"]) not in text
    assert "--convention textbook" in text  # in the reproducing command


@pytest.mark.parametrize("convention", ["textbook", "trec_eval"])
def test_averaged_curve_follows_the_convention(sample_files, convention):
    qrels, runs = sample_files
    run = runs["bm25"]
    d = data.pr_data(qrels, [run], convention=convention)["bm25"]
    expected = curves.average_interpolated(qrels, run, convention=convention)["precision"]
    assert np.array_equal(d["interp_precision"], expected)
    fig = plots.draw_pr({"bm25": d}, convention=convention)
    labels = fig.axes[0].get_legend_handles_labels()[1]
    assert f"bm25 (interpolated, {convention})" in labels
    avg = data.averages_data(qrels, [run], convention=convention)["bm25"]
    assert np.array_equal(avg["precision"], expected)
    title = plots.draw_averages({"bm25": avg}, convention).axes[1].get_title()
    assert title.endswith(f"({convention})")


def test_trec_eval_convention_is_the_mean_of_iprec_at_recall(sample_files):
    qrels, runs = sample_files
    d = data.pr_data(qrels, [runs["dense"]], convention="trec_eval")["dense"]
    res = evaluate(qrels, runs["dense"], "iprec_at_recall")
    means = [res.aggregate(0, m) for m in res.measures]
    assert np.allclose(d["interp_precision"], means, rtol=0, atol=1e-12)
    textbook = data.pr_data(qrels, [runs["dense"]])["dense"]["interp_precision"]
    assert not np.allclose(textbook, means, rtol=0, atol=1e-6)  # they do differ here


def test_trec_eval_report_caption():
    qrels = {"a": {"d1": 1, "d2": 0, "d3": 1}, "b": {"d1": 0, "d2": 1}}
    runs = {
        "one": {"a": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "b": {"d1": 2.0, "d2": 1.0}},
        "two": {"a": {"d3": 3.0, "d2": 2.0}, "b": {"d2": 2.0, "d1": 1.0}},
    }
    text = build_report(
        qrels, runs, ["AP"], convention="trec_eval", progress=False, max_depth=2, depths=[1]
    )
    assert text.count(escape(curves.CONVENTIONS["trec_eval"])) == 2  # label and caption
    with pytest.raises(ValueError, match="textbook"):
        build_report(qrels, runs, ["AP"], convention="exact", progress=False)


def test_plot_command_takes_the_convention(sample_files, tmp_path):
    qrels, runs = sample_files
    out = tmp_path / "pr.svg"
    argv = ["plot", "pr", str(qrels), str(runs["bm25"]), "--convention", "trec_eval"]
    assert main([*argv, "-o", str(out)]) == 0
    assert out.stat().st_size > 0
