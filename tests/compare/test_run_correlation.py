"""correlate_runs and `cranfield correlate` on two runs."""

import numpy as np
import pytest
from scipy import stats

import cranfield
from cranfield import sample
from cranfield.cli.main import main
from cranfield.compare import correlate_runs


def test_identical_runs_correlate_perfectly():
    _, runs = sample.load()
    res = correlate_runs(runs["hybrid"], runs["hybrid"])
    assert res["mean"]["kendall_tau"] == pytest.approx(1.0)
    assert res["mean"]["rbo"] == pytest.approx(1.0)
    assert res["only_in_a"] == [] and res["only_in_b"] == []


def test_reversed_scores_give_minus_one():
    run = cranfield.Run.from_dict({"q": {f"d{i}": float(i) for i in range(20)}}, name="a")
    rev = cranfield.Run.from_dict({"q": {f"d{i}": float(-i) for i in range(20)}}, name="b")
    res = correlate_runs(run, rev)
    assert res["per_query"]["q"]["kendall_tau"] == pytest.approx(-1.0)
    assert res["per_query"]["q"]["spearman_rho"] == pytest.approx(-1.0)


def test_matches_scipy_on_common_documents():
    _, runs = sample.load()
    a, b = runs["bm25"], runs["dense"]
    res = correlate_runs(a, b)
    da, db = a.to_dict(), b.to_dict()
    assert res["only_in_a"] == ["317"]  # dense has no results for 317
    for q, vals in res["per_query"].items():
        common = sorted(set(da[q]) & set(db[q]))
        assert vals["common"] == len(common)
        if len(common) > 1:
            x = np.array([da[q][d] for d in common])
            y = np.array([db[q][d] for d in common])
            expected = stats.kendalltau(x, y).statistic
            if np.isnan(expected):
                assert np.isnan(vals["kendall_tau"])
            else:
                assert vals["kendall_tau"] == pytest.approx(expected, abs=1e-12)


def test_cli_detects_runs(sample_paths, capsys):
    paths = sample_paths
    code = main(["correlate", str(paths[1]), str(paths[2]), "--format", "json"])
    out = capsys.readouterr().out
    assert code == 0 and '"queries"' in out and '"mean"' in out
