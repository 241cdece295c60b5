"""The engine's kernels of `cranfield/core/measures/set_extra.py` equal the NumPy ones,
and refuse the same collection sizes with the same errors."""

from __future__ import annotations

import pytest
from kernel_cases import beyond_generated, check_measure, judged_runs

from cranfield.core.measures import engine
from cranfield.core.measures.names import parse
from cranfield.errors import MeasureError

MEASURES = [
    "Fallout(collection_size=1000)",
    "Fallout(collection_size=1000)@10",
    "Fallout(collection_size=1000)@1",
    "Fallout(collection_size=100, rel=2)",
    "Fallout(collection_size=80, rel=0)",
    "Fallout(collection_size=100, judged_only=true)@5",
    "Fallout(collection_size=9007199254740992)",
    "Generality(collection_size=1000)",
    "Generality(collection_size=100, rel=3)",
    "Generality(collection_size=12)",
]


@pytest.mark.parametrize("measure", beyond_generated(MEASURES))
def test_engine_equals_numpy(measure):
    check_measure(measure)


@pytest.mark.parametrize("measure", beyond_generated(MEASURES))
def test_engine_equals_numpy_fractional(measure):
    check_measure(measure, fractional=True, seeds=range(20))


def _errors(measure: str) -> tuple[list[str], list[str]]:
    m = parse(measure)
    engine, numpy = [], []
    for _, jr in judged_runs(range(12)):
        for out, compute in ((engine, m.compute), (numpy, m.reference)):
            try:
                compute(jr)
            except MeasureError as exc:
                out.append(str(exc))
    return engine, numpy


@pytest.mark.parametrize(
    "measure",
    ["Fallout", "Generality", "Fallout(collection_size=20)@30", "Generality(collection_size=4)"],
)
def test_same_errors(measure):
    """A missing or too small collection size: the same MeasureError on both paths."""
    engine, numpy = _errors(measure)
    assert engine, f"{measure} raised no error"
    assert engine == numpy


@pytest.mark.parametrize(
    "spec",
    [
        ("Fallout", None, {"collection_size": None, "rel": None}),
        ("Fallout", 5, {"collection_size": 0, "rel": None}),
        ("Generality", None, {"collection_size": 2.5, "rel": None}),
        ("Generality", None, {"collection_size": 10, "rel": 0.5}),
    ],
)
def test_bad_parameters_are_value_errors(spec):
    """The engine refuses what the registry would never pass, without a panic."""
    _, jr = judged_runs(range(1, 9))[0]
    with pytest.raises(ValueError, match=spec[0]):
        engine.compute([spec], jr)
