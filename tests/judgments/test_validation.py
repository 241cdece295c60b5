"""The judge validation report against scikit-learn, krippendorff and SciPy."""

from __future__ import annotations

import krippendorff
import numpy as np
import pyarrow as pa
import pytest
from scipy.stats import kendalltau
from sklearn.metrics import cohen_kappa_score, confusion_matrix

from cranfield.core.qrels import Qrels
from cranfield.judgments.data import Judgments
from cranfield.judgments.simulate import (
    simulate_assessor,
    simulate_assessor_qrels,
    simulate_collection,
)
from cranfield.judgments.validation import judge_validation, self_consistency


def qrels(topics, docs, labels):
    return Qrels(
        pa.table(
            {
                "query_id": pa.array(topics, pa.string()),
                "doc_id": pa.array(docs, pa.string()),
                "relevance": pa.array(np.asarray(labels, np.int64)),
            }
        )
    )


@pytest.mark.parametrize("seed", range(12))
def test_agreement_statistics_equal_the_references(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 200))
    truth = rng.integers(0, 4, n)
    machine = simulate_assessor(truth, float(rng.uniform(0.2, 0.95)), [0, 1, 2, 3], seed=seed)
    topics = rng.integers(0, 5, n).astype(str)
    docs = [f"d{i}" for i in range(n)]
    # extra pairs only one side judged
    human = qrels([*topics, "9"], [*docs, "only-h"], [*truth, 1])
    mach = qrels([*topics, "9"], [*docs, "only-m"], [*machine, 2])
    rep = judge_validation(human, mach, scale="0,1,2,3")
    assert rep["pairs"] == n and rep["human_only"] == 1 and rep["machine_only"] == 1
    assert (
        rep["confusion"]["matrix"] == confusion_matrix(truth, machine, labels=[0, 1, 2, 3]).tolist()
    )
    for w, sk in (("unweighted", None), ("linear", "linear"), ("quadratic", "quadratic")):
        expected = cohen_kappa_score(truth, machine, labels=[0, 1, 2, 3], weights=sk)
        assert rep[f"cohen_kappa_{w}"] == pytest.approx(expected, abs=1e-12)
    alpha = krippendorff.alpha(
        reliability_data=np.vstack([truth, machine]).astype(float),
        level_of_measurement="ordinal",
        value_domain=[0, 1, 2, 3],
    )
    assert rep["krippendorff_alpha"] == pytest.approx(alpha, abs=1e-9)
    b = cohen_kappa_score(truth >= 1, machine >= 1)
    assert rep["binary"]["cohen_kappa"] == pytest.approx(b, abs=1e-12, nan_ok=True)
    for row in rep["bias"]:
        mine = truth == row["human_label"]
        assert row["pairs"] == int(mine.sum())
        if mine.any():
            assert row["mean_difference"] == pytest.approx(np.mean(machine[mine] - truth[mine]))
            assert row["above"] == pytest.approx(np.mean(machine[mine] > truth[mine]))
    assert rep["mean_difference"] == pytest.approx(np.mean(machine - truth))


def test_rankings_under_human_and_machine_qrels():
    from cranfield import evaluate

    human, runs = simulate_collection(15, 20, 5, seed=3)
    machine = simulate_assessor_qrels(human, 0.7, seed=1)
    rep = judge_validation(human, machine, runs=runs, measure="AP")
    h = evaluate(human, runs, ["AP"])
    m = evaluate(machine, runs, ["AP"])
    hs = [h.aggregate(r, "AP") for r in h.run_names]
    ms = [m.aggregate(r, "AP") for r in m.run_names]
    assert rep["rankings"]["kendall_tau"] == pytest.approx(kendalltau(hs, ms).statistic)
    assert rep["rankings"]["scores"]["human"] == dict(zip(h.run_names, hs, strict=True))


def test_self_consistency():
    table = pa.table(
        {
            "topic": ["1"] * 6,
            "document": ["a", "a", "b", "b", "c", "c"],
            "assessor": ["m", "m#1"] * 3,
            "label": [1, 1, 0, 2, 2, 2],
        }
    )
    sc = self_consistency(Judgments.from_table(table, scale="0,1,2"))
    assert sc["pairs"] == 3 and sc["unanimous"] == pytest.approx(2 / 3)
    alpha = krippendorff.alpha(
        reliability_data=np.array([[1, 0, 2], [1, 2, 2]], float),
        level_of_measurement="ordinal",
        value_domain=[0, 1, 2],
    )
    assert sc["krippendorff_alpha"] == pytest.approx(alpha)


def test_nothing_in_common_is_an_input_error():
    with pytest.raises(ValueError, match="no topic-document pair was judged by both"):
        judge_validation(qrels(["1"], ["a"], [1]), qrels(["1"], ["b"], [1]))
