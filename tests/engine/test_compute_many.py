"""Many measures on one judged run in one engine call (engine.compute_many, the body of
evaluate) give the values and errors of the measures computed one at a time."""

from __future__ import annotations

import pytest
from kernel_cases import judged_runs, same_bits

from cranfield import evaluate
from cranfield.core.measures import engine
from cranfield.core.measures.names import parse
from cranfield.core.qrels import Qrels
from cranfield.core.run import Run
from cranfield.errors import InputError, MeasureError
from generators import judging_case

# engine families (with and without judged_only, i.e. two prepared runs), NumPy ones
# in between, a text family and one refusing fractional qrels
MEASURES = [
    "SetP",
    "AP",
    "SetF(beta=2, judged_only=true)",
    "nDCG@10",
    "NumRet@5",
    "AUPRC(method=trapezoid)",
    "P@10",
    "PrecAtRecall(judged_only=true)@0.5",
    "Judged@10",
    "relstring@5",
    "Fallout(collection_size=1000)@10",
    "Efficiency(judged_only=true)",
    "rbp",
    "Generality(collection_size=1000)",
]


def _measures(names):
    return [parse(n) for n in names]


# families left to the engine when a test restricts it: whatever the engine computes
# when these tests run, some of the measures above then go to NumPy kernels
SOME = frozenset({"SetP", "SetF", "NumRet", "Fallout", "Efficiency", "AUPRC"})


@pytest.fixture(params=["all", "some"])
def families(request, monkeypatch):
    """The engine's families, or only SOME of them (the others use NumPy kernels)."""
    real = engine.families()
    if request.param == "some":
        monkeypatch.setattr(engine, "families", lambda: real & SOME)
    names = engine.families()
    assert names, "the engine computes none of the measures"
    return names


@pytest.mark.parametrize("fractional", [False, True])
def test_batched_equals_one_at_a_time(fractional, families):
    refused = ("rbp", "relstring@5")  # not defined for fractional qrels
    measures = _measures(m for m in MEASURES if not (fractional and m in refused))
    compared = 0
    for what, jr in judged_runs(range(0, 60, 3), fractional):
        alone = [m.compute(jr) for m in measures]
        together = engine.compute_many(measures, jr)
        assert len(together) == len(measures)
        for m, a, b in zip(measures, alone, together, strict=True):
            assert same_bits(b, a), f"{m} on {what}"
            assert same_bits(b, m.reference(jr)), f"{m} on {what}"
        compared += 1
    assert compared > 10


def test_one_engine_call_per_prepared_run(monkeypatch, families):
    calls = []
    compute = engine.compute
    monkeypatch.setattr(
        engine, "compute", lambda specs, jr: calls.append(specs) or compute(specs, jr)
    )
    _, jr = judged_runs(range(1, 10))[0]
    measures = _measures(MEASURES)
    engine.compute_many(measures, jr)
    ours = [m for m in measures if m.name in families]
    plain = [m.name for m in ours if not m.param_values().get("judged_only")]
    viewed = [m.name for m in ours if m.param_values().get("judged_only")]
    assert plain and viewed
    assert [[spec[0] for spec in call] for call in calls] == [plain, viewed]


def _first_error(measures, jr):
    for m in measures:
        try:
            m.compute(jr)
        except Exception as exc:  # noqa: BLE001 - the error to compare with
            return exc
    raise AssertionError("no measure raised")


@pytest.mark.parametrize(
    "names",
    [
        # an engine family's run check fails after NumPy and engine families succeeded
        ["AP", "SetP", "Fallout(collection_size=2)", "Generality(collection_size=1)"],
        # the first failure is a NumPy family's (rbp refuses fractional qrels)
        ["SetR", "rbp", "Fallout(collection_size=2)"],
        # a NumPy kernel fails while computing (a grade above max_grade), before an
        # engine family's run check would (which runs before any kernel)
        ["SetP", "ERR(max_grade=1)", "Fallout(collection_size=2)"],
        # a missing collection size, after a judged_only view
        ["SetAP(judged_only=true)", "Generality", "nDCG"],
    ],
)
def test_same_first_error(names):
    measures = _measures(names)
    jr = next(jr for _, jr in judged_runs(range(2, 30), fractional=True) if jr.fractional)
    expected = _first_error(measures, jr)
    with pytest.raises(type(expected)) as raised:
        engine.compute_many(measures, jr)
    assert str(raised.value) == str(expected)
    assert isinstance(raised.value, (MeasureError, InputError))


def test_evaluate_many_equals_each_alone():
    qrels, run = judging_case(7)
    q, r = Qrels.from_dict(qrels), Run.from_dict(run)
    together = evaluate(q, r, MEASURES)
    assert len(together.measures) == len(MEASURES)
    for m in together.measures:
        alone = evaluate(q, r, [m])
        assert same_bits(alone.runs[0].values[m], together.runs[0].values[m]), str(m)
        assert alone.aggregate(0, m) == together.aggregate(0, m) or m.name == "relstring"
