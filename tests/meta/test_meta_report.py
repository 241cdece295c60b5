"""The report's section on how far the evaluation can be trusted, and `cranfield plot
asl|swap`: the numbers shown are the library's, and one run is said, not drawn."""

from __future__ import annotations

import re

import numpy as np
import pytest

from cranfield import Qrels, Run
from cranfield.compare import align_scores
from cranfield.core.evaluation import evaluate
from cranfield.meta import discriminative_power, swap_rates
from cranfield.meta.summary import trust
from cranfield.report.html import build_report


def _cells(html: str, table_id: str) -> list[list[str]]:
    body = re.search(rf'<table id="{table_id}">.*?<tbody>(.*?)</tbody>', html, re.S).group(1)
    rows = re.findall(r"<tr>(.*?)</tr>", body, re.S)
    return [
        re.findall(r'<td(?: class="[^"]*" data-value="([^"]*)")?>([^<]*)</td>', r) for r in rows
    ]


def test_the_trust_section_shows_the_library_numbers(sample_paths):
    qrels, *runs = sample_paths
    html = build_report(qrels, runs, ["AP", "RR"], progress=False, complete=True)
    table = evaluate(qrels, [Run.read(r) for r in runs], ["AP", "RR"], complete=True)
    aligned = align_scores(table.per_query_table())
    want = trust({m: v[2] for m, v in aligned.items()})
    rows = _cells(html, "table-trust")
    assert [r[0][1] for r in rows] == ["AP", "RR"]
    for row, e in zip(rows, want.values(), strict=True):
        values = [float(v) for v, _ in row[1:]]
        assert values[2] == e["bootstrap"]["share"] and values[3] == e["tukey"]["share"]
        assert values[6] == pytest.approx(e["system_share"], rel=1e-15)
    assert '<svg id="svg-asl"' in html and '<svg id="svg-swap"' in html


def test_one_run_is_said_not_drawn(sample_paths):
    qrels, run = sample_paths[:2]
    html = build_report(qrels, [run], ["AP"], progress=False)
    section = re.search(r'<section id="trust">.*?</section>', html, re.S).group(0)
    assert "Not computed" in section and "<svg" not in section


def test_asl_and_swap_plots_draw_the_library_data(sample_paths, tmp_path):
    from cranfield.report import plots

    qrels, *runs = sample_paths
    table = evaluate(Qrels.read(qrels), [Run.read(r) for r in runs], ["AP"], complete=True)
    aligned = align_scores(table.per_query_table())
    fig, data = plots.asl_plot(aligned, samples=200, seed=3)
    assert data == discriminative_power(aligned, ("bootstrap",), n_samples=200, seed=3)
    first = plots.figure_bytes(fig, "svg")
    assert first == plots.figure_bytes(plots.asl_plot(aligned, samples=200, seed=3)[0], "svg")
    fig, data = plots.swap_plot(aligned["AP"][2], measure="AP")
    assert data == swap_rates(aligned["AP"][2], bin_width=0.05)
    assert np.all([len(r["bins"]) > 0 for r in data])


def test_plot_command_writes_asl_and_refuses_one_run(cli, sample_paths, tmp_path):
    qrels, *runs = (str(p) for p in sample_paths)
    out = tmp_path / "asl.png"
    status, _, err = cli("plot", "asl", qrels, *runs, "-m", "AP", "-c", "-o", str(out))
    assert status == 0, err
    assert out.read_bytes()[:4] == b"\x89PNG"
    status, _, err = cli("plot", "swap", qrels, runs[0], "-m", "AP", "-o", str(tmp_path / "s.png"))
    assert status == 2 and err.count("\n") == 1 and "two runs" in err
    assert not (tmp_path / "s.png").exists()
