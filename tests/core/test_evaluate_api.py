"""evaluate() and Results: shapes, exports, options and errors."""

import json
import math

import pytest

import cranfield
from cranfield import sample
from cranfield.errors import InputError, MeasureError

QRELS = {"q1": {"a": 2, "b": 0, "c": 1, "d": -1}, "q2": {"x": 1}, "q3": {"y": 1}}
RUN = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0, "d": 0.5, "z": 0.1}, "q2": {"w": 1.0, "x": 0.5}}


def test_values_by_hand():
    res = cranfield.evaluate(QRELS, {"sys": RUN}, ["AP", "P@2", "RR", "NumRet", "nDCG@2"])
    pq = res.per_query("sys")
    # q1: relevant a (rank 1) and c (rank 3); R = 2 -> AP = (1/1 + 2/3) / 2
    assert pq["q1"]["AP"] == pytest.approx((1 + 2 / 3) / 2)
    # q2: x at rank 2 -> AP = 1/2, RR = 1/2, P@2 = 1/2
    assert pq["q2"]["AP"] == pytest.approx(0.5) and pq["q2"]["RR"] == 0.5
    assert pq["q1"]["P@2"] == 0.5
    # nDCG@2 q1: DCG = 2/log2(2) + 0 ; ideal = 2 + 1/log2(3)
    assert pq["q1"]["nDCG@2"] == pytest.approx(2 / (2 + 1 / math.log2(3)))
    # q3 is not in the run: left out without complete
    assert set(pq) == {"q1", "q2"}
    agg = res["sys"]
    assert agg["NumRet"] == 7  # counts are summed
    assert agg["AP"] == pytest.approx(((1 + 2 / 3) / 2 + 0.5) / 2)


def test_complete_counts_missing_topics_as_zero():
    res = cranfield.evaluate(QRELS, {"sys": RUN}, ["AP"], complete=True)
    assert set(res.per_query("sys")) == {"q1", "q2", "q3"}
    assert res.per_query("sys", "AP")["q3"] == 0.0
    assert res["sys"]["AP"] == pytest.approx(((1 + 2 / 3) / 2 + 0.5) / 3)


def test_json_shape_and_round_trip():
    res = cranfield.evaluate(QRELS, {"a": RUN, "b": {"q1": {"c": 1.0}}}, ["AP", "P@1"])
    data = json.loads(res.dumps(per_query=True))
    assert [r["name"] for r in data["runs"]] == ["a", "b"]
    assert set(data["runs"][0]) == {"name", "aggregate", "per_query"}
    assert set(data["runs"][0]["aggregate"]) == {"AP", "P@1"}
    assert "per_query" not in res.to_json()["runs"][0]


def test_pandas_export():
    res = cranfield.evaluate(QRELS, {"sys": RUN}, ["AP", "P@2"])
    df = res.to_pandas(per_query=True)
    assert list(df.columns) == ["AP", "P@2"]
    assert df.loc[("sys", "q2"), "AP"] == pytest.approx(0.5)


def test_trec_names_map_to_canonical_names():
    res = cranfield.evaluate(QRELS, {"sys": RUN}, ["ndcg_cut.10", "P.1,2", "map"])
    assert [str(m) for m in res.measures] == ["nDCG@10", "P@1", "P@2", "AP"]


def test_rel_level_and_per_measure_rel():
    res = cranfield.evaluate(QRELS, {"sys": RUN}, ["P@3", "P(rel=2)@3"])
    pq = res.per_query("sys")["q1"]
    assert pq["P@3"] == pytest.approx(2 / 3) and pq["P(rel=2)@3"] == pytest.approx(1 / 3)
    res2 = cranfield.evaluate(QRELS, {"sys": RUN}, ["P@3"], rel_level=2)
    assert res2.per_query("sys")["q1"]["P@3"] == pytest.approx(1 / 3)


def test_micro_vs_macro():
    qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}}
    run = {"q1": {"a": 1.0, "x": 0.5, "y": 0.2}, "q2": {"c": 1.0}}
    macro = cranfield.evaluate(qrels, {"r": run}, ["SetP"])["r"]["SetP"]
    micro = cranfield.evaluate(qrels, {"r": run}, ["SetP"], aggregate_by="micro")["r"]["SetP"]
    assert macro == pytest.approx((1 / 3 + 1) / 2) and micro == pytest.approx(2 / 4)
    with pytest.raises(MeasureError, match="micro"):
        cranfield.evaluate(qrels, {"r": run}, ["AP"], aggregate_by="micro")


def test_errors():
    with pytest.raises(MeasureError, match="did you mean nDCG"):
        cranfield.evaluate(QRELS, {"sys": RUN}, ["nDGC@10"])
    with pytest.raises(InputError, match="two runs"):
        run = cranfield.Run.from_dict(RUN, name="same")
        cranfield.evaluate(QRELS, [run, run], ["AP"])


def test_sample_runs_rank_in_expected_order():
    qrels, runs = sample.load()
    res = cranfield.evaluate(qrels, list(runs.values()), ["AP"], complete=True)
    ap = {r: res[r]["AP"] for r in res.run_names}
    assert ap["hybrid"] > ap["bm25"] > ap["dense"] > ap["random"]


def test_measure_values_do_not_depend_on_row_order():
    qrels, runs = sample.load()
    run = runs["bm25"]
    shuffled = cranfield.Run(run.table.take(list(reversed(range(len(run))))), name="bm25")
    a = cranfield.evaluate(qrels, run, ["AP", "nDCG@10", "bpref"])
    b = cranfield.evaluate(qrels, shuffled, ["AP", "nDCG@10", "bpref"])
    assert a["bm25"] == b["bm25"]


def test_evaluate_stays_a_function_whatever_was_imported_first():
    import importlib

    importlib.import_module("cranfield.core.evaluation")
    importlib.import_module("cranfield.cli.eval_cmd")
    assert callable(cranfield.evaluate) and cranfield.evaluate.__name__ == "evaluate"


def test_dumps_writes_undefined_values_as_null():
    res = cranfield.evaluate(QRELS, {"sys": RUN}, ["AP"])
    run = res.runs[0]
    run.aggregates[next(iter(run.aggregates))] = float("nan")  # an undefined aggregate
    text = res.dumps()
    assert "NaN" not in text
    assert json.loads(text)["runs"][0]["aggregate"]["AP"] is None
