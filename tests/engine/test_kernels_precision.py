"""The engine's kernels of `cranfield/core/measures/precision.py` equal the NumPy ones,
bit for bit, on random judged runs (tests/engine/kernel_cases.py)."""

from __future__ import annotations

import pytest
from kernel_cases import beyond_generated, check_measure, judged_runs

from cranfield.core.measures import engine

MAX = 2**63 - 1
MIN = -(2**63)

# every family with the variants that reach its branches: cutoffs small, beyond every
# ranking and absent; relevance levels 0, 2, negative (the -1/-2 codes count) and at the
# i64 extremes; every documented parameter
MEASURES = [
    "P@1",
    "P@10",
    f"P@{MAX}",
    "P(rel=2)@5",
    "P(rel=0)@5",
    "P(rel=-1)@5",
    f"P(rel={MIN})@5",
    f"P(rel={MAX})@5",
    "P(judged_only=true)@5",
    "R@5",
    "R@1000",
    "R(rel=2)@10",
    "R(rel=-2)@10",
    "R(judged_only=true)@3",
    "Success@1",
    "Success@10",
    "Success(rel=2)@5",
    "Success(rel=-1)@1",
    "relative_P@5",
    f"relative_P@{MAX}",
    "relative_P(rel=2)@3",
    "relative_P(rel=-1)@10",
    "AP",
    "AP@5",
    f"AP@{MAX}",
    "AP(rel=2)",
    "AP(rel=0)@10",
    "AP(rel=-1)",
    f"AP(rel={MIN})",
    "AP(judged_only=true)",
    'AP(normalise="min(R,k)")',
    'AP(normalise="min(R,k)")@5',
    'AP(normalise="min(R,k)", rel=2)@1000',
    "AP(normalise=relret@k)",
    "AP(normalise=relret@k)@5",
    "AP(normalise=relret@k, rel=-1, judged_only=true)@10",
    "GMAP",
    "GMAP(rel=2)",
    "GMAP(rel=-2)",
    "Rprec",
    "Rprec(rel=2)",
    "Rprec(rel=0)",
    "Rprec(rel=-1)",
    "Rprec(judged_only=true)",
    "RR",
    "RR@1",
    "RR@3",
    f"RR@{MAX}",
    "RR(rel=2)@5",
    "RR(rel=-1)",
    "RR(judged_only=true)",
    "Bpref",
    "Bpref(rel=2)",
    "Bpref(rel=0)",
    "Bpref(rel=-1)",
    f"Bpref(rel={MAX})",
    "GMBpref",
    "GMBpref(rel=3)",
    "infAP",
    "infAP(rel=2)",
    "infAP(rel=0)",
    "infAP(rel=-2)",
    "IPrec@0.0",
    "IPrec@0.1",
    "IPrec@0.5",
    "IPrec@1.0",
    "IPrec@0.33",
    "IPrec(rel=2)@0.25",
    "IPrec(rel=-1)@0.7",
    "IPrec(judged_only=true)@0.2",
    "11pt_avg",
    "11pt_avg(rel=2)",
    "11pt_avg(rel=-1)",
    "11pt_avg(points=[0.25,0.5,0.75])",
    "11pt_avg(points=[1.0])",
    "Rprec_mult@0.2",
    "Rprec_mult@1.0",
    "Rprec_mult@2.0",
    "Rprec_mult@0.001",
    "Rprec_mult@1000000",
    "Rprec_mult(rel=2)@1.4",
    "Rprec_mult(rel=-1)@0.6",
    "yaap",
    "yaap(rel=2)",
    "yaap(rel=0)",
    "yaap(rel=-1)",
    "binG",
    "binG(rel=2)",
    "binG(rel=0)",
    "binG(rel=-1)",
    f"binG(rel={MIN})",
    "Unjudged@1",
    "Unjudged@5",
    "Unjudged@20",
    f"Unjudged@{MAX}",
]


@pytest.mark.parametrize("measure", beyond_generated(MEASURES))
def test_engine_equals_numpy(measure):
    check_measure(measure)


@pytest.mark.parametrize("measure", beyond_generated(MEASURES))
def test_engine_equals_numpy_fractional(measure):
    check_measure(measure, fractional=True, seeds=range(20))


BAD_SPECS = [
    ("P", None, {"rel": None}),
    ("P", 0, {"rel": None}),
    ("R", 0.5, {"rel": None}),
    ("AP", None, {"rel": None, "normalise": "k"}),
    ("AP", None, {"rel": 1.5, "normalise": "R"}),
    ("IPrec", None, {"rel": None}),
    ("IPrec", 1.5, {"rel": None}),
    ("11pt_avg", None, {"rel": None, "points": ()}),
    ("11pt_avg", None, {"rel": None, "points": (0.5, float("nan"))}),
    ("Rprec_mult", 0.0, {"rel": None}),
    ("Rprec_mult", float("inf"), {"rel": None}),
]


@pytest.mark.parametrize("spec", BAD_SPECS, ids=[repr(s) for s in BAD_SPECS])
def test_bad_parameters_are_refused_by_the_engine(spec):
    """Parameters the registry would refuse, handed to the engine directly: a clear
    ValueError naming the family, never a panic."""
    _, jr = judged_runs(range(3))[0]
    with pytest.raises(ValueError, match=spec[0]):
        engine.compute([spec], jr)
