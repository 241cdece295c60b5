"""The NumPy measure kernels are the executable specification only: no production path
computes a value with one (issue 31). Every registered kernel is made to fail, then
the paths that once fell back on them — a judged run measured by ``run_result`` (the
general path of ``evaluate``, the Dask workers), micro averages, the report's curves,
the learning-to-rank objective's general path — must still give their values, all of
them from the engine. The diversity families' declared kernels are engine calls
themselves and stay allowed."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.core.evaluation import evaluate_objects
from cranfield.core.measures.declaration import MeasureDef
from cranfield.core.measures.registry import Measure
from cranfield.core.options import JudgeOptions
from cranfield.core.qrels import Qrels
from cranfield.core.run import Run
from cranfield.report import curves

QRELS = {"q1": {"a": 2, "b": 0, "c": 1, "x": -1}, "q2": {"d": 1, "e": 3}, "q3": {"f": 0}}
RUN = {
    "q1": {"a": 3.0, "b": 2.5, "u": 2.0, "c": 1.0, "x": 0.5},
    "q2": {"e": 2.0, "v": 1.5, "d": 1.0},
    "q3": {"f": 1.0, "w": 0.5},
}
MEASURES = [
    "AP",
    "nDCG@5",
    "P@2",
    "R@3",
    "RR(judged_only=True)",
    "bpref",
    "infAP",
    "rbp",
    "ndcg_rel",
    "Rndcg",
    "G",
    "binG",
    "IPrec@0.5",
    "ERR@5",
    "set_F",
    "Unjudged@5",
]


@pytest.fixture
def no_specification(monkeypatch):
    """Every non-diversity kernel raises when called; yields the names it was asked for."""
    called: list[str] = []
    original = MeasureDef.kernel

    def kernel(self):
        behaviour = original.fget(self)
        if self.family == "diversity":
            return behaviour

        def refuse(*args, **kwargs):
            called.append(self.name)
            raise AssertionError(f"the NumPy kernel of {self.name} ran in production")

        return refuse

    monkeypatch.setattr(MeasureDef, "kernel", property(kernel))
    return called


def _inputs():
    return Qrels.from_dict(QRELS), Run.from_dict(RUN, name="r")


def test_the_kernels_fail_when_called(no_specification):
    qrels, run = _inputs()
    from cranfield.core.judged import judge

    with pytest.raises(AssertionError, match="NumPy kernel"):
        Measure.of("AP").reference(judge(qrels, run))
    assert no_specification == ["AP"]


@pytest.mark.parametrize("aggregate_by", ["macro", "micro"])
def test_judged_runs_are_measured_by_the_engine(no_specification, aggregate_by):
    qrels, run = _inputs()
    names = MEASURES if aggregate_by == "macro" else ["P@2", "R@3", "set_F", "set_P"]
    results, _ = evaluate_objects(
        qrels, {"r": run}, names, JudgeOptions(), aggregate_by=aggregate_by, keep_judged=True
    )
    assert results.runs[0].judged is not None  # the judged-run path, not the indexed one
    assert len(results.runs[0].aggregates) == len(names)
    assert no_specification == []


def test_report_curves_are_computed_without_the_kernels(no_specification):
    qrels, run = _inputs()
    for convention in curves.CONVENTIONS:
        values = curves.interpolated_precision(qrels, run, convention=convention)
        assert np.isfinite(values["precision"]).all()
    assert len(curves.average_at_ranks(qrels, run, ranks=(1, 2, 5))["precision"]) == 3
    assert len(curves.average_interpolated(qrels, run)["precision"]) == 11
    assert len(curves.pr_points(qrels, run)["rank"]) > 0
    assert no_specification == []


def test_the_ltr_objectives_general_path_uses_the_engine(no_specification):
    from cranfield.ltr.data import from_arrays
    from cranfield.ltr.objective import Objective

    rng = np.random.default_rng(0)
    x = rng.normal(size=(40, 3))
    data = from_arrays(x, rng.integers(0, 3, 40), np.repeat(["q1", "q2", "q3", "q4"], 10))
    values = Objective(data, "ERR(max_grade=2)@5", backend="general")(rng.normal(size=(4, 3)))
    assert values.shape == (4,)
    assert no_specification == []


def test_trec_eval_from_a_judged_run_uses_the_engine(no_specification):
    from cranfield.core.trec_eval import run_trec_eval

    qrels, run = _inputs()
    text = run_trec_eval(qrels, run, ["all_trec"], per_query=True)
    assert "ndcg_cut_10" in text and "\tq2\t" in text
    assert no_specification == []
