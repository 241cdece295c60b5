"""``Qrels.read`` / ``Run.read`` take in-memory tables too, and ``evaluate()`` evaluates
every run of a table whose rows name their run (a ``run`` / ``tag`` / ... column)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from cranfield import Qrels, Run, evaluate
from cranfield.errors import InputError, ParameterError

QRELS = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"c": 1, "d": 1}}
RUN_X = {"1": {"a": 3.0, "b": 2.0, "c": 1.0}, "2": {"c": 2.0, "e": 1.0}}
RUN_Y = {"1": {"b": 3.0, "c": 2.0}, "2": {"d": 2.0, "c": 1.5, "e": 1.0}}


def frame(runs: dict[str, dict], column: str = "run") -> pd.DataFrame:
    rows = [
        (name, q, d, s)
        for name, run in runs.items()
        for q, docs in run.items()
        for d, s in docs.items()
    ]
    return pd.DataFrame(rows, columns=[column, "qid", "docno", "score"])


def qrels_frame() -> pd.DataFrame:
    rows = [(q, d, g) for q, docs in QRELS.items() for d, g in docs.items()]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])


TO = {
    "pandas": lambda df: df,
    "polars": pl.from_pandas,
    "arrow": lambda df: pa.Table.from_pandas(df, preserve_index=False),
    "dict": None,
}


@pytest.mark.parametrize("kind", TO)
def test_read_takes_in_memory_tables(kind):
    expected_q, expected_r = Qrels.from_dict(QRELS), Run.from_dict(RUN_X)
    if kind == "dict":
        q, r = Qrels.read(QRELS), Run.read(RUN_X, name="x")
    else:
        q = Qrels.read(TO[kind](qrels_frame()))
        r = Run.read(TO[kind](frame({"x": RUN_X}).drop(columns="run")), name="x")
    assert q.table.equals(expected_q.table)
    assert r.table.equals(expected_r.table) and r.name == "x"


@pytest.mark.parametrize("kind", ["pandas", "polars", "arrow"])
@pytest.mark.parametrize("column", ["run", "tag", "System", "run_id"])
def test_evaluate_uses_the_run_names_of_a_table(kind, column):
    table = TO[kind](frame({"x": RUN_X, "y": RUN_Y}, column))
    res = evaluate(Qrels.read(TO[kind](qrels_frame())), table, ["AP", "nDCG@10"])
    one_by_one = evaluate(QRELS, {"x": RUN_X, "y": RUN_Y}, ["AP", "nDCG@10"])
    assert res.run_names == ["x", "y"]
    for got, want in zip(res.runs, one_by_one.runs, strict=True):
        assert got.aggregates == want.aggregates
        for m in res.measures:
            assert np.array_equal(got.values[m], want.values[m])


def test_one_run_table_is_named_by_its_column_and_many_are_refused():
    assert Run.read(frame({"bm25": RUN_X})).name == "bm25"
    assert Run.read(frame({"bm25": RUN_X}), name="other").name == "other"
    with pytest.raises(InputError, match="holds 2 runs .*'x', 'y'"):
        Run.read(frame({"x": RUN_X, "y": RUN_Y}))
    runs = Run.split(pl.from_pandas(frame({"y": RUN_Y, "x": RUN_X})))
    assert [r.name for r in runs] == ["y", "x"]  # order of first appearance
    assert runs[1].table.equals(Run.from_dict(RUN_X).table)


def test_tables_mixed_with_other_runs_and_categorical_names():
    cat = pl.from_pandas(frame({"x": RUN_X, "y": RUN_Y})).with_columns(
        pl.col("run").cast(pl.Categorical)
    )
    res = evaluate(QRELS, [cat, Run.from_dict(RUN_X, name="z")], "AP")
    assert res.run_names == ["x", "y", "z"]
    assert res.aggregate(0, "AP") == res.aggregate(2, "AP")


def test_bad_tables_fail_clearly():
    df = frame({"x": RUN_X})
    df.loc[1, "run"] = None
    with pytest.raises(InputError, match="row 2: no run name in column 'run'"):
        evaluate(QRELS, df, "AP")
    with pytest.raises(ParameterError, match="format"):
        Qrels.read(qrels_frame(), format="csv")
    with pytest.raises(InputError, match="cannot make Run"):
        Run.coerce(pd.Series([1.0]))
