"""Qrels and Run containers: every format round trip, schema conversion, errors."""

from __future__ import annotations

import io
import sys

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from cranfield.core.qrels import Qrels
from cranfield.core.run import Run
from cranfield.errors import InputError, ParameterError

QRELS_DICT = {"007": {"1e3": 2, "d2": 0, "d3": -1}, "301": {"d2": 3}}
RUN_DICT = {"007": {"1e3": 2.5, "d2": 2.5, "zz": -1e-9}, "301": {"d9": 0.1, "d2": 7.0}}


def _qrels() -> Qrels:
    return Qrels.from_dict(QRELS_DICT)


def _run() -> Run:
    return Run.from_dict(RUN_DICT, name="sys")


def test_schema_and_order():
    q, r = _qrels(), _run()
    assert q.table.schema == pa.schema(
        [("query_id", pa.string()), ("doc_id", pa.string()), ("relevance", pa.int64())]
    )
    assert r.table.schema == pa.schema(
        [("query_id", pa.string()), ("doc_id", pa.string()), ("score", pa.float64())]
    )
    assert q.table["doc_id"].to_pylist() == ["1e3", "d2", "d3", "d2"]  # reading order kept
    assert q.to_dict() == QRELS_DICT and r.to_dict() == RUN_DICT
    assert len(q) == 4 and q.query_ids() == ["007", "301"]
    assert repr(q).startswith("Qrels(2 queries, 4 judgments")
    assert repr(r).startswith("Run('sys', 2 queries, 5 documents")


@pytest.mark.parametrize("suffix", [".txt", ".txt.gz", ".parquet", ".csv", ".tsv", ".csv.gz"])
def test_file_round_trips(tmp_path, suffix):
    q, r = _qrels(), _run()
    qpath, rpath = tmp_path / f"q{suffix}", tmp_path / f"sys{suffix}"
    if suffix in (".txt", ".txt.gz"):
        q.to_trec(qpath)
        r.to_trec(rpath)
    elif suffix == ".parquet":
        q.to_parquet(qpath)
        r.to_parquet(rpath)
    else:
        sep = "\t" if suffix == ".tsv" else ","
        comp = "gzip" if suffix.endswith(".gz") else None
        q.to_pandas().to_csv(qpath, sep=sep, index=False, compression=comp)
        r.to_pandas().to_csv(rpath, sep=sep, index=False, compression=comp)
    q2, r2 = Qrels.read(qpath), Run.read(rpath)
    assert q2.to_dict() == QRELS_DICT and r2.to_dict() == RUN_DICT
    assert r2.name == "sys"
    if suffix == ".parquet":
        assert Qrels.from_parquet(qpath).table.equals(q.table)


def test_in_memory_round_trips():
    q, r = _qrels(), _run()
    for back in (
        Qrels.from_pandas(q.to_pandas()),
        Qrels.from_polars(q.to_polars()),
        Qrels.from_arrow(q.to_arrow()),
        Qrels.coerce(q.to_pandas()),
        Qrels.coerce(q.to_polars()),
        Qrels.coerce(q.to_arrow()),
        Qrels.coerce(QRELS_DICT),
    ):
        assert back.table.equals(q.table)
    assert Qrels.coerce(q) is q
    for back in (
        Run.from_pandas(r.to_pandas()),
        Run.from_polars(r.to_polars()),
        Run.from_arrow(r.to_arrow()),
        Run.coerce(r.to_polars()),
    ):
        assert back.table.equals(r.table)


def test_trec_stdin_and_stdout(monkeypatch, capsysbinary):
    r = _run()
    r.to_trec("-")
    out = capsysbinary.readouterr().out
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(out)))
    back = Run.read("-")
    assert back.to_dict() == RUN_DICT and back.name == "sys"


def test_run_to_trec_writes_trec_eval_order():
    buf = io.BytesIO()
    _run().to_trec(buf)
    assert buf.getvalue().decode().splitlines() == [
        "007 Q0 d2 1 2.5 sys",  # tie at 2.5: doc id descending ("d2" > "1e3")
        "007 Q0 1e3 2 2.5 sys",
        "007 Q0 zz 3 -1e-9 sys",
        "301 Q0 d2 1 7 sys",
        "301 Q0 d9 2 0.1 sys",
    ]


def test_scores_survive_trec_round_trip_bit_for_bit():
    rng = np.random.default_rng(3)
    scores = np.concatenate(
        [
            rng.normal(size=300),
            rng.normal(size=100) * 1e300,
            rng.random(100) * 1e-300,
            [0.1, 1 / 3, -0.0, 2**53 + 1.0, np.inf, -np.inf, 5e-324],
        ]
    )
    table = pa.table(
        {
            "query_id": ["q"] * len(scores),
            "doc_id": [f"d{i}" for i in range(len(scores))],
            "score": scores,
        }
    )
    buf = io.BytesIO()
    Run(table, name="t").to_trec(buf)
    back = Run.read(io.BytesIO(buf.getvalue())).to_dict()["q"]
    for i, s in enumerate(scores):
        assert back[f"d{i}"] == s or (np.isnan(s) and np.isnan(back[f"d{i}"]))
        assert np.signbit(back[f"d{i}"]) == np.signbit(s) or s == 0


def test_integer_id_columns_become_strings():
    df = pd.DataFrame({"qid": [7, 301], "docno": [1000, 5], "rel": [1, 0]})
    assert Qrels.from_pandas(df).to_dict() == {"7": {"1000": 1}, "301": {"5": 0}}
    pdf = pl.DataFrame({"query": [7], "doc": [12], "grade": [2]})
    assert Qrels.from_polars(pdf).to_dict() == {"7": {"12": 2}}
    assert Qrels.from_dict({7: {8: 1}}).to_dict() == {"7": {"8": 1}}


