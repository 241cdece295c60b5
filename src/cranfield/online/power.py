"""Power and sample size of a two-sample t-test (Cohen 1988), as
``statsmodels.stats.power.TTestIndPower``: two-sided, noncentral t."""

from __future__ import annotations

import math

from ..errors import ParameterError, require


def _check(effect_size, alpha, ratio):
    if not (
        isinstance(effect_size, float | int) and math.isfinite(effect_size) and effect_size != 0
    ):
        raise ParameterError("effect size", "a finite non-zero number", effect_size)
    if not (isinstance(alpha, float | int) and 0 < alpha < 1):
        raise ParameterError("alpha", "a number in (0, 1)", alpha)
    if not (isinstance(ratio, float | int) and 0 < ratio < 1e6):
        raise ParameterError("ratio", "a positive number", ratio)


def power(effect_size: float, n_control: float, alpha: float = 0.05, ratio: float = 1.0) -> float:
    r"""Power of the two-sided two-sample t-test for a standardised difference ``d``
    (difference / standard deviation) with ``n_control`` and ``ratio * n_control``
    units: :math:`P(|T| > t_{1-\alpha/2,\nu})`, ``T`` noncentral t with
    :math:`\nu = n_1 + n_2 - 2` and :math:`\delta = d \sqrt{n_1 n_2 / (n_1 + n_2)}`."""
    st = require("scipy.stats", "stats")
    _check(effect_size, alpha, ratio)
    if not (isinstance(n_control, float | int) and n_control > 1):
        raise ParameterError("n_control", "a number > 1", n_control)
    n1, n2 = float(n_control), float(n_control) * ratio
    df = n1 + n2 - 2
    nc = abs(effect_size) * math.sqrt(n1 * n2 / (n1 + n2))
    crit = st.t.ppf(1 - alpha / 2, df)
    return float(st.nct.sf(crit, df, nc) + st.nct.cdf(-crit, df, nc))


def sample_size(
    effect_size: float, alpha: float = 0.05, power_: float = 0.8, ratio: float = 1.0
) -> float:
    """Units in the control group (not rounded; the treatment has ``ratio`` times as
    many) for the two-sided two-sample t-test to reach ``power_`` at ``alpha``."""
    opt = require("scipy.optimize", "stats")
    _check(effect_size, alpha, ratio)
    if not (isinstance(power_, float | int) and alpha < power_ < 1):
        raise ParameterError("power", "a number in (alpha, 1)", power_)
    lo, hi = 2.0, 4.0
    if power(effect_size, lo, alpha, ratio) >= power_:
        return lo
    while power(effect_size, hi, alpha, ratio) < power_:
        lo, hi = hi, hi * 4
        if hi > 1e13:
            raise ParameterError(
                "effect size", "large enough to detect with < 1e13 units", effect_size
            )
    return float(
        opt.brentq(lambda n: power(effect_size, n, alpha, ratio) - power_, lo, hi, xtol=1e-10)
    )
