"""Reproducibility measures against repro_eval 0.5.0 (Breuer et al.), the test-only oracle.

Rankings and per-topic scores are generated; repro_eval's own functions (KTU, RBO,
RMSE, ER, DRI, ttest) read them in its nested-dict shape. Where repro_eval cannot answer
(rankings of different lengths for KTU) the case is built so it can, and cranfield's
defined result is checked by hand instead.
"""

from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np
import pytest
from repro_eval.measure.document_order import KTU, RBO
from repro_eval.measure.effectiveness import RMSE
from repro_eval.measure.overall_effects import DRI, ER
from repro_eval.measure.statistics import ttest

from cranfield import Run
from cranfield.meta import (
    delta_ri,
    effect_ratio,
    kendall_tau_union,
    rankings,
    rbo_prefix,
    repro,
    rmse,
    unpaired_t_test,
)
from cranfield.meta.repro import same_run_t_test


def _run(rng, topics, length, pool, ties=False):
    """A run {topic: {doc: score}} in trec_eval order, and the same as a Run."""
    nested = {}
    for t in topics:
        n = int(length) if np.isscalar(length) else int(rng.integers(*length))
        docs = rng.choice(pool, size=min(n, len(pool)), replace=False)
        scores = rng.integers(0, 4, docs.size) / 2 if ties else rng.random(docs.size)
        order = sorted(
            zip(scores, docs, strict=True), key=lambda p: (-p[0], tuple(-ord(c) for c in p[1]))
        )
        nested[t] = OrderedDict((d, float(s)) for s, d in order)
    return nested, Run.coerce(nested)


def _pool(rng, size):
    return np.array([f"d{int(i):04d}" for i in rng.choice(5000, size, replace=False)])


@pytest.mark.parametrize("case", range(60))
def test_ktu_and_rbo_match_repro_eval(case):
    rng = np.random.default_rng(case)
    topics = [str(t) for t in rng.choice(100, int(rng.integers(1, 6)), replace=False)]
    pool = _pool(rng, int(rng.integers(3, 40)))
    length = int(rng.integers(2, len(pool) + 1))
    ties = bool(case % 3 == 0)
    orig, orig_run = _run(rng, topics, length, pool, ties)
    rpd, rpd_run = _run(rng, topics, length, pool, ties)
    o, r = rankings([orig_run, rpd_run])
    got_topics, tau = kendall_tau_union(o, r)
    want = KTU(orig, rpd, per_topic=True)
    assert list(got_topics) == sorted(want)
    np.testing.assert_allclose(tau, [want[t] for t in got_topics], rtol=0, atol=1e-13)
    p = float(rng.choice([0.5, 0.8, 0.9, 0.95, 0.99]))
    depth = int(rng.choice([1, 5, length, 50, 1000]))
    o, r = rankings([orig_run, rpd_run], depth)
    _, overlap = rbo_prefix(o, r, p, depth)
    want = RBO(orig, rpd, p=p, depth=depth, pbar=False, per_topic=True)
    np.testing.assert_allclose(overlap, [want[t] for t in got_topics], rtol=1e-12, atol=0)


@pytest.mark.parametrize("case", range(20))
def test_rbo_of_rankings_of_different_lengths_matches_repro_eval(case):
    rng = np.random.default_rng(1000 + case)
    topics = ["1", "2", "3"]
    pool = _pool(rng, 30)
    orig, orig_run = _run(rng, topics, (1, 30), pool)
    rpd, rpd_run = _run(rng, topics, (1, 30), pool)
    o, r = rankings([orig_run, rpd_run])
    _, overlap = rbo_prefix(o, r, 0.9, 1000)
    want = RBO(orig, rpd, p=0.9, depth=1000, pbar=False, per_topic=True)
    np.testing.assert_allclose(overlap, [want[t] for t in topics], rtol=1e-12)


def test_ktu_cuts_rankings_to_the_shorter_length():
    # repro_eval refuses rankings of different lengths (SciPy: inputs of different size);
    # cranfield compares the first min(len) ranks: here a, b, c against b, a, c
    o, r = rankings(
        [
            Run.coerce({"1": {"a": 3.0, "b": 2.0, "c": 1.0, "z": 0.5}}),
            Run.coerce({"1": {"b": 3.0, "a": 2.0, "c": 1.0}}),
        ]
    )
    _, tau = kendall_tau_union(o, r)
    # union positions: a=0, b=1, c=2 -> [0, 1, 2] vs [1, 0, 2]: 2 concordant, 1 discordant
    assert tau[0] == pytest.approx(1 / 3)
    one = rankings([Run.coerce({"1": {"a": 1.0}}), Run.coerce({"1": {"a": 1.0, "b": 0.5}})])
    assert math.isnan(kendall_tau_union(*one)[1][0])  # one rank: undefined


def _scores(values: np.ndarray, topics) -> dict:
    return {t: {"map": float(v)} for t, v in zip(topics, values, strict=True)}


