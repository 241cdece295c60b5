"""Click models: hand-computed estimates, probabilities against enumeration, EM."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from cranfield.clicks import NAMES, fit, from_arrays, from_json, to_json
from cranfield.clicks.fitted import FittedClickModel
from cranfield.clicks.models import Matrices, Params, click_probabilities
from cranfield.errors import InputError, ParameterError

# docs a=0, b=1, c=2; one query
# s1: a b c, clicks on b and c; s2: b a c, no click
ML = (0.0, 0.0)  # plain maximum likelihood: the counts by hand below
CASCADE_LOG = from_arrays(
    [0, 0], [[0, 1, 2], [1, 0, 2]], [[0, 1, 1], [0, 0, 0]], ["q"], list("abc")
)
# s1: a b, click on a; s2: b a, no click
TWO = from_arrays([0, 0], [[0, 1], [1, 0]], [[1, 0], [0, 0]], ["q"], ["a", "b"])
ONE = from_arrays([0], [[0, 1]], [[1, 0]], ["q"], ["a", "b"])


def alpha(model, doc, name="attractiveness"):
    i = list(model.pair_doc).index(doc)
    return model.params.pair[name][i]


def test_ctr_models_closed_form():
    assert fit(CASCADE_LOG, "gctr", prior=ML).params.scalar["ctr"] == pytest.approx(2 / 6)
    assert fit(CASCADE_LOG, "rctr", prior=ML).params.rank["ctr"].tolist() == [0, 0.5, 0.5]
    m = fit(CASCADE_LOG, "dctr", prior=ML)
    assert [alpha(m, d) for d in "abc"] == [0, 0.5, 0.5]


def test_cascade_model_counts_up_to_the_first_click():
    m = fit(CASCADE_LOG, "cm", prior=ML)
    # a: shown above the first click once, and in s2: 0/2; b: 1 click / 2; c: never examined in s1
    assert [alpha(m, d) for d in "abc"] == [0, 0.5, 0]


def test_dcm_approximate_mle():
    m = fit(CASCADE_LOG, "dcm", prior=ML)
    assert [alpha(m, d) for d in "abc"] == [0, 0.5, 0.5]
    # lambda_r = 1 - last clicks at r / clicks at r; rank 1 has no click -> 0.5
    assert m.params.rank["continuation"].tolist() == [0.5, 1.0, 0.0]


def test_sdbn_closed_form():
    m = fit(CASCADE_LOG, "sdbn", prior=ML)
    assert [alpha(m, d) for d in "abc"] == [0, 0.5, 0.5]
    assert alpha(m, "b", "satisfaction") == 0 and alpha(m, "c", "satisfaction") == 1


def test_pbm_one_em_step_by_hand():
    m = fit(TWO, "pbm", max_iter=1, tol=0, prior=ML)
    # a skip at 0.5/0.5 has P(A=1|C=0) = P(E=1|C=0) = 0.25 / 0.75 = 1/3
    assert alpha(m, "a") == pytest.approx(2 / 3) and alpha(m, "b") == pytest.approx(1 / 3)
    assert m.params.rank["examination"] == pytest.approx([2 / 3, 1 / 3])


def test_ubm_one_em_step_by_hand():
    m = fit(TWO, "ubm", max_iter=1, tol=0, prior=ML)
    g = m.params.rank["examination"]
    assert alpha(m, "a") == pytest.approx(2 / 3)
    assert g[0, 0] == pytest.approx(2 / 3)  # rank 1, no click before
    assert g[1, 1] == pytest.approx(1 / 3)  # rank 2 after a click at rank 1
    assert g[1, 0] == pytest.approx(1 / 3)  # rank 2, no click before
    assert g[0, 1] == 0.5  # never observed


def test_dbn_one_em_step_by_hand():
    # after the click on a: satisfied 1/2 (stop); else go on 1/2 and skip b 1/2 or stop
    # P(no click on b | click on a) = 7/8; P(S_a=1 | clicks) = 4/7; P(E_b=1 | clicks) = 1/7
    m = fit(ONE, "dbn", max_iter=1, tol=0, prior=ML)
    assert alpha(m, "a") == 1 - 1e-6  # 1, capped as EM parameters are (PyClick's cap)
    assert alpha(m, "b") == pytest.approx(3 / 7)
    assert alpha(m, "a", "satisfaction") == pytest.approx(4 / 7)
    assert m.params.scalar["gamma"] == pytest.approx((1 / 7) / (3 / 7))


def test_ccm_one_em_step_by_hand():
    # after the click on a the coin B (attractive part) is 1 with posterior 1/2; the user
    # went on with B=1 with posterior 1/6, with B=0 with 1/6; b was examined with 1/3
    m = fit(ONE, "ccm", max_iter=1, tol=0, prior=ML)
    assert alpha(m, "a") == pytest.approx((1 + 0.5) / 2)
    assert alpha(m, "b") == pytest.approx(1 / 3)
    s = m.params.scalar
    assert s["tau1"] == 0.5  # no skip followed by a shown rank
    assert s["tau2"] == pytest.approx(1 / 3) and s["tau3"] == pytest.approx(1 / 3)


def _random_model(name, k, rng) -> tuple[FittedClickModel, object]:
    """A model with random parameters over one query with k documents, and a log template."""
    base = fit(from_arrays([0], [list(range(k))], [[True] + [False] * (k - 1)]), name)
    p = base.params
    pair = {n: rng.uniform(0.05, 0.95, len(v)) for n, v in p.pair.items()}
    rank = {n: rng.uniform(0.05, 0.95, np.shape(v)) for n, v in p.rank.items()}
    scalar = {n: float(rng.uniform(0.05, 0.95)) for n in p.scalar}
    base.params = Params(pair, rank, scalar)
    return base


@pytest.mark.parametrize("name", NAMES)
def test_probabilities_agree_with_enumeration(name):
    """Over all 2^K click patterns the conditional probabilities give a distribution,
    and its marginals are the unconditional click probabilities."""
    k = 4
    rng = np.random.default_rng(7)
    model = _random_model(name, k, rng)
    patterns = np.array(list(itertools.product([0, 1], repeat=k)), dtype=bool)
    n = len(patterns)
    log = from_arrays(np.zeros(n, int), np.tile(np.arange(k), (n, 1)), patterns)
    index = model.index(log)
    cond = click_probabilities(name, Matrices(model.params, index, log), True)
    joint = np.where(patterns, cond, 1 - cond).prod(axis=1)
    full = click_probabilities(name, Matrices(model.params, index, log), False)[0]
    if name == "cm":  # the cascade model gives a second click probability 0
        assert joint[patterns.sum(axis=1) > 1].sum() == 0
    assert joint.sum() == pytest.approx(1.0)
    assert full == pytest.approx((joint[:, None] * patterns).sum(axis=0))


@pytest.mark.parametrize("name", ["pbm", "ubm", "dbn", "ccm"])
@pytest.mark.parametrize("seed", [None, 3])
def test_em_log_likelihood_never_decreases(name, seed):
    rng = np.random.default_rng(11)
    n, k = 400, 5
    docs = np.array([rng.permutation(8)[:k] for _ in range(n)])
    clicks = rng.random((n, k)) < np.array([0.5, 0.35, 0.3, 0.2, 0.1])
    log = from_arrays(rng.integers(0, 3, n), docs, clicks)
    m = fit(log, name, tol=0, max_iter=40, seed=seed, prior=ML)
    assert len(m.trace) == 41
    assert (np.diff(m.trace) >= -1e-9 * np.abs(m.trace[1:])).all()
    assert m.trace[-1] > m.trace[0]


def test_em_stops_at_tolerance_and_cap():
    m = fit(TWO, "pbm", tol=0.5, max_iter=100)
    assert m.converged and m.iterations < 100
    m = fit(CASCADE_LOG, "dbn", tol=0, max_iter=3)
    assert not m.converged and m.iterations == 3


def test_seed_changes_start_values_reproducibly():
    a = fit(CASCADE_LOG, "pbm", max_iter=1, tol=0, seed=1)
    b = fit(CASCADE_LOG, "pbm", max_iter=1, tol=0, seed=1)
    c = fit(CASCADE_LOG, "pbm", max_iter=1, tol=0, seed=2)
    assert a.trace == b.trace and a.trace != c.trace


@pytest.mark.parametrize("name", NAMES)
def test_json_round_trip(name):
    m = fit(CASCADE_LOG, name, max_iter=5)
    back = from_json(to_json(m))
    assert np.array_equal(back.probabilities(CASCADE_LOG), m.probabilities(CASCADE_LOG))
    assert np.array_equal(
        back.probabilities(CASCADE_LOG, False), m.probabilities(CASCADE_LOG, False)
    )


def test_json_errors():
    good = to_json(fit(TWO, "pbm"))
    with pytest.raises(InputError, match="not a cranfield click model"):
        from_json({**good, "version": 99})
    with pytest.raises(InputError, match="outside"):
        from_json({**good, "ranks": {"examination": [2.0, 0.1]}})
    with pytest.raises(InputError, match="missing or unexpected"):
        from_json({**good, "ranks": {}})
    with pytest.raises(InputError):
        from_json({**good, "model": "nope"})


def test_bad_options():
    with pytest.raises(ParameterError, match="click model"):
        fit(TWO, "xyz")
    with pytest.raises(ParameterError, match="tol"):
        fit(TWO, "pbm", tol=float("nan"))
    with pytest.raises(ParameterError, match="max_iter"):
        fit(TWO, "pbm", max_iter=0)


def test_unseen_pairs_take_the_default():
    m = fit(ONE, "dctr", prior=ML)
    other = from_arrays([0], [[2, 0]], [[0, 0]], ["q"], ["z", "x", "a"])
    p = m.probabilities(other)
    assert p[0, 0] == 1.0 and p[0, 1] == 0.5  # a: 1 click / 1; z unseen


@pytest.mark.parametrize("name", NAMES)
def test_identical_sessions_are_fitted_once_with_their_count(name):
    """fit() groups identical sessions and weights them: the estimates equal those of
    the plain per-session computation."""
    from cranfield.clicks.models import Pairs, distinct_sessions
    from cranfield.clicks.registry import get

    rng = np.random.default_rng(2)
    base = rng.integers(0, 6, (30, 4))
    docs = np.array([rng.permutation(6)[:4] for _ in range(30)])
    clicks = rng.random((30, 4)) < 0.3
    pick = rng.integers(0, 30, 300)  # many repeats
    log = from_arrays(base[pick, 0] % 3, docs[pick], clicks[pick])
    distinct, weight = distinct_sessions(log)
    assert distinct.n_sessions < 40 and weight.sum() == 300
    got = fit(log, name, max_iter=20, tol=0)
    plain, *_ = get(name).fit(log, Pairs(log), tol=0, max_iter=20, rng=None)
    order = np.lexsort((got.pair_doc.astype(int), got.pair_query.astype(int)))
    for key, v in plain.pair.items():  # Pairs(log) orders pairs by (query, doc) code
        assert got.params.pair[key][order] == pytest.approx(v, abs=1e-9)
    for key, v in plain.rank.items():
        assert got.params.rank[key] == pytest.approx(v, abs=1e-9)
    for key, v in plain.scalar.items():
        assert got.params.scalar[key] == pytest.approx(v, abs=1e-9)


def test_distinct_sessions_equal_a_grouping_of_the_rows():
    """distinct_sessions (hashed column block by column block) against a dict of the
    rows as tuples: the same distinct sessions, each once, with its count."""
    from collections import Counter

    from cranfield.clicks.models import distinct_sessions

    rng = np.random.default_rng(39)
    for _ in range(60):
        n, k = int(rng.integers(1, 200)), int(rng.integers(1, 8))
        lengths = rng.integers(1, k + 1, n)
        docs = np.where(np.arange(k) < lengths[:, None], rng.integers(0, 4, (n, k)), -1)
        clicks = (rng.random((n, k)) < 0.3) & (docs >= 0)
        log = from_arrays(rng.integers(0, 3, n), docs, clicks)
        rows = [
            (int(q), *map(int, d), *map(bool, c))
            for q, d, c in zip(log.query, log.docs, log.clicks, strict=True)
        ]
        distinct, weight = distinct_sessions(log)
        got = [
            (int(q), *map(int, d), *map(bool, c))
            for q, d, c in zip(distinct.query, distinct.docs, distinct.clicks, strict=True)
        ]
        assert dict(zip(got, weight.tolist(), strict=True)) == Counter(rows)
        assert len(got) == len(set(got))


@pytest.mark.parametrize("name", ["pbm", "ubm", "dbn", "ccm"])
def test_training_log_likelihood_is_the_sum_of_conditional_log_probabilities(name):
    """The EM trace (computed inside the E-step) equals the sum over shown ranks of
    log P(C_r = c_r | C_<r) of the final parameters."""
    from cranfield.clicks.estimate import log_likelihood_matrix

    rng = np.random.default_rng(4)
    n, k = 300, 5
    docs = np.array([rng.permutation(7)[:k] for _ in range(n)])
    log = from_arrays(rng.integers(0, 3, n), docs, rng.random((n, k)) < 0.3)
    m = fit(log, name, max_iter=15, tol=0)
    assert len(m.trace) == 16
    total = log_likelihood_matrix(name, m.params, m.index(log), log).sum()
    assert m.trace[-1] == pytest.approx(total, rel=1e-9)


def test_model_file_records_the_prior():
    m = fit(CASCADE_LOG, "pbm", prior=(0.5, 3))
    obj = to_json(m)
    assert obj["prior"] == [0.5, 3.0]
    assert from_json(obj).prior == (0.5, 3.0)
    assert to_json(fit(CASCADE_LOG, "dctr"))["prior"] == [1.0, 2.0]
    del obj["prior"]  # a file written before the prior was recorded: not known
    assert from_json(obj).prior is None
    for bad in ([3, 2], "1,2", [1]):
        with pytest.raises(InputError, match="prior"):
            from_json({**obj, "prior": bad})
