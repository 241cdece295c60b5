"""The session layout behind DBN's and CCM's fast E-step: the ranks after each
session's last click.

In a cascade-family model every rank up to the last click ``l`` was examined for
certain (Chuklin, Markov & de Rijke 2015, sec. 4.2), so the posteriors there are
constants (``P(A=1)`` is 1 on a click, 0 on a skip; ``P(E=1) = 1``) and their
contributions to the M-step sums, and to the log-likelihood, depend on the (query,
document) pair and the click only: they are counted once, per pair. Only the ranks
after ``l`` need the chain recursions. Sessions are sorted by ``l``, so the sessions
still in their tail at rank ``r`` (``l < r``) are a prefix of that order, and each
recursion step works on that prefix alone; identical sessions are already one row
with a weight (:func:`~.models.distinct_sessions`).
"""

from __future__ import annotations

import numpy as np

from .models import DEFAULT, _safe_div, last_click


def _log(x):
    return np.log(np.maximum(x, 1e-300))


class Tails:
    """The tail cells (rank ``r`` of a session whose last click is above ``r``), laid
    out rank by rank in one flat array, and the constant sums of the other cells.

    Sessions are sorted by last click; ``cnt[r]`` is the number of sessions whose last
    click is above rank ``r`` (0-based; ``cnt[K] = n``), so rank ``r``'s tail cells are
    the sorted sessions ``0 .. cnt[r] - 1``, stored at ``off[r] .. off[r] + cnt[r] - 1``.
    Pair indices use ``n_pairs`` for "nothing shown" so that ``append(values, DEFAULT)``
    gives the value :func:`~.models._spread` gives.
    """

    def __init__(self, log, pairs):
        shown, clicks, index = log.shown, log.clicks, pairs.index
        n, k = shown.shape
        self.k = k
        last = last_click(clicks)
        order = np.argsort(last, kind="stable")
        cnt = np.searchsorted(last[order], np.arange(k + 1), side="left")
        cnt[k] = n
        self.cnt = cnt
        self.off = np.concatenate([[0], np.cumsum(cnt[:k])])
        ext = np.where(index < 0, pairs.n, index)
        w = pairs.weight
        nxt = np.zeros_like(shown)
        nxt[:, :-1] = shown[:, 1:]
        rows = np.concatenate([order[: cnt[r]] for r in range(k)])
        ranks = np.repeat(np.arange(k), cnt[:k])
        self.pair = ext[rows, ranks]
        self.shown = shown[rows, ranks]
        self.all_shown = bool(self.shown.all())
        self.w = w[rows]
        self.w_shown = np.where(self.shown, self.w, 0.0)
        self.w_nxt = np.where(nxt[rows, ranks], self.w, 0.0)
        # the same session's cell one rank down (rank r + 1 holds every rank-r tail row)
        pos = np.arange(len(rows)) - self.off[ranks]
        self.below = np.where(ranks < k - 1, self.off[np.minimum(ranks + 1, k - 1)] + pos, 0)
        self.w_shown_below = np.where(ranks > 0, self.w_shown, 0.0)
        # sessions with clicks, in the sorted order (rows cnt[0]:)
        clicked = order[cnt[0] :]
        self.l = last[clicked]
        self.l_pair = ext[clicked, self.l]
        self.l_w = w[clicked]
        self.l_nxt = nxt[clicked, self.l]
        self.none_w = w[order[: cnt[0]]]
        # constant parts: ranks before the last click
        before = np.arange(k)[None, :] < last[:, None]
        cw = pairs.cell_weight
        m = pairs.n + 1
        self.clicks_before = np.bincount(ext[before & clicks], cw[before & clicks], m)
        self.skips_before = np.bincount(ext[before & ~clicks], cw[before & ~clicks], m)
        coin = before & clicks & nxt
        self.coins_before = np.bincount(ext[coin], cw[coin], m)[: pairs.n]
        self.nxt_before = float(cw[before & nxt].sum())
        self.skip_nxt_before = float(cw[before & ~clicks & nxt].sum())
        self.click_sum = np.bincount(index[clicks], cw[clicks], pairs.n)

    def tail_z(self, a, cont):
        """``z_r`` (no click from an examined rank ``r`` on) on the tail cells (``a``:
        attractiveness per tail cell), ``z_r = (1 - alpha_r)((1 - c) + c z_{r+1})``, 1
        where nothing is shown; ``z_{l+1}`` of each clicked session; ``z_0`` of each
        session without clicks."""
        k, cnt, off = self.k, self.cnt, self.off
        z = 1 - a
        nxt = np.ones(cnt[k])
        zl = [None] * k
        for r in range(k - 1, -1, -1):
            zl[r] = nxt[cnt[r] : cnt[r + 1]]
            sl = slice(off[r], off[r] + cnt[r])
            z[sl] *= (1 - cont) + cont * nxt[: cnt[r]]
            if not self.all_shown:
                z[sl] = np.where(self.shown[sl], z[sl], 1.0)
            nxt = z[sl]
        return z, np.concatenate(zl), nxt

    def tail_eps(self, z, start_clicked, cont):
        """``P(E_r = 1 | clicks)`` on the tail cells, masked by ``shown``: ``start``
        just after the last click (1 at rank 0 without clicks), then ``eps_r = eps_{r-1}
        c z_r / ((1 - c) + c z_r)``."""
        cnt, off = self.cnt, self.off
        cz = cont * z
        factor = _safe_div(cz, (1 - cont) + cz)
        start = np.concatenate([np.ones(cnt[0]), start_clicked])
        eps = np.empty(len(z))
        eps[: cnt[0]] = start[: cnt[0]]
        for r in range(1, self.k):
            head = slice(off[r], off[r] + cnt[r - 1])
            np.multiply(eps[off[r - 1] : off[r - 1] + cnt[r - 1]], factor[head], out=eps[head])
            eps[off[r] + cnt[r - 1] : off[r] + cnt[r]] = start[cnt[r - 1] : cnt[r]]
        return eps if self.all_shown else np.where(self.shown, eps, 0.0)

    def attractiveness_tail(self, a, eps, n_pairs):
        """``sum w (1 - eps_r) alpha_r`` per pair over the shown tail cells."""
        val = (1 - eps) * a
        val *= self.w_shown
        return np.bincount(self.pair, val, n_pairs + 1)[:n_pairs]


def ext(values) -> np.ndarray:
    """Per-pair values with ``DEFAULT`` appended for "nothing shown"."""
    return np.append(np.asarray(values, dtype=float), DEFAULT)
