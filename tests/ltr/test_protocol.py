"""The cross-validation protocol: per-fold test values, mean ± sd, significance."""

from __future__ import annotations

import numpy as np
import pytest

import cranfield
from cranfield.errors import ParameterError
from cranfield.ltr.protocol import cross_validate, evaluate_scores
from cranfield.ltr.runs import to_qrels, to_run

from .helpers import linear_data


@pytest.fixture(scope="module")
def folds():
    out = []
    for k in range(3):
        tr, _ = linear_data(10 * k, queries=20, docs=10)
        va, _ = linear_data(10 * k + 1, queries=10, docs=10)
        te, _ = linear_data(10 * k + 2, queries=10, docs=10)
        out.append((f"Fold{k + 1}", tr, va, te))
    return out


def test_cross_validation_reports_each_fold_and_mean_sd(folds, tmp_path):
    res = cross_validate(folds, ["ga", "random-search"], budget=150, measures=["nDCG@10", "AP"],
                         runs_dir=tmp_path)  # fmt: skip
    summary = res.summary()
    for method in ("ga", "random-search"):
        per_fold = [summary[method]["folds"][f"Fold{k}"]["AP"] for k in (1, 2, 3)]
        assert summary[method]["aggregate"]["AP"] == pytest.approx(np.mean(per_fold))
        assert summary[method]["sd"]["AP"] == pytest.approx(np.std(per_fold, ddof=1))
    # the test values are cranfield.evaluate's on the written runs
    for r in res.results:
        run = cranfield.Run.read(tmp_path / r.fold / f"{r.method}.run")
        qrels = cranfield.Qrels.read(tmp_path / r.fold / "test.qrels")
        ev = cranfield.evaluate(qrels, run, ["nDCG@10", "AP"])
        assert ev.aggregate(0) == r.test.aggregate
    rows = res.comparison.to_rows()
    assert {row["measure"] for row in rows} == {"nDCG@10", "AP"}
    assert all(row["n_queries"] == 30 and row["baseline"] == "ga" for row in rows)
    text = res.render()
    assert text.startswith("# convention: trec; objective: nDCG@10; 3 fold(s)")
    assert "±" in text


def test_letor_convention_runs_the_whole_protocol(folds):
    res = cross_validate(folds[:2], ["coordinate-ascent"], budget=100, convention="letor")
    assert res.measures == ["NDCG@10", "P@1", "P@5", "P@10", "MAP"]
    assert res.render().startswith("# convention: letor")
    assert res.comparison is None


def test_evaluate_scores_letor_and_trec_differ_only_where_the_rules_do():
    data, w = linear_data(3, queries=10, docs=10)
    scores = data.features @ w
    trec = evaluate_scores(data, scores, ["P@5"])
    letor = evaluate_scores(data, scores, ["P@5"], convention="letor")
    assert trec.aggregate["P@5"] == pytest.approx(letor.aggregate["P@5"])  # no ties, P is P
    assert trec.per_query["P@5"] == pytest.approx(letor.per_query["P@5"])
    ev = cranfield.evaluate(to_qrels(data), to_run(data, scores, "x"), ["P@5"])
    assert ev.aggregate("x")["P@5"] == trec.aggregate["P@5"]


def test_protocol_refuses_bad_method_lists(folds):
    with pytest.raises(ParameterError):
        cross_validate(folds, [], budget=10)
    with pytest.raises(ParameterError):
        cross_validate(folds, ["ga", "ga"], budget=10)
