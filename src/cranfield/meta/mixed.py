"""Variance components of a runs x topics score matrix by a linear mixed model: the
systems fixed, the topics random (a random intercept per topic), fitted by restricted
maximum likelihood (REML). Unlike the two-way ANOVA's sums of squares, the REML
estimates stay well defined when runs lack topics (Carterette 2012; Ferro & Silvello
2016).
"""

from __future__ import annotations

import math

from .._lazy import lazy
from ..errors import InputError, require
from .anova import _matrix, require_scored
from .registry import META_STATISTICS, MetaStatistic

np = lazy("numpy", __name__, "np")

__all__ = ["mixed_model"]

#: the largest ratio rho = gamma / (1 + gamma) searched (gamma: topic over residual
#: variance); beyond it the residual variance is indistinguishable from 0
RHO_MAX = 1.0 - 1e-9

#: most k^2 (k + n) of k runs and n topics (the cost of one step of the search, some
#: 30 steps in all: about a second per 10^9 on one core)
MAX_WORK = 1 << 31


def _design(m: np.ndarray):
    """Per-run counts, the runs x topics incidence, per-run and per-topic score sums,
    per-topic counts, the sum of squares and the number of scores."""
    have = np.isfinite(m)
    require_scored(have)
    y = np.where(have, m, 0.0)
    c = have.astype(np.float64)
    size = int(np.count_nonzero(have))
    return c, c.sum(axis=1), c.sum(axis=0), y.sum(axis=1), y.sum(axis=0), float(np.sum(y * y)), size


def _gls(gamma: float, c, r, n_t, b, t, yy: float):
    r"""``(w, A, fixed effects, residual sum of squares)`` at ``gamma``.

    Each topic's covariance is :math:`\sigma^2 (I + \gamma 11')`, whose inverse is
    :math:`(I - w_t 11')/\sigma^2` with :math:`w_t = \gamma / (1 + \gamma n_t)`; so with
    one fixed effect per run (cell-means coding) :math:`A = X'H^{-1}X = \mathrm{diag}(r) -
    C \mathrm{diag}(w) C'` for the runs x topics incidence :math:`C`, and
    :math:`X'H^{-1}y = b - C (w \circ T)` for the runs' and topics' score sums
    :math:`b`, :math:`T`.
    """
    w = gamma / (1.0 + gamma * n_t)
    a = np.diag(r) - (c * w[None, :]) @ c.T
    rhs = b - c @ (w * t)
    beta = np.linalg.solve(a, rhs)
    return w, a, beta, yy - float(w @ (t * t)) - float(rhs @ beta)


def _profile(rho: float, c, r, n_t, b, t, yy: float, size: int):
    """``(-2 restricted log-likelihood up to a constant, residual sum of squares, fixed
    effects)`` at ``rho = gamma / (1 + gamma)`` (:func:`mixed_model` states it)."""
    gamma = rho / (1.0 - rho)
    _, a, beta, rss = _gls(gamma, c, r, n_t, b, t, yy)
    sign, logdet_a = np.linalg.slogdet(a)
    df = size - r.size
    if rss <= 0 or sign <= 0:
        return math.inf, 0.0, beta
    value = df * math.log(rss / df) + float(np.sum(np.log1p(gamma * n_t))) + logdet_a
    return value, rss, beta


def _slope(gamma: float, c, r, n_t, b, t, yy: float, size: int) -> float:
    r"""The derivative in ``gamma`` of :func:`_profile`'s objective: with :math:`w'_t =
    1/(1 + \gamma n_t)^2` and :math:`e_t` topic :math:`t`'s sum of residuals from the
    fixed effects, :math:`-(N-k)\sum_t w'_t e_t^2/RSS + \sum_t n_t/(1 + \gamma n_t) -
    \sum_t w'_t c_t' A^{-1} c_t` (its root is exact where the minimum's value is flat)."""
    _, a, beta, rss = _gls(gamma, c, r, n_t, b, t, yy)
    dw = 1.0 / (1.0 + gamma * n_t) ** 2
    e = t - c.T @ beta
    leverage = np.sum(c * np.linalg.solve(a, c), axis=0)
    df = size - r.size
    return float(-df * (dw @ (e * e)) / rss + np.sum(n_t / (1.0 + gamma * n_t)) - dw @ leverage)


def _polish(rho: float, args) -> float:
    """The root of :func:`_slope` near the minimum ``rho`` found by Brent's method."""
    optimize = require("scipy.optimize", "stats")
    lo, hi = max(rho - 1e-6, 0.0), min(rho + 1e-6, RHO_MAX)
    g_lo, g_hi = lo / (1.0 - lo), hi / (1.0 - hi)
    if not (_slope(g_lo, *args) < 0 < _slope(g_hi, *args)):
        return rho
    gamma = optimize.brentq(_slope, g_lo, g_hi, args=args, xtol=1e-300, rtol=1e-15)
    return gamma / (1.0 + gamma)


