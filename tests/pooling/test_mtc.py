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


def _random_topics(rng, n_topics, n_runs, n=None):
    topics = []
    for _ in range(n_topics):
        size = n or int(rng.integers(2, 14))
        runs = [rng.permutation(size)[: rng.integers(0, size + 1)] for _ in range(n_runs)]
        topics.append((runs, (rng.random(size) < 0.4).astype(int)))
    return topics


def _pairwise_state(topics, judgments, prior, measure="ap", k=10):
    """The pair-by-pair formulas (coefficients, moments, weights) summed over topics."""
    n_runs = len(topics[0][0])
    pairs = list(itertools.combinations(range(n_runs), 2))
    means, var, scores = np.zeros(len(pairs)), np.zeros(len(pairs)), []
    for (runs, truth), j, pr in zip(topics, judgments, prior, strict=True):
        p = mtc.probabilities(j, pr)
        r = max(float(p.sum()), 1.0) if measure == "ap" else 1.0
        ws = []
        for index, (a, b) in enumerate(pairs):
            poly = mtc.coefficients(runs[a], runs[b], len(truth), measure, k)
            mean, v = mtc.moments(poly, p)
            means[index] += mean / r
            var[index] += v / r**2
            ws.append(np.abs(mtc.weights(poly, j == 1)))
        scores.append(np.where(j >= 0, -np.inf, np.sum(ws, axis=0) / r))
    return means / len(topics), var / len(topics) ** 2, scores


@pytest.mark.parametrize("measure", ["ap", "p", "dcg"])
@pytest.mark.parametrize("seed", range(15))
def test_map_judging_state_equals_pairwise_formulas(measure, seed):
    # random judgments given at construction and then one by one: the per-run state
    # (prefix sums, incremental updates) against the per-pair polynomials
    rng = np.random.default_rng(seed)
    topics = _random_topics(rng, int(rng.integers(1, 5)), int(rng.integers(2, 5)))
    prior = [rng.choice([0.5, 0.2, 0.9], size=len(t)) for _, t in topics]
    start = [np.where(rng.random(len(t)) < 0.3, t, -1) for _, t in topics]
    state = mtc.MapJudging(
        [r for r, _ in topics],
        [len(t) for _, t in topics],
        start,
        measure=measure,
        k=3,
        prior=prior,
    )
    judgments = [s.copy() for s in start]
    for _step in range(12):
        means, var, scores = _pairwise_state(topics, judgments, prior, measure, 3)
        got_means, got_var = state.moments()
        assert got_means == pytest.approx(means, rel=1e-9, abs=1e-12)
        assert got_var == pytest.approx(var, rel=1e-9, abs=1e-12)
        got = state.scores()
        for t, s in enumerate(scores):
            assert got[t, : len(s)] == pytest.approx(s, rel=1e-9, abs=1e-12)
        open_ = rng.random(len(means)) < 0.7
        state.set_open(open_)
        unjudged = [(t, i) for t, j in enumerate(judgments) for i in np.flatnonzero(j < 0)]
        if not unjudged:
            break
        t, i = unjudged[rng.integers(len(unjudged))]
        state.judge(t, i, topics[t][1][i])
        judgments[t][i] = topics[t][1][i]
        state.set_open(np.ones(len(means), dtype=bool))


def _old_rank_runs_map(topics, threshold=0.05, prior=0.5):
    """The loop over topics and pairs that rank_runs_map replaced (dense c per pair),
    with the same tie rule (scores equal within a relative 1e-9: first topic, document)."""
    n_runs = len(topics[0][0])
    pairs = list(itertools.combinations(range(n_runs), 2))
    polys = [[mtc.coefficients(runs[a], runs[b], len(t)) for a, b in pairs] for runs, t in topics]
    judgments = [np.full(len(t), -1) for _, t in topics]
    judged = 0
    while True:
        means, var = np.zeros(len(pairs)), np.zeros(len(pairs))
        scale = []
        for qs, j in zip(polys, judgments, strict=True):
            p = mtc.probabilities(j, prior)
            r = max(float(p.sum()), 1.0)
            for index, q in enumerate(qs):
                m, v = mtc.moments(q, p)
                means[index] += m / r
                var[index] += v / r**2
            scale.append(r)
        risks = np.array(
            [mtc.sign_change_probability(m, v) for m, v in zip(means, var, strict=True)]
        )
        open_ = risks >= threshold
        if not open_.any():
            return judged, means / len(topics), risks
        flat = []
        for t, (qs, j) in enumerate(zip(polys, judgments, strict=True)):
            w = (
                sum(np.abs(mtc.weights(q, j == 1)) for q, o in zip(qs, open_, strict=True) if o)
                / scale[t]
            )
            flat.extend((float(x) if j[i] < 0 else -np.inf, t, i) for i, x in enumerate(w))
        finite = [f for f in flat if np.isfinite(f[0])]
        if not finite:
            return judged, means / len(topics), risks
        top = max(abs(f[0]) for f in finite) or 1.0
        _, t, i = max(finite, key=lambda f: (round(f[0] / top * 1e9), -f[1], -f[2]))
        judgments[t][i] = topics[t][1][i]
        judged += 1


