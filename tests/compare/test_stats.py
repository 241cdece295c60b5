"""Paired tests, effect sizes, intervals and corrections against SciPy and hand values."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import scipy.stats as ss

from cranfield.compare import stats as st
from cranfield.errors import InputError, ParameterError

ALTS = ("two-sided", "greater", "less")


def cases(count: int, max_n: int = 50, seed: int = 0):
    """Generated paired samples: continuous, discrete with ties, many zero differences."""
    rng = np.random.default_rng(seed)
    for k in range(count):
        n = int(rng.integers(1, max_n + 1))
        kind = k % 4
        if kind == 0:
            x, y = rng.random(n), rng.random(n)
        elif kind == 1:
            x, y = rng.integers(0, 4, n) / 4, rng.integers(0, 4, n) / 4
        elif kind == 2:
            x = rng.random(n)
            y = x.copy()
            m = rng.random(n) < 0.4
            y[m] += rng.integers(-2, 3, m.sum()) * 0.1
        else:
            x = rng.integers(0, 3, n).astype(float)
            y = x + rng.integers(-1, 2, n)
        yield x, y


def close(a, b, rtol=1e-9, atol=1e-12):
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))


@pytest.mark.filterwarnings("ignore")
def test_t_test_matches_scipy():
    for x, y in cases(300):
        for alt in ALTS:
            ref = ss.ttest_rel(x, y, alternative=alt)
            got = st.paired_t_test(x, y, alt)
            assert close(got.statistic, ref.statistic), (x, y, alt)
            assert close(got.pvalue, ref.pvalue), (x, y, alt)


def _wilcoxon_ref(x, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ss.wilcoxon(x, y, **kw)
        except ValueError:
            return None


def test_wilcoxon_matches_scipy_fast_paths():
    """Exact distribution (no ties/zeros) and normal approximation, every zero method."""
    checked = 0
    for x, y in cases(200, max_n=60, seed=1):
        d = x - y
        has_ties = np.unique(np.abs(d[d != 0])).size < np.count_nonzero(d)
        if d.size <= 13 and (has_ties or np.any(d == 0)):
            continue  # SciPy's permutation path is slow; covered below
        for alt in ALTS:
            for zm in ("wilcox", "pratt", "zsplit"):
                for corr in (False, True):
                    ref = _wilcoxon_ref(x, y, alternative=alt, zero_method=zm, correction=corr)
                    if ref is None:
                        continue
                    got = st.wilcoxon_test(x, y, alt, zm, corr)
                    assert close(got.statistic, ref.statistic), (d, alt, zm, corr)
                    assert close(got.pvalue, ref.pvalue), (d, alt, zm, corr)
                    checked += 1
    assert checked > 1500


def test_wilcoxon_matches_scipy_small_samples_with_ties_and_zeros():
    x13, y13 = [1, 2, 2, 0, 3, 1, 1, 0, 2, 2, 1, 0, 1], [1] * 13
    assert close(st.wilcoxon_test(x13, y13).pvalue, _wilcoxon_ref(x13, y13).pvalue)
    samples = [
        ([0.5, 0.5, 0.25, 0.75, 0.0], [0.25, 0.5, 0.5, 0.25, 0.0]),
        ([1, 1, 1], [1, 1, 1]),
        ([0.3, 0.1, 0.2, 0.2, 0.9, 0.4], [0.1, 0.3, 0.0, 0.4, 0.5, 0.4]),
    ]
    for x, y in samples:
        for alt in ALTS:
            for zm in ("wilcox", "zsplit"):
                ref = _wilcoxon_ref(x, y, alternative=alt, zero_method=zm)
                got = st.wilcoxon_test(x, y, alt, zm)
                assert got.method == "exact"
                assert close(got.statistic, ref.statistic)
                assert close(got.pvalue, ref.pvalue), (x, y, alt, zm)


def test_wilcoxon_all_zero_differences():
    assert st.wilcoxon_test([1.0] * 5, [1.0] * 5).pvalue == 1.0  # exact path, as SciPy
    assert math.isnan(st.wilcoxon_test([1.0] * 20, [1.0] * 20).pvalue)


def test_sign_test_matches_binomtest():
    for x, y in cases(200, seed=2):
        d = x - y
        k, m = int(np.sum(d > 0)), int(np.sum(d != 0))
        for alt in ALTS:
            got = st.sign_test(x, y, alt)
            if m == 0:
                assert got.pvalue == 1.0 and got.n == 0
                continue
            ref = ss.binomtest(k, m, 0.5, alternative=alt)
            assert got.statistic == k and got.n == m
            assert close(got.pvalue, ref.pvalue, rtol=1e-7)


def test_randomization_exact_matches_scipy_permutation_test():
    rng = np.random.default_rng(3)
    for n in range(2, 11):
        x, y = rng.integers(0, 5, n) / 4, rng.integers(0, 5, n) / 4
        d = x - y
        for alt in ALTS:
            ref = ss.permutation_test(
                (d,), np.mean, permutation_type="samples", n_resamples=np.inf, alternative=alt
            )
            got = st.randomization_test(x, y, alternative=alt)
            assert got.method == "exact"
            assert close(got.pvalue, ref.pvalue), (d, alt)
            assert close(got.statistic, d.mean())


def test_randomization_exact_matches_brute_force_enumeration():
    rng = np.random.default_rng(4)
    x, y = rng.random(12), rng.random(12)
    d = x - y
    obs = abs(d.mean())
    signs = np.array(np.meshgrid(*[[-1, 1]] * 12)).reshape(12, -1).T
    brute = np.mean(np.abs(signs @ d / 12) >= obs - 1e-12)
    assert close(st.randomization_test(x, y).pvalue, brute)


def test_randomization_monte_carlo_agrees_with_exact_and_is_reproducible():
    rng = np.random.default_rng(5)
    for n in (8, 14, 18):
        x, y = rng.random(n), rng.random(n) * 0.9
        exact = st.randomization_test(x, y, exact=True).pvalue
        mc = st.randomization_test(x, y, n_permutations=20000, seed=11, exact=False)
        assert mc.method == "monte-carlo"
        se = math.sqrt(exact * (1 - exact) / 20000)
        assert abs(mc.pvalue - exact) < 4 * se + 1e-4
        again = st.randomization_test(x, y, n_permutations=20000, seed=11, exact=False)
        assert again.pvalue == mc.pvalue
    big_x, big_y = rng.random(60), rng.random(60)
    a = st.randomization_test(big_x, big_y, n_permutations=3000, seed=1).pvalue
    b = st.randomization_test(big_x, big_y, n_permutations=3000, seed=2).pvalue
    assert a == st.randomization_test(big_x, big_y, n_permutations=3000, seed=1).pvalue
    assert a != b  # the seed matters


def test_randomization_p_is_never_zero_and_at_least_exact_minimum():
    x = np.ones(40)
    y = np.zeros(40)
    p = st.randomization_test(x, y, n_permutations=999, seed=0).pvalue
    assert p == 1 / 1000
    assert st.randomization_test(np.ones(5), np.zeros(5)).pvalue == 2 / 32


def test_bootstrap_ci_is_scipy_bootstrap_percentile():
    rng = np.random.default_rng(6)
    for n in (2, 5, 17, 40):
        x, y = rng.random(n), rng.random(n)
        for conf in (0.9, 0.95):
            ref = ss.bootstrap(
                (x, y),
                lambda a, b, axis=-1: np.mean(a - b, axis=axis),
                paired=True,
                vectorized=True,
                method="percentile",
                confidence_level=conf,
                n_resamples=5000,
                batch=st.CHUNK,
                rng=np.random.default_rng(42),
            )
            got = st.mean_difference_ci(x, y, conf, "bootstrap", 5000, 42)
            assert close(got, (ref.confidence_interval.low, ref.confidence_interval.high))


def test_bootstrap_test_behaviour():
    rng = np.random.default_rng(7)
    x = rng.random(30)
    same = st.bootstrap_test(x, x + rng.normal(0, 1e-3, 30), seed=3)
    shifted = st.bootstrap_test(x + 0.3, x + rng.normal(0, 0.05, 30), seed=3)
    assert shifted.pvalue < 0.01 and same.pvalue > 0.05
    assert shifted.pvalue == 1 / 10001
    assert (
        st.bootstrap_test(x, x[::-1], seed=9).pvalue == st.bootstrap_test(x, x[::-1], seed=9).pvalue
    )
    for stat in ("t", "mean"):
        p_two = st.bootstrap_test(x, x[::-1], seed=1, statistic=stat).pvalue
        p_g = st.bootstrap_test(x, x[::-1], seed=1, statistic=stat, alternative="greater").pvalue
        p_l = st.bootstrap_test(x, x[::-1], seed=1, statistic=stat, alternative="less").pvalue
        assert 0 < p_two <= 1 and abs((p_g + p_l) - 1) < 0.01
    assert math.isnan(st.bootstrap_test([1.0], [0.0]).pvalue)


def test_bootstrap_test_agrees_with_t_test_on_normal_data():
    rng = np.random.default_rng(8)
    for _ in range(5):
        d = rng.normal(0.2, 1, 40)
        p_t = st.paired_t_test(d, np.zeros(40)).pvalue
        p_b = st.bootstrap_test(d, np.zeros(40), n_resamples=20000, seed=0).pvalue
        assert abs(p_t - p_b) < 0.05


def test_cohens_d_and_t_interval_hand_cases():
    # d = (1, 2, 3): mean 2, sd 1 -> d_z = 2; t(0.975, 2) = 4.302653 -> 2 +- 4.302653/sqrt(3)
    x, y = [2.0, 4.0, 6.0], [1.0, 2.0, 3.0]
    assert st.cohens_d(x, y) == pytest.approx(2.0)
    low, high = st.mean_difference_ci(x, y)
    assert low == pytest.approx(2 - 4.302653 / math.sqrt(3), abs=1e-6)
    assert high == pytest.approx(2 + 4.302653 / math.sqrt(3), abs=1e-6)
    # d = (0.1, 0.3): mean 0.2, sd 0.141421 -> d = sqrt(2); t(0.95, 1) = 6.313752
    assert st.cohens_d([0.6, 0.8], [0.5, 0.5]) == pytest.approx(math.sqrt(2))
    low, high = st.mean_difference_ci([0.6, 0.8], [0.5, 0.5], confidence=0.9)
    assert (low + high) / 2 == pytest.approx(0.2)
    assert high - low == pytest.approx(2 * 6.313752 * 0.1, abs=1e-6)
    assert math.isnan(st.cohens_d([1.0], [0.0]))
    assert math.isnan(st.cohens_d([1.0, 2.0], [1.0, 2.0]))
    assert st.cohens_d([2.0, 3.0], [1.0, 2.0]) == math.inf
    assert all(math.isnan(v) for v in st.mean_difference_ci([1.0], [0.0]))


def test_tukey_oneway_matches_scipy():
    rng = np.random.default_rng(9)
    for k, n in ((2, 2), (3, 7), (5, 30), (8, 10)):
        m = rng.random((k, n)) + rng.random(k)[:, None] * 0.3
        ref = ss.tukey_hsd(*m)
        got = st.tukey_hsd(m, design="oneway")
        assert close(got.statistic, ref.statistic)
        assert close(got.pvalue, ref.pvalue, rtol=1e-7, atol=1e-10)


def test_tukey_twoway_removes_the_query_effect():
    rng = np.random.default_rng(10)
    k, n = 4, 25
    m = rng.random((k, n)) * 0.2 + np.array([0, 0.02, 0.05, 0.1])[:, None]
    topic = rng.random(n) * 5  # a huge per-query effect shared by all runs
    two = st.tukey_hsd(m + topic)
    # residual mean square of the two-way design equals the one-way mean square of the
    # query-centred data rescaled to the two-way degrees of freedom
    centred = m + topic - (m + topic).mean(axis=0)
    one = ss.tukey_hsd(*centred)
    assert close(two.statistic, one.statistic)
    mse_one = one._stand_err**2 * n
    assert close(two.std_err**2 * n * (k - 1) * (n - 1), mse_one * k * (n - 1))
    q = np.abs(two.statistic) / two.std_err
    assert close(two.pvalue, ss.studentized_range.sf(q, k, (k - 1) * (n - 1)), rtol=1e-7)
    assert two.df == (k - 1) * (n - 1)
    # invariance to the query effect, and more power than the one-way design here
    assert close(two.pvalue, st.tukey_hsd(m, design="twoway").pvalue, rtol=1e-8)
    assert two.pvalue[3, 0] < st.tukey_hsd(m + topic, design="oneway").pvalue[3, 0]


def test_corrections_hand_cases_and_scipy_bh():
    p = np.array([0.01, 0.04, 0.03, 0.005])
    assert close(st.adjust_pvalues(p, "bonferroni"), [0.04, 0.16, 0.12, 0.02])
    # Holm: sorted 0.005*4=0.02, 0.01*3=0.03, 0.03*2=0.06, 0.04*1 -> max(0.06, 0.04)=0.06
    assert close(st.adjust_pvalues(p, "holm"), [0.03, 0.06, 0.06, 0.02])
    # BH: sorted 0.005*4/1=0.02, 0.01*4/2=0.02, 0.03*4/3=0.04, 0.04*4/4=0.04
    assert close(st.adjust_pvalues(p, "bh"), [0.02, 0.04, 0.04, 0.02])
    assert close(st.adjust_pvalues(p, "none"), p)
    rng = np.random.default_rng(11)
    for _ in range(200):
        q = rng.random(int(rng.integers(1, 30))) ** 3
        if rng.random() < 0.3:
            q[: q.size // 2] = q[0]  # ties
        assert close(st.adjust_pvalues(q, "bh"), ss.false_discovery_control(q, method="bh"))
        holm = st.adjust_pvalues(q, "holm")
        # definition: step-down, monotone in p, never below the raw p, at most 1
        order = np.argsort(q)
        assert np.all(np.diff(holm[order]) >= -1e-15)
        assert np.all(holm >= q - 1e-15) and np.all(holm <= 1)
        m = q.size
        ref = [max(min(1.0, (m - j) * q[order][j]) for j in range(i + 1)) for i in range(m)]
        assert close(holm[order], ref)
    with_nan = st.adjust_pvalues([0.01, np.nan, 0.02], "bonferroni")
    assert close(with_nan, [0.02, np.nan, 0.04])


def test_bad_input_and_parameters():
    with pytest.raises(InputError):
        st.paired_t_test([1.0, 2.0], [1.0])
    with pytest.raises(InputError):
        st.wilcoxon_test([], [])
    with pytest.raises(InputError):
        st.sign_test([np.nan, 1.0], [0.0, 0.0])
    with pytest.raises(ParameterError, match="alternative"):
        st.paired_t_test([1.0, 2.0], [0.0, 1.0], "bigger")
    with pytest.raises(ParameterError, match="seed"):
        st.randomization_test([1.0, 2.0], [0.0, 1.0], seed=-1)
    with pytest.raises(ParameterError, match="n_permutations"):
        st.randomization_test([1.0, 2.0], [0.0, 1.0], n_permutations=0)
    with pytest.raises(ParameterError, match="correction"):
        st.adjust_pvalues([0.1], "fdr")
    with pytest.raises(ParameterError, match="confidence"):
        st.mean_difference_ci([1.0, 2.0], [0.0, 1.0], confidence=95)
    with pytest.raises(InputError):
        st.tukey_hsd(np.ones((1, 5)))
