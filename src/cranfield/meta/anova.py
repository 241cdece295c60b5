"""Variance components of a runs x topics score matrix: the two-way ANOVA without
replication (system and topic effects), and score standardisation (Webber, Moffat &
Zobel, SIGIR 2008).
"""

from __future__ import annotations

import math

from .._lazy import lazy
from ..errors import InputError, require
from .registry import META_STATISTICS, MetaStatistic

np = lazy("numpy", __name__, "np")


__all__ = ["two_way_anova", "standardise", "residual_variance"]


#: Most cells x effects of the least-squares fit of an unbalanced design (memory bound).
MAX_DESIGN = 1 << 25


def _matrix(scores, what: str, missing: bool = False) -> np.ndarray:
    m = np.asarray(scores, dtype=np.float64)
    if m.ndim != 2 or m.shape[0] < 2:
        raise InputError(f"{what} needs at least two runs", "scores")
    if m.shape[1] < 2:
        raise InputError(f"{what} needs at least two topics", "scores")
    if np.any(np.isinf(m)) or (not missing and np.any(np.isnan(m))):
        raise InputError("scores contain NaN or infinite values", "scores")
    return m


def require_scored(have: np.ndarray) -> None:
    """Refuse a runs x topics mask of the scores there are with a run or a topic that
    has none (no effect of it can be estimated)."""
    if not (have.any(axis=1).all() and have.any(axis=0).all()):
        raise InputError("every run and every topic needs at least one score", "scores")


def _rss(x: np.ndarray, y: np.ndarray) -> tuple[float, int]:
    """Residual sum of squares of the least-squares fit of ``y`` on ``x``, and the rank."""
    coef, _, rank, _ = np.linalg.lstsq(x, y, rcond=None)
    r = y - x @ coef
    return float(r @ r), int(rank)


def _unbalanced_sums(m: np.ndarray) -> tuple[float, float, float, float, int]:
    """Type II sums of squares of a design with missing cells (NaN): each effect's is
    what the other effect's model leaves that the full model explains (Searle 1987;
    ``statsmodels``' ``anova_lm(typ=2)``); and the residual degrees of freedom."""
    k, n = m.shape
    s, t = np.nonzero(np.isfinite(m))
    y = m[s, t]
    require_scored(np.isfinite(m))
    if y.size * (k + n) > MAX_DESIGN:
        raise InputError(
            f"an unbalanced design of {y.size:,} scores and {k + n:,} effects is too large "
            "to fit (score missing topics as 0 with --complete for the balanced ANOVA)",
            "scores",
        )
    systems = (s[:, None] == np.arange(1, k)[None, :]).astype(np.float64)
    topics = (t[:, None] == np.arange(1, n)[None, :]).astype(np.float64)
    one = np.ones((y.size, 1))
    full, rank = _rss(np.hstack([one, systems, topics]), y)
    only_topics, _ = _rss(np.hstack([one, topics]), y)
    only_systems, _ = _rss(np.hstack([one, systems]), y)
    total = float(np.sum((y - y.mean()) ** 2))
    return only_topics - full, only_systems - full, full, total, y.size - rank


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

    Missing cells (NaN: runs that do not answer every topic) make the design
    unbalanced: the sums of squares are then type II (``anova_lm(typ=2)``), fitted by
    least squares, and no longer add up to the total (the shares are each effect's
    own); the residual has :math:`N - k - n + 1` degrees of freedom for :math:`N`
    scores.
    """
    m = _matrix(scores, "the two-way ANOVA", missing=True)
    stats = require("scipy.stats", "stats")
    k, n = m.shape
    if np.any(np.isnan(m)):
        ss_s, ss_t, ss_e, ss, df_e = _unbalanced_sums(m)
        if df_e < 1:
            raise InputError("no residual degrees of freedom left: too few scores", "scores")
    else:
        ss_s, ss_t, ss_e, ss = _sums(m)
        df_e = (k - 1) * (n - 1)
    df_s, df_t = k - 1, n - 1
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
    cells = int(np.count_nonzero(np.isfinite(m)))
    rows["total"] = {"ss": ss, "df": cells - 1, "ms": ss / (cells - 1)}
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
