"""The mixed model of `meta anova --model mixed` (systems fixed, topics random, REML)
against statsmodels' MixedLM on generated unbalanced designs, and against the ANOVA
estimator of the topic variance on balanced ones (an exact identity)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from cranfield.errors import InputError
from cranfield.meta import mixed_model, two_way_anova

#: statsmodels' BFGS with gtol 1e-12 and our bounded Brent (xatol 1e-12 on
#: gamma/(1+gamma)) reach the same REML optimum to within this relative error
REL = 1e-5


def _design(case: int, holes: float) -> np.ndarray:
    rng = np.random.default_rng(case)
    k, n = int(rng.integers(3, 8)), int(rng.integers(5, 20))
    m = rng.random((k, n)) * 0.3 + rng.random(k)[:, None] * 0.3
    m += rng.random(n)[None, :] * rng.random()  # a topic effect of random size
    gone = rng.random((k, n)) < holes
    gone[:, 0] = gone[0, :] = False  # every run and topic keeps a score
    m[gone] = np.nan
    return m


def _statsmodels(m: np.ndarray):
    import pandas as pd
    from statsmodels.regression.mixed_linear_model import MixedLM

    s, t = np.nonzero(np.isfinite(m))
    frame = pd.DataFrame({"system": [f"s{i}" for i in s], "topic": t, "score": m[s, t]})
    model = MixedLM.from_formula("score ~ C(system)", groups="topic", data=frame)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its convergence chatter
        return model.fit(reml=True, method="bfgs", gtol=1e-12, maxiter=1000)


@pytest.mark.parametrize("case", range(30))
def test_unbalanced_designs_match_statsmodels_mixedlm(case):
    m = _design(case, 0.1 + 0.02 * case)
    assert np.isnan(m).any()
    want = _statsmodels(m)
    got = mixed_model(m)
    topic, residual = float(want.cov_re.iloc[0, 0]), float(want.scale)
    assert got["topic"]["variance"] == pytest.approx(topic, rel=REL, abs=1e-12)
    assert got["residual"]["variance"] == pytest.approx(residual, rel=REL)
    fe = want.fe_params.to_numpy()
    effects = np.r_[fe[0], fe[0] + fe[1:]]  # treatment coding -> one effect per run
    np.testing.assert_allclose(got["system"]["estimates"], effects, rtol=0, atol=1e-6)
    system = float(np.var(effects, ddof=1))
    total = system + topic + residual
    assert got["system"]["share"] == pytest.approx(system / total, rel=1e-4)
    assert got["topic"]["icc"] == pytest.approx(topic / (topic + residual), rel=REL)
    assert got["residual"]["df"] == np.count_nonzero(np.isfinite(m)) - m.shape[0]


@pytest.mark.parametrize("case", range(8))
def test_balanced_reml_is_the_anova_estimator(case):
    # Searle, Casella & McCulloch 1992, ch. 6: in a balanced design REML's topic
    # variance is (MS_topic - MS_E)/k and its residual variance MS_E, when positive
    m = _design(100 + case, 0.0)
    k = m.shape[0]
    rows = two_way_anova(m)
    ms_t, ms_e = rows["topic"]["ms"], rows["residual"]["ms"]
    got = mixed_model(m)
    if ms_t > ms_e:
        assert got["topic"]["variance"] == pytest.approx((ms_t - ms_e) / k, rel=1e-11)
        assert got["residual"]["variance"] == pytest.approx(ms_e, rel=1e-11)
    else:  # the boundary: no topic variance, the pooled within-run variance
        assert got["topic"]["variance"] == 0
        pooled = np.sum((m - m.mean(axis=1, keepdims=True)) ** 2) / (m.size - k)
        assert got["residual"]["variance"] == pytest.approx(pooled, rel=1e-12)
    np.testing.assert_allclose(got["system"]["estimates"], m.mean(axis=1), rtol=1e-12)


def test_balanced_boundary_has_no_topic_variance():
    # topics that differ less than the noise: MS_topic < MS_E, REML's estimate is 0
    m = np.array([[0.1, 0.9, 0.5, 0.3], [0.8, 0.2, 0.4, 0.6], [0.5, 0.5, 0.5, 0.5]])
    rows = two_way_anova(m)
    assert rows["topic"]["ms"] < rows["residual"]["ms"]
    got = mixed_model(m)
    assert got["topic"]["variance"] == 0 and got["topic"]["icc"] == 0
    want = _statsmodels(m)
    assert float(want.cov_re.iloc[0, 0]) == pytest.approx(0, abs=1e-8)
    assert got["residual"]["variance"] == pytest.approx(float(want.scale), rel=REL)


def test_constant_scores_leave_the_shares_undefined():
    got = mixed_model(np.full((3, 4), 0.25))
    assert got["total"]["variance"] == 0
    assert math.isnan(got["system"]["share"]) and math.isnan(got["topic"]["icc"])


@pytest.mark.parametrize(
    "m, message",
    [
        ([[0.1, np.nan], [np.nan, 0.2]], "no residual degrees of freedom"),
        ([[0.1, np.nan], [0.3, np.nan]], "every run and every topic"),
        ([[0.1, 0.2]], "two runs"),
        ([[0.1, np.inf], [0.2, 0.3]], "infinite"),
        (np.zeros((1300, 2)), "too large"),
    ],
)
def test_bad_designs_are_one_clear_error(m, message):
    with pytest.raises(InputError, match=message):
        mixed_model(np.array(m))
