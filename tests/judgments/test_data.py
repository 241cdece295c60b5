"""Reading judgments: formats, the declared scale, unknown labels with file and line."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cranfield.errors import InputError, ParameterError
from cranfield.judgments import Judgments, Scale

ROWS = [
    ("1", "d1", "ann", 2, 10.0),
    ("1", "d1", "bob", 1, 12.0),
    ("1", "d2", "ann", 0, 5.0),
    ("2", "d3", "bob", 1, 8.0),
]


def _columns(rows=ROWS):
    t, d, a, lab, s = zip(*rows, strict=True)
    return {"topic": t, "document": d, "assessor": a, "label": lab, "seconds": s}


def _check(j: Judgments) -> None:
    assert j.n_items == 3 and j.assessors == ["ann", "bob"] and len(j) == 4
    assert j.topics.tolist() == ["1", "1", "2"] and j.documents.tolist() == ["d1", "d2", "d3"]
    assert j.values().tolist() == [2, 1, 0, 1]
    assert j.counts().tolist() == [[0, 1, 1], [1, 0, 0], [0, 1, 0]]
    assert j.matrix().tolist() == [[2, 1], [0, -1], [-1, 1]]
    assert j.seconds.tolist() == [10, 12, 5, 8]


def test_csv_tsv_jsonl_parquet_and_frames_read_alike(tmp_path):
    cols = _columns()
    text = "topic,document,assessor,label,seconds\n" + "".join(
        ",".join(map(str, r)) + "\n" for r in ROWS
    )
    (tmp_path / "j.csv").write_text(text)
    (tmp_path / "j.tsv").write_text(text.replace(",", "\t"))
    (tmp_path / "j.jsonl").write_text(
        "".join(json.dumps(dict(zip(cols, r, strict=True))) + "\n\n" for r in ROWS)
    )
    pq.write_table(pa.table(cols), tmp_path / "j.parquet")
    for name in ("j.csv", "j.tsv", "j.jsonl", "j.parquet"):
        _check(Judgments.read(tmp_path / name, scale="0,1,2"))
    pd = pytest.importorskip("pandas")
    _check(Judgments.read(pd.DataFrame(cols), scale="0,1,2"))
    pl = pytest.importorskip("polars")
    _check(Judgments.read(pl.DataFrame(cols), scale="0,1,2"))


def test_unknown_label_names_the_file_and_line(tmp_path):
    path = tmp_path / "j.csv"
    path.write_text("topic,document,assessor,label\n1,d1,a,0\n1,d1,b,3\n")
    with pytest.raises(InputError, match=r"j\.csv:3: label '3' is not on the scale 0,1,2"):
        Judgments.read(path, scale="0,1,2")
    jl = tmp_path / "j.jsonl"
    jl.write_text(
        '{"topic":1,"document":"d","assessor":"a","label":0}\n\n'
        '{"topic":1,"document":"d","assessor":"b","label":7}\n'
    )
    with pytest.raises(InputError, match=r"j\.jsonl:3: label '7'"):
        Judgments.read(jl, scale="0,1")


def test_named_labels_and_the_scale_parser(tmp_path):
    scale = Scale.parse("2=high,0=non,1=rel")
    assert scale.values == (0, 1, 2) and scale.names == ("non", "rel", "high")
    path = tmp_path / "j.csv"
    path.write_text("topic,document,assessor,label\n1,d1,a,high\n1,d1,b,0\n")
    j = Judgments.read(path, scale=scale)
    assert j.values().tolist() == [2, 0]
    with pytest.raises(InputError, match="not an integer"):
        Judgments.read(path)  # names need a declared scale
    for bad in ("0,x", "0,0", ""):
        with pytest.raises(ParameterError):
            Scale.parse(bad)


def test_duplicates_missing_columns_and_bad_times(tmp_path):
    path = tmp_path / "j.csv"
    path.write_text("topic,document,assessor,label\n1,d1,a,0\n1,d2,a,1\n1,d1,a,1\n")
    with pytest.raises(InputError, match=r"j\.csv:4: the assessor judged"):
        Judgments.read(path)
    path.write_text("topic,document,label\n1,d1,0\n")
    with pytest.raises(InputError, match="no assessor column"):
        Judgments.read(path)
    path.write_text("topic,document,assessor,label,seconds\n1,d1,a,0,-3\n")
    with pytest.raises(InputError, match=r"j\.csv:2: negative time"):
        Judgments.read(path)
    path.write_text("topic,document,assessor,label\n1,d1,a,0.5\n")
    with pytest.raises(InputError, match=r"j\.csv:2: label '0\.5' is not an integer"):
        Judgments.read(path)


def test_qrels_files_one_per_assessor(tmp_path):
    (tmp_path / "alice.qrels").write_text("1 0 d1 1\n1 0 d2 0\n")
    (tmp_path / "bob.txt").write_text("1 0 d2 1\n2 0 d9 2\n")
    j = Judgments.from_qrels([tmp_path / "alice.qrels", tmp_path / "bob.txt"])
    assert j.assessors == ["alice", "bob"] and j.scale.values == (0, 1, 2)
    m = j.matrix()
    assert m.tolist() == [[1, -1], [0, 1], [-1, 2]]


def test_binarised_and_subset_keep_the_judgments_consistent():
    j = Judgments.from_table(pa.table(_columns()), scale="0,1,2")
    b = j.binarised(2)
    assert b.label.tolist() == [1, 0, 0, 0] and b.scale.level == "nominal"
    assert j.label.tolist() == [2, 1, 0, 1]  # the original is not modified
    s = j.subset(j.assessor == 1)
    assert s.assessors == ["bob"] and s.documents.tolist() == ["d1", "d3"]
    assert np.array_equal(s.values(), [1, 1])


def test_a_qrels_grade_off_the_scale_names_the_file_and_line(tmp_path):
    (tmp_path / "a.qrels").write_text("1 0 d1 1\n")
    (tmp_path / "b.qrels").write_text("# judged by b\n1 0 d1 1\n1 0 d2 3\n")
    with pytest.raises(InputError, match=r"b\.qrels:3: label '3' is not on the scale 0,1,2"):
        Judgments.from_qrels([tmp_path / "a.qrels", tmp_path / "b.qrels"], scale="0,1,2")
