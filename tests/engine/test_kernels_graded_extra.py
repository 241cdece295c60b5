"""The engine's kernels of `cranfield/core/measures/graded_extra.py` equal the NumPy ones."""

from __future__ import annotations

import pytest
from kernel_cases import beyond_generated, check_extremes, check_measure, check_refusal

from cranfield.core.measures.registry import Measure

BIG = 2**63 - 1
GAINS = [
    {1: 2, 2: 5},
    {1: 0.5, 2: 2.25},
    {-1: 0.5, -2: 1.5},
    {1: -1.0, 3: -2.5},
    {2: -0.0},
    {BIG: 2.0, -(2**63): 3.0},
]

MEASURES = (
    [Measure.of("CG", c) for c in (None, 1, 5, 40, BIG)]
    + [Measure.of("nCG", c) for c in (1, 5, 40, BIG)]
    + [Measure.of("nCG", 5, max_gain=m) for m in (1.0, 3.5, 1e-100, 1e100)]
    + [
        Measure.of(f, (None, 3, 10)[i % 3] if f == "CG" else 3, gains=g)
        for i, g in enumerate(GAINS)
        for f in ("CG", "nCG")
    ]
    + [Measure.of("nCG", 4, gains=g, max_gain=2.0) for g in GAINS[:3]]
    + [Measure.of("ERR", c, max_grade=m) for c in (None, 3, BIG) for m in (40, 53)]
    + [Measure.of("ERR", c, max_grade=m) for c in (None, 2) for m in (0, 4)]
    + [Measure.of(f, c) for f in ("RBP", "RBPResidual") for c in (None, 1, 5, BIG)]
    + [
        Measure.of(f, c, p=p, **({} if r is None else {"rel": r}))
        for f in ("RBP", "RBPResidual")
        for c, p, r in (
            (None, 0.5, 1),
            (3, 0.9, 2),
            (None, 0.01, 0),
            (10, 0.999, None),
            (None, 1e-300, -(2**63)),
        )
    ]
)


@pytest.mark.parametrize("measure", beyond_generated(MEASURES), ids=str)
def test_engine_equals_numpy(measure):
    check_measure(measure)


FRACTIONAL = (
    [Measure.of("CG", c) for c in (None, 3)]
    + [Measure.of("nCG", 3), Measure.of("nCG", 3, max_gain=2.0)]
    + [Measure.of("ERR", c, max_grade=40) for c in (None, 3)]
    + [
        Measure.of(f, c, **p)
        for f in ("RBP", "RBPResidual")
        for c in (None, 4)
        for p in ({}, {"rel": 1})
    ]
)


@pytest.mark.parametrize("measure", beyond_generated(FRACTIONAL), ids=str)
def test_engine_equals_numpy_fractional(measure):
    check_measure(measure, fractional=True, seeds=range(20))


REFUSED = [
    # a grade above max_grade (R_i would exceed 1): MeasureError, with the same message
    (Measure.of("ERR"), False),
    (Measure.of("ERR", 5, max_grade=2), False),
    (Measure.of("ERR", None, max_grade=3), True),  # fractional grades: "grade 3.47 exceeds"
    # gains= names whole grades: refused with fractional ones (InputError)
    (Measure.of("CG", gains={1: 2.0}), True),
    (Measure.of("nCG", 3, gains={1: 2.0}), True),
]


@pytest.mark.parametrize(("measure", "fractional"), REFUSED, ids=str)
def test_engine_refuses_as_numpy(measure, fractional):
    check_refusal(measure, fractional=fractional, seeds=range(20))


def _run(labels_per_query, grades_per_query):
    import numpy as np

    from cranfield.core.judged import JudgedRun

    def csr(parts):
        offsets = np.cumsum([0] + [len(p) for p in parts]).astype(np.int64)
        return offsets, np.concatenate([np.asarray(p, dtype=np.int8) for p in parts])

    offsets, labels = csr(labels_per_query)
    q_offsets, grades = csr(grades_per_query)
    n = len(labels_per_query)
    return JudgedRun(
        query_ids=np.array([f"q{i}" for i in range(n)], dtype=object),
        offsets=offsets,
        labels=labels,
        qrels_offsets=q_offsets,
        qrels_grades=grades,
        in_run=np.ones(n, dtype=bool),
    )


@pytest.mark.parametrize("filler", [0, 1])
@pytest.mark.parametrize("name", ["CG", "nCG"])
def test_negative_zero_gains_in_long_runs(name, filler):
    """A query whose every gain is -0.0: its NumPy sum is -0.0, except in a run of over
    4096 documents mostly of gain 0 (the zeros are left out: +0.0)."""
    from kernel_cases import same_bits

    jr = _run([[filler] * 5000, [2, 2, 2]], [[2, 1], [2]])
    m = Measure.of(name, 10**6 if name == "nCG" else None, gains={2: -0.0})
    expected = m.reference(jr)
    assert str(expected[1]) == ("0.0" if filler == 0 else "-0.0")  # both paths are exercised
    assert same_bits(m.compute(jr), expected)


@pytest.mark.parametrize("measure", beyond_generated(MEASURES), ids=str)
def test_engine_equals_numpy_at_extremes(measure):
    check_extremes(measure)
