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


COLD = r"""
import json, sys
import numpy as np
from cranfield import distributions as d

rng = np.random.default_rng(39)
x = np.r_[rng.normal(size=200) * 6, 0.0, 1e-300, -40.0, 40.0, np.inf, -np.inf, np.nan]
df = np.r_[rng.random(200) * 60 + 0.05, 1.0, 2.0, 1e3, 1e7, 0.5, 4.0, 4.0]
q = np.r_[rng.random(200), 1e-300, 1e-12, 0.5, 1 - 1e-12, 0.0, 1.0, np.nan]
n = rng.integers(1, 3000, 207).astype(float)
k = np.floor(rng.random(207) * n)
ours = [d.t_sf(x, df), d.t_ppf(q, df), d.norm_sf(x), d.norm_ppf(q), d.chi2_sf(x**2, df),
        d.binom_cdf(k, n, 0.5), d.binom_sf(k, n, q), d.beta_ppf(q, k + 1, n - k)]
package_run = "scipy.special" in sys.modules
kernels = d._special()
import scipy.special, scipy.stats as st
theirs = [st.t.sf(x, df), st.t.ppf(q, df), st.norm.sf(x), st.norm.ppf(q), st.chi2.sf(x**2, df),
          st.binom.cdf(k, n, 0.5), st.binom.sf(k, n, q), st.beta.ppf(q, k + 1, n - k)]
print(json.dumps({
    "package_run": package_run,
    "shared": kernels is scipy.special._ufuncs and scipy.special.stdtr is kernels.stdtr,
    "same": [bool(np.array_equal(a, b, equal_nan=True)) for a, b in zip(ours, theirs)],
}))
"""


def test_a_fresh_process_loads_only_the_kernels_and_gets_scipys_numbers():
    """In a process that has not imported ``scipy.special``, the kernels come without
    the package's ``__init__`` (about 0.25 s), are the very functions a later
    ``import scipy.special`` exports, and give ``scipy.stats``'s numbers bit for bit."""
    import json
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", COLD], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout.splitlines()[-1])
    assert got == {"package_run": False, "shared": True, "same": [True] * 8}


def test_a_failing_shortcut_falls_back_to_the_ordinary_import(monkeypatch):
    import importlib.util

    def broken(name, *a, **kw):
        raise ImportError(name)

    monkeypatch.setattr(importlib.util, "find_spec", broken)
    import scipy.special

    monkeypatch.delitem(__import__("sys").modules, "scipy.special._ufuncs")
    assert d._load_kernels() is scipy.special
    assert d._kernel("stdtr") is scipy.special.stdtr
