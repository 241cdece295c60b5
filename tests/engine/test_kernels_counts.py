"""The engine's kernels of `cranfield/core/measures/counts.py` equal the NumPy ones."""

from __future__ import annotations

import pytest
from kernel_cases import (
    OPTIONS,
    beyond_generated,
    check_measure,
    judged_runs,
    same_bits,
)

from cranfield.core.judged import judge
from cranfield.core.measures import engine
from cranfield.core.measures.names import parse
from cranfield.core.qrels import Qrels
from cranfield.core.run import Run
from cranfield.errors import InputError
from generators import judging_case

MAX = 2**63 - 1
MIN = -(2**63)

MEASURES = [
    "NumQ",
    "NumRet",
    "NumRet@5",
    f"NumRet@{MAX}",
    "NumRet(rel=2)",
    "NumRet(rel=1)@3",
    "NumRet(rel=-1)",
    f"NumRet(rel={MIN})@5",
    "NumRel",
    "NumRel(rel=2)",
    "NumRel(rel=0)",
    "NumRel(rel=-2)",
    f"NumRel(rel={MAX})",
    "NumRelRet",
    "NumRelRet@1",
    f"NumRelRet@{MAX}",
    "NumRelRet(rel=2)@10",
    "NumRelRet(rel=-1)",
    "NumNonRelJudgedRet",
    "NumNonRelJudgedRet(rel=2)",
    "NumNonRelJudgedRet(rel=0)",
    "NumNonRelJudgedRet(rel=-1)",
    f"NumNonRelJudgedRet(rel={MAX})",
    "utility",
    "utility(rel=2)",
    "utility(rel=-1)",
    "utility(a=2, b=-0.5, c=1, d=0.25, collection_size=1000)",
    "utility(a=1e100, b=-1e-100, c=-3, d=1e-100, collection_size=9007199254740992)",
    "utility(a=0, b=0, c=0, d=1, collection_size=10)",
]

# relstring refuses fractional gains (as the NumPy kernel does: checked there)
TEXT = ["relstring", "relstring@1", "relstring@3", "relstring@25", f"relstring@{MAX}"]


@pytest.mark.parametrize("measure", beyond_generated(MEASURES + TEXT))
def test_engine_equals_numpy(measure):
    check_measure(measure)


@pytest.mark.parametrize("measure", beyond_generated(MEASURES))
def test_engine_equals_numpy_fractional(measure):
    check_measure(measure, fractional=True, seeds=range(20))


def _whole_gains(seed):
    """Qrels read as fractional gains whose values are all whole numbers (float64
    labels, which relstring accepts), and the run."""
    qrels, run = judging_case(seed, fractional=True)
    qrels = {q: {d: float(round(g)) for d, g in docs.items()} for q, docs in qrels.items()}
    return Qrels.from_dict(qrels, fractional=True), Run.from_dict(run)


@pytest.mark.parametrize("measure", TEXT)
def test_relstring_on_whole_float_gains(measure):
    m = parse(measure)
    compared = 0
    for seed in range(15):
        qrels, run = _whole_gains(seed)
        if not qrels.table.num_rows or not run.table.num_rows:
            continue
        for options in OPTIONS[:4]:
            jr = judge(qrels, run, options)
            assert jr.labels.dtype.kind == "f"
            assert same_bits(m.compute(jr), m.reference(jr)), f"{m} seed={seed} {options}"
            compared += 1
    assert compared > 0


def test_relstring_refuses_fractional_gains():
    qrels, run = judging_case(3, fractional=True)
    jr = judge(Qrels.from_dict(qrels, fractional=True), Run.from_dict(run))
    assert jr.fractional
    with pytest.raises(InputError, match="fractional"):
        parse("relstring").compute(jr)


BAD_SPECS = [
    ("utility", None, {"a": float("nan"), "b": -1.0, "c": 0.0, "d": 0.0, "collection_size": 0}),
    ("utility", None, {"a": 1.0, "b": float("inf"), "c": 0.0, "d": 0.0, "collection_size": 0}),
    ("utility", None, {"a": 1.0, "b": -1.0, "c": 0.0, "d": 0.0, "collection_size": -1}),
    ("NumRel", None, {"rel": "2"}),
    ("relstring", 0, {}),
    ("relstring", 2.5, {}),
]


@pytest.mark.parametrize("spec", BAD_SPECS, ids=[repr(s) for s in BAD_SPECS])
def test_bad_parameters_are_refused_by_the_engine(spec):
    """Parameters the registry would refuse, handed to the engine directly: a clear
    ValueError naming the family, never a panic."""
    _, jr = judged_runs(range(3))[0]
    with pytest.raises(ValueError, match=spec[0]):
        engine.compute([spec], jr)
