"""The engine's kernels of `cranfield/core/measures/ranked_extra.py` equal the NumPy ones."""

from __future__ import annotations

import pytest
from kernel_cases import beyond_generated, check_measure, judged_runs, same_bits

from cranfield.core.measures import engine
from cranfield.core.measures.names import parse

MEASURES = [
    "PrecAtRecall@0.5",
    "PrecAtRecall@0",
    "PrecAtRecall@1",
    "PrecAtRecall@0.3",
    "PrecAtRecall(interpolated=false)@0.3",
    "PrecAtRecall(interpolated=false)@1",
    "PrecAtRecall(rel=2)@0.5",
    "PrecAtRecall(rel=-2, interpolated=false)@0.7",
    "PrecAtRecall(judged_only=true)@0.5",
    "Efficiency",
    "Efficiency@1",
    "Efficiency@5",
    "Efficiency(rel=2)@3",
    "Efficiency(rel=0)",
    "Efficiency(judged_only=true)@10",
    "AUPRC",
    "AUPRC@1",
    "AUPRC@10",
    "AUPRC(rel=2)",
    "AUPRC(rel=-2)@7",
    "AUPRC(method=trapezoid)",
    "AUPRC(method=trapezoid)@5",
    "AUPRC(method=trapezoid, rel=2, judged_only=true)",
    "AUPRC(judged_only=true)@20",
    "Judged",
    "Judged@1",
    "Judged@5",
    "Judged@1000",
]


@pytest.mark.parametrize("measure", beyond_generated(MEASURES))
def test_engine_equals_numpy(measure):
    check_measure(measure)


@pytest.mark.parametrize("measure", beyond_generated(MEASURES))
def test_engine_equals_numpy_fractional(measure):
    check_measure(measure, fractional=True, seeds=range(20))


@pytest.mark.parametrize(
    "spec",
    [
        ("AUPRC", None, {"method": "spline", "rel": None}),
        ("AUPRC", 5, {"method": 1, "rel": None}),
        ("PrecAtRecall", None, {"interpolated": True, "rel": None}),
        ("PrecAtRecall", 0.5, {"interpolated": 2, "rel": None}),
        ("Efficiency", None, {"rel": "2"}),
    ],
)
def test_bad_parameters_are_value_errors(spec):
    """The engine refuses what the registry would never pass, without a panic."""
    _, jr = judged_runs(range(1, 9))[0]
    with pytest.raises(ValueError, match=spec[0]):
        engine.compute([spec], jr)


@pytest.mark.parametrize("measure", ["Judged", "Efficiency", "AUPRC"])
def test_largest_cutoff(measure):
    _, jr = judged_runs(range(1, 9))[0]
    m = parse(f"{measure}@{2**63 - 1}")
    assert same_bits(m.compute(jr), m.reference(jr))
