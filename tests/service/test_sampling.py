"""Rank-stratified samples of pooled pairs: sizes and inclusion probabilities by hand,
and the Horvitz-Thompson total they give is unbiased over many seeds."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.errors import ParameterError
from cranfield.service.sampling import sample_pairs


def test_hand_computed_strata():
    ranks = np.array([1, 2, 3, 5, 10, 11, 20, 50, 100, 200])
    rows, pi = sample_pairs(ranks, 0.5, bounds=(3, 10), seed=4)
    # strata: ranks <= 3 (3 pairs), (3, 10] (2 pairs), > 10 (5 pairs)
    strata = np.searchsorted([3, 10], ranks[rows])
    assert np.bincount(strata, minlength=3).tolist() == [2, 1, 2]  # round(1.5)=2, 1, round(2.5)=2
    assert pi.tolist() == [2 / 3 if s == 0 else 1 / 2 if s == 1 else 2 / 5 for s in strata]
    assert (np.diff(rows) > 0).all()


def test_uniform_sample_and_whole_pool():
    rows, pi = sample_pairs(np.arange(1, 41), 0.25, seed=1)
    assert len(rows) == 10 and (pi == 0.25).all()
    rows, pi = sample_pairs(np.arange(1, 8), 1.0)
    assert rows.tolist() == list(range(7)) and (pi == 1.0).all()


def test_horvitz_thompson_total_is_unbiased():
    rng = np.random.default_rng(0)
    ranks = rng.integers(1, 101, 60)
    y = rng.random(60) * (ranks <= 10) + 0.1
    totals = []
    for seed in range(2000):
        rows, pi = sample_pairs(ranks, 0.2, bounds=(10, 30), seed=seed)
        totals.append((y[rows] / pi).sum())
    se = np.std(totals) / np.sqrt(len(totals))
    assert abs(np.mean(totals) - y.sum()) < 4 * se


@pytest.mark.parametrize(("fraction", "bounds"), [(0.0, ()), (1.5, ()), (0.5, (10, 5))])
def test_refusals(fraction, bounds):
    with pytest.raises(ParameterError):
        sample_pairs([1, 2, 3], fraction, bounds=bounds)


def test_stratified_sample_feeds_ppi_evaluate_pairs():
    """With machine labels equal to the people's, the estimate of P@10 from a stratified
    sample is the full-judgment mean (the rectifier is zero), whatever the weights."""
    import pyarrow as pa

    from cranfield import evaluate
    from cranfield.core.qrels import Qrels
    from cranfield.judgments.ppi import ppi_evaluate_pairs
    from cranfield.judgments.simulate import simulate_collection

    qrels, runs = simulate_collection(10, 20, 2, seed=7)
    table = qrels.table
    ranks = np.random.default_rng(1).integers(1, 60, table.num_rows)
    rows, pi = sample_pairs(ranks, 0.3, bounds=(10,), seed=2)
    human = Qrels(table.take(pa.array(rows)))
    pairs = zip(human.table["query_id"].to_pylist(), human.table["doc_id"].to_pylist(), strict=True)
    inclusion = dict(zip(pairs, pi.tolist(), strict=True))
    out = ppi_evaluate_pairs(qrels, human, runs, "P@10", inclusion=inclusion)
    full = evaluate(qrels, runs, ["P@10"], complete=True)
    for name in full.run_names:
        assert out["runs"][name]["estimate"] == pytest.approx(
            np.mean(list(full.per_query(name, "P@10").values())), abs=1e-12
        )
