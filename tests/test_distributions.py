"""``cranfield.distributions`` against :mod:`scipy.stats` itself: bit-identical on
random and extreme arguments (the module calls the kernels SciPy's distributions call,
so any difference means a SciPy that changed its definitions)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as st

from cranfield import distributions as d

RNG = np.random.default_rng(39)
X = np.r_[
    RNG.normal(size=400) * 6, 0.0, -0.0, 1e-300, -40.0, 40.0, 1e6, -1e6, np.inf, -np.inf, np.nan
]
DF = np.r_[RNG.random(400) * 60 + 0.05, 1.0, 2.0, 1e3, 1e7, 0.5, 3.5, 120.0, 4.0, 4.0, 4.0]
Q = np.r_[RNG.random(400), 1e-300, 1e-12, 0.5, 1 - 1e-12, 0.025, 0.975, 0.3, 0.0, 1.0, np.nan]


def same(ours, theirs) -> None:
    ours, theirs = np.asarray(ours, float), np.asarray(theirs, float)
    assert ours.shape == theirs.shape
    assert np.array_equal(ours, theirs, equal_nan=True), np.flatnonzero(ours != theirs)[:5]


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        (lambda: d.t_sf(X, DF), lambda: st.t.sf(X, DF)),
        (lambda: d.t_cdf(X, DF), lambda: st.t.cdf(X, DF)),
        (lambda: d.t_ppf(Q, DF), lambda: st.t.ppf(Q, DF)),
        (lambda: d.norm_sf(X), lambda: st.norm.sf(X)),
        (lambda: d.norm_ppf(Q), lambda: st.norm.ppf(Q)),
        (lambda: d.chi2_sf(X**2, DF), lambda: st.chi2.sf(X**2, DF)),
    ],
    ids=["t_sf", "t_cdf", "t_ppf", "norm_sf", "norm_ppf", "chi2_sf"],
)
def test_continuous_distributions_are_scipys(ours, theirs):
    same(ours(), theirs())


def test_scalars_give_what_scipy_gives():
    for x, df in [(2.5, 7.0), (-1.0, 3), (0.0, 1.0)]:
        same(d.t_sf(x, df), st.t.sf(x, df))
        same(d.t_ppf(0.975, df), st.t.ppf(0.975, df))
    same(d.norm_sf(3.0), st.norm.sf(3.0))


def test_binomial_tails_are_scipys_inside_the_support():
    n = RNG.integers(1, 3000, 500).astype(float)
    k = np.floor(RNG.random(500) * n)
    p = np.r_[np.full(250, 0.5), RNG.random(250)]
    same(d.binom_cdf(k, n, p), st.binom.cdf(k, n, p))
    same(d.binom_sf(k, n, p), st.binom.sf(k, n, p))
    same(d.binom_cdf(k + 0.5, n, 0.5), st.binom.cdf(k + 0.5, n, 0.5))
    # the ends of the support, as the callers reach them
    same(d.binom_cdf(n, n, 0.5), st.binom.cdf(n, n, 0.5))
    same(d.binom_sf(np.zeros_like(n), n, 0.5), st.binom.sf(0, n, 0.5))
    for k_out in (-1.0, -0.5, n + 1, n + 0.5):
        same(d.binom_cdf(k_out, n, 0.5), st.binom.cdf(k_out, n, 0.5))
        same(d.binom_sf(k_out, n, 0.5), st.binom.sf(k_out, n, 0.5))
    same(d.binom_cdf(0, 0, 0.5), st.binom.cdf(0, 0, 0.5))


def test_beta_quantiles_are_scipys():
    a = RNG.integers(1, 2000, 500).astype(float)
    b = RNG.integers(1, 2000, 500).astype(float)
    q = np.r_[RNG.random(495), 0.025, 0.975, 0.005, 0.0, 1.0]
    same(d.beta_ppf(q, a, b), st.beta.ppf(q, a, b))


@pytest.mark.parametrize("size", [1, 2, 7, 100])
def test_average_ranks_are_rankdata(size):
    for _ in range(20):
        a = RNG.integers(0, max(2, size // 3), size).astype(float)
        ranks, ties = d.average_ranks(a)
        same(ranks, st.rankdata(a))
        assert ties == (np.unique(a).size < a.size)
