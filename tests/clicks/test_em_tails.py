"""DBN and CCM EM on the ranks after the last click (``clicks.tails``) against the
plain dense E-step over every rank of every session, written out here as the oracle:
the same parameters (to 1e-12) and log-likelihood trace after each iteration."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.clicks import from_arrays
from cranfield.clicks.estimate import _init, fit_ccm, fit_dbn
from cranfield.clicks.models import (
    Matrices,
    Pairs,
    Params,
    distinct_sessions,
    last_click,
    per_pair,
    ratio,
    weighted_sum,
)


def _log(x):
    return np.log(np.maximum(x, 1e-300))


def _safe_div(num, den):
    out = np.zeros(np.broadcast(num, den).shape)
    np.divide(num, den, out=out, where=den > 0)
    return out


def chain_tail(a, c, shown):
    """z_r = (1 - a_r)((1 - c) + c z_{r+1}), 1 where nothing is shown; n x (K + 1)."""
    n, k = a.shape
    z = np.ones((n, k + 1))
    for r in range(k - 1, -1, -1):
        z[:, r] = np.where(shown[:, r], (1 - a[:, r]) * ((1 - c) + c * z[:, r + 1]), 1.0)
    return z


def tail_examination(start, c, z, last, shown):
    n, k = shown.shape
    eps = np.zeros((n, k))
    current = np.zeros(n)
    for r in range(k):
        cr = c if r > 0 else 1.0
        follow = current * _safe_div(cr * z[:, r], (1 - cr) + cr * z[:, r])
        current = np.where(last + 1 == r, start, np.where(r > last + 1, follow, 0.0))
        eps[:, r] = np.where(r > last, current, 1.0)
    return np.where(shown, eps, 0.0)


def session_ll(a, c_click, c_skip, tail_at_last, z0, clicks, before, has, rows, lidx):
    passed = _log(np.where(clicks, a * c_click, (1 - a) * c_skip))
    head = np.where(before, passed, 0.0).sum(axis=1)
    return np.where(has, head + _log(a[rows, lidx]) + _log(tail_at_last), _log(z0))


def setup(log):
    shown, clicks = log.shown, log.clicks
    k = log.max_rank
    last = last_click(clicks)
    r = np.arange(k)[None, :]
    nxt = np.zeros_like(shown)
    nxt[:, :-1] = shown[:, 1:]
    return (
        shown,
        clicks,
        last,
        last >= 0,
        np.maximum(last, 0),
        np.arange(len(last)),
        r < last[:, None],
        r == last[:, None],
        nxt,
    )


def dense_dbn_step(log, pairs, p):
    shown, clicks, last, has, lidx, rows, before, is_last, nxt = setup(log)
    m = Matrices(p, pairs.index, log)
    a, s = m.pair["attractiveness"], m.pair["satisfaction"]
    g = p.scalar["gamma"]
    z = chain_tail(a, g, shown)
    q = (1 - g) + g * z[rows, lidx + 1]
    sl = s[rows, lidx]
    post_s_last = np.where(has, ratio(sl, sl + (1 - sl) * q, 0.0), 0.0)
    start = np.where(has, (1 - post_s_last) * ratio(g * z[rows, lidx + 1], q, 0.0), 1.0)
    eps = tail_examination(start, g, z, last, shown)
    post_a = np.where(clicks, 1.0, (1 - eps) * a)
    alpha = ratio(per_pair(pairs, post_a), pairs.impressions)
    post_s = np.where(is_last, post_s_last[:, None], 0.0)
    sigma = ratio(per_pair(pairs, post_s, clicks), per_pair(pairs, clicks.astype(float)))
    opportunities = weighted_sum(pairs, eps * (1 - post_s), nxt)
    continues = weighted_sum(pairs, np.roll(eps, -1, axis=1), nxt)
    ll = session_ll(
        a,
        g * (1 - s),
        np.full_like(a, g),
        sl + (1 - sl) * q,
        z[:, 0],
        clicks,
        before,
        has,
        rows,
        lidx,
    )
    new = Params(
        pair={"attractiveness": alpha, "satisfaction": sigma},
        scalar={"gamma": float(ratio(continues, opportunities))},
    )
    return new, float(pairs.weight @ ll)


def dense_ccm_step(log, pairs, p):
    shown, clicks, last, has, lidx, rows, before, is_last, nxt = setup(log)
    m = Matrices(p, pairs.index, log)
    a = m.pair["attractiveness"]
    t1, t2, t3 = (p.scalar[t] for t in ("tau1", "tau2", "tau3"))
    z = chain_tail(a, t1, shown)
    zl, al = z[rows, lidx + 1], a[rows, lidx]
    cl = t2 * (1 - al) + t3 * al
    q = (1 - cl) + cl * zl
    eps = tail_examination(np.where(has, ratio(cl * zl, q, 0.0), 1.0), t1, z, last, shown)
    cc = t2 * (1 - a) + t3 * a
    b_before = ratio(a * t3, cc, 0.0)
    b_last = np.where(has, ratio(al * ((1 - t3) + t3 * zl), q, 0.0), 0.0)
    coin = clicks & nxt
    post_b = np.where(before, b_before, np.where(is_last, b_last[:, None], 0.0))
    b1 = np.where(before, b_before, np.where(is_last, ratio(al * t3 * zl, q, 0.0)[:, None], 0.0))
    b0 = np.where(
        before, 1 - b_before, np.where(is_last, ratio((1 - al) * t2 * zl, q, 0.0)[:, None], 0.0)
    )
    post_a = np.where(clicks, 1.0, (1 - eps) * a)
    num = per_pair(pairs, post_a) + per_pair(pairs, post_b, coin)
    den = pairs.impressions + per_pair(pairs, np.ones_like(a), coin)
    skip = ~clicks & nxt
    nxt_eps = np.roll(eps, -1, axis=1)
    tau = (
        ratio(weighted_sum(pairs, nxt_eps, skip), weighted_sum(pairs, eps, skip)),
        ratio(weighted_sum(pairs, b0, coin), weighted_sum(pairs, 1 - post_b, coin)),
        ratio(weighted_sum(pairs, b1, coin), weighted_sum(pairs, post_b, coin)),
    )
    ll = session_ll(a, cc, t1, q, z[:, 0], clicks, before, has, rows, lidx)
    new = Params(
        pair={"attractiveness": ratio(num, den)},
        scalar={name: float(v) for name, v in zip(("tau1", "tau2", "tau3"), tau, strict=True)},
    )
    return new, float(pairs.weight @ ll)


def random_log(seed, n=300, k=6):
    rng = np.random.default_rng(seed)
    docs = np.array([rng.permutation(9)[:k] for _ in range(n)])
    # lists of different lengths, or all of length k (odd seeds)
    length = np.full(n, k) if seed % 2 else rng.integers(1, k + 1, n)
    docs[np.arange(k)[None, :] >= length[:, None]] = -1
    clicks = (rng.random((n, k)) < rng.uniform(0.05, 0.6)) & (docs >= 0)
    pick = rng.integers(0, n, 3 * n)  # repeated sessions: weights other than 1
    return from_arrays(rng.integers(0, 4, n)[pick], docs[pick], clicks[pick])


@pytest.mark.parametrize("name", ["dbn", "ccm"])
@pytest.mark.parametrize("seed", range(6))
def test_tail_em_equals_the_dense_e_step(name, seed):
    log, weight = distinct_sessions(random_log(seed))
    pairs = Pairs(log, weight)
    rng = np.random.default_rng(seed)
    if name == "dbn":
        fast, dense = fit_dbn, dense_dbn_step
        p = Params(
            pair={"attractiveness": _init(rng, pairs.n), "satisfaction": _init(rng, pairs.n)},
            scalar={"gamma": float(_init(rng, ()))},
        )
    else:
        fast, dense = fit_ccm, dense_ccm_step
        p = Params(
            pair={"attractiveness": _init(rng, pairs.n)},
            scalar={t: float(_init(rng, ())) for t in ("tau1", "tau2", "tau3")},
        )
    trace = []
    new, ll = dense(log, pairs, p)
    trace.append(ll)
    for _ in range(12):
        p = new
        new, ll = dense(log, pairs, p)
        trace.append(ll)
    got, it, _, got_trace = fast(
        log, pairs, tol=0, max_iter=12, rng=np.random.default_rng(seed), prior=(0.0, 0.0)
    )
    assert it == 12
    np.testing.assert_allclose(got_trace, trace, rtol=1e-12)
    for key, v in p.pair.items():
        np.testing.assert_allclose(got.pair[key], v, rtol=0, atol=1e-12)
    for key, v in p.scalar.items():
        assert abs(got.scalar[key] - v) <= 1e-12
