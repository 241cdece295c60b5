"""The dashboard's estimates equal prediction-powered inference computed directly from
each pooled pair's contribution to a run's mean measure, built here by hand from the
rankings (ppi_mean, itself checked against ppi_py in tests/judgments/test_ppi.py), and
adjacent runs are called separated exactly when their intervals do not overlap."""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pytest

from cranfield.judgments.ppi import ppi_mean
from cranfield.judgments.simulate import simulate_assessor_qrels, simulate_collection
from cranfield.service.estimates import campaign_estimates
from cranfield.service.sampling import sample_pairs


def _by_hand(qrels, runs, measure: str) -> tuple[list[str], np.ndarray]:
    """Per pooled pair (qrels order) and run: (N/T) * rank weight * gain, by loops."""
    kind, k = measure.split("@")
    k = int(k)
    t = qrels.table
    pairs = list(zip(t["query_id"].to_pylist(), t["doc_id"].to_pylist(), strict=True))
    grades = t["relevance"].to_pylist()
    topics = {q for q, _ in pairs}
    names = sorted(runs)
    z = np.zeros((len(pairs), len(names)))
    for c, name in enumerate(names):
        ranked = runs[name].ranked()
        rank = {
            (q, d): r
            for q, d, r in zip(
                ranked["query_id"].to_pylist(),
                ranked["doc_id"].to_pylist(),
                ranked["rank"].to_pylist(),
                strict=True,
            )
        }
        for i, (pair, g) in enumerate(zip(pairs, grades, strict=True)):
            r = rank.get(pair)
            if r is None or r > k:
                continue
            if kind == "P":
                z[i, c] = (1.0 if g >= 1 else 0.0) / k
            else:
                z[i, c] = max(g, 0) / math.log2(r + 1)
    return names, z * (len(pairs) / len(topics))


@pytest.mark.parametrize(
    ("seed", "measure", "fraction", "bounds"),
    [(1, "P@10", 0.25, ()), (2, "DCG@5", 0.4, (3, 8)), (3, "P@5", 0.3, (5,))],
)
def test_estimates_equal_ppi_mean_on_the_per_pair_values(seed, measure, fraction, bounds):
    qrels, runs = simulate_collection(12, 15, 4, seed=seed)
    machine = simulate_assessor_qrels(qrels, 0.6, seed=seed + 10)
    ranks = np.random.default_rng(seed).integers(1, 16, qrels.table.num_rows)
    rows, pi = sample_pairs(ranks, fraction, bounds=bounds, seed=seed)
    human = type(qrels)(qrels.table.take(pa.array(rows)))
    keys = list(
        zip(human.table["query_id"].to_pylist(), human.table["doc_id"].to_pylist(), strict=True)
    )
    out = campaign_estimates(
        machine, human, runs, measure, inclusion=dict(zip(keys, pi.tolist(), strict=True))
    )
    names, y_all = _by_hand(qrels, runs, measure)
    _, m = _by_hand(machine, runs, measure)
    direct = ppi_mean(y_all[rows], m[rows], m, lam="tuned", weights=1 / pi, confidence=0.95)
    got = {r["run"]: r for r in out["runs"]}
    for field in ("estimate", "low", "high"):
        ours = np.array([got[name][field] for name in names])
        np.testing.assert_allclose(ours, direct[field], rtol=1e-12, atol=1e-14)
    for i, name in enumerate(names):
        assert got[name]["machine_only"] == pytest.approx(m[:, i].mean(), rel=1e-12)
    assert out["judged_fraction"] == len(rows) / qrels.table.num_rows
    estimates = [r["estimate"] for r in out["runs"]]
    assert estimates == sorted(estimates, reverse=True)
    for a, b in zip(out["runs"], out["runs"][1:], strict=False):
        assert a["separated_from_next"] == (a["low"] > b["high"])
    assert out["runs"][-1]["separated_from_next"] is False


def test_a_measure_not_linear_in_the_labels_is_refused():
    from cranfield.errors import ParameterError

    qrels, runs = simulate_collection(4, 10, 2, seed=0)
    with pytest.raises(ParameterError, match="P@k or DCG@k"):
        campaign_estimates(qrels, qrels, runs, "AP")