def mixed_model(scores) -> dict:
    r"""Variance components of the linear mixed model
    :math:`x_{st} = \mu_s + u_t + \epsilon_{st}`, systems fixed, topics random,
    :math:`u_t \sim N(0, \sigma_t^2)`, :math:`\epsilon_{st} \sim N(0, \sigma^2)`, fitted
    by REML (Patterson & Thompson 1971) on the scores it has (NaN: missing, an
    unbalanced design).

    The restricted likelihood is profiled over :math:`\sigma^2` and maximised over the
    one ratio :math:`\gamma = \sigma_t^2/\sigma^2` (Harville 1977):
    :math:`-2\ell_R = (N-k)\log(RSS_\gamma/(N-k)) + \sum_t \log(1 + \gamma n_t) +
    \log|X'H_\gamma^{-1}X|`, with :math:`\hat\sigma^2 = RSS_\gamma/(N-k)` for
    :math:`N` scores, :math:`k` runs and :math:`n_t` scores on topic :math:`t`.

    Rows ``system`` (``variance``: the sample variance, :math:`k-1`, of the fitted run
    effects :math:`\hat\mu_s`; ``estimates``: those effects, the runs' means adjusted for
    the topics they answered), ``topic`` (``variance``: :math:`\hat\sigma_t^2`; ``icc``:
    :math:`\sigma_t^2/(\sigma_t^2 + \sigma^2)`, the correlation of two runs' scores on
    one topic), ``residual`` (:math:`\hat\sigma^2`) and ``total`` (their sum); each
    ``share`` is its variance over the total. As ``statsmodels``' ``MixedLM`` of
    ``score ~ C(system)`` with ``groups=topic``, ``reml=True``. When every run has
    every topic, :math:`\hat\sigma_t^2 = (MS_{topic} - MS_E)/k` and
    :math:`\hat\sigma^2 = MS_E` of the two-way ANOVA (when that is positive; else 0 and
    the pooled variance). Constant scores leave the shares undefined (NaN).
    """
    m = _matrix(scores, "the mixed model", missing=True)
    k, n = m.shape
    if k * k * (k + n) > MAX_WORK:
        raise InputError(
            f"a mixed model of {k:,} runs and {n:,} topics is too large to fit "
            "(runs^2 x (runs + topics) over 2^31)",
            "scores",
        )
    c, r, n_t, b, t, yy, size = _design(m)
    if size - k < 1:
        raise InputError("no residual degrees of freedom left: too few scores", "scores")
    optimize = require("scipy.optimize", "stats")
    args = (c, r, n_t, b, t, yy, size)

    def objective(rho: float) -> float:
        return _profile(rho, *args)[0]

    rho = 0.0
    if yy - b.sum() ** 2 / size > 0:  # not constant scores
        best = optimize.minimize_scalar(
            objective, bounds=(0.0, RHO_MAX), method="bounded", options={"xatol": 1e-12}
        )
        if best.fun < objective(0.0):  # else the boundary: no topic variance
            rho = _polish(float(best.x), args)
    value, rss, beta = _profile(rho, *args)
    if not math.isfinite(value):  # constant scores (or exactly additive ones)
        rss, beta = 0.0, b / r
    residual = rss / (size - k)
    topic = residual * rho / (1.0 - rho)
    system = float(np.var(beta, ddof=1))
    total = system + topic + residual

    def share(v: float) -> float:
        return v / total if total > 0 else math.nan

    icc = topic / (topic + residual) if topic + residual > 0 else math.nan
    return {
        "system": {
            "variance": system,
            "share": share(system),
            "df": k - 1,
            "estimates": [float(v) for v in beta],
        },
        "topic": {"variance": topic, "share": share(topic), "icc": icc},
        "residual": {"variance": residual, "share": share(residual), "df": size - k},
        "total": {"variance": total, "scores": size},
    }


META_STATISTICS.register(
    MetaStatistic(
        "mixed",
        mixed_model,
        "Linear mixed model (systems fixed, topics random) by REML: variance components, ICC.",
        "$x_{st} = \\mu_s + u_t + \\epsilon_{st}$; REML $\\hat\\sigma_t^2, \\hat\\sigma^2$; "
        "$ICC = \\sigma_t^2/(\\sigma_t^2 + \\sigma^2)$",
        "Patterson & Thompson 1971; Carterette 2012 (TOIS); Ferro & Silvello 2016 (SIGIR); "
        "as `statsmodels` `MixedLM`",
        command="anova",
        label="mixed model",
    )
)
