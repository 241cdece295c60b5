"""p-values of Kendall's tau and Spearman's rho against SciPy; Fisher z intervals."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import scipy.stats as ss

from cranfield.compare import correlate_tables, kendall_tau_test, spearman_rho_test
from cranfield.errors import ParameterError

ALTS = ("two-sided", "greater", "less")


def rel_close(got: float, ref: float, rtol: float = 1e-9) -> bool:
    if math.isnan(ref):
        return math.isnan(got)
    if ref < 1e-300:
        return got < 1e-300
    return abs(got - ref) <= rtol * abs(ref)


def samples(count: int, seed: int):
    """Orderings of 2..60 items (some of 100..400): continuous, tied, reversed, equal."""
    rng = np.random.default_rng(seed)
    for k in range(count):
        n = int(rng.integers(2, 61)) if k % 7 else int(rng.integers(100, 401))
        x = rng.random(n)
        y = x * rng.choice([0.0, 0.3, 5.0, -5.0]) + rng.random(n) * rng.choice([0.001, 1.0])
        if k % 4 == 1:
            x = np.round(x * 4)  # ties in x
        elif k % 4 == 2:
            y = np.round(y * 3)  # ties in y
        yield x, y


def test_kendall_p_values_match_scipy():
    exact = asym = 0
    for x, y in samples(300, 1):
        for alt in ALTS:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ref = ss.kendalltau(x, y, alternative=alt)
            got = kendall_tau_test(x, y, alt)
            assert rel_close(got.statistic, float(ref.statistic), 1e-12), (x.size, alt)
            if got.method == "permutation":  # ties, n <= 9: checked below
                continue
            assert rel_close(got.pvalue, float(ref.pvalue)), (x.size, alt, got, ref.pvalue)
            exact += got.method == "exact"
            asym += got.method == "asymptotic"
    assert exact > 150 and asym > 150  # both branches of SciPy's rule were exercised


def test_kendall_exact_near_perfect_orderings_of_many_items():
    # SciPy uses the exact distribution when at most one pair is discordant, any n
    for n in (40, 100, 170, 200):
        x = np.arange(n, dtype=float)
        for y in (x.copy(), x[::-1].copy(), np.r_[x[1::-1], x[2:]]):
            for alt in ALTS:
                ref = ss.kendalltau(x, y, alternative=alt)
                got = kendall_tau_test(x, y, alt)
                assert got.method == "exact"
                assert rel_close(got.pvalue, float(ref.pvalue)), (n, alt, got, ref)


def test_spearman_p_values_match_scipy():
    checked = 0
    for x, y in samples(300, 2):
        if x.size < 3:
            continue
        for alt in ALTS:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ref = ss.spearmanr(x, y, alternative=alt)
            got = spearman_rho_test(x, y, alt)
            assert rel_close(got.statistic, float(ref.statistic), 1e-12), (x.size, alt)
            if x.size <= 9 and not math.isnan(got.statistic):  # exact: checked below
                assert got.method == "permutation"
                continue
            if abs(got.statistic) == 1:
                # perfect agreement: t is infinite, p is 0 (SciPy's rank correlation may
                # round to 1 - 2e-16 and report a finite, meaningless tiny p)
                assert got.pvalue == 0 or got.pvalue == 1.0
                continue
            assert rel_close(got.pvalue, float(ref.pvalue)), (x.size, alt, got, ref.pvalue)
            checked += 1
    assert checked > 500


def _spearman_vectorized(xp, y, axis=-1):
    rx = ss.rankdata(xp, axis=-1)
    ry = ss.rankdata(y)
    rx = rx - rx.mean(axis=-1, keepdims=True)
    ry = ry - ry.mean()
    return (rx @ ry) / np.sqrt((rx * rx).sum(axis=-1) * (ry @ ry))


def _permutation_reference(x, y, name, alt):
    """SciPy's permutation test over every pairing (``n_resamples=inf``): Spearman with
    SciPy's ranks (vectorised), Kendall with ``scipy.stats.kendalltau`` itself."""
    if name == "spearman":
        statistic, vectorized = (lambda xp, axis=-1: _spearman_vectorized(xp, y)), True
    else:
        statistic, vectorized = (lambda xp: ss.kendalltau(xp, y).statistic), False
    return ss.permutation_test(
        (x,),
        statistic,
        permutation_type="pairings",
        n_resamples=np.inf,
        vectorized=vectorized,
        alternative=alt,
    ).pvalue


def _small_samples(seed):
    rng = np.random.default_rng(seed)
    for k in range(50):
        n = 9 if k == 0 else int(rng.integers(3, 8))
        x = rng.integers(0, 3 if k % 3 == 0 else 50, n).astype(float)
        y = x * rng.choice([0.0, 1.0, -1.0]) + rng.integers(0, 2 if k % 2 else 40, n)
        if np.ptp(x) and np.ptp(y):
            yield x, y


