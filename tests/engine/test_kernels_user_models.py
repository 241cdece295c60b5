"""The engine's kernels of `cranfield/core/measures/user_models.py` equal the NumPy ones."""

from __future__ import annotations

import pytest
from kernel_cases import beyond_generated, check_extremes, check_measure

from cranfield.core.measures.registry import Measure

BIG = 2**63 - 1
GAINS = [
    {1: 0.5, 2: 1.0},  # within [0, 1]: not normalised
    {1: 2, 2: 5},  # outside: min-max normalised per query
    {0: 0.25, 1: 0.5},  # grade 0 named: the smallest unnamed grade is 1
    {-1: 0.5},  # documents outside the pool gain
    {-2: 1.0, 1: -1.0},  # a negative gain: normalised
    {1: 0.0, 3: 1.0},
    {0: 3.0},  # a single value: max = min (0/0 in the scaling)
    {BIG: 2.0, -(2**63): 0.5},
]

MEASURES = (
    [Measure.of("rbp"), Measure.of("rbp_resid")]
    + [Measure.of(f, p=p) for f in ("rbp", "rbp_resid") for p in (0.5, 0.01, 0.999, 1e-300)]
    + [Measure.of("rbp", gains=g) for g in GAINS]
    + [Measure.of("rbp", p=0.3, gains=g) for g in GAINS[:3]]
)


@pytest.mark.parametrize("measure", beyond_generated(MEASURES), ids=str)
def test_engine_equals_numpy(measure):
    check_measure(measure)


@pytest.mark.parametrize(
    "measure", [Measure.of("rbp_resid"), Measure.of("rbp_resid", p=0.5)], ids=str
)
def test_engine_equals_numpy_fractional(measure):
    check_measure(measure, fractional=True, seeds=range(20))


@pytest.mark.parametrize("measure", beyond_generated(MEASURES), ids=str)
def test_engine_equals_numpy_at_extremes(measure):
    check_extremes(measure)
