"""p-values in the far tail: relative agreement with SciPy down to 1e-300, never a false 0.

The earlier Wilcoxon normal approximation took ``1 - sf(z)`` for the lower tail, which
cancels to exactly 0 once ``sf(z) < 1e-16`` (issue: p = 0 where SciPy gives 1.1e-16) and
loses digits before that (6.12776e-12 against SciPy's 6.12765e-12). These tests compare
with a *relative* tolerance only, so a tiny p-value cannot hide behind an absolute one.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.stats as ss

from cranfield.compare import stats as st
from cranfield.compare.tables import format_pvalue

ALTS = ("two-sided", "greater", "less")
RTOL = 1e-9


def rel_close(got: float, ref: float) -> bool:
    if np.isnan(ref):
        return bool(np.isnan(got))
    if ref < 1e-300:  # below the range the promise covers: both tiny (or both 0)
        return got < 1e-300
    return abs(got - ref) <= RTOL * abs(ref)


def _scipy_wilcoxon(x, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ss.wilcoxon(x, y, **kw)


def separated(rng, n: int, shift: float, ties: bool, zeros: int):
    """Paired samples where x is shifted above y by ``shift`` standard deviations."""
    y = rng.random(n)
    x = y + shift + rng.normal(0, 1, n)
    if ties:
        x, y = np.round(x, 1), np.round(y, 1)
    if zeros:
        x[:zeros] = y[:zeros]
    return x, y


def adversarial_cases():
    rng = np.random.default_rng(12)
    yield np.arange(100) + 0.5, np.zeros(100)  # the reported case: every query better
    yield np.zeros(100), np.arange(100) + 0.5  # every query worse (the lower tail)
    for n in (14, 30, 51, 100, 400, 1000, 3000):
        for shift in (0.0, 0.5, 2.0, 10.0):
            for ties in (False, True):
                for zeros in (0, 3):
                    yield separated(rng, n, shift, ties, zeros)
                    yield separated(rng, n, -shift, ties, zeros)[::-1]
    # heavy ties: graded judgments, many zero differences
    for n in (60, 200, 800):
        x = rng.integers(0, 4, n) / 3
        y = np.clip(x - rng.integers(0, 2, n) / 3, 0, 1)
        yield x, y


@pytest.mark.parametrize("correction", [False, True])
@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
def test_wilcoxon_relative_agreement_in_the_tails(zero_method, correction):
    checked = tiny = 0
    for x, y in adversarial_cases():
        for alt in ALTS:
            ref = _scipy_wilcoxon(
                x, y, alternative=alt, zero_method=zero_method, correction=correction
            )
            got = st.wilcoxon_test(x, y, alt, zero_method, correction)
            assert got.statistic == pytest.approx(ref.statistic, rel=1e-12), (alt, x.size)
            assert rel_close(got.pvalue, float(ref.pvalue)), (alt, x.size, got, ref)
            checked += 1
            tiny += 0 < ref.pvalue < 1e-16
    assert checked > 300 and tiny > 20  # the far tail was really exercised


def test_wilcoxon_reported_case_is_not_zero():
    x, y = np.arange(100) + 0.5, np.zeros(100)
    for a, b in ((x, y), (y, x)):
        got = st.wilcoxon_test(a, b).pvalue
        ref = float(_scipy_wilcoxon(a, b).pvalue)
        assert 0 < ref < 1e-16
        assert got == pytest.approx(ref, rel=RTOL)


def test_wilcoxon_exact_method_relative_agreement():
    rng = np.random.default_rng(5)
    for _ in range(200):
        n = int(rng.integers(1, 51))
        x, y = rng.random(n), rng.random(n) + rng.choice([0.0, 0.5, 2.0])
        for alt in ALTS:
            ref = _scipy_wilcoxon(x, y, alternative=alt)
            got = st.wilcoxon_test(x, y, alt)
            assert got.method == "exact"
            assert rel_close(got.pvalue, float(ref.pvalue)), (n, alt)


def test_t_and_sign_tests_relative_agreement_in_the_tails():
    rng = np.random.default_rng(7)
    checked = 0
    for n in (5, 20, 100, 1000, 1500):
        for shift in (0.1, 1.0, 5.0):
            y = rng.random(n)
            x = y + shift + rng.normal(0, 0.5, n)
            for a, b in ((x, y), (y, x)):
                for alt in ALTS:
                    ref_t = ss.ttest_rel(a, b, alternative=alt).pvalue
                    assert rel_close(st.paired_t_test(a, b, alt).pvalue, float(ref_t))
                    k, m = int(np.sum(a > b)), int(np.sum(a != b))
                    ref_s = ss.binomtest(k, m, 0.5, alternative=alt).pvalue
                    assert rel_close(st.sign_test(a, b, alt).pvalue, float(ref_s)), (n, alt)
                    checked += 1
    assert checked == 5 * 3 * 2 * 3


@pytest.mark.parametrize(
    ("p", "text"),
    [
        (0.0312, "0.0312"),
        (1.1e-16, "1.1e-16"),
        (6.12765e-12, "6.1e-12"),
        (2.5e-310, "2.5e-310"),  # subnormal: still a number, never 0
        (0.0, "<1e-300"),  # underflow: below what a double holds
        (float("nan"), "nan"),
    ],
)
def test_pvalue_formatting_never_prints_zero(p, text):
    assert format_pvalue(p) == text
