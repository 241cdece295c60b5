"""The engine's kernels of `cranfield/core/measures/gain.py` equal the NumPy ones."""

from __future__ import annotations

import pytest
from kernel_cases import beyond_generated, check_extremes, check_measure, check_refusal

from cranfield.core.measures.registry import Measure

BIG = 2**63 - 1
GAINS = [
    {1: 2, 2: 5},
    {1: 0.5, 2: 2.25, 4: 0.125},  # fractional gains
    {-1: 0.5, -2: 1.5},  # documents outside the pool / pooled-unjudged gain
    {1: -1.0, 3: -2.5},  # negative gains lower DCG, never enter the ideal ranking
    {0: 1.0, 2: 0.0},  # a judged non-relevant document gains; a grade gains nothing
    {2: -0.0, 3: 1e-100, 4: 1e100},
    {BIG: 2.0, -(2**63): 3.0},  # grades at the int64 extremes
]
CUTOFFS = [None, 1, 3, 5, 10, 40, BIG]

DCG = ("nDCG", "DCG", "IDCG")
FORMS = [{"dcg": "exp-log2"}, {"dcg": "jk"}, {"dcg": "jk", "b": 3.0}, {"dcg": "jk", "b": 1.5}]
FORMS.append({"dcg": "jk", "b": 1e100})

MEASURES = (
    [Measure.of(f, c) for f in DCG for c in CUTOFFS]
    + [Measure.of(f, (None, 3, BIG)[i % 3], **p) for i, p in enumerate(FORMS) for f in DCG]
    + [Measure.of(f, (None, 2, 7)[i % 3], gains=g) for i, g in enumerate(GAINS) for f in DCG]
    + [Measure.of("nDCG", 5, gains=g, dcg="exp-log2") for g in GAINS[:4]]
    + [Measure.of("DCG", None, gains=g, dcg="exp-log2") for g in GAINS[4:]]
    + [Measure.of("IDCG", 2, gains=g, dcg="jk", b=4.0) for g in GAINS[1:4]]
    + [Measure.of("nDCG", 10, judged_only=True), Measure.of("nDCG", None, judged_only=True)]
    + [Measure.of(f, None) for f in ("ndcg_rel", "Rndcg", "G")]
    + [Measure.of(f, None, gains=g) for f in ("ndcg_rel", "Rndcg", "G") for g in GAINS]
    + [Measure.of("Rndcg", None, rel=r) for r in (0, 2, 3, -(2**63), BIG)]
    + [Measure.of("Rndcg", None, rel=2, gains={1: 3.0, 2: 0.5})]
)


@pytest.mark.parametrize("measure", beyond_generated(MEASURES), ids=str)
def test_engine_equals_numpy(measure):
    check_measure(measure)


FRACTIONAL = [
    Measure.of(f, c, **p)
    for f in ("nDCG", "DCG", "IDCG")
    for c in (None, 3)
    for p in ({}, {"dcg": "exp-log2"}, {"dcg": "jk"})
] + [Measure.of(f) for f in ("ndcg_rel", "Rndcg", "G")]


@pytest.mark.parametrize("measure", beyond_generated(FRACTIONAL), ids=str)
def test_engine_equals_numpy_fractional(measure):
    check_measure(measure, fractional=True, seeds=range(20))


REFUSED = [
    # gains= names whole grades: refused with fractional ones (InputError)
    *[
        (Measure.of(f, gains={1: 2.0}), True)
        for f in ("nDCG", "DCG", "IDCG", "ndcg_rel", "Rndcg", "G")
    ],
    (Measure.of("DCG", 3, gains={-1: 0.5}), True),
    # exp-log2: a gain above 512 is refused (MeasureError), in the ranking or the ideal one
    *[
        (Measure.of(f, c, dcg="exp-log2", gains={3: 600.0}), False)
        for f in ("nDCG", "DCG", "IDCG")
        for c in (None, 2)
    ],
    (Measure.of("nDCG", 2, dcg="exp-log2", gains={-1: 1e100}), False),
]


@pytest.mark.parametrize(("measure", "fractional"), REFUSED, ids=str)
def test_engine_refuses_as_numpy(measure, fractional):
    check_refusal(measure, fractional=fractional, seeds=range(20))


@pytest.mark.parametrize("measure", beyond_generated(MEASURES), ids=str)
def test_engine_equals_numpy_at_extremes(measure):
    check_extremes(measure)
