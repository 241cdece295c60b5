"""Two-sample statistics of an A/B test on per-unit values: control ``a``, treatment
``b``; every difference is ``b - a``.

References: Welch (1947); Mann & Whitney (1947); Efron & Tibshirani (1993, the
percentile bootstrap); Deng, Knoblich & Lu (2018, the delta method for ratio metrics);
Deng, Xu, Kohavi & Walker (2013, CUPED); Fabijan et al. (2019, sample ratio mismatch);
Kohavi, Tang & Xu (2020), *Trustworthy Online Controlled Experiments*.
"""

from __future__ import annotations

import math

import numpy as np

from .. import distributions
from ..errors import InputError, ParameterError
from ..output import monte_carlo_bound

#: Largest magnitude of a value the statistics take: sums of squares of up to 10^8
#: such values stay finite (1e150^2 * 1e8 = 1e308).
LARGEST = 1e150


def _check(a, b, minimum: int = 2):
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.size < minimum or b.size < minimum:
        raise InputError(f"each variant needs at least {minimum} units", "A/B test")
    for v in (a, b):
        if v.size and not np.abs(v).max() <= LARGEST:
            worst = float(v[np.argmax(~(np.abs(v) <= LARGEST))])
            raise InputError(
                f"a value of {worst:g} is beyond ±{LARGEST:g}, where squares and sums "
                "overflow: rescale the metric",
                "A/B test",
            )
    return a, b


def _confidence(confidence: float) -> float:
    if not (isinstance(confidence, float | int) and 0 < confidence < 1):
        raise ParameterError("confidence", "a number in (0, 1)", confidence)
    return float(confidence)


def welch(a, b, confidence: float = 0.95) -> dict:
    r"""Welch's t-test (as :func:`scipy.stats.ttest_ind` with ``equal_var=False``).

    :math:`t = (\bar b - \bar a) / se`, :math:`se^2 = s_a^2/n_a + s_b^2/n_b`, degrees
    of freedom :math:`se^4 / ((s_a^2/n_a)^2/(n_a-1) + (s_b^2/n_b)^2/(n_b-1))`
    (Welch 1947); interval :math:`\bar b - \bar a \pm t_{1-\alpha/2, df}\, se`.
    """
    a, b = _check(a, b)
    c = _confidence(confidence)
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    se = math.sqrt(va + vb)
    diff = float(b.mean() - a.mean())
    if se == 0:
        t = p = df = math.nan
        low = high = diff
    else:
        df = (va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1))
        t = diff / se
        p = float(2 * distributions.t_sf(abs(t), df))
        q = float(distributions.t_ppf(0.5 + c / 2, df))
        low, high = diff - q * se, diff + q * se
    return {
        "test": "welch",
        "mean_control": float(a.mean()),
        "mean_treatment": float(b.mean()),
        "difference": diff,
        "relative": diff / a.mean() if a.mean() != 0 else math.nan,
        "se": se,
        "statistic": t,
        "df": df,
        "p_value": p,
        "ci": [low, high],
    }


#: Above this many pairs (n_a n_b) the order statistics of the pairwise differences are
#: found by bisection on their value (memory O(n_a + n_b)) instead of enumerating them.
PAIRS_IN_MEMORY = 1 << 22


def _difference_order_statistics(a: np.ndarray, b: np.ndarray, ranks) -> np.ndarray:
    """The ``ranks``-th smallest (1-based) of the ``n_a n_b`` differences ``b_j - a_i``.

    Up to :data:`PAIRS_IN_MEMORY` pairs: all differences and ``np.partition``; above,
    bisection on the value with the count ``#{b_j - a_i <= t} = sum_j #{a_i >= b_j - t}``
    (one ``searchsorted`` per step), to adjacent doubles: exact up to the rounding of
    ``b_j - t``."""
    ranks = np.asarray(ranks, np.int64)
    if a.size * b.size <= PAIRS_IN_MEMORY:
        d = np.subtract.outer(b, a).ravel()
        return np.partition(d, ranks - 1)[ranks - 1]
    a = np.sort(a)
    lo = np.full(ranks.shape, float(b.min() - a.max()))
    hi = np.full(ranks.shape, float(b.max() - a.min()))

    def count(t):
        return (a.size - np.searchsorted(a, b[None, :] - t[:, None], side="left")).sum(axis=1)

    for _ in range(2100):  # bisection halves the gap: about 64 steps each on doubles
        mid = lo + (hi - lo) / 2
        moving = (mid > lo) & (mid < hi)
        if not moving.any():
            break
        enough = count(mid) >= ranks
        hi = np.where(moving & enough, mid, hi)
        lo = np.where(moving & ~enough, mid, lo)
    return hi


