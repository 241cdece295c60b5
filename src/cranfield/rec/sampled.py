r"""Sampled metrics, honestly (Krichene & Rendle 2020, "On sampled metrics for item
recommendation", KDD).

Many papers rank each held-out item among ``m`` randomly sampled negatives instead of the
whole catalogue. If the held-out item has rank :math:`r` among the :math:`n` candidates,
its rank among itself and ``m`` negatives drawn uniformly without replacement is
:math:`\tilde r = 1 + S`, :math:`S \sim \mathrm{Hypergeometric}(n - 1, r - 1, m)` (the
negatives ranked above it; the paper uses its binomial approximation). A metric
:math:`M(\tilde r)` of the sampled rank is then a different, inconsistent metric: HR@10
over 100 samples is nearly HR@1000 of the full ranking, and it can order systems
differently. This module gives, from each held-out item's full rank:

* the **expected sampled metric** :math:`E[M(\tilde r) \mid r]` — what a sampled
  evaluation reports, on average over the draws (no sampling noise);
* the **corrected metric** of Krichene & Rendle's bias-variance estimator: values
  :math:`\hat M(s)` for each sampled rank, chosen to minimise
  :math:`\sum_r p(r)\,[(E[\hat M(\tilde r) \mid r] - M(r))^2
  + \gamma\,\mathrm{Var}(\hat M(\tilde r) \mid r)]` with a uniform prior :math:`p(r)`
  over :math:`1..n` (:math:`\gamma = 0`: the least-biased correction), then averaged
  the same way — an estimate of the full metric from sampled ranks.
"""

from __future__ import annotations

import math

from .._lazy import lazy
from ..errors import ParameterError

np = lazy("numpy", __name__, "np")


def _log_choose(n: np.ndarray, k: np.ndarray) -> np.ndarray:
    """log C(n, k) elementwise (``math.lgamma``: one call per element)."""
    lgamma = np.frompyfunc(math.lgamma, 1, 1)
    return (lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1)).astype(np.float64)


def sampled_rank_pmf(ranks, n, m: int) -> np.ndarray:
    """``P[S = s | r]`` for ``s = 0..m``, one row per rank: the hypergeometric
    distribution of the negatives ranked above an item of rank ``r`` among ``n``
    candidates, ``m`` negatives drawn without replacement from the other ``n - 1``.
    Each row from its smallest possible ``s`` by the ratio of consecutive terms (a loop
    over ``s``, whole arrays over the ranks)."""
    r = np.asarray(ranks, dtype=np.int64)
    n = np.broadcast_to(np.asarray(n, dtype=np.int64), r.shape)
    if (r < 1).any() or (r > n).any():
        raise ParameterError("ranks", "ranks from 1 to the number of candidates", None)
    if isinstance(m, bool) or not isinstance(m, int) or m < 1 or (m > n - 1).any():
        raise ParameterError("m", "from 1 to the candidates minus one", m)
    above, below = r - 1, n - r  # negatives ranked above / below the item
    first = np.maximum(0, m - below)
    last = np.minimum(m, above)
    log_p = np.full((len(r), m + 1), -np.inf)
    current = (
        _log_choose(above, first)
        + _log_choose(below, m - first)
        - _log_choose(n - 1, np.full_like(n, m))
    )
    for s in range(m + 1):
        if s:
            step = (s > first) & (s <= last)
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.log((above - s + 1) * (m - s + 1)) - np.log(s * (below - m + s))
            current = np.where(step, current + ratio, current)
        inside = (s >= first) & (s <= last)
        log_p[:, s] = np.where(inside, current, -np.inf)
    pmf = np.exp(log_p)
    return pmf / pmf.sum(axis=1, keepdims=True)


def rank_metric(name: str, k: int | None):
    """The metric of one relevant item at rank ``r``: ``hr`` (HR@k, recall@k), ``ndcg``
    (1/log2(r + 1) within k), ``rr`` (1/r, AP of one relevant item)."""
    from ..core import libm

    def hr(r):
        return (np.asarray(r) <= k).astype(np.float64)

    def ndcg(r):
        r = np.asarray(r, dtype=np.float64)
        return np.where(r <= k, 1.0 / libm.log2(r + 1.0), 0.0)

    def rr(r):
        return 1.0 / np.asarray(r, dtype=np.float64)

    try:
        return {"hr": hr, "ndcg": ndcg, "rr": rr}[name]
    except KeyError:
        raise ParameterError("metric", "hr, ndcg or rr", name) from None


def corrected_values(metric, n: int, m: int, gamma: float = 0.0) -> np.ndarray:
    """Krichene & Rendle's corrected metric :math:`\\hat M(s)` for each sampled rank
    ``s + 1`` (``s = 0..m``), uniform prior over the ranks ``1..n``:
    :math:`[(1 - \\gamma) A^T A + \\gamma\\,\\mathrm{diag}(A^T 1)]^{-1} A^T M`, ``A`` the
    :func:`sampled_rank_pmf` of every rank."""
    if not 0 <= gamma <= 1:
        raise ParameterError("gamma", "a number in [0, 1]", gamma)
    ranks = np.arange(1, n + 1)
    a = sampled_rank_pmf(ranks, n, m)
    full = metric(ranks)
    lhs = (1 - gamma) * (a.T @ a) + gamma * np.diag(a.sum(axis=0))
    values, *_ = np.linalg.lstsq(lhs, a.T @ full, rcond=None)
    return values


def sampled_estimates(metric, ranks, n, m: int, gamma: float = 0.0) -> dict[str, float]:
    """For held-out items of full ranks ``ranks`` among ``n`` candidates each (an array
    or one number): the mean ``full`` metric, the mean ``sampled`` metric expected with
    ``m`` negatives, and the mean ``corrected`` estimate expected from those sampled
    ranks (the correction fitted for the median ``n``)."""
    ranks = np.asarray(ranks, dtype=np.int64)
    n_each = np.broadcast_to(np.asarray(n, dtype=np.int64), ranks.shape)
    if not len(ranks):
        nan = float("nan")
        return {"full": nan, "sampled": nan, "corrected": nan}
    pmf = sampled_rank_pmf(ranks, n_each, m)
    per_rank = metric(np.arange(1, m + 2))
    fitted = corrected_values(metric, int(np.median(n_each)), m, gamma)
    return {
        "full": float(np.mean(metric(ranks))),
        "sampled": float(np.mean(pmf @ per_rank)),
        "corrected": float(np.mean(pmf @ fitted)),
    }
