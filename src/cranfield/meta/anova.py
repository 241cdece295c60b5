"""Variance components of a runs x topics score matrix: the two-way ANOVA without
replication (system and topic effects), and score standardisation (Webber, Moffat &
Zobel, SIGIR 2008).
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import InputError, require
from .registry import META_STATISTICS, MetaStatistic

__all__ = ["two_way_anova", "standardise", "residual_variance"]


def _matrix(scores, what: str) -> np.ndarray:
    m = np.asarray(scores, dtype=np.float64)
    if m.ndim != 2 or m.shape[0] < 2:
        raise InputError(f"{what} needs at least two runs", "scores")
    if m.shape[1] < 2:
        raise InputError(f"{what} needs at least two topics", "scores")
    if not np.all(np.isfinite(m)):
        raise InputError("scores contain NaN or infinite values", "scores")
    return m


def _sums(m: np.ndarray) -> tuple[float, float, float, float]:
    grand = m.mean()
    system = m.mean(axis=1) - grand
    topic = m.mean(axis=0) - grand
    k, n = m.shape
    resid = m - grand - system[:, None] - topic[None, :]
    total = float(np.sum((m - grand) ** 2))
    return float(n * system @ system), float(k * topic @ topic), float(np.sum(resid**2)), total


def residual_variance(scores) -> float:
    r""":math:`V_E`, the residual mean square of the two-way ANOVA without replication,
    :math:`SS_E / ((k-1)(n-1))` (Sakai 2014's estimate of the within-system variance)."""
    m = _matrix(scores, "the residual variance")
    k, n = m.shape
    return _sums(m)[2] / ((k - 1) * (n - 1))


def two_way_anova(scores) -> dict:
    r"""Two-way ANOVA without replication of a runs x topics matrix
    :math:`x_{st} = \mu + \alpha_s + \beta_t + \epsilon_{st}`.

    Rows ``system``, ``topic``, ``residual``, ``total``, each with ``ss`` (sum of
    squares), ``df``, ``ms`` (ss/df), and for the effects ``f`` (ms/ms_residual), ``p``
    (F distribution's upper tail), ``eta2`` (:math:`SS/SS_{total}`: the share of the
    variance) and ``partial_eta2`` (:math:`SS/(SS + SS_E)`), as
    ``statsmodels``' ``anova_lm`` of ``score ~ C(system) + C(topic)`` (the design is
    balanced: types I, II and III agree). Constant scores leave the shares and F
    undefined (NaN).
    """
    m = _matrix(scores, "the two-way ANOVA")
    stats = require("scipy.stats", "stats")
    k, n = m.shape
    ss_s, ss_t, ss_e, ss = _sums(m)
    df_s, df_t, df_e = k - 1, n - 1, (k - 1) * (n - 1)
    ms_e = ss_e / df_e
    rows = {}
    for name, ssx, dfx in (("system", ss_s, df_s), ("topic", ss_t, df_t)):
        ms = ssx / dfx
        with np.errstate(divide="ignore", invalid="ignore"):
            f = np.divide(ms, ms_e) if ms_e > 0 else (math.inf if ms > 0 else math.nan)
        p = float(stats.f.sf(f, dfx, df_e)) if not math.isnan(f) else math.nan
        rows[name] = {
            "ss": ssx,
            "df": dfx,
            "ms": ms,
            "f": float(f),
            "p": p,
            "eta2": ssx / ss if ss > 0 else math.nan,
            "partial_eta2": ssx / (ssx + ss_e) if ssx + ss_e > 0 else math.nan,
        }
    rows["residual"] = {
        "ss": ss_e,
        "df": df_e,
        "ms": ms_e,
        "eta2": ss_e / ss if ss > 0 else math.nan,
    }
    rows["total"] = {"ss": ss, "df": k * n - 1, "ms": ss / (k * n - 1)}
    return rows


def standardise(scores) -> tuple[np.ndarray, int]:
    r"""Standardised scores (Webber, Moffat & Zobel 2008):
    :math:`\Phi\big((x_{st} - \bar x_{\cdot t}) / s_t\big)`, with :math:`\bar x_{\cdot t}`
    and :math:`s_t` the mean and sample standard deviation (n-1) of the runs' scores
    on topic :math:`t` and :math:`\Phi` the standard normal distribution function, so
    every topic weighs alike and the scores stay in (0, 1). A topic on which every run
    scores the same has no spread to standardise by: its scores become 0.5 (z = 0).
    Returns the matrix and the number of such topics.
    """
    m = _matrix(scores, "score standardisation")
    mean = m.mean(axis=0)
    sd = m.std(axis=0, ddof=1)
    flat = ~(sd > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(flat[None, :], 0.0, (m - mean[None, :]) / np.where(flat, 1.0, sd)[None, :])
    special = require("scipy.special", "stats")
    return special.ndtr(z), int(np.count_nonzero(flat))


for _name, _fn, _summary, _formula, _ref, _label in (
    (
        "anova",
        two_way_anova,
        "Two-way ANOVA without replication: system and topic effects, their share of the variance.",
        "$SS_T = SS_{sys} + SS_{topic} + SS_E$; $F = MS/MS_E$; $\\eta^2 = SS/SS_T$",
        "Fisher 1925; Banks, Over & Zhang 1999; Sakai 2014; as `statsmodels` `anova_lm`",
        "two-way ANOVA",
    ),
    (
        "standardised",
        standardise,
        "Scores standardised per topic over the runs, mapped to (0, 1).",
        "$\\Phi((x_{st} - \\bar x_{\\cdot t})/s_t)$, $s_t$ with $n-1$",
        "Webber, Moffat & Zobel 2008 (SIGIR)",
        "standardised mean",
    ),
):
    META_STATISTICS.register(
        MetaStatistic(_name, _fn, _summary, _formula, _ref, command="anova", label=_label)
    )