def test_column_aliases_are_case_insensitive():
    t = pa.table({"QID": ["1"], "DocNo": ["a"], "Label": [1], "extra": [0]})
    assert Qrels.from_arrow(t).to_dict() == {"1": {"a": 1}}
    t = pa.table({"topic": ["1"], "docid": ["a"], "sim": [1.5]})
    assert Run.from_arrow(t, name="n").to_dict() == {"1": {"a": 1.5}}


def test_categorical_and_string_view_ids():
    df = pd.DataFrame({"qid": pd.Categorical(["b", "a"]), "docno": ["x", "y"], "score": [1, 2]})
    assert Run.from_pandas(df).to_dict() == {"b": {"x": 1.0}, "a": {"y": 2.0}}
    t = pa.table({"qid": pa.array(["1"], pa.string_view()), "docno": ["x"], "rel": [1]})
    assert Qrels.from_arrow(t).to_dict() == {"1": {"x": 1}}


def test_tabular_errors_name_the_row():
    with pytest.raises(InputError, match="no doc_id column"):
        Qrels.from_arrow(pa.table({"qid": ["1"], "rel": [1]}))
    with pytest.raises(InputError, match=r"type double; ids must be strings or integers"):
        Qrels.from_pandas(pd.DataFrame({"qid": [1.0], "docno": ["a"], "rel": [1]}))
    with pytest.raises(InputError, match=r"relevance grade is not an integer in row 2"):
        Qrels.from_pandas(pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "rel": [1, 2.5]}))
    with pytest.raises(InputError, match=r"doc_id is missing \(null\) in row 2"):
        Qrels.from_arrow(pa.table({"qid": ["1", "1"], "docno": ["a", None], "rel": [1, 2]}))
    with pytest.raises(InputError, match=r"score is NaN in row 1"):
        Run.from_dict({"1": {"a": float("nan")}})
    with pytest.raises(InputError, match=r"appears twice .* \(rows 1 and 3\)"):
        Run.from_pandas(
            pd.DataFrame({"qid": ["1", "1", "1"], "docno": ["a", "b", "a"], "score": [1, 2, 3]})
        )
    with pytest.raises(InputError, match="cannot make Qrels from int"):
        Qrels.coerce(3)


def test_csv_errors_quote_file_lines(tmp_path):
    p = tmp_path / "q.csv"
    p.write_text("qid,docno,rel\n1,a,1\n1,b,2\n1,a,0\n")
    with pytest.raises(InputError, match=r"\(lines 2 and 4\)") as info:
        Qrels.read(p)
    assert info.value.line == 4 and info.value.source == str(p)
    assert Qrels.read(p, duplicates="max").to_dict() == {"1": {"a": 1, "b": 2}}
    p.write_text("qid,docno,rel\n")
    with pytest.raises(InputError, match="no data rows"):
        Qrels.read(p)


def test_format_parameter():
    data = b"query_id,doc_id,score\n1,a,0.5\n"
    assert Run.read(io.BytesIO(data), format="csv", name="x").to_dict() == {"1": {"a": 0.5}}
    with pytest.raises(ParameterError, match="format"):
        Run.read(io.BytesIO(data), format="xml")


def test_ids_that_cannot_be_written_as_trec():
    r = Run.from_dict({"1": {"a b": 1.0}})
    with pytest.raises(InputError, match="no whitespace"):
        r.to_trec(io.BytesIO())


def test_constructor_does_not_mutate_input():
    t = pa.table({"qid": [1, 2], "docno": ["a", "b"], "rel": [1.0, 2.0]})
    before = t.to_pydict()
    q = Qrels(t)
    assert t.to_pydict() == before
    assert q.table["relevance"].type == pa.int64()


def test_ids_with_quotes_and_commas_survive_a_trec_round_trip(tmp_path):
    """Only whitespace and control characters separate TREC fields: an id with ``"``,
    ``,`` or ``'`` is written as it is (pyarrow's CSV writer refused it: a campaign's
    qrels export failed on a document id ``D"1``)."""
    qrels = {'q"1': {'D"1': 1, "a,b": 0, "it's": 2}}
    run = {'q"1': {'D"1': 2.5, "a,b": 1.0, "it's": -0.5}}
    Qrels.from_dict(qrels).to_trec(tmp_path / "q.txt")
    Run.from_dict(run, name='r"un').to_trec(tmp_path / "r.txt")
    assert Qrels.read(tmp_path / "q.txt").to_dict() == qrels
    back = Run.read(tmp_path / "r.txt")
    assert back.to_dict() == run and back.name == 'r"un'


def test_trec_lines_are_written_as_arrows_csv_writer_writes_them():
    """The writer formats numbers as pyarrow's CSV writer (the reference) does, on
    random scores of every magnitude, signed zeros and infinities."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    from cranfield.core.io.trec import delimited_lines

    rng = np.random.default_rng(7)
    n = 20_000
    scores = rng.standard_normal(n) * 10.0 ** rng.integers(-300, 300, n)
    scores[:6] = [0.0, -0.0, np.inf, -np.inf, 1e21, 5e-324]
    table = pa.table(
        {
            "q": pa.array([f"q{i % 97}" for i in range(n)]),
            "rank": pa.array(rng.integers(-(2**62), 2**62, n)),
            "score": pa.array(scores),
        }
    )
    sink = io.BytesIO()
    pacsv.write_csv(
        table,
        sink,
        write_options=pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none"),
    )
    assert delimited_lines(table.columns, " ") == sink.getvalue()
    expected = b"".join(x.replace(b" ", b"\t") + b"\n" for x in sink.getvalue().split(b"\n")[5:12])
    assert delimited_lines(table.slice(5, 7).columns, "\t") == expected  # a slice of a table
