"""A/B statistics against SciPy and statsmodels, and the identities behind the delta
method and CUPED."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from cranfield.errors import InputError, ParameterError
from cranfield.online import (
    bootstrap_ci,
    cuped,
    mann_whitney,
    power,
    ratio_delta,
    sample_ratio_mismatch,
    sample_size,
    welch,
)


def samples(seed):
    rng = np.random.default_rng(seed)
    na, nb = rng.integers(2, 60, 2)
    kind = seed % 3
    if kind == 0:
        return rng.normal(0, 1, na), rng.normal(0.3, 2, nb)
    if kind == 1:  # many ties
        return rng.integers(0, 4, na).astype(float), rng.integers(0, 5, nb).astype(float)
    return rng.exponential(1, na), rng.exponential(1.4, nb)


@pytest.mark.parametrize("seed", range(30))
def test_welch_against_scipy(seed):
    a, b = samples(seed)
    got = welch(a, b, confidence=0.9)
    ref = stats.ttest_ind(b, a, equal_var=False)
    if np.isnan(ref.statistic):
        assert np.isnan(got["statistic"])
        return
    assert got["statistic"] == pytest.approx(ref.statistic, rel=1e-10)
    assert got["p_value"] == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-15)
    assert got["df"] == pytest.approx(ref.df, rel=1e-10)
    low, high = ref.confidence_interval(0.9)
    assert got["ci"] == pytest.approx([low, high], rel=1e-9)


@pytest.mark.parametrize("seed", range(30))
def test_mann_whitney_against_scipy(seed):
    a, b = samples(seed)
    got = mann_whitney(a, b)
    ref = stats.mannwhitneyu(b, a, alternative="two-sided", method="asymptotic")
    assert got["statistic"] == pytest.approx(ref.statistic)
    if np.isnan(ref.pvalue):
        assert np.isnan(got["p_value"])
    else:
        assert got["p_value"] == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("seed", range(30))
def test_mann_whitney_z_has_the_sign_of_the_difference(seed):
    # SciPy's one-sided tests give the signed statistic: p_greater = sf(z) when b
    # tends to be larger, p_less = sf(-z) when it tends to be smaller
    a, b = samples(seed)
    got = mann_whitney(a, b)
    if np.isnan(got["z"]):
        return
    greater = stats.mannwhitneyu(b, a, alternative="greater", method="asymptotic").pvalue
    less = stats.mannwhitneyu(b, a, alternative="less", method="asymptotic").pvalue
    mu = a.size * b.size / 2
    if got["statistic"] > mu + 0.5:
        assert got["z"] == pytest.approx(stats.norm.isf(greater), rel=1e-9)
    elif got["statistic"] < mu - 0.5:
        assert got["z"] == pytest.approx(-stats.norm.isf(less), rel=1e-9)
    else:
        assert got["z"] == 0
    assert np.sign(got["z"]) in (0, np.sign(welch(a, b)["difference"]), np.sign(got["difference"]))


def test_mann_whitney_z_is_negative_when_the_treatment_is_lower():
    # the case: Welch t < 0 and z > 0 on the same data
    rng = np.random.default_rng(3)
    a, b = rng.normal(1, 1, 200), rng.normal(0.7, 1, 200)
    assert welch(a, b)["statistic"] < 0
    assert mann_whitney(a, b)["z"] < 0
    assert mann_whitney(b, a)["z"] == -mann_whitney(a, b)["z"]


@pytest.mark.parametrize("seed", range(30))
def test_mann_whitney_hodges_lehmann_shift_and_interval(seed):
    a, b = samples(seed)
    got = mann_whitney(a, b, confidence=0.9)
    d = np.sort(np.subtract.outer(b, a).ravel())
    assert got["estimate"] == "hodges-lehmann"
    assert got["difference"] == pytest.approx(np.median(d), abs=1e-12)
    low, high = got["ci"]
    if np.isnan(low):
        return
    assert low <= got["difference"] <= high
    if seed % 3 == 1:  # ties: the shifted samples tie differently; the order statistics
        assert low in d and high in d
        return

    # continuous data: the interval is the set of shifts that SciPy's test (normal
    # approximation, no continuity correction) does not reject at 10 %
    def p(shift):
        return stats.mannwhitneyu(b - shift, a, method="asymptotic", use_continuity=False).pvalue

    i, j = np.searchsorted(d, low), np.searchsorted(d, high)
    if i > 0:
        assert p((d[i - 1] + d[i]) / 2) < 0.1
    assert p((d[i] + d[i + 1]) / 2) >= 0.1
    if j + 1 < d.size:
        assert p((d[j] + d[j + 1]) / 2) < 0.1
    assert p((d[j - 1] + d[j]) / 2) >= 0.1


def test_hodges_lehmann_interval_covers_the_shift():
    rng = np.random.default_rng(0)
    covered = 0
    for _ in range(400):
        a, b = rng.standard_t(3, 25), rng.standard_t(3, 30) + 0.5
        low, high = mann_whitney(a, b)["ci"]
        covered += low <= 0.5 <= high
    assert 0.92 <= covered / 400 <= 0.98


def test_large_samples_find_the_order_statistics_by_bisection(monkeypatch):
    from cranfield.online import abtest

    rng = np.random.default_rng(1)
    a, b = rng.normal(0, 1, 300), rng.exponential(1, 400)
    exact = mann_whitney(a, b)
    monkeypatch.setattr(abtest, "PAIRS_IN_MEMORY", 100)
    bisected = mann_whitney(a, b)
    assert bisected["difference"] == pytest.approx(exact["difference"], rel=1e-15, abs=1e-15)
    assert bisected["ci"] == pytest.approx(exact["ci"], rel=1e-15, abs=1e-15)


@pytest.mark.parametrize("seed", range(10))
def test_srm_against_scipy(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 5))
    counts = rng.integers(50, 5000, k)
    share = rng.uniform(0.5, 2, k)
    got = sample_ratio_mismatch(counts, share)
    ref = stats.chisquare(counts, counts.sum() * share / share.sum())
    assert got["statistic"] == pytest.approx(ref.statistic, rel=1e-10)
    assert got["p_value"] == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-300)
    assert sample_ratio_mismatch([500, 500])["p_value"] == pytest.approx(1.0)


@pytest.mark.parametrize("d", [0.1, 0.35, -0.8])
@pytest.mark.parametrize("ratio", [1.0, 2.5])
def test_power_against_statsmodels(d, ratio):
    from statsmodels.stats.power import TTestIndPower

    sm = TTestIndPower()
    assert power(d, 120, 0.05, ratio) == pytest.approx(
        sm.power(d, nobs1=120, alpha=0.05, ratio=ratio), rel=1e-7
    )
    n = sample_size(d, 0.05, 0.8, ratio)
    ref = sm.solve_power(effect_size=d, nobs1=None, alpha=0.05, power=0.8, ratio=ratio)
    assert n == pytest.approx(ref, rel=1e-5)
    assert power(d, n, 0.05, ratio) == pytest.approx(0.8, abs=1e-9)


def test_delta_method_is_the_variance_of_the_linearised_units():
    rng = np.random.default_rng(1)
    den_a, den_b = rng.integers(1, 20, 400), rng.integers(1, 20, 500)
    num_a = rng.binomial(den_a, 0.10)
    num_b = rng.binomial(den_b, 0.12)
    got = ratio_delta(num_a, den_a, num_b, den_b)
    var = 0.0
    for num, den in ((num_a, den_a), (num_b, den_b)):
        r = num.sum() / den.sum()
        lin = (num - r * den) / den.mean()  # first-order Taylor expansion per unit
        var += lin.var(ddof=1) / len(num)
    assert got["se"] == pytest.approx(np.sqrt(var), rel=1e-10)
    assert got["mean_control"] == pytest.approx(num_a.sum() / den_a.sum())
    assert got["difference"] == pytest.approx(num_b.sum() / den_b.sum() - num_a.sum() / den_a.sum())
    z = got["difference"] / got["se"]
    assert got["p_value"] == pytest.approx(2 * stats.norm.sf(abs(z)))


def test_delta_method_covers_the_true_ctr_difference():
    """Over many simulated experiments with per-user CTR heterogeneity, the 95%
    interval covers the true difference about 95% of the time."""
    rng = np.random.default_rng(7)
    hits = 0
    trials = 300
    for _ in range(trials):
        res = []
        for p in (0.10, 0.11):
            queries = rng.integers(1, 30, 300)
            user_p = np.clip(rng.normal(p, 0.03, 300), 0, 1)
            res.append((rng.binomial(queries, user_p), queries))
        got = ratio_delta(res[0][0], res[0][1], res[1][0], res[1][1])
        hits += got["ci"][0] <= 0.01 <= got["ci"][1]
    assert 0.91 <= hits / trials <= 0.99


def test_cuped_matches_regression_adjustment_and_reduces_variance():
    rng = np.random.default_rng(3)
    pre = rng.normal(10, 3, 1000)
    y = 0.8 * pre + rng.normal(0, 1, 1000)
    y[500:] += 0.2
    got = cuped(y[:500], y[500:], pre[:500], pre[500:])
    theta = np.polyfit(pre, y, 1)[0]  # least-squares slope = cov / var
    assert got["theta"] == pytest.approx(theta, rel=1e-9)
    adj = y - theta * (pre - pre.mean())
    ref = stats.ttest_ind(adj[500:], adj[:500], equal_var=False)
    assert got["p_value"] == pytest.approx(ref.pvalue, rel=1e-9)
    plain = welch(y[:500], y[500:])
    assert got["se"] < plain["se"] and got["variance_reduction"] > 0.5


def test_bootstrap_is_seeded_and_near_welch():
    rng = np.random.default_rng(2)
    a, b = rng.normal(0, 1, 800), rng.normal(0.2, 1, 900)
    one = bootstrap_ci(a, b, replicates=3000, seed=5)
    assert one == bootstrap_ci(a, b, replicates=3000, seed=5)
    assert one != bootstrap_ci(a, b, replicates=3000, seed=6)
    w = welch(a, b)
    assert one["ci"] == pytest.approx(w["ci"], abs=0.02)
    assert one["ci"][0] < one["difference"] < one["ci"][1]


def test_errors():
    with pytest.raises(InputError):
        welch([1.0], [1.0, 2.0])
    with pytest.raises(ParameterError):
        welch([1.0, 2.0], [1.0, 2.0], confidence=1.5)
    with pytest.raises(ParameterError):
        bootstrap_ci([1.0, 2.0], [1.0, 2.0], replicates=0)
    with pytest.raises(ParameterError):
        sample_ratio_mismatch([10, 10], [1, 0])
    with pytest.raises(ParameterError):
        sample_size(0.0)
    with pytest.raises(InputError):
        ratio_delta([1, 2], [0, 0], [1, 2], [1, 1])
