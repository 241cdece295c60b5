"""Clustering measures: the IIR textbook example and differential tests vs scikit-learn."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm
from sklearn.metrics.cluster import contingency_matrix, pair_confusion_matrix

from cranfield import clustering as cl
from cranfield.errors import InputError, ParameterError

# Manning, Raghavan & Schütze, Introduction to IR, fig. 16.4 / seed 004: 17 points,
# cluster 1 = 5 x + 1 o, cluster 2 = 1 x + 4 o + 1 ◇, cluster 3 = 2 x + 3 ◇.
IIR_TRUTH = ["x"] * 5 + ["o"] + ["x"] + ["o"] * 4 + ["d"] + ["x"] * 2 + ["d"] * 3
IIR_CLUSTERS = [1] * 6 + [2] * 6 + [3] * 5


def test_iir_textbook_example_published_values():
    s = cl.evaluate_clustering(IIR_TRUTH, IIR_CLUSTERS, beta=5)
    assert round(s.purity, 2) == 0.71
    assert round(s.nmi, 2) == 0.36
    assert round(s.rand_index, 2) == 0.68
    assert round(s.f_beta, 2) == 0.46
    # IIR ch. 16.3 pair counts: TP = 20, FP = 20, FN = 24, TN = 72.
    assert (s.tp, s.fp, s.fn, s.tn) == (20, 20, 24, 72)
    assert s.purity == pytest.approx(12 / 17)
    assert s.rand_index == pytest.approx(92 / 136)
    assert s.precision == pytest.approx(0.5)
    assert s.recall == pytest.approx(20 / 44)


def test_iir_function_api_matches_scores_object():
    assert cl.purity(IIR_TRUTH, IIR_CLUSTERS) == pytest.approx(12 / 17)
    assert cl.rand_index(IIR_TRUTH, IIR_CLUSTERS) == pytest.approx(92 / 136)
    assert cl.pair_counts(IIR_TRUTH, IIR_CLUSTERS) == (20, 20, 24, 72)
    assert cl.pair_f_beta(IIR_TRUTH, IIR_CLUSTERS, beta=5) == pytest.approx(520 / 1140)
    assert cl.pair_f_beta(IIR_TRUTH, IIR_CLUSTERS) == pytest.approx(40 / 84)
    assert cl.normalized_mutual_information(IIR_TRUTH, IIR_CLUSTERS) == pytest.approx(
        0.3646, abs=1e-4
    )


def _gen_cases():
    rng = np.random.default_rng(20261121)
    cases = []
    for _ in range(60):
        n = int(rng.integers(1, 80))
        t = rng.integers(0, int(rng.integers(1, 8)), n)
        p = rng.integers(0, int(rng.integers(1, 12)), n)
        cases.append((t, p))
    for n in (1, 2, 3, 17, 50):
        ones, singles = np.zeros(n, int), np.arange(n)
        cases += [(ones, ones), (ones, singles), (singles, ones), (singles, singles)]
        cases.append((singles, rng.permutation(n)))
    t = rng.integers(0, 5, 40)
    cases.append((t, t[::-1].copy()))
    cases.append((t, (t + 1) % 5))  # same partition, renamed clusters
    cases.append((t, np.full(40, 7)))
    return cases


CASES = _gen_cases()


@pytest.mark.parametrize("t,p", CASES)
def test_agrees_with_sklearn(t, p):
    s = cl.evaluate_clustering(t, p)
    ct = s.contingency
    np.testing.assert_array_equal(ct.dense(), contingency_matrix(t, p))
    assert s.mutual_information == pytest.approx(skm.mutual_info_score(t, p), abs=1e-12)
    assert s.rand_index == pytest.approx(skm.rand_score(t, p), abs=1e-12)
    assert s.adjusted_rand_index == pytest.approx(skm.adjusted_rand_score(t, p), abs=1e-12)
    (tn2, fp2), (fn2, tp2) = pair_confusion_matrix(t, p)
    assert (s.tp, s.fp, s.fn, s.tn) == (tp2 // 2, fp2 // 2, fn2 // 2, tn2 // 2)
    for method in cl.AVERAGE_METHODS:
        ours = ct.normalized_mutual_information(method)
        ref = skm.normalized_mutual_info_score(t, p, average_method=method)
        assert ours == pytest.approx(ref, abs=1e-10), method
    h_ref = skm.mutual_info_score(t, t)  # H(C) = I(C; C)
    assert s.entropy_truth == pytest.approx(h_ref, abs=1e-12)
    assert cl.entropy(p) == pytest.approx(skm.mutual_info_score(p, p), abs=1e-12)
    # purity: each cluster takes its majority class; inverse purity swaps roles
    table = contingency_matrix(t, p)
    assert s.purity == pytest.approx(table.max(axis=0).sum() / len(t))
    assert s.inverse_purity == pytest.approx(table.max(axis=1).sum() / len(t))


@pytest.mark.parametrize("t,p", [c for c in CASES if 2 <= len(c[0]) <= 30])
@pytest.mark.parametrize("beta", [0.5, 1.0, 5.0])
def test_pair_f_agrees_with_sklearn_on_explicit_pairs(t, p, beta):
    pairs = np.array(list(itertools.combinations(range(len(t)), 2)), dtype=int).reshape(-1, 2)
    same_class = t[pairs[:, 0]] == t[pairs[:, 1]]
    same_cluster = p[pairs[:, 0]] == p[pairs[:, 1]]
    s = cl.evaluate_clustering(t, p, beta=beta)
    kw = {"zero_division": 0.0}
    assert s.precision == pytest.approx(skm.precision_score(same_class, same_cluster, **kw))
    assert s.recall == pytest.approx(skm.recall_score(same_class, same_cluster, **kw))
    assert s.f_beta == pytest.approx(
        skm.fbeta_score(same_class, same_cluster, beta=beta, **kw), abs=1e-12
    )


def test_single_item_has_no_pairs():
    s = cl.evaluate_clustering(["a"], [9], zero_division=1.0)
    assert (s.tp, s.fp, s.fn, s.tn) == (0, 0, 0, 0)
    assert s.rand_index == 1.0 and s.adjusted_rand_index == 1.0 and s.nmi == 1.0
    assert s.precision == s.recall == s.f_beta == 1.0


def test_string_and_mixed_labels_match_integer_codes():
    rng = np.random.default_rng(7)
    t = rng.integers(0, 4, 60)
    p = rng.integers(0, 6, 60)
    names = np.array(["alpha", "beta", "gamma", "delta"])
    ref = cl.evaluate_clustering(t, p).as_dict()
    variants = [
        (names[t], p),
        (list(names[t]), [f"c{v}" for v in p]),
        (pa.array(names[t]), pa.chunked_array([pa.array(p)])),
        ([("t", int(v)) for v in t], [1 if v == 0 else f"k{v}" for v in p]),  # tuples / mixed
        (names[t].astype(object), p.astype(float)),
        (pd.Series(names[t], dtype="category"), pd.Series(p)),
    ]
    for tv, pv in variants:
        got = cl.evaluate_clustering(tv, pv).as_dict()
        for key, value in ref.items():
            assert got[key] == pytest.approx(value), key


def test_contingency_labels_are_sorted_when_orderable():
    ct = cl.contingency_table(IIR_TRUTH, IIR_CLUSTERS)
    assert list(ct.classes) == ["d", "o", "x"]
    assert list(ct.clusters) == [1, 2, 3]
    np.testing.assert_array_equal(ct.dense(), [[0, 1, 3], [1, 4, 0], [5, 1, 2]])
    assert ct.n == 17 and ct.shape == (3, 3)


def test_all_singletons_large_is_sparse():
    n = 200_000
    s = cl.evaluate_clustering(np.arange(n), np.arange(n)[::-1].copy())
    assert s.purity == 1.0 and s.nmi == pytest.approx(1.0) and s.adjusted_rand_index == 1.0
    assert len(s.contingency.counts) == n
    # no same-cluster pairs: precision undefined -> zero_division
    assert s.precision == 0.0
    assert cl.pair_precision(np.arange(5), np.arange(5), zero_division=1.0) == 1.0
    assert math.isnan(cl.pair_precision(np.arange(5), np.arange(5), zero_division=float("nan")))


def test_ari_exact_on_large_inputs_without_overflow():
    rng = np.random.default_rng(3)
    t = rng.integers(0, 3, 300_000)
    p = np.where(rng.random(300_000) < 0.9, t, rng.integers(0, 3, 300_000))
    assert cl.adjusted_rand_index(t, p) == pytest.approx(skm.adjusted_rand_score(t, p), abs=1e-12)


@pytest.mark.parametrize(
    "t,p,match",
    [
        ([1, 2, 3], [1, 2], "truth has 3 labels but assignment has 2"),
        ([], [], "no items"),
        ([1, None, 2], [1, 1, 1], "position 1 is missing"),
        (np.array([1.0, np.nan]), [1, 2], "position 1 is missing"),
        ([1, 2], [[1], [2]], "hashable"),
        ("abc", "abc", "sequence of labels"),
        (np.zeros((2, 2)), [1, 2], "1-D"),
        (pa.array(["a", None]), ["a", "b"], "position 1 is missing"),
    ],
)
def test_bad_input_raises_input_error(t, p, match):
    with pytest.raises(InputError, match=match):
        cl.evaluate_clustering(t, p)


def test_bad_parameters():
    with pytest.raises(ParameterError, match="average_method"):
        cl.normalized_mutual_information([1, 2], [1, 2], average_method="mean")
    for beta in (0, -1, float("inf"), "5", True):
        with pytest.raises(ParameterError, match="beta"):
            cl.evaluate_clustering([1, 2], [1, 2], beta=beta)
    with pytest.raises(ParameterError, match="zero_division"):
        cl.pair_recall([1, 2], [1, 2], zero_division=2)


def test_does_not_mutate_inputs():
    t = np.array([3, 1, 2, 1])
    p = np.array([0, 0, 1, 1])
    before = (t.copy(), p.copy())
    cl.evaluate_clustering(t, p)
    np.testing.assert_array_equal(t, before[0])
    np.testing.assert_array_equal(p, before[1])


labelings = st.integers(1, 60).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 6), min_size=n, max_size=n),
        st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), min_size=n, max_size=n),
    )
)


@settings(max_examples=100, deadline=None)
@given(pair=labelings)
def test_invariants(pair):
    t, p = pair
    s = cl.evaluate_clustering(t, p)
    swapped = cl.evaluate_clustering(p, t)
    # symmetric measures; purity and inverse purity swap with the roles
    for key in ("mutual_information", "nmi", "rand_index", "adjusted_rand_index"):
        assert getattr(s, key) == pytest.approx(getattr(swapped, key), abs=1e-12)
    assert s.purity == pytest.approx(swapped.inverse_purity)
    assert (s.tp, s.fp, s.fn, s.tn) == (swapped.tp, swapped.fn, swapped.fp, swapped.tn)
    # renaming clusters changes nothing
    renamed = cl.evaluate_clustering(t, [f"cluster-{v}" for v in p])
    assert renamed.as_dict() == s.as_dict()
    assert 0.0 <= s.nmi <= 1.0 + 1e-12 and 0.0 < s.purity <= 1.0
    assert s.tp + s.fp + s.fn + s.tn == len(t) * (len(t) - 1) // 2
    ref = pd.Series(t).groupby(pd.Series(p)).agg(lambda x: x.value_counts().iloc[0]).sum()
    assert s.purity == pytest.approx(ref / len(t))


# ---------------------------------------------------- AMI, homogeneity, V, Fowlkes-Mallows


@pytest.mark.parametrize("t,p", CASES)
def test_ami_hcv_fowlkes_mallows_agree_with_sklearn(t, p):
    s = cl.evaluate_clustering(t, p)
    ct = s.contingency
    assert s.ami == pytest.approx(skm.adjusted_mutual_info_score(t, p), abs=1e-10)
    for method in cl.AVERAGE_METHODS:
        ref = skm.adjusted_mutual_info_score(t, p, average_method=method)
        assert ct.adjusted_mutual_information(method) == pytest.approx(ref, abs=1e-10), method
    h, c, v = skm.homogeneity_completeness_v_measure(t, p)
    assert (s.homogeneity, s.completeness, s.v_measure) == pytest.approx((h, c, v), abs=1e-12)
    for beta in (0.5, 2.0):
        ref = skm.homogeneity_completeness_v_measure(t, p, beta=beta)
        assert ct.homogeneity_completeness_v_measure(beta) == pytest.approx(ref, abs=1e-12)
    assert s.fowlkes_mallows == pytest.approx(skm.fowlkes_mallows_score(t, p), abs=1e-12)


def _random_labelings(seed: int, count: int):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(1, 400))
        k1, k2 = int(rng.integers(1, 30)), int(rng.integers(1, 60))
        # skewed sizes: a few big classes and many small ones, as real clusterings have
        t = np.minimum(rng.geometric(0.3, n), k1)
        p = rng.integers(0, k2, n) if rng.random() < 0.5 else np.minimum(rng.geometric(0.1, n), k2)
        yield t, p


def test_ami_on_many_random_labelings():
    for t, p in _random_labelings(7, 150):
        method = cl.AVERAGE_METHODS[len(t) % 4]
        ours = cl.adjusted_mutual_information(t, p, method)
        assert ours == pytest.approx(
            skm.adjusted_mutual_info_score(t, p, average_method=method), abs=1e-10
        )
        emi = cl.expected_mutual_information(np.bincount(t)[np.bincount(t) > 0], np.bincount(p))
        assert emi >= -1e-15


@pytest.mark.parametrize("n", [1, 2, 3, 10, 257])
def test_degenerate_labelings(n):
    one, singles = np.zeros(n, int), np.arange(n)
    for t, p in ((one, one), (one, singles), (singles, one), (singles, singles)):
        s = cl.evaluate_clustering(t, p)
        assert s.ami == pytest.approx(skm.adjusted_mutual_info_score(t, p), abs=1e-10)
        assert (s.homogeneity, s.completeness, s.v_measure) == pytest.approx(
            skm.homogeneity_completeness_v_measure(t, p), abs=1e-12
        )
        assert s.fowlkes_mallows == skm.fowlkes_mallows_score(t, p)


def test_ami_large_input_against_sklearn():
    """10^5 items, one side all singletons: expected MI over ~10^5 size pairs."""
    rng = np.random.default_rng(11)
    t = rng.integers(0, 300, 100_000)
    p = rng.permutation(100_000) // 3  # clusters of three
    ours = cl.adjusted_mutual_information(t, p)
    assert ours == pytest.approx(skm.adjusted_mutual_info_score(t, p), abs=1e-8)


def test_log_factorial_matches_lgamma():
    k = np.r_[np.arange(0, 200), np.array([10**3, 10**5, 10**7, 10**9])]
    ref = np.array([math.lgamma(x + 1.0) for x in k])
    np.testing.assert_allclose(cl._log_factorial(k), ref, rtol=1e-14, atol=1e-14)


def test_iir_example_new_measures():
    s = cl.evaluate_clustering(IIR_TRUTH, IIR_CLUSTERS)
    # Fowlkes-Mallows = sqrt(precision * recall) = sqrt(0.5 * 20/44)
    assert s.fowlkes_mallows == pytest.approx(math.sqrt(0.5 * 20 / 44))
    # V-measure with beta = 1 is NMI with the arithmetic mean
    assert s.v_measure == pytest.approx(s.nmi)
