"""Click-derived against editorial qrels: agreement (against scikit-learn and SciPy)
and the correlation of the system rankings."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.stats import kendalltau
from sklearn.metrics import cohen_kappa_score

from cranfield import Qrels, Run
from cranfield.clicks.editorial import click_qrels_dict, compare_with_qrels, render
from cranfield.errors import ParameterError


def est_from(rows):
    """``estimates``-like columns from (query, doc, relevance, impressions) rows."""
    q, d, r, n = zip(*rows, strict=True)
    return {
        "query": np.array(q, dtype=object),
        "doc": np.array(d, dtype=object),
        "relevance": np.array(r, dtype=float),
        "impressions": np.array(n, dtype=float),
    }


def test_agreement_against_sklearn_and_scipy():
    rng = np.random.default_rng(5)
    rows, editorial = [], {}
    for i in range(200):
        q, d = f"q{i % 7}", f"d{i}"
        grade = int(rng.integers(0, 3))
        rel = float(np.clip(grade / 3 + rng.normal(0, 0.2), 0, 1))
        rows.append((q, d, rel, int(rng.integers(1, 20))))
        if i % 10:  # a tenth judged from clicks only
            editorial.setdefault(q, {})[d] = grade
    editorial["q0"]["unseen"] = 1  # judged editorially only
    est = est_from(rows)
    res = compare_with_qrels(est, Qrels.from_dict(editorial), [0.3, 0.6], min_impressions=3)
    keep = est["impressions"] >= 3
    clicked = click_qrels_dict(est, [0.3, 0.6], 3)
    pairs = [(q, d) for q, docs in clicked.items() for d in docs if d in editorial.get(q, {})]
    e = [editorial[q][d] for q, d in pairs]
    c = [clicked[q][d] for q, d in pairs]
    assert res["pairs"] == {
        "common": len(pairs),
        "clicks_only": int(keep.sum()) - len(pairs),
        "editorial_only": sum(map(len, editorial.values())) - len(pairs),
    }
    assert res["percent_agreement"] == pytest.approx(np.mean(np.equal(e, c)))
    for w, sk in (("unweighted", None), ("linear", "linear"), ("quadratic", "quadratic")):
        assert res["kappa"][w] == pytest.approx(cohen_kappa_score(e, c, weights=sk), abs=1e-12)
    relevance = dict(zip(zip(est["query"], est["doc"], strict=True), est["relevance"], strict=True))
    tau = kendalltau([relevance[p] for p in pairs], e).statistic
    assert res["kendall_tau"] == pytest.approx(tau, abs=1e-12)
    assert np.array(res["confusion"]).sum() == len(pairs)
    assert "Cohen's kappa (linear)" in render(res, "text")
    assert render(res, "markdown").startswith("| statistic | value |")


def test_no_common_pair_is_undefined_not_an_error():
    res = compare_with_qrels(
        est_from([("q", "a", 0.9, 5)]), Qrels.from_dict({"q": {"b": 1}}), [0.5]
    )
    assert res["pairs"]["common"] == 0
    assert math.isnan(res["percent_agreement"]) and math.isnan(res["kappa"]["unweighted"])


def test_system_rankings_under_both_qrels():
    # clicks grade a > b > c like the editors: runs rank the same under both
    est = est_from([("q", "a", 0.9, 9), ("q", "b", 0.4, 9), ("q", "c", 0.05, 9)])
    editorial = Qrels.from_dict({"q": {"a": 2, "b": 1, "c": 0}})
    runs = {
        "good": Run.from_dict({"q": {"a": 3.0, "b": 2.0, "c": 1.0}}),
        "mid": Run.from_dict({"q": {"b": 3.0, "a": 2.0, "c": 1.0}}),
        "bad": Run.from_dict({"q": {"c": 3.0, "b": 2.0, "a": 1.0}}),
    }
    res = compare_with_qrels(est, editorial, [0.3, 0.6], runs=runs, measure="ndcg")
    assert res["kappa"]["unweighted"] == pytest.approx(1.0)
    assert [s["run"] for s in res["systems"]] == ["good", "mid", "bad"]
    ed = [s["editorial"] for s in res["systems"]]
    assert ed[0] == pytest.approx(1.0) and ed[0] > ed[1] > ed[2]
    assert res["system_tau"] == pytest.approx(1.0)
    # clicks that invert the grades invert the system ranking
    flipped = est_from([("q", "a", 0.05, 9), ("q", "b", 0.4, 9), ("q", "c", 0.9, 9)])
    res = compare_with_qrels(flipped, editorial, [0.3, 0.6], runs=runs)
    assert res["system_tau"] == pytest.approx(-1.0)
    assert res["kappa"]["quadratic"] < 0


def test_parameters():
    est = est_from([("q", "a", 0.9, 9)])
    q = Qrels.from_dict({"q": {"a": 1}})
    with pytest.raises(ParameterError):
        compare_with_qrels(est, q, None)
    with pytest.raises(ParameterError):
        compare_with_qrels(est, q, [0.5], runs={"one": Run.from_dict({"q": {"a": 1.0}})})


def test_cli_compare(tmp_path, capsys):
    from cranfield.cli.main import main

    log = tmp_path / "log.pyclick"
    log.write_text("q1\ta,b,c : a;\nq1\ta,b,c : a , b;\nq1\tb,a,c : a;\n")
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 a 2\nq1 0 b 1\nq1 0 c 0\n")
    run_a, run_b = tmp_path / "a.run", tmp_path / "b.run"
    run_a.write_text("q1 Q0 a 1 3 x\nq1 Q0 b 2 2 x\nq1 Q0 c 3 1 x\n")
    run_b.write_text("q1 Q0 c 1 3 y\nq1 Q0 b 2 2 y\nq1 Q0 a 3 1 y\n")
    args = ["clicks", "relevance", str(log), "--model", "dctr", "--compare", str(qrels)]
    args += ["--thresholds", "0.3,0.6", "--runs", str(run_a), str(run_b), "-f", "json"]
    assert main(args) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["pairs"]["common"] == 3 and res["system_tau"] == pytest.approx(1.0)
    # dctr: a 2/3 -> 2, b 1/3 -> 1, c 0 -> 0: full agreement
    assert res["percent_agreement"] == 1.0
    assert main(args[:-2]) == 0
    assert "Kendall tau of the system rankings" in capsys.readouterr().out
    assert main(args[:7]) == 2  # no --thresholds
    assert "--thresholds" in capsys.readouterr().err
