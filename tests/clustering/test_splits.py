"""Validation splits: sklearn agreement, query integrity, coverage, reproducibility."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import model_selection as ms

from cranfield import splits as sp
from cranfield.errors import InputError, ParameterError


def _pairs(splits):
    return [(s.train.tolist(), s.test.tolist()) for s in splits]


def _sk_pairs(splitter, n, groups=None):
    x = np.zeros((n, 1))
    return [(tr.tolist(), sorted(te.tolist())) for tr, te in splitter.split(x, groups=groups)]


@pytest.mark.parametrize("n,k", [(2, 2), (7, 3), (10, 5), (11, 4), (23, 23), (100, 7)])
def test_unshuffled_kfold_equals_sklearn(n, k):
    assert _pairs(sp.kfold(n, k)) == _sk_pairs(ms.KFold(k), n)


@pytest.mark.parametrize("n", [2, 3, 9])
def test_leave_one_out_and_leave_p_out_equal_sklearn(n):
    assert _pairs(sp.leave_one_out(n)) == _sk_pairs(ms.LeaveOneOut(), n)
    for p in range(1, n):
        assert _pairs(sp.leave_p_out(list(range(n)), p)) == _sk_pairs(ms.LeavePOut(p), n)


def test_query_leave_out_equals_sklearn_group_splitters():
    rng = np.random.default_rng(5)
    q = rng.choice(np.array(["q10", "q2", "q7", "q3", "q5"]), size=40)
    assert _pairs(sp.query_leave_one_out(q)) == _sk_pairs(ms.LeaveOneGroupOut(), 40, q)
    for p in (1, 2, 3):
        got = _pairs(sp.query_leave_p_out(q, p))
        assert got == _sk_pairs(ms.LeavePGroupsOut(p), 40, q)
    splits = list(sp.query_leave_one_out(q))
    assert [s.test_queries.tolist() for s in splits] == [[v] for v in sorted(set(q))]


def _assert_partition(splits, n):
    tests = np.concatenate([s.test for s in splits])
    assert np.array_equal(np.sort(tests), np.arange(n))  # every item tested exactly once
    for s in splits:
        assert np.array_equal(
            np.sort(np.concatenate([s.train, s.test, s.validation])), np.arange(n)
        )


@pytest.mark.parametrize("n,k", [(10, 3), (57, 5), (1000, 10)])
def test_shuffled_kfold_follows_default_rng_permutation(n, k):
    splits = sp.kfold(n, k, shuffle=True, seed=42)
    _assert_partition(splits, n)
    sizes = [len(s.test) for s in splits]
    assert max(sizes) - min(sizes) <= 1 and sizes == sorted(sizes, reverse=True)
    # specified algorithm: contiguous blocks of default_rng(seed).permutation(n)
    perm = np.random.default_rng(42).permutation(n)
    bounds = np.cumsum([0, *sizes])
    for i, s in enumerate(splits):
        assert np.array_equal(s.test, np.sort(perm[bounds[i] : bounds[i + 1]]))
    assert _pairs(sp.kfold(n, k, shuffle=True, seed=42)) == _pairs(splits)
    assert _pairs(sp.kfold(n, k, shuffle=True, seed=43)) != _pairs(splits)
    gen = np.random.default_rng(42)
    assert _pairs(sp.kfold(n, k, shuffle=True, seed=gen)) == _pairs(splits)


def test_stratified_kfold_balances_every_class():
    rng = np.random.default_rng(11)
    y = rng.choice(["a", "b", "c", "d"], p=[0.6, 0.25, 0.1, 0.05], size=203)
    splits = sp.kfold(203, 5, stratify=y, shuffle=True, seed=1)
    _assert_partition(splits, 203)
    sizes = [len(s.test) for s in splits]
    assert max(sizes) - min(sizes) <= 1
    for cls in "abcd":
        per_fold = [int(np.sum(y[s.test] == cls)) for s in splits]
        assert max(per_fold) - min(per_fold) <= 1, cls
    assert _pairs(sp.kfold(203, 5, stratify=y, shuffle=True, seed=1)) == _pairs(splits)


@pytest.mark.parametrize("n,size", [(10, 0.25), (101, 0.3), (50, 7), (3, 0.5)])
def test_train_test_split_sizes_match_sklearn(n, size):
    s = sp.train_test_split(n, size, seed=0)
    ref_train, ref_test = ms.train_test_split(np.arange(n), test_size=size, random_state=0)
    assert len(s.test) == len(ref_test) and len(s.train) == len(ref_train)
    assert np.array_equal(np.sort(np.concatenate([s.train, s.test])), np.arange(n))
    assert np.array_equal(s.test, sp.train_test_split(n, size, seed=0).test)
    unshuffled = sp.train_test_split(n, size, shuffle=False)
    ref = ms.train_test_split(np.arange(n), test_size=size, shuffle=False)
    assert unshuffled.train.tolist() == ref[0].tolist()
    assert unshuffled.test.tolist() == ref[1].tolist()


def test_stratified_train_test_split_keeps_proportions():
    rng = np.random.default_rng(2)
    y = rng.choice([0, 1, 2], p=[0.7, 0.2, 0.1], size=157)
    s = sp.train_test_split(157, 0.3, stratify=y, seed=9)
    assert len(s.test) == math.ceil(0.3 * 157)
    for c in (0, 1, 2):
        ideal = np.sum(y == c) * len(s.test) / 157
        assert abs(np.sum(y[s.test] == c) - ideal) < 1
    again = sp.train_test_split(157, 0.3, stratify=y, seed=9)
    assert np.array_equal(s.test, again.test)


query_arrays = st.lists(st.integers(0, 30), min_size=2, max_size=120).map(np.array)


@settings(max_examples=150, deadline=None)
@given(q=query_arrays, k=st.integers(2, 8), seed=st.integers(0, 2**32 - 1), val=st.booleans())
def test_query_kfold_never_splits_a_query_and_covers_each_once(q, k, seed, val):
    n_q = len(np.unique(q))
    k_min = 3 if val else 2
    if n_q < max(k, k_min):
        with pytest.raises((InputError, ParameterError)):
            sp.query_kfold(q, k, validation=val, shuffle=True, seed=seed)
        return
    k = max(k, k_min)
    splits = sp.query_kfold(q, k, validation=val, shuffle=True, seed=seed)
    assert len(splits) == k
    _assert_partition(splits, len(q))
    all_test_queries = np.concatenate([s.test_queries for s in splits])
    assert sorted(all_test_queries.tolist()) == sorted(set(q.tolist()))  # exactly once
    for s in splits:
        parts = [set(q[s.train]), set(q[s.test]), set(q[s.validation])]
        assert not (parts[0] & parts[1] or parts[0] & parts[2] or parts[1] & parts[2])
        assert set(q[s.test]) == set(s.test_queries.tolist())
        assert np.array_equal(s.test, np.flatnonzero(np.isin(q, s.test_queries)))
        assert np.array_equal(s.train, np.flatnonzero(np.isin(q, s.train_queries)))
        assert bool(len(s.validation)) == val
    sizes = [len(s.test_queries) for s in splits]
    assert max(sizes) - min(sizes) <= 1
    again = sp.query_kfold(q, k, validation=val, shuffle=True, seed=seed)
    assert _pairs(again) == _pairs(splits)


def test_query_kfold_letor_rotation():
    q = np.repeat(np.arange(1, 11), 3)  # 10 queries, 3 rows each, 5 folds like LETOR
    splits = sp.query_kfold(q, 5, validation=True)
    for i, s in enumerate(splits):
        assert s.test_queries.tolist() == [2 * i + 1, 2 * i + 2]
        nxt = (i + 1) % 5
        assert s.validation_queries.tolist() == [2 * nxt + 1, 2 * nxt + 2]
        assert len(s.train_queries) == 6


@settings(max_examples=60, deadline=None)
@given(q=query_arrays, size=st.floats(0.05, 0.95), seed=st.integers(0, 1000))
def test_query_train_test_split_keeps_queries_whole(q, size, seed):
    n_q = len(np.unique(q))
    if not 1 <= math.ceil(size * n_q) <= n_q - 1:
        with pytest.raises(ParameterError):
            sp.query_train_test_split(q, size, seed=seed)
        return
    s = sp.query_train_test_split(q, size, seed=seed)
    assert len(s.test_queries) == math.ceil(size * n_q)
    assert not set(q[s.train]) & set(q[s.test])
    assert len(s.train) + len(s.test) == len(q)


def test_evaluate_folds_with_per_query_values():
    q = np.repeat(["a", "b", "c", "d", "e", "f"], 4)
    values = {"a": 0.1, "b": 0.5, "c": 0.3, "d": 0.9, "e": 0.2, "f": 0.4, "unused": 7.0}
    splits = sp.query_kfold(q, 3)  # tests: {a,b}, {c,d}, {e,f}
    r = sp.evaluate_folds(splits, values)
    np.testing.assert_allclose(r.values, [0.3, 0.6, 0.3])
    assert r.mean == pytest.approx(0.4)
    assert r.std == pytest.approx(np.std([0.3, 0.6, 0.3]))
    assert (r.min, r.max) == (pytest.approx(0.3), pytest.approx(0.6))
    np.testing.assert_allclose(r.fold_std, [0.2, 0.3, 0.1])
    np.testing.assert_allclose(r.fold_min, [0.1, 0.3, 0.2])
    np.testing.assert_allclose(r.fold_max, [0.5, 0.9, 0.4])
    assert r.fold_sizes.tolist() == [2, 2, 2]
    r1 = sp.evaluate_folds(splits, values, ddof=1)
    assert r1.std == pytest.approx(np.std([0.3, 0.6, 0.3], ddof=1))
    assert r.as_dict()["values"] == pytest.approx([0.3, 0.6, 0.3])


def test_evaluate_folds_with_callable_gets_query_ids():
    q = np.array([3, 3, 1, 2, 2, 4])
    seen = []

    def score(train_ids, test_ids):
        seen.append((sorted(train_ids.tolist()), sorted(test_ids.tolist())))
        return float(np.sum(test_ids))

    r = sp.evaluate_folds(sp.query_kfold(q, 2), score)
    assert seen == [([3, 4], [1, 2]), ([1, 2], [3, 4])]
    np.testing.assert_allclose(r.values, [3.0, 7.0])
    assert r.mean == 5.0 and r.fold_std is None
    item_level = sp.evaluate_folds(sp.kfold(6, 3), lambda tr, te: len(tr))
    np.testing.assert_allclose(item_level.values, [4, 4, 4])


def test_evaluate_folds_errors():
    splits = sp.query_kfold(["a", "b", "c"], 3)
    with pytest.raises(InputError, match="no value for test id 'c'"):
        sp.evaluate_folds(splits, {"a": 1.0, "b": 2.0})
    with pytest.raises(ParameterError, match="score"):
        sp.evaluate_folds(splits, 3.0)
    with pytest.raises(InputError, match="expected a number"):
        sp.evaluate_folds(splits, lambda tr, te: "high")
    with pytest.raises(InputError, match="no folds"):
        sp.evaluate_folds([], {"a": 1.0})


@pytest.mark.parametrize(
    "call,exc",
    [
        (lambda: sp.kfold(5, 6), ParameterError),
        (lambda: sp.kfold(5, 1), ParameterError),
        (lambda: sp.kfold(1, 2), InputError),
        (lambda: sp.kfold(5, 2.0), ParameterError),
        (lambda: sp.kfold(-1, 2), ParameterError),
        (lambda: sp.kfold(5, 2, shuffle="yes"), ParameterError),
        (lambda: sp.kfold(5, 2, shuffle=True, seed=-3), ParameterError),
        (lambda: sp.train_test_split(5, 2, seed="abc"), ParameterError),
        (lambda: sp.kfold(4, 2, stratify=[0, 1, 0]), InputError),
        (lambda: sp.train_test_split(10, 1.5), ParameterError),
        (lambda: sp.train_test_split(10, 10), ParameterError),
        (lambda: sp.train_test_split(1, 0.5), ParameterError),
        (lambda: sp.train_test_split(4, 0.5, stratify=[0, None, 1, 1]), InputError),
        (lambda: list(sp.leave_p_out(4, 4)), ParameterError),
        (lambda: sp.query_kfold(["a", "a", "b"], 3), ParameterError),
        (lambda: sp.query_kfold(["a", "b", "c"], 3, validation=1), ParameterError),
    ],
)
def test_bad_parameters_and_inputs(call, exc):
    with pytest.raises(exc):
        call()


def test_fold_evaluation_of_a_cranfield_measure():
    """Query-level folds over the sample collection, scored with evaluate()."""
    import numpy as np

    import cranfield
    from cranfield import sample

    qrels, runs = sample.load()
    results = cranfield.evaluate(qrels, runs["bm25"], ["AP"])
    per_query = results.per_query("bm25", "AP")
    folds = sp.query_kfold(list(per_query), k=5, shuffle=True, seed=7)
    scores = sp.evaluate_folds(folds, per_query)
    expected = [np.mean([per_query[q] for q in f.test_queries]) for f in folds]
    assert np.allclose(scores.values, expected)
    assert scores.mean == pytest.approx(np.mean(expected))
    # every query is tested exactly once
    tested = sorted(q for f in folds for q in f.test_queries)
    assert tested == sorted(per_query)
