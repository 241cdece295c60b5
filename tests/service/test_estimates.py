"""The dashboard's estimates equal prediction-powered inference computed directly from the
per-topic measures (ppi_mean, itself checked against ppi_py in tests/judgments/test_ppi.py),
and adjacent runs are called separated exactly when their intervals do not overlap."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from cranfield import evaluate
from cranfield.core.qrels import Qrels
from cranfield.judgments.ppi import ppi_mean, sample_topics
from cranfield.judgments.simulate import simulate_assessor_qrels, simulate_collection
from cranfield.service.estimates import campaign_estimates


def _subset(qrels, topics):
    t = qrels.table
    return Qrels(t.filter(pc.is_in(t["query_id"], value_set=pa.array(topics, pa.string()))))


def _matrix(qrels, runs, measure):
    res = evaluate(qrels, runs, [measure], complete=True)
    names = res.run_names
    topics = sorted(res.per_query(names[0], measure))
    return names, topics, np.array([[res.per_query(r, measure)[t] for r in names] for t in topics])


@pytest.mark.parametrize(("seed", "measure", "fraction"), [(1, "AP", 0.2), (2, "nDCG@10", 0.4)])
def test_estimates_equal_ppi_mean_on_the_per_topic_values(seed, measure, fraction):
    qrels, runs = simulate_collection(30, 20, 4, seed=seed)
    machine = simulate_assessor_qrels(qrels, 0.7, seed=seed + 10)
    chosen, p = sample_topics(qrels.query_ids(), fraction, seed=seed)
    out = campaign_estimates(machine, _subset(qrels, chosen), runs, measure)
    names, topics, y_all = _matrix(qrels, runs, measure)
    _, _, m = _matrix(machine, runs, measure)
    rows = [topics.index(t) for t in chosen]
    n, big_n = len(rows), len(topics)
    w = np.full(n, n / (big_n * (n / big_n)))  # Hajek weights of a simple random sample
    direct = ppi_mean(y_all[rows], m[rows], m, lam="tuned", weights=w, confidence=0.95)
    got = {r["run"]: r for r in out["runs"]}
    # the estimator's tuned-lambda path sums in another order: within 8 ulps
    for field in ("estimate", "low", "high"):
        ours = np.array([got[name][field] for name in names])
        np.testing.assert_array_max_ulp(ours, direct[field], maxulp=8)
    for i, name in enumerate(names):
        assert got[name]["machine_only"] == m[:, i].mean()
    assert out["judged_fraction"] == len(chosen) / len(topics) == p
    estimates = [r["estimate"] for r in out["runs"]]
    assert estimates == sorted(estimates, reverse=True)
    for a, b in zip(out["runs"], out["runs"][1:], strict=False):
        assert a["separated_from_next"] == (a["low"] > b["high"])
    assert out["runs"][-1]["separated_from_next"] is False