@pytest.mark.parametrize(
    ("x", "y", "p"),
    [
        ([1, 2, 3], [1, 2, 3], 1 / 3),
        ([1, 2, 3], [3, 2, 1], 1 / 3),
        ([1, 2, 3, 4], [1, 2, 3, 4], 1 / 12),
    ],
)
def test_spearman_small_n_is_exact_not_zero(x, y, p):
    # the case: 3 systems, rho = 1: the t-distribution gave p 0 (`<1e-300`)
    got = spearman_rho_test(x, y)
    assert got.method == "permutation"
    assert got.pvalue == pytest.approx(p, rel=1e-15)


def test_spearman_and_kendall_small_n_match_scipy_permutation_test():
    checked = {"spearman": 0, "kendall": 0}
    for x, y in _small_samples(4):
        for alt in ALTS:
            got = spearman_rho_test(x, y, alt)
            ref = _permutation_reference(x, y, "spearman", alt)
            assert got.method == "permutation"
            assert got.pvalue == pytest.approx(ref, rel=1e-12), (x, y, alt)
            checked["spearman"] += 1
            got = kendall_tau_test(x, y, alt)
            if got.method == "permutation" and x.size <= 5:  # ties (else SciPy's exact rule)
                ref = _permutation_reference(x, y, "kendall", alt)
                assert got.pvalue == pytest.approx(ref, rel=1e-12), (x, y, alt)
                checked["kendall"] += 1
    assert checked["spearman"] > 100 and checked["kendall"] > 10


def test_fisher_intervals():
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(5, 80))
        x = rng.random(n)
        y = x + 3 * rng.random(n)
        conf = float(rng.choice([0.8, 0.9, 0.95, 0.99]))
        zc = ss.norm.ppf(0.5 + conf / 2)
        k = kendall_tau_test(x, y, confidence=conf)
        s = spearman_rho_test(x, y, confidence=conf)
        if abs(k.statistic) == 1 or abs(s.statistic) == 1:  # atanh(1) = inf: [1, 1]
            assert (k.ci_low, k.ci_high) == (k.statistic, k.statistic)
            continue
        se = math.sqrt(0.437 / (n - 4))  # Fieller, Hartley & Pearson 1957
        z = math.atanh(k.statistic)
        assert k.ci_low == pytest.approx(math.tanh(z - zc * se), rel=1e-12)
        assert k.ci_high == pytest.approx(math.tanh(z + zc * se), rel=1e-12)
        se = math.sqrt((1 + s.statistic**2 / 2) / (n - 3))  # Bonett & Wright 2000
        z = math.atanh(s.statistic)
        assert s.ci_low == pytest.approx(math.tanh(z - zc * se), rel=1e-12)
        assert s.ci_high == pytest.approx(math.tanh(z + zc * se), rel=1e-12)
        assert -1 <= k.ci_low <= k.statistic <= k.ci_high <= 1
        assert -1 <= s.ci_low <= s.statistic <= s.ci_high <= 1


def test_intervals_undefined_for_few_items_and_constant_orderings():
    k = kendall_tau_test([1, 2, 3, 4], [1, 3, 2, 4])
    assert math.isnan(k.ci_low) and math.isnan(k.ci_high) and not math.isnan(k.pvalue)
    s = spearman_rho_test([1, 2, 3], [1, 3, 2])
    assert math.isnan(s.ci_low) and not math.isnan(s.pvalue)
    for test in (kendall_tau_test, spearman_rho_test):
        r = test([1, 1, 1, 1, 1], [1, 2, 3, 4, 5])
        assert all(math.isnan(v) for v in (r.statistic, r.pvalue, r.ci_low, r.ci_high))


def test_correlate_tables_reports_inference():
    a = {f"r{i}": v for i, v in enumerate([0.1, 0.3, 0.2, 0.5, 0.4, 0.6, 0.8, 0.7])}
    b = {f"r{i}": v for i, v in enumerate([0.2, 0.1, 0.3, 0.4, 0.6, 0.5, 0.7, 0.8])}
    out = correlate_tables(a, b, confidence=0.9)
    runs = sorted(a)
    ref = ss.kendalltau([a[r] for r in runs], [b[r] for r in runs])
    assert out["kendall_tau_p"] == pytest.approx(ref.pvalue, rel=1e-9)
    assert out["kendall_tau_ci_low"] < out["kendall_tau"] < out["kendall_tau_ci_high"]
    assert "kendall_tau_p" not in correlate_tables(a, b)


@pytest.mark.parametrize("conf", [0, 1, -0.5, 1.5, float("nan"), "0.9", True])
def test_bad_confidence(conf):
    with pytest.raises(ParameterError, match="confidence"):
        kendall_tau_test([1, 2, 3], [1, 2, 3], confidence=conf)
