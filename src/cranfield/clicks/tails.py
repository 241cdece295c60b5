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

from .._lazy import lazy
from .models import DEFAULT, last_click

np = lazy("numpy", __name__, "np")


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
        self.n_pairs = pairs.n
        self.l_w_nxt = np.where(self.l_nxt, self.l_w, 0.0)
        # the pairs with weight in each constant log-likelihood term
        self.cb_at = np.flatnonzero(self.clicks_before)
        self.sb_at = np.flatnonzero(self.skips_before)

    def gather(self, a_ext) -> np.ndarray:
        """Attractiveness per tail cell from the per-pair values (``a_ext``, with the
        appended default), into a buffer reused by every iteration."""
        if not hasattr(self, "_a"):
            n = len(self.pair)
            self._a, self._z, self._f, self._eps, self._val = (np.empty(n) for _ in range(5))
        np.take(a_ext, self.pair, out=self._a)
        return self._a

    def backward(self, a, cont):
        """``z_r`` (no click from an examined rank ``r`` on) on the tail cells (``a``:
        attractiveness per tail cell, from :meth:`gather`), ``z_r = (1 - alpha_r)((1 -
        c) + c z_{r+1})``, 1 where nothing is shown, rank by rank from the bottom; with
        each rank's factor ``c z_r / ((1 - c) + c z_r)`` of :meth:`forward` computed in
        the same pass. Returns ``z_{l+1}`` of each clicked session and ``z_0`` of each
        session without clicks."""
        k, cnt, off = self.k, self.cnt, self.off
        z, f = self._z, self._f
        nxt = np.ones(cnt[k])
        zl = [None] * k
        keep = 1.0 - cont
        for r in range(k - 1, -1, -1):
            zl[r] = nxt[cnt[r] : cnt[r + 1]]
            sl = slice(off[r], off[r] + cnt[r])
            zr, fr = z[sl], f[sl]
            np.subtract(1.0, a[sl], out=zr)
            zr *= keep + cont * nxt[: cnt[r]]
            if not self.all_shown:
                np.copyto(zr, 1.0, where=~self.shown[sl])
            np.multiply(cont, zr, out=fr)
            den = keep + fr
            np.maximum(den, 1e-300, out=den)  # den = 0 only where c z = 0: factor 0
            fr /= den
            nxt = zr
        return np.concatenate(zl), nxt

    def forward(self, start_clicked, a):
        """``P(E_r = 1 | clicks)`` on the tail cells, masked by ``shown``: ``start``
        just after the last click (1 at rank 0 without clicks), then ``eps_r = eps_{r-1}
        c z_r / ((1 - c) + c z_r)`` (the factors of :meth:`backward`). Returns ``eps``
        (a reused buffer), the per-pair sums of ``w (1 - eps_r) alpha_r`` over the shown
        tail cells, and the weighted sums ``w_nxt . eps``, ``w_shown_below . eps`` and
        ``sum w eps_{r+1}`` over cells whose next rank is shown."""
        cnt, off, k = self.cnt, self.off, self.k
        eps, f, val = self._eps, self._f, self._val
        start = np.concatenate([np.ones(cnt[0]), start_clicked])
        eps[: cnt[0]] = start[: cnt[0]]
        for r in range(1, k):
            head = slice(off[r], off[r] + cnt[r - 1])
            np.multiply(eps[off[r - 1] : off[r - 1] + cnt[r - 1]], f[head], out=eps[head])
            eps[off[r] + cnt[r - 1] : off[r] + cnt[r]] = start[cnt[r - 1] : cnt[r]]
        if not self.all_shown:
            np.copyto(eps, 0.0, where=~self.shown)
        np.subtract(1.0, eps, out=val)
        val *= a
        val *= self.w_shown
        attr = np.bincount(self.pair, val, self.n_pairs + 1)[: self.n_pairs]
        w_nxt = self.w_nxt
        ahead = sum(
            dot(w_nxt[off[r] : off[r] + cnt[r]], eps[off[r + 1] : off[r + 1] + cnt[r]])
            for r in range(k - 1)
        )
        return eps, attr, dot(w_nxt, eps), dot(self.w_shown_below, eps), ahead


def dot(x, y) -> float:
    """``sum(x * y)`` of two vectors, single-threaded: a BLAS dot product may hand the
    work to threads whose wake-up costs milliseconds on a busy machine, more than the
    product itself (EM calls this a dozen times per iteration)."""
    return float(np.einsum("i,i->", x, y))


def ext(values) -> np.ndarray:
    """Per-pair values with ``DEFAULT`` appended for "nothing shown"."""
    return np.append(np.asarray(values, dtype=float), DEFAULT)
