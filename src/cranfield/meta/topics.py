"""Topic-set-size design (Sakai, CIKM 2014; Sakai, IRJ 2016; Sakai, *Laboratory
Experiments in Information Retrieval*, 2018).

How many topics a new collection needs so that a test has power :math:`1-\\beta` at
level :math:`\\alpha` against a minimum detectable difference, or so that a confidence
interval is at most a given width, with the variance of per-topic scores estimated
from existing runs: :math:`\\hat\\sigma^2 = V_E`, the residual mean square of the
two-way ANOVA without replication of their runs x topics matrix
(:func:`cranfield.meta.anova.residual_variance`).

* paired t-test: the variance of a per-topic difference is :math:`\\sigma_d^2 =
  2\\hat\\sigma^2`; the effect size is :math:`\\Delta = minD/\\sigma_d`, and the power
  with :math:`n` topics is that of the noncentral t with :math:`n-1` degrees of freedom
  and noncentrality :math:`\\sqrt n \\Delta` (two-sided);
* one-way ANOVA of :math:`m` systems: against a minimum detectable *range* minD
  between the best and the worst system (the others halfway), :math:`\\lambda = n\\,
  minD^2 / (2\\hat\\sigma^2)`, power from the noncentral F with :math:`(m-1, m(n-1))`
  degrees of freedom;
* confidence interval: the smallest :math:`n` whose two-sided :math:`100(1-\\alpha)\\%`
  interval of a mean difference, :math:`2\\,t_{1-\\alpha/2,\\,n-1}\\,\\sigma_d/\\sqrt n`,
  is at most the width :math:`\\delta`.

Each is the smallest :math:`n \\ge 2` meeting the goal, found by bisection (power and
width are monotone in :math:`n`).
"""

from __future__ import annotations

import math

from ..core.declarations import Param, number_in
from ..errors import InputError, ParameterError, require
from .registry import META_STATISTICS, MetaStatistic

__all__ = ["topics_paired_t", "topics_anova", "topics_ci", "power_paired_t", "power_anova"]

#: Largest topic-set size searched (a design needing more says so).
MAX_TOPICS = 10**7


def power_paired_t(n: int, effect: float, alpha: float) -> float:
    """Power of the two-sided paired (one-sample) t-test with ``n`` topics and effect
    size ``effect`` (as ``statsmodels``' ``TTestPower().power``)."""
    stats = require("scipy.stats", "stats")
    df = n - 1
    crit = stats.t.isf(alpha / 2, df)
    nc = math.sqrt(n) * effect
    return float(stats.nct.sf(crit, df, nc) + stats.nct.cdf(-crit, df, nc))


def power_anova(n: int, systems: int, delta: float, alpha: float) -> float:
    """Power of the one-way ANOVA of ``systems`` groups of ``n`` topics each with
    noncentrality ``n * delta`` (as ``statsmodels``' ``FTestAnovaPower().power`` with
    effect size ``sqrt(delta / systems)`` and ``systems * n`` observations)."""
    stats = require("scipy.stats", "stats")
    d1, d2 = systems - 1, systems * (n - 1)
    crit = stats.f.isf(alpha, d1, d2)
    return float(stats.ncf.sf(crit, d1, d2, n * delta))


def _smallest(ok) -> int:
    """The smallest n in [2, MAX_TOPICS] with ok(n), ok monotone; InputError if none."""
    if ok(2):
        return 2
    lo, hi = 2, 4
    while not ok(hi):
        lo, hi = hi, hi * 2
        if hi > MAX_TOPICS:
            if ok(MAX_TOPICS):
                hi = MAX_TOPICS
                break
            raise InputError(
                f"the design needs more than {MAX_TOPICS:,} topics: the difference asked is "
                "too small for the variance of these runs",
                "runs",
            )
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def _check(alpha: float, beta: float | None, diff: float, variance: float) -> None:
    if not 0 < alpha < 1:
        raise ParameterError("--alpha", "a number in (0, 1)", alpha)
    if beta is not None and not 0 < beta < 1 - alpha:
        raise ParameterError("--beta", f"a number in (0, {1 - alpha:g}) (power above alpha)", beta)
    if not (diff > 0 and math.isfinite(diff)):
        raise ParameterError("--min-diff", "positive numbers", diff)
    if not variance > 0:
        raise InputError(
            "the runs' scores have no residual variance (V_E = 0): any difference would be "
            "detected on 2 topics; there is nothing to design from",
            "runs",
        )


