"""Rank correlation between two orderings of the same items, and rank-biased overlap.

The correlation functions take two aligned score vectors ``x`` and ``y`` over the same
items (for example the mean nDCG of each run under two sets of qrels): item ``i`` is
placed higher in an ordering when its score is larger. Kendall's tau and Spearman's
rho are symmetric and do not depend on the direction; tau_AP weights the top of the
ordering, so for it "top" means "largest score".

Pairwise quantities are computed on blocks of rows of the ``n x n`` comparison matrix
(``O(n^2)`` work, ``O(n * BLOCK)`` memory), fine for a few thousand items.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from .._memo import memo
from ..errors import InputError, ParameterError

__all__ = [
    "CorrelationTest",
    "kendall_tau_test",
    "spearman_rho_test",
    "kendall_tau",
    "tau_ap",
    "spearman_rho",
    "rbo",
    "kendall_tau_distance",
]

_BLOCK = 512


def _scores(x, y) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.ndim != 1 or y.ndim != 1 or x.shape != y.shape:
        raise InputError(f"expected two 1-D arrays of equal length, got {x.shape} and {y.shape}")
    if np.isnan(x).any() or np.isnan(y).any():
        raise InputError("scores contain NaN")
    return x, y


def _pair_sums(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """Over pairs i < j: sum of sign(dx) sign(dy), pairs untied in x, pairs untied in y."""
    n = x.size
    s = tx = ty = 0
    for start in range(0, n, _BLOCK):  # blocks of rows bound memory, not a per-item loop
        stop = min(n, start + _BLOCK)
        sx = np.sign(x[start:stop, None] - x[None, :])
        sy = np.sign(y[start:stop, None] - y[None, :])
        upper = np.arange(start, stop)[:, None] < np.arange(n)[None, :]
        s += int(np.sum(sx * sy * upper))
        tx += int(np.sum((sx != 0) & upper))
        ty += int(np.sum((sy != 0) & upper))
    return float(s), float(tx), float(ty)


def kendall_tau(x, y) -> float:
    r"""Kendall's tau-b between two orderings, with ties (as :func:`scipy.stats.kendalltau`).

    .. math:: \tau_b = \frac{C - D}{\sqrt{(n_0 - n_1)(n_0 - n_2)}}

    :math:`C` and :math:`D` count concordant and discordant pairs, :math:`n_0 = n(n-1)/2`,
    and :math:`n_1, n_2` the pairs tied in ``x`` and in ``y``. Without ties this is Kendall's
    (1938) :math:`\tau = (C - D) / (N(N-1)/2)`. ``nan`` when either ordering is constant
    or there are fewer than 2 items.
    """
    x, y = _scores(x, y)
    if x.size < 2:
        return math.nan
    s, tx, ty = _pair_sums(x, y)
    if tx == 0 or ty == 0:
        return math.nan
    return float(np.clip(s / math.sqrt(tx * ty), -1.0, 1.0))


def tau_ap(x, y, symmetric: bool = False) -> float:
    r"""AP correlation coefficient tau_AP (Yilmaz, Aslam & Robertson, SIGIR 2008).

    ``x`` is the reference ordering (e.g. the "true" system scores), ``y`` the ordering
    being evaluated. Items are sorted by decreasing ``y``; for the item at position
    :math:`i` (1-based), :math:`C(i)` counts the items above it in ``y`` that are also
    above it in ``x`` (strictly larger reference score):

    .. math:: \tau_{AP} = \frac{2}{N-1} \sum_{i=2}^{N} \frac{C(i)}{i-1} - 1

    Swaps near the top cost more than swaps near the bottom; without ties tau_AP equals
    1 for identical and -1 for reversed orderings. tau_AP is not symmetric;
    ``symmetric=True`` returns the mean of ``tau_ap(x, y)`` and ``tau_ap(y, x)``. Ties in
    the evaluated ordering make the order undefined and raise :class:`InputError`; tied
    reference scores count as not correctly ordered.
    """
    x, y = _scores(x, y)
    if symmetric:
        return 0.5 * (tau_ap(x, y) + tau_ap(y, x))
    n = x.size
    if n < 2:
        return math.nan
    if np.unique(y).size != n:
        raise InputError("tau_AP needs an ordering without ties; the evaluated scores tie")
    ref = x[np.argsort(-y, kind="stable")]
    correct = np.zeros(n)
    for start in range(0, n, _BLOCK):
        stop = min(n, start + _BLOCK)
        above = np.arange(n)[None, :] < np.arange(start, stop)[:, None]
        correct[start:stop] = np.sum(above & (ref[None, :] > ref[start:stop, None]), axis=1)
    i = np.arange(2, n + 1)
    return float(2.0 / (n - 1) * np.sum(correct[1:] / (i - 1)) - 1.0)


def _average_ranks(a: np.ndarray) -> np.ndarray:
    order = np.argsort(a, kind="stable")
    s = a[order]
    new = np.r_[True, s[1:] != s[:-1]]
    starts = np.flatnonzero(new)
    ends = np.r_[starts[1:], s.size]
    ranks = np.empty(a.size)
    ranks[order] = ((starts + ends + 1) / 2.0)[np.cumsum(new) - 1]
    return ranks


def spearman_rho(x, y) -> float:
    r"""Spearman's rank correlation (as :func:`scipy.stats.spearmanr`).

    The Pearson correlation of the average ranks of ``x`` and of ``y``. Without ties it
    equals Spearman's (1904) formula :math:`\rho = 1 - 6\sum_i d_i^2 / (N(N^2-1))` with
    :math:`d_i` the rank difference of item :math:`i`. ``nan`` when either ordering is
    constant or there are fewer than 2 items.
    """
    x, y = _scores(x, y)
    if x.size < 2:
        return math.nan
    rx = _average_ranks(x)
    ry = _average_ranks(y)
    rx -= rx.mean()
    ry -= ry.mean()
    den = math.sqrt(float(rx @ rx) * float(ry @ ry))
    if den == 0:
        return math.nan
    return float(np.clip(float(rx @ ry) / den, -1.0, 1.0))


def rbo(a: Sequence, b: Sequence, p: float = 0.9) -> float:
    r"""Extrapolated rank-biased overlap RBO_ext (Webber, Moffat & Zobel, TOIS 2010).

    ``a`` and ``b`` are rankings (sequences of item ids, best first, no duplicates),
    possibly of different lengths and not over the same items. With :math:`X_d` the
    size of the overlap of the two prefixes of depth :math:`d`, :math:`s` and :math:`l`
    the lengths of the shorter and longer ranking (eq. 32 of the paper):

    .. math:: \mathrm{RBO}_{ext} = \frac{1-p}{p}\Big(\sum_{d=1}^{l} \frac{X_d}{d} p^d
              + \sum_{d=s+1}^{l} \frac{X_s (d-s)}{s\,d} p^d\Big)
              + \Big(\frac{X_l - X_s}{l} + \frac{X_s}{s}\Big) p^l

    where, for :math:`d > s`, :math:`X_d` counts the items of the whole shorter ranking
    found in the first :math:`d` of the longer one. For two rankings of equal length
    :math:`k` this is :math:`\frac{X_k}{k} p^k + \frac{1-p}{p}\sum_{d=1}^k \frac{X_d}{d}
    p^d`. 1 for identical rankings, 0 for disjoint ones; ``p`` (0 < p < 1) is the
    persistence: the expected depth the comparison looks at is :math:`1/(1-p)`.
    """
    if not isinstance(p, (int, float)) or not 0 < p < 1:
        raise ParameterError("p", "a number strictly between 0 and 1", p)
    a = list(a)
    b = list(b)
    for name, r in (("first", a), ("second", b)):
        if len(set(r)) != len(r):
            raise InputError(f"the {name} ranking contains duplicate items")
    if not a and not b:
        return 1.0
    if not a or not b:
        return 0.0
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    s, ln = len(short), len(long_)
    pos_long = {item: i for i, item in enumerate(long_)}
    # depth (1-based) at which each shared item has appeared in both prefixes
    shared = [(i, pos_long[item]) for i, item in enumerate(short) if item in pos_long]
    if shared:
        si, li = np.asarray(shared).T
        seen_both = np.maximum(si, li) + 1  # depth where it enters X_d (d <= s)
        seen_long = li + 1  # for d > s the whole short ranking is available
    else:
        seen_both = seen_long = np.zeros(0, dtype=np.int64)
    d = np.arange(1, ln + 1)
    x = np.empty(ln)
    x[:s] = np.cumsum(np.bincount(seen_both[seen_both <= s], minlength=s + 1)[1:])
    x[s:] = np.cumsum(np.bincount(seen_long, minlength=ln + 1)[1:])[s:]
    xs, xl = x[s - 1], x[-1]
    pd = float(p) ** d
    total = np.sum(x / d * pd)
    tail = d > s
    total += np.sum(xs * (d[tail] - s) / (s * d[tail]) * pd[tail])
    return float((1 - p) / p * total + ((xl - xs) / ln + xs / s) * p**ln)


def kendall_tau_distance(relevance) -> int:
    r"""Number of inversions of a ranking with respect to relevance (Kendall 1938).

    ``relevance`` holds the relevance grades of the retrieved documents in rank order.
    An inversion is a pair of positions :math:`i < j` (document :math:`i` shown first)
    with :math:`rel_i < rel_j`: a more relevant document appears after a less relevant
    one. The lower the count the better; 0 means the ranking is sorted by relevance.
    """
    r = np.asarray(relevance, dtype=np.float64)
    if r.ndim != 1:
        raise InputError(f"expected a 1-D array of relevance grades, got shape {r.shape}")
    if np.isnan(r).any():
        raise InputError("relevance grades contain NaN")
    n = r.size
    total = 0
    for start in range(0, n, _BLOCK):
        stop = min(n, start + _BLOCK)
        later = np.arange(start, stop)[:, None] < np.arange(n)[None, :]
        total += int(np.sum(later & (r[start:stop, None] < r[None, :])))
    return total


# --------------------------------------------------------------------------- inference
@dataclass(frozen=True)
class CorrelationTest:
    """A rank correlation with its p-value and confidence interval.

    ``method`` says how the p-value was obtained (``"exact"``, ``"permutation"``,
    ``"asymptotic"``, ``"t-distribution"``); every field is ``nan`` where it is undefined (constant
    ordering, too few items for the interval).
    """

    __test__ = False  # not a pytest class

    statistic: float
    pvalue: float
    ci_low: float
    ci_high: float
    n: int
    method: str


_ALTERNATIVES = ("two-sided", "greater", "less")


def _check_inference(alternative: str, confidence) -> None:
    if alternative not in _ALTERNATIVES:
        raise ParameterError("alternative", "one of " + ", ".join(_ALTERNATIVES), alternative)
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)):
        raise ParameterError("confidence", "a number strictly between 0 and 1", confidence)
    if not 0 < confidence < 1:
        raise ParameterError("confidence", "a number strictly between 0 and 1", confidence)


def _normal_sf(z: float) -> float:
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def _fisher_interval(r: float, se: float, confidence: float) -> tuple[float, float]:
    r"""``tanh(atanh(r) -+ z_{1-alpha/2} se)``: the Fisher z-transform interval."""
    if not (math.isfinite(r) and math.isfinite(se)):
        return math.nan, math.nan
    zc = NormalDist().inv_cdf(0.5 + confidence / 2)
    with np.errstate(divide="ignore"):
        z = float(np.arctanh(np.clip(r, -1.0, 1.0)))
    return math.tanh(z - zc * se), math.tanh(z + zc * se)


def _tie_sums(a: np.ndarray) -> tuple[int, float, float]:
    """Over groups of ``t`` tied values: sum t(t-1)/2, sum t(t-1)(t-2), sum t(t-1)(2t+5)."""
    _, t = np.unique(a, return_counts=True)
    t = t[t > 1].astype(np.float64)
    return (
        int(np.sum(t * (t - 1) // 2)),
        float(np.sum(t * (t - 1) * (t - 2))),
        float(np.sum(t * (t - 1) * (2 * t + 5))),
    )


def _kendall_exact_lower(n: int, c: int) -> tuple[float, float]:
    """P[K <= c] and P[K = c] for the number K of discordant pairs of a random
    permutation of ``n`` items (Kendall 1970, ch. 4): the coefficients of
    :math:`\\prod_{j=1}^{n} (1 + x + \\dots + x^{j-1}) / j`, truncated at degree ``c``."""
    p = np.zeros(c + 1)
    p[0] = 1.0
    for j in range(2, n + 1):  # n <= a few hundred: one short loop over factors
        q = np.cumsum(p)
        if j <= c:
            q[j:] -= q[: c + 1 - j]
        p = q / j
    return float(p.sum()), float(p[-1])


#: Up to this many items, p-values come from every permutation of one ordering
#: (9! = 362,880 rows): Spearman's always, Kendall's when there are ties.
PERMUTATION_MAX_N = 9


@memo(4)
def _permutations(n: int) -> np.ndarray:
    """All ``n!`` permutations of ``range(n)``, one per row (int8), built by inserting
    the last item at every position of the permutations of ``n - 1``."""
    perms = np.zeros((1, 0), np.int8)
    for m in range(n):  # n <= PERMUTATION_MAX_N steps, each whole-array
        rows = []
        for pos in range(m + 1):
            new = np.empty((perms.shape[0], m + 1), np.int8)
            new[:, :pos] = perms[:, :pos]
            new[:, pos] = m
            new[:, pos + 1 :] = perms[:, pos:]
            rows.append(new)
        perms = np.concatenate(rows)
    return perms


def _permutation_p(null: np.ndarray, observed, alternative: str) -> float:
    """The exact permutation p-value of an integer-valued statistic, as
    :func:`scipy.stats.permutation_test` with every permutation: ``greater`` the share
    of ``null >= observed``, ``less`` of ``<=``, two-sided twice the smaller, capped at
    1."""
    greater = float(np.count_nonzero(null >= observed)) / null.size
    less = float(np.count_nonzero(null <= observed)) / null.size
    if alternative == "greater":
        return greater
    if alternative == "less":
        return less
    return min(1.0, 2.0 * min(greater, less))


def _pair_signs(values: np.ndarray) -> np.ndarray:
    i, j = np.triu_indices(values.shape[-1], 1)
    return np.sign(values[..., j] - values[..., i]).astype(np.float32)


def kendall_tau_test(
    x, y, alternative: str = "two-sided", confidence: float = 0.95
) -> CorrelationTest:
    r"""Kendall's tau-b with its p-value (as :func:`scipy.stats.kendalltau`) and a
    Fisher z-transform confidence interval.

    P-value: without ties and for :math:`n \le 33` (or at most one discordant or
    concordant pair) the exact null distribution of the number of discordant pairs
    (Kendall 1970; ``method="exact"``); with ties and :math:`n \le 9`
    (:data:`PERMUTATION_MAX_N`) the exact permutation distribution of :math:`C - D` over
    all :math:`n!` pairings (``method="permutation"``, as
    :func:`scipy.stats.permutation_test` with every permutation); otherwise the normal
    approximation of :math:`C - D` with the tie
    corrected variance (Kendall 1970, eq. 4.3):

    .. math:: \mathrm{Var}(C - D) = \frac{v_0 - v_x - v_y}{18}
              + \frac{2 t_x t_y}{n(n-1)} + \frac{u_x u_y}{9 n (n-1)(n-2)}

    Interval: :math:`\tanh(\operatorname{atanh}\tau \mp z_{1-\alpha/2}\,\sigma)` with
    :math:`\sigma^2 = 0.437/(n-4)` (Fieller, Hartley & Pearson 1957); ``nan`` for
    :math:`n < 5`.
    """
    _check_inference(alternative, confidence)
    x, y = _scores(x, y)
    n = x.size
    tau = kendall_tau(x, y)
    if math.isnan(tau):
        return CorrelationTest(math.nan, math.nan, math.nan, math.nan, n, "asymptotic")
    s, _, _ = _pair_sums(x, y)  # C - D
    tot = n * (n - 1) // 2
    xtie, x0, x1 = _tie_sums(x)
    ytie, y0, y1 = _tie_sums(y)
    ntie = _tie_sums(x + 1j * y)[0]  # pairs tied in both
    dis = int(round((tot - xtie - ytie + ntie - s) / 2))
    if (xtie or ytie) and n <= PERMUTATION_MAX_N:
        # ties: the exact conditional null, every pairing of the y values with the x
        # values (C - D is an integer: compared exactly)
        method = "permutation"
        perms = _permutations(n)
        sx = _pair_signs(x)  # float32: sums of at most 36 signs are exact
        null = np.concatenate(
            [_pair_signs(y[perms[i : i + 40320]]) @ sx for i in range(0, len(perms), 40320)]
        )
        p = _permutation_p(null, int(round(s)), alternative)
    elif xtie == 0 and ytie == 0 and (n <= 33 or min(dis, tot - dis) <= 1):
        method = "exact"
        conc = tot - dis
        right = conc >= tot - conc
        c = min(conc, tot - conc)
        if 4 * c == n * (n - 1) and alternative == "two-sided":
            p = 1.0
        else:
            lower, at_c = _kendall_exact_lower(n, c)
            p = 2.0 * lower
            if alternative != "two-sided":
                p = p / 2 if right == (alternative == "greater") else 1 - p / 2 + at_c
        p = min(1.0, max(0.0, p))
    else:
        method = "asymptotic"
        m = n * (n - 1.0)
        var = (m * (2 * n + 5) - x1 - y1) / 18 + 2 * xtie * ytie / m
        if n > 2:
            var += x0 * y0 / (9 * m * (n - 2))
        z = s / math.sqrt(var)
        if alternative == "two-sided":
            p = 2.0 * _normal_sf(abs(z))
        else:
            p = _normal_sf(z) if alternative == "greater" else _normal_sf(-z)
    se = math.sqrt(0.437 / (n - 4)) if n > 4 else math.nan
    low, high = _fisher_interval(tau, se, confidence)
    return CorrelationTest(tau, float(p), low, high, n, method)


def spearman_rho_test(
    x, y, alternative: str = "two-sided", confidence: float = 0.95
) -> CorrelationTest:
    r"""Spearman's rho with its p-value (as :func:`scipy.stats.spearmanr`) and a
    Fisher z-transform confidence interval.

    P-value: for :math:`n \le 9` (:data:`PERMUTATION_MAX_N`) the exact permutation
    distribution of rho over all :math:`n!` pairings of the ranks, ties included
    (``method="permutation"``, as :func:`scipy.stats.permutation_test` with every
    permutation: two-sided, twice the smaller tail, capped at 1); above,
    :math:`t = \rho\sqrt{(n-2)/((1+\rho)(1-\rho))}` against Student's t with
    :math:`n-2` degrees of freedom (``method="t-distribution"``, as
    :func:`scipy.stats.spearmanr`; requires SciPy). Interval:
    :math:`\tanh(\operatorname{atanh}\rho \mp z_{1-\alpha/2}\,\sigma)` with
    :math:`\sigma^2 = (1 + \rho^2/2)/(n-3)` (Bonett & Wright 2000); ``nan`` for
    :math:`n < 4`.
    """
    _check_inference(alternative, confidence)
    x, y = _scores(x, y)
    n = x.size
    rho = spearman_rho(x, y)
    if math.isnan(rho) or n < 3:
        return CorrelationTest(rho, math.nan, math.nan, math.nan, n, "t-distribution")
    se = math.sqrt((1 + rho * rho / 2) / (n - 3)) if n > 3 else math.nan
    low, high = _fisher_interval(rho, se, confidence)
    if n <= PERMUTATION_MAX_N:
        # every pairing of the ranks: sum rank_x * rank_y orders rho (the means and
        # variances of the ranks do not change); twice the average ranks are integers
        rx, ry = (np.rint(2 * _average_ranks(v)).astype(np.int64) for v in (x, y))
        null = rx[_permutations(n)] @ ry
        p = _permutation_p(null, int(rx @ ry), alternative)
        return CorrelationTest(rho, p, low, high, n, "permutation")
    from ..errors import require

    special = require("scipy.special", "stats")
    dof = n - 2
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (
            rho * math.sqrt(max(0.0, dof / ((rho + 1.0) * (1.0 - rho))))
            if abs(rho) < 1
            else (math.copysign(math.inf, rho))
        )
    if alternative == "two-sided":
        p = 2.0 * float(special.stdtr(dof, -abs(t)))
    else:
        p = float(special.stdtr(dof, -t if alternative == "greater" else t))
    return CorrelationTest(rho, min(1.0, p), low, high, n, "t-distribution")