def mann_whitney(a, b, confidence: float = 0.95) -> dict:
    r"""Mann–Whitney U test, two-sided, normal approximation with tie and continuity
    corrections (as :func:`scipy.stats.mannwhitneyu` with ``method="asymptotic"``),
    with the Hodges–Lehmann shift and its distribution-free interval.

    :math:`U_b = R_b - n_b(n_b+1)/2` (``R_b``: rank sum of ``b`` in the pooled sample,
    average ranks for ties), :math:`\mu = n_a n_b / 2`,
    :math:`\sigma^2 = \frac{n_a n_b}{12}\left(n + 1 - \frac{\sum (t^3 - t)}{n(n-1)}\right)`,
    :math:`z = \operatorname{sign}(U_b - \mu)\,\max(|U_b - \mu| - 1/2, 0) / \sigma`: positive
    when ``b`` tends to be larger (SciPy's one-sided statistic), so its sign is that of
    the difference; ``p = min(1, 2 \Phi(-|z|))``.

    ``difference``: the Hodges–Lehmann estimate of the shift, the median of the
    :math:`n_a n_b` differences :math:`b_j - a_i` (Hodges & Lehmann 1963); ``ci``: the
    order statistics :math:`[D_{(C)}, D_{(n_a n_b + 1 - C)}]` with
    :math:`C = \lceil \mu - z_{1-\alpha/2}\sigma \rceil`, the shifts the
    normal-approximation test does not reject (Lehmann 1975, ch. 2; Hollander & Wolfe
    1999, ch. 4); undefined (``nan``) when :math:`C < 1`.
    """
    a, b = _check(a, b, 1)
    c = _confidence(confidence)
    na, nb = a.size, b.size
    n = na + nb
    ranks, _ = distributions.average_ranks(np.concatenate([b, a]))
    u = float(ranks[:nb].sum() - nb * (nb + 1) / 2)
    _, counts = np.unique(np.concatenate([a, b]), return_counts=True)
    ties = float((counts.astype(float) ** 3 - counts).sum())
    sigma = math.sqrt(na * nb / 12 * ((n + 1) - ties / (n * (n - 1)))) if n > 1 else 0.0
    mu = na * nb / 2
    if sigma == 0:
        z = p = math.nan
    else:
        z = math.copysign(max(abs(u - mu) - 0.5, 0.0), u - mu) / sigma
        p = float(min(1.0, 2 * distributions.norm_sf(abs(z))))
    pairs = na * nb
    middle = [(pairs + 1) // 2, pairs // 2 + 1]
    cut = math.ceil(mu - float(distributions.norm_ppf(0.5 + c / 2)) * sigma)
    ends = [cut, pairs + 1 - cut] if cut >= 1 else []
    stats = _difference_order_statistics(a, b, middle + ends)
    low, high = (float(stats[2]), float(stats[3])) if ends else (math.nan, math.nan)
    return {
        "test": "mann-whitney",
        "statistic": u,
        "z": z,
        "p_value": p,
        "difference": float(stats[0] / 2 + stats[1] / 2),
        "estimate": "hodges-lehmann",
        "ci": [low, high],
    }


def bootstrap_ci(a, b, confidence: float = 0.95, replicates: int = 2000, seed: int = 0) -> dict:
    """Percentile bootstrap interval of ``mean(b) - mean(a)``: each variant resampled
    with replacement on its own (Efron & Tibshirani 1993), ``replicates`` times, from
    ``numpy.random.default_rng(seed)`` in blocks of at most 256 replicates and about
    4 million drawn indices (so memory stays bounded and the result depends only on the
    data and the seed). Also the two-sided bootstrap p-value
    ``2 min(P*(d <= 0), P*(d >= 0))``, capped at 1; when no replicate reaches 0 that is
    0, and the p-value reported is the resolution ``2 / (replicates + 1)``
    (:func:`cranfield.output.monte_carlo_bound`) with ``p_value_is_bound`` true."""
    a, b = _check(a, b, 1)
    c = _confidence(confidence)
    if (
        isinstance(replicates, bool)
        or not isinstance(replicates, int)
        or not 1 <= replicates <= 10**6
    ):
        raise ParameterError("replicates", "an integer in [1, 1000000]", replicates)
    rng = np.random.default_rng(seed)
    chunk = max(1, min(256, 4_000_000 // max(a.size, b.size)))
    diffs = np.empty(replicates)
    for start in range(0, replicates, chunk):
        m = min(chunk, replicates - start)
        ia = rng.integers(0, a.size, (m, a.size))
        ib = rng.integers(0, b.size, (m, b.size))
        diffs[start : start + m] = b[ib].mean(axis=1) - a[ia].mean(axis=1)
    low, high = np.quantile(diffs, [0.5 - c / 2, 0.5 + c / 2])
    p = min(1.0, 2 * min(float((diffs <= 0).mean()), float((diffs >= 0).mean())))
    bound = p == 0
    return {
        "test": "bootstrap",
        "difference": float(b.mean() - a.mean()),
        "ci": [float(low), float(high)],
        "p_value": monte_carlo_bound(replicates) if bound else p,
        "p_value_is_bound": bound,
        "replicates": replicates,
    }


def _ratio_var(num: np.ndarray, den: np.ndarray) -> tuple[float, float]:
    n = num.size
    mn, md = num.mean(), den.mean()
    if md == 0:
        raise InputError("a ratio metric whose denominator sums to 0 in a variant", "A/B test")
    r = mn / md
    cov = np.cov(num, den, ddof=1)
    var = (cov[0, 0] - 2 * r * cov[0, 1] + r * r * cov[1, 1]) / (n * md * md)
    return float(r), float(max(var, 0.0))


def ratio_delta(num_a, den_a, num_b, den_b, confidence: float = 0.95) -> dict:
    r"""A ratio metric (``sum num / sum den`` per variant, e.g. CTR = clicks / queries
    with users as units) by the delta method (Deng, Knoblich & Lu 2018):
    :math:`\mathrm{Var}(\bar x / \bar y) \approx \frac{1}{n \bar y^2}(s_x^2 - 2R s_{xy} +
    R^2 s_y^2)`; the difference is tested with a normal z and its interval."""
    num_a, num_b = _check(num_a, num_b)
    den_a, den_b = _check(den_a, den_b)
    if num_a.shape != den_a.shape or num_b.shape != den_b.shape:
        raise InputError("numerator and denominator differ in length", "A/B test")
    c = _confidence(confidence)
    ra, var_a = _ratio_var(num_a, den_a)
    rb, var_b = _ratio_var(num_b, den_b)
    diff = rb - ra
    se = math.sqrt(var_a + var_b)
    q = float(distributions.norm_ppf(0.5 + c / 2))
    z = diff / se if se > 0 else math.nan
    p = float(2 * distributions.norm_sf(abs(z))) if se > 0 else math.nan
    return {
        "test": "delta",
        "mean_control": ra,
        "mean_treatment": rb,
        "difference": diff,
        "relative": diff / ra if ra != 0 else math.nan,
        "se": se,
        "statistic": z,
        "p_value": p,
        "ci": [diff - q * se, diff + q * se],
    }


#: Relative size of rounding noise: 16 units in the last place of a double.
ROUNDING = 16 * np.finfo(float).eps


def cuped(a, b, a_pre, b_pre, confidence: float = 0.95) -> dict:
    r"""CUPED (Deng, Xu, Kohavi & Walker 2013): with the pre-period covariate ``x``,
    :math:`\theta = \mathrm{cov}(y, x) / \mathrm{var}(x)` on the units of ``a`` and ``b`` pooled (the
    two variants compared, not every variant of the experiment) and
    :math:`y' = y - \theta (x - \bar x)`; Welch's test on ``y'``. Reports ``theta``
    and the variance reduction :math:`1 - \mathrm{var}(y') / \mathrm{var}(y)`."""
    a, b = _check(a, b)
    a_pre, b_pre = _check(a_pre, b_pre)
    if a.shape != a_pre.shape or b.shape != b_pre.shape:
        raise InputError("the covariate and the metric differ in length", "A/B test")
    y = np.concatenate([a, b])
    x = np.concatenate([a_pre, b_pre])
    vx = x.var(ddof=1)
    theta = float(np.cov(y, x, ddof=1)[0, 1] / vx) if vx > 0 else 0.0
    adj = y - theta * (x - x.mean())
    out = welch(adj[: a.size], adj[a.size :], confidence)
    noise = ROUNDING * (float(np.abs(y).max()) + abs(theta) * float(np.abs(x - x.mean()).max()))
    if max(adj[: a.size].std(), adj[a.size :].std()) <= noise:
        diff = out["difference"] if abs(out["difference"]) > noise else 0.0
        out.update(
            difference=diff,
            relative=diff / out["mean_control"] if out["mean_control"] != 0 else math.nan,
            se=math.nan,
            statistic=math.nan,
            df=math.nan,
            p_value=math.nan,
            ci=[diff, diff],
            note="the covariate predicts the metric exactly (the adjusted values are "
            "constant within rounding in each variant): no test",
        )
    vy = y.var(ddof=1)
    out.update(
        test="cuped",
        theta=theta,
        variance_reduction=float(1 - adj.var(ddof=1) / vy) if vy > 0 else math.nan,
    )
    return out


def sample_ratio_mismatch(counts, expected=None) -> dict:
    r"""Sample-ratio-mismatch check: Pearson's chi-square of the units per variant
    against the planned split ``expected`` (proportions; default equal), as
    :func:`scipy.stats.chisquare` (Fabijan et al. 2019)."""
    counts = np.asarray(counts, dtype=float)
    k = counts.size
    if k < 2:
        raise InputError("a sample-ratio check needs at least two variants", "A/B test")
    share = np.full(k, 1.0 / k) if expected is None else np.asarray(expected, dtype=float)
    if share.shape != (k,) or not np.isfinite(share).all() or (share <= 0).any():
        raise ParameterError("expected", f"{k} positive proportions", list(np.atleast_1d(share)))
    exp = counts.sum() * share / share.sum()
    chi2 = float(((counts - exp) ** 2 / exp).sum())
    return {
        "test": "srm",
        "statistic": chi2,
        "df": k - 1,
        "p_value": float(distributions.chi2_sf(chi2, k - 1)),
        "expected": exp.tolist(),
    }
