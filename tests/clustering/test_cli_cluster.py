"""`cranfield cluster`: file formats, output formats, one-line errors with exit 2."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from sklearn import metrics as skm

from cranfield.cli.main import main

TRUTH = ["x"] * 5 + ["o"] + ["x"] + ["o"] * 4 + ["d"] + ["x"] * 2 + ["d"] * 3
CLUSTERS = ["1"] * 6 + ["2"] * 6 + ["3"] * 5


def _write_csv(path, header, rows, sep=","):
    lines = ([sep.join(header)] if header else []) + [sep.join(map(str, r)) for r in rows]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def _run(capsys, *argv):
    code = main(["cluster", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _json(capsys, *argv):
    code, out, err = _run(capsys, *argv, "--format", "json")
    assert code == 0, err
    return json.loads(out)


def test_single_csv_with_two_columns_iir_example(tmp_path, capsys):
    f = _write_csv(tmp_path / "iir.csv", ["class", "cluster"], zip(TRUTH, CLUSTERS, strict=True))
    code, out, err = _run(capsys, f, "--beta", "5", "--table")
    assert code == 0 and err == ""
    lines = dict(line.split(None, 1) for line in out.splitlines() if line and "\\" not in line)
    assert lines["purity"] == "0.7059"
    assert lines["nmi"] == "0.3646"
    assert lines["rand_index"] == "0.6765"
    assert lines["f_beta"] == "0.4561"
    assert lines["tp"] == "20" and lines["tn"] == "72"
    assert "class \\ cluster  1  2  3" in out
    assert out.splitlines()[-1].split() == ["x", "5", "1", "2"]


def test_json_and_markdown_outputs(tmp_path, capsys):
    f = _write_csv(tmp_path / "iir.csv", ["class", "cluster"], zip(TRUTH, CLUSTERS, strict=True))
    data = _json(capsys, f, "--table", "--average-method", "max")
    assert data["purity"] == pytest.approx(12 / 17)
    assert data["nmi"] == pytest.approx(
        skm.normalized_mutual_info_score(TRUTH, CLUSTERS, average_method="max")
    )
    assert data["contingency"]["classes"] == ["d", "o", "x"]
    assert data["contingency"]["counts"] == [[0, 1, 3], [1, 4, 0], [5, 1, 2]]
    code, out, _ = _run(capsys, f, "--format", "markdown", "--digits", "2")
    assert code == 0
    assert "| purity | 0.71 |" in out.splitlines()
    assert out.splitlines()[0] == "| measure | value |"


def test_two_plain_files_match_sklearn(tmp_path, capsys):
    rng = np.random.default_rng(0)
    t = rng.choice(["sports", "politics", "tech"], 200)
    p = rng.integers(0, 5, 200)
    (tmp_path / "truth.txt").write_text("\n".join(t) + "\n")
    (tmp_path / "pred.txt").write_text("\n".join(map(str, p)))  # no final newline
    data = _json(capsys, str(tmp_path / "truth.txt"), str(tmp_path / "pred.txt"))
    assert data["n_items"] == 200
    assert data["adjusted_rand_index"] == pytest.approx(skm.adjusted_rand_score(t, p))
    assert data["mutual_information"] == pytest.approx(skm.mutual_info_score(t, p))


def test_parquet_joined_on_id_equals_positional(tmp_path, capsys):
    rng = np.random.default_rng(1)
    ids = [f"doc{i}" for i in range(50)]
    t = rng.integers(0, 3, 50)
    p = rng.integers(0, 4, 50)
    pq.write_table(pa.table({"docid": ids, "label": t}), tmp_path / "truth.parquet")
    order = rng.permutation(50)
    shuffled = pa.table({"cluster": p[order], "docid": [ids[i] for i in order]})
    pq.write_table(shuffled, tmp_path / "pred.parquet")
    joined = _json(
        capsys,
        str(tmp_path / "truth.parquet"),
        str(tmp_path / "pred.parquet"),
        "--id-column",
        "docid",
    )
    assert joined["adjusted_rand_index"] == pytest.approx(skm.adjusted_rand_score(t, p))
    assert joined["nmi"] == pytest.approx(skm.normalized_mutual_info_score(t, p))


def test_tsv_without_header_by_column_number_keeps_text_labels(tmp_path, capsys):
    rows = [("a", "01", "x"), ("b", "1", "x"), ("c", "01", "y")]
    f = _write_csv(tmp_path / "t.tsv", None, rows, sep="\t")
    data = _json(capsys, f, "--no-header", "--truth-column", "3", "--assignment-column", "2")
    assert data["n_clusters"] == 2  # "01" and "1" are different clusters
    assert data["n_classes"] == 2


@pytest.mark.parametrize(
    "files,extra,message",
    [
        ({"t.txt": "a\nb\nc\n", "p.txt": "1\n2\n"}, ["--no-header"], "2 labels but"),
        ({"t.txt": "a\n\nc\n", "p.txt": "1\n2\n3\n"}, ["--no-header"], "t.txt:2: empty label"),
        ({"t.csv": "c,k\na,\n", "p": None}, ["--header"], "t.csv:2: empty label in column 'k'"),
        ({"t.csv": "a,b,c\n1,2,3\n", "p": None}, [], "exactly two label columns"),
        ({"t.csv": "a,b\n1,2\n", "p": None}, ["--truth-column", "z"], "no column 'z'"),
        (
            {"t.csv": "id,c\nd1,a\nd1,b\n", "p.csv": "id,k\nd1,1\nd2,1\n"},
            ["--id-column", "id"],
            "t.csv:3: id 'd1' appears more than once",
        ),
        (
            {"t.csv": "id,c\nd1,a\nd2,b\n", "p.csv": "id,k\nd1,1\nd3,1\n"},
            ["--id-column", "id"],
            "id 'd2' from",
        ),
        (
            {"t.txt": "a\nb\n", "p.txt": "1\n2\n"},
            ["--no-header", "--beta", "-1"],
            "invalid value for beta",
        ),
        ({"t.csv": "a,b\n1,2,3\n", "p": None}, [], "t.csv:2: expected 2 fields"),
        ({"t.txt": "", "p.txt": ""}, [], "no labels"),
    ],
)
def test_bad_input_is_one_line_exit_2(tmp_path, capsys, files, extra, message):
    paths = []
    for name, text in files.items():
        if text is None:
            continue
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))
    code, out, err = _run(capsys, *paths, *extra)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("cranfield cluster: error: ")
    assert message in err


def test_missing_file_is_exit_2(tmp_path, capsys):
    code, _, err = _run(capsys, str(tmp_path / "nope.txt"), str(tmp_path / "nope2.txt"))
    assert code == 2 and err.count("\n") == 1 and "nope.txt" in err
