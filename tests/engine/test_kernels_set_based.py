"""The engine's kernels of `cranfield/core/measures/set_based.py` equal the NumPy ones."""

from __future__ import annotations

import pytest
from kernel_cases import check_measure

MEASURES = [
    "SetP",
    "SetP(relative=true)",
    "SetP(rel=2)",
    "SetP(rel=-2)",
    "SetP(judged_only=true)",
    "SetR",
    "SetR(rel=0)",
    "SetR(rel=3)",
    "SetRelP",
    "SetRelP(rel=2)",
    "SetAP",
    "SetAP(rel=-1)",
    "SetAP(judged_only=true)",
    "set_F",
    "set_F(x=0)",
    "set_F(x=0.25)",
    "set_F(x=3, rel=2)",
    "set_F(x=1e100)",
    "SetF",
    "SetF(beta=0.5)",
    "SetF(beta=0)",
    "SetF(beta=1e50)",
    "SetF(beta=2, rel=2, judged_only=true)",
]


@pytest.mark.parametrize("measure", MEASURES)
def test_engine_equals_numpy(measure):
    check_measure(measure)


@pytest.mark.parametrize("measure", MEASURES)
def test_engine_equals_numpy_fractional(measure):
    check_measure(measure, fractional=True, seeds=range(20))