@pytest.mark.parametrize("case", range(80))
def test_effects_rmse_and_t_tests_match_repro_eval(case):
    rng = np.random.default_rng(5000 + case)
    n = int(rng.integers(2, 30))
    n2 = n if case % 2 == 0 else int(rng.integers(2, 30))
    grid = case % 4 == 0  # ties and exact repeats
    draw = (lambda k: rng.integers(0, 5, k) / 4) if grid else (lambda k: rng.random(k))
    ob, oa = draw(n), draw(n)
    if case % 5 == 0:
        rb, ra = ob.copy(), oa.copy()  # a perfect reproduction
        n2 = n
    else:
        rb, ra = draw(n2), draw(n2)
    t1, t2 = [str(i) for i in range(n)], [str(i) for i in range(n2)]
    args = (_scores(oa, t1), _scores(ob, t1), _scores(ra, t2), _scores(rb, t2))
    with np.errstate(all="ignore"):
        want_er = ER(*args)["map"]
        want_dri = DRI(*args)["map"]
    er = float(effect_ratio(ob, oa, rb, ra))
    dri = float(delta_ri(ob, oa, rb, ra))
    if np.isfinite(want_er):
        assert er == pytest.approx(want_er, rel=1e-12, abs=1e-15)
    else:  # repro_eval divides by a zero improvement: inf or nan; cranfield: undefined
        assert math.isnan(er)
    if np.isfinite(want_dri):
        assert dri == pytest.approx(want_dri, rel=1e-12, abs=1e-15)
    else:
        assert math.isnan(dri)
    paired = n == n2
    for o, r in ((ob, rb), (oa, ra)):
        with np.errstate(all="ignore"):
            want_p = ttest(_scores(o, t1), _scores(r, t2), rpd=paired)["map"]
        got = same_run_t_test(o, r, paired=paired)
        if math.isnan(want_p):
            assert math.isnan(got)
        else:
            assert got == pytest.approx(want_p, rel=1e-9, abs=1e-300)
        if paired:
            assert float(rmse(o, r)) == pytest.approx(
                RMSE(_scores(o, t1), _scores(r, t1))["map"], rel=1e-14, abs=1e-300
            )


def test_unpaired_t_test_matches_scipy_and_defines_the_degenerate_cases():
    from scipy import stats

    rng = np.random.default_rng(7)
    for _ in range(50):
        x, y = rng.random(int(rng.integers(2, 20))), rng.random(int(rng.integers(2, 20)))
        assert unpaired_t_test(x, y) == pytest.approx(stats.ttest_ind(x, y).pvalue, rel=1e-10)
    assert unpaired_t_test([0.5, 0.5], [0.2, 0.2]) == 0.0  # no variance, means differ
    assert math.isnan(unpaired_t_test([0.5, 0.5], [0.5, 0.5]))  # nothing to test
    assert same_run_t_test(np.array([0.5, 0.5]), np.array([0.5, 0.5]), paired=False) == 1.0


def test_repro_end_to_end_on_files(sample_paths):
    qrels, runs = sample_paths[0], sample_paths[1:]
    same = repro(
        Run.read(runs[0]),
        Run.read(runs[1]),
        Run.read(runs[0]),
        Run.read(runs[1]),
        qrels,
        ["AP"],
        complete=True,
    )
    assert same["document_order"]["ktu"] == {"baseline": 1.0, "advanced": 1.0}
    assert same["per_measure"]["AP"]["er"] == 1.0
    assert same["per_measure"]["AP"]["delta_ri"] == 0.0
    assert same["per_measure"]["AP"]["rmse"] == {"baseline": 0.0, "advanced": 0.0}
    assert same["per_measure"]["AP"]["p"] == {"baseline": 1.0, "advanced": 1.0}
    rpl = repro(
        Run.read(runs[0]),
        Run.read(runs[1]),
        Run.read(runs[1]),
        Run.read(runs[0]),
        qrels,
        ["AP"],
        qrels,
        complete=True,
    )
    assert "document_order" not in rpl and "rmse" not in rpl["per_measure"]["AP"]
    assert rpl["per_measure"]["AP"]["er"] == pytest.approx(-1.0)


def test_long_rankings_cut_at_the_default_depth_match_repro_eval():
    rng = np.random.default_rng(99)
    pool = _pool(rng, 1300)
    orig, orig_run = _run(rng, ["1", "2"], 1050, pool)
    rpd, rpd_run = _run(rng, ["1", "2"], 1050, pool)
    o, r = rankings([orig_run, rpd_run])  # the top 1,000, as repro_eval's RUN_LENGTH
    _, tau = kendall_tau_union(o, r)
    want = KTU(orig, rpd, per_topic=True)
    np.testing.assert_allclose(tau, [want["1"], want["2"]], rtol=0, atol=1e-13)
    _, overlap = rbo_prefix(o, r)
    want = RBO(orig, rpd, p=0.95, depth=1000, pbar=False, per_topic=True)
    np.testing.assert_allclose(overlap, [want["1"], want["2"]], rtol=1e-12)
