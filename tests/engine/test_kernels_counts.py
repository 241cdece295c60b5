"""The engine's kernels of `cranfield/core/measures/counts.py` equal the NumPy ones."""

from __future__ import annotations

import pytest
from kernel_cases import check_measure

MEASURES = ["NumRet", "NumRet@5", "NumRet(rel=2)", "NumRet(rel=1)@3"]


@pytest.mark.parametrize("measure", MEASURES)
def test_engine_equals_numpy(measure):
    check_measure(measure)


@pytest.mark.parametrize("measure", MEASURES)
def test_engine_equals_numpy_fractional(measure):
    check_measure(measure, fractional=True, seeds=range(20))