def topics_paired_t(
    alpha: float, beta: float, min_diff: float, variance: float, systems: int | None = None
) -> int:
    """Topics for the paired t-test: power ``1 - beta`` at level ``alpha`` against a
    difference ``min_diff``, per-topic variance ``variance`` (:math:`\\sigma_d^2 =
    2\\,variance`)."""
    _check(alpha, beta, min_diff, variance)
    effect = min_diff / math.sqrt(2 * variance)
    return _smallest(lambda n: power_paired_t(n, effect, alpha) >= 1 - beta)


def topics_anova(
    alpha: float, beta: float, min_range: float, variance: float, systems: int = 2
) -> int:
    """Topics for the one-way ANOVA of ``systems`` systems: power ``1 - beta`` at level
    ``alpha`` against a range ``min_range`` between the best and worst system."""
    _check(alpha, beta, min_range, variance)
    if systems < 2:
        raise ParameterError("--systems", "an integer >= 2", systems)
    delta = min_range**2 / (2 * variance)
    return _smallest(lambda n: power_anova(n, systems, delta, alpha) >= 1 - beta)


def topics_ci(
    alpha: float, beta: float | None, width: float, variance: float, systems: int | None = None
) -> int:
    """Topics so that the two-sided ``1 - alpha`` interval of a mean difference is at
    most ``width`` wide (per-topic difference variance ``2 * variance``); ``beta`` and
    ``systems`` are not used (the registry's one signature)."""
    _check(alpha, None, width, variance)
    stats = require("scipy.stats", "stats")
    sd = math.sqrt(2 * variance)
    return _smallest(lambda n: 2 * stats.t.isf(alpha / 2, n - 1) * sd / math.sqrt(n) <= width)


ALPHA = Param(
    "alpha",
    float,
    0.05,
    "significance level (--alpha)",
    **number_in(0, 1, open_lo=True, open_hi=True),
)
BETA = Param(
    "beta",
    float,
    0.2,
    "type II error rate; power 1 - beta (--beta)",
    **number_in(0, 1, open_lo=True, open_hi=True),
)
for _name, _fn, _summary, _formula, _ref, _label, _params in (
    (
        "topics_t",
        topics_paired_t,
        "Topics for a paired t-test to detect minD with power 1-beta.",
        "smallest $n$: noncentral $t_{n-1}(\\sqrt n\\, minD/\\sqrt{2V_E})$ power $\\ge 1-\\beta$",
        "Sakai 2014 (CIKM), 2016 (IRJ); Cohen 1988; as `statsmodels` `TTestPower`",
        "paired t-test",
        (ALPHA, BETA),
    ),
    (
        "topics_anova",
        topics_anova,
        "Topics for a one-way ANOVA of m systems to detect a range minD with power 1-beta.",
        "smallest $n$: noncentral $F_{m-1, m(n-1)}(n\\, minD^2/(2V_E))$ power $\\ge 1-\\beta$",
        "Sakai 2014 (CIKM), 2016 (IRJ); as `statsmodels` `FTestAnovaPower`",
        "one-way ANOVA",
        (ALPHA, BETA),
    ),
    (
        "topics_ci",
        topics_ci,
        "Topics for a confidence interval of a mean difference at most delta wide.",
        "smallest $n$: $2\\,t_{1-\\alpha/2,n-1}\\sqrt{2V_E/n} \\le \\delta$",
        "Sakai 2014 (CIKM), 2016 (IRJ)",
        "CI width",
        (ALPHA,),
    ),
):
    META_STATISTICS.register(
        MetaStatistic(_name, _fn, _summary, _formula, _ref, _params, command="topics", label=_label)
    )
