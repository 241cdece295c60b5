"""MTC (Carterette, Allan & Sitaraman 2006) against brute-force enumeration of relevances."""

import itertools
import math

import numpy as np
import pytest

from cranfield.pooling import mtc


def _direct(run, x, measure, k):
    """The measure computed from its definition (AP scaled by R), independent of mtc."""
    rel = x[run]
    if measure == "p":
        return rel[:k].sum() / k
    if measure == "dcg":
        return float(sum(r / math.log2(i + 2) for i, r in enumerate(rel[:k])))
    hits = np.cumsum(rel)
    return float(sum(hits[i] / (i + 1) for i in range(len(run)) if rel[i]))


def _case(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 8))
    run1 = rng.permutation(n)[: rng.integers(1, n + 1)]
    run2 = rng.permutation(n)[: rng.integers(1, n + 1)]
    p = rng.choice([0.0, 1.0, 0.5, rng.random()], size=n)
    return n, run1, run2, p


@pytest.mark.parametrize("measure", ["ap", "p", "dcg"])
@pytest.mark.parametrize("seed", range(40))
def test_moments_match_enumeration(measure, seed):
    n, run1, run2, p = _case(seed)
    k = 3
    poly = mtc.coefficients(run1, run2, n, measure, k)
    values, probs = [], []
    for bits in itertools.product((0, 1), repeat=n):
        x = np.array(bits)
        values.append(_direct(run1, x, measure, k) - _direct(run2, x, measure, k))
        probs.append(np.prod(np.where(x == 1, p, 1 - p)))
    values, probs = np.array(values), np.array(probs)
    mean = probs @ values
    var = probs @ (values - mean) ** 2
    got_mean, got_var = mtc.moments(poly, p)
    assert got_mean == pytest.approx(mean, abs=1e-12)
    assert got_var == pytest.approx(var, abs=1e-12)


@pytest.mark.parametrize("seed", range(20))
def test_weight_is_change_when_judged_relevant(seed):
    n, run1, run2, _ = _case(seed)
    rng = np.random.default_rng(seed + 1000)
    judged = rng.integers(-1, 2, size=n)
    poly = mtc.coefficients(run1, run2, n, "ap")
    w = mtc.weights(poly, judged == 1)
    base = (judged == 1).astype(int)
    for i in range(n):
        if judged[i] == 1:
            continue
        x = base.copy()
        x[i] = 1
        change = (_direct(run1, x, "ap", 0) - _direct(run2, x, "ap", 0)) - (
            _direct(run1, base, "ap", 0) - _direct(run2, base, "ap", 0)
        )
        assert w[i] == pytest.approx(change, abs=1e-12)


def test_hand_computed_case():
    # run1 = [0, 1], run2 = [1, 0]; AP*R difference = x0 + x0x1/2 + x1/2 - (x1 + x0x1/2 + x0/2)
    poly = mtc.coefficients(np.array([0, 1]), np.array([1, 0]), 2, "ap")
    assert poly.d.tolist() == [0.5, -0.5]
    assert poly.c.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert mtc.moments(poly, np.array([1.0, 0.5])) == (0.25, 0.0625)


def test_minimal_judging_stops_with_correct_sign():
    rng = np.random.default_rng(7)
    correct = total = judged = 0
    for _ in range(30):
        n = 40
        truth = (rng.random(n) < 0.3).astype(int)
        run1 = np.argsort(-(truth * 1.5 + rng.random(n)))[:20]
        run2 = np.argsort(-(truth * 0.3 + rng.random(n)))[:20]
        order, mean, risk = mtc.minimal_judging(run1, run2, truth)
        real = _direct(run1, truth, "ap", 0) - _direct(run2, truth, "ap", 0)
        assert len(set(order)) == len(order)
        correct += np.sign(mean) == np.sign(real)
        total += 1
        judged += len(order)
    assert correct >= 0.9 * total
    assert judged < 0.6 * total * n


def test_rank_runs_agrees_with_pairwise_moments():
    rng = np.random.default_rng(3)
    n = 12
    truth = (rng.random(n) < 0.4).astype(int)
    runs = [rng.permutation(n)[:8] for _ in range(4)]
    order, means, risks = mtc.rank_runs(runs, truth)
    judgments = np.full(n, -1)
    judgments[order] = truth[order]
    p = mtc.probabilities(judgments)
    for index, (a, b) in enumerate(itertools.combinations(range(4), 2)):
        mean, var = mtc.moments(mtc.coefficients(runs[a], runs[b], n), p)
        assert means[index] == pytest.approx(mean, abs=1e-12)
        assert risks[index] == pytest.approx(mtc.sign_change_probability(mean, var), abs=1e-12)
        assert risks[index] < 0.05 or len(order) == n


def test_rank_runs_map_with_everything_judged_is_the_map_difference():
    rng = np.random.default_rng(5)
    topics = []
    for _ in range(3):
        n = 10
        truth = (rng.random(n) < 0.5).astype(int)
        truth[0] = 1
        topics.append(([rng.permutation(n)[:6] for _ in range(3)], truth))
    judged, means, risks = mtc.rank_runs_map(topics, threshold=0.0)
    assert judged == 30
    ap = np.array([[_direct(r, t, "ap", 0) / t.sum() for r in runs] for runs, t in topics])
    expected = [ap[:, a].mean() - ap[:, b].mean() for a, b in itertools.combinations(range(3), 2)]
    assert means == pytest.approx(expected, abs=1e-12)
    assert all(risk in (0.0, 0.5) for risk in risks)