@pytest.mark.parametrize("seed", range(12))
def test_rank_runs_map_equals_the_loop_over_topics(seed):
    rng = np.random.default_rng(100 + seed)
    topics = _random_topics(rng, int(rng.integers(1, 5)), int(rng.integers(2, 5)))
    for _, truth in topics:
        truth[rng.integers(len(truth))] = 1
    judged, means, risks = mtc.rank_runs_map(topics)
    old_judged, old_means, old_risks = _old_rank_runs_map(topics)
    assert judged == old_judged
    assert means == pytest.approx(old_means, rel=1e-9, abs=1e-12)
    assert risks == pytest.approx(old_risks, rel=1e-6, abs=1e-12)


def test_rank_prior_is_sklearns_logistic_regression():
    sklearn = pytest.importorskip("sklearn.linear_model")
    rng = np.random.default_rng(8)
    topics = _random_topics(rng, 6, 4, n=30)
    state = mtc.MapJudging([r for r, _ in topics], [30] * 6)
    for t, (_, truth) in enumerate(topics):
        for i in rng.permutation(30)[:20]:
            state.judge(t, i, truth[i])
    prior = mtc.rank_prior(state.ranks, state.judged)
    # the feature written out from its definition, independently of rank_prior
    depth = max(len(r) for runs, _ in topics for r in runs)
    feature = np.zeros((6, 31))
    for t, (runs, _) in enumerate(topics):
        for run in runs:
            for rank, doc in enumerate(run, start=1):
                feature[t, doc] += (1 + sum(1 / j for j in range(rank, depth + 1))) / (2 * depth)
    retrieved = feature > 0
    fit = (state.judged >= 0) & retrieved
    model = sklearn.LogisticRegression(C=1e12, tol=1e-12, max_iter=10000)  # no penalty
    model.fit(np.log(feature[fit] / 4)[:, None], state.judged[fit])
    expected = model.predict_proba(np.log(feature[retrieved] / 4)[:, None])[:, 1]
    assert prior[retrieved] == pytest.approx(np.clip(expected, 0.01, 0.99), abs=1e-5)
    assert mtc.rank_prior(state.ranks, np.where(state.judged == 1, -1, state.judged)) is None


def test_with_prior_is_the_state_built_with_that_prior():
    rng = np.random.default_rng(9)
    topics = _random_topics(rng, 3, 3, n=9)
    start = [np.where(rng.random(9) < 0.4, t, -1) for _, t in topics]
    prior = [rng.uniform(0.1, 0.9, 9) for _ in topics]
    runs, sizes = [r for r, _ in topics], [9, 9, 9]
    direct = mtc.MapJudging(runs, sizes, start, prior=prior)
    again = mtc.MapJudging(runs, sizes, start).with_prior(np.array(prior))
    for got, want in zip(again.moments(), direct.moments(), strict=True):
        assert got == pytest.approx(want, rel=1e-12, abs=1e-15)
    assert (again.judged == direct.judged).all()


def test_the_goal_on_a_generated_collection():
    # issue 35's goal, on a small generated collection (benchmarks/mtc_simulation.py has
    # the larger ones): the run pairs significantly different under complete judgments
    # (paired t-test, SciPy) are >= 90% decided correctly by MTC with <= 20% of the pool
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(35)
    quality = np.linspace(0.3, 2.0, 6)
    topics, full = [], []
    for _ in range(20):
        n = 300
        truth = (rng.random(n) < 0.05).astype(int)
        truth[0] = 1
        shared = truth * 0.7 + rng.normal(size=n)
        runs = [np.argsort(-(shared + truth * q + rng.normal(size=n)))[:30] for q in quality]
        pool = np.unique(np.concatenate(runs))
        local = np.full(n, -1)
        local[pool] = np.arange(len(pool))
        topics.append(([local[r] for r in runs], truth[pool]))
        relevant = max(int(truth[pool].sum()), 1)
        full.append([_direct(local[r], truth[pool], "ap", 0) / relevant for r in runs])
    full = np.array(full)
    state = mtc.MapJudging([r for r, _ in topics], [len(t) for _, t in topics])
    pooled, judged = int(state.sizes.sum()), 0
    while judged < 0.2 * pooled:
        if judged and judged % (pooled // 20) == 0:
            fitted = mtc.rank_prior(state.ranks, state.judged)
            state = state if fitted is None else state.with_prior(fitted)
        means, var = state.moments()
        open_ = (
            np.array([mtc.sign_change_probability(m, v) for m, v in zip(means, var, strict=True)])
            >= 0.05
        )
        if not open_.any():
            break
        state.set_open(open_)
        t, doc = state.next_judgment()
        state.judge(t, doc, topics[t][1][doc])
        judged += 1
    means, _ = state.moments()
    significant = correct = 0
    for index, (a, b) in enumerate(itertools.combinations(range(6), 2)):
        if stats.ttest_rel(full[:, a], full[:, b]).pvalue < 0.05:
            significant += 1
            correct += np.sign(means[index]) == np.sign(full[:, a].mean() - full[:, b].mean())
    print(f"{correct}/{significant} correct with {judged}/{pooled} judged")
    assert significant >= 8  # the collection has pairs to decide
    assert judged <= 0.2 * pooled
    assert correct >= 0.9 * significant
