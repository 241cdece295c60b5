"""Subtopic qrels, ``cranfield ndeval`` and ``eval --subtopic-qrels`` under hostile input:
one clear line naming the file and line, a non-zero status, never a traceback."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cranfield.core.subtopics import SubtopicQrels
from cranfield.errors import InputError

from .harness import Unchanged, assert_clean_failure, run_cli, run_main

QRELS = "1 1 d1 1\n1 2 d2 1\n2 1 d1 0\n"
RUN = "1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.0 r\n2 Q0 d1 1 1.0 r\n"
ADHOC = "1 0 d1 1\n1 0 d2 1\n2 0 d1 0\n"


@pytest.fixture
def files(tmp_path):
    out = {}
    for name, text in (("qrels", QRELS), ("run", RUN), ("adhoc", ADHOC)):
        out[name] = tmp_path / name
        out[name].write_text(text)
    return out


@pytest.mark.parametrize(
    "text, line, words",
    [
        ("1 1 d1 1\n1 1 d2\n", 2, "expected 4 fields"),
        ("1 1 d1 1 extra\n", 1, "got more"),
        ("1 x d1 1\n", 1, "subtopic is not a natural number"),
        ("1 -1 d1 1\n", 1, "subtopic is not a natural number"),
        ("1 1 d1 -1\n", 1, "grade is not a natural number"),
        ("1 1 d1 0.5\n", 1, "grade is not a natural number"),
        ("# a comment\n\n1 1 d1 nan\n", 3, "grade is not a natural number"),
        ("1 1 d\xff1 1\n", 1, "not valid UTF-8"),
    ],
)
def test_bad_trec_subtopic_qrels_name_file_and_line(tmp_path, text, line, words):
    path = tmp_path / "sub.txt"
    path.write_bytes(text.encode("latin-1"))
    with pytest.raises(InputError) as e:
        SubtopicQrels.read(path)
    assert (e.value.line, e.value.source) == (line, str(path)), str(e.value)
    assert words in str(e.value)


def test_empty_subtopic_qrels(tmp_path):
    path = tmp_path / "sub.txt"
    path.write_text("# nothing\n\n")
    with pytest.raises(InputError, match="no subtopic judgments"):
        SubtopicQrels.read(path)


@pytest.mark.parametrize(
    "csv, words",
    [
        ("qid,docno,rel\n1,d1,1\n", "no subtopic column"),
        ("qid,subtopic,docno,rel\n1,x,d1,1\n", "subtopic"),
        ("qid,subtopic,docno,rel\n1,1,d1,1\n1,1.5,d2,1\n", "subtopic is not an integer in line 3"),
        ("qid,subtopic,docno,rel\n1,1,d1,nan\n", "relevance grade is not an integer in line 2"),
        ("qid,subtopic,docno,rel\n1,-2,d1,1\n", "subtopic is negative"),
        ("qid,subtopic,docno,rel\n1,2,d1,-1\n", "relevance grade is negative"),
        ("qid,subtopic,docno\n1,2,d1\n", "no relevance column"),
        ("qid,subtopic,docno,rel\n1,1,d1,1\n1,,d2,1\n", "subtopic is missing (null) in line 3"),
        ("qid,subtopic,docno,rel\n1,1,d1,\n", "relevance is missing (null) in line 2"),
        ("qid,subtopic,docno,rel\n1,1,d1,inf\n", "relevance grade is not an integer in line 2"),
    ],
)
def test_bad_table_subtopic_qrels(tmp_path, csv, words):
    path = tmp_path / "sub.csv"
    path.write_text(csv)
    with pytest.raises(InputError) as e:
        SubtopicQrels.read(path)
    assert words in str(e.value) and str(path) in str(e.value)


def test_tables_read_like_trec_text(tmp_path, files):
    trec = SubtopicQrels.read(files["qrels"]).table
    table = pa.table(
        {
            "topic": pa.array([1, 1, 2]),
            "intent": [1, 2, 1],
            "docno": ["d1", "d2", "d1"],
            "grade": [1.0, 1.0, 0.0],
        }
    )
    pq.write_table(table, tmp_path / "sub.parquet")
    assert SubtopicQrels.read(tmp_path / "sub.parquet").table.equals(trec)
    assert SubtopicQrels.read(table.to_pandas()).table.equals(trec)
    (tmp_path / "sub.csv").write_text("qid,subtopic,docno,rel\n1,1,d1,1\n1,2,d2,1\n2,1,d1,0\n")
    assert SubtopicQrels.read(tmp_path / "sub.csv").table.equals(trec)
    with pytest.raises(InputError, match="not a dict"):
        SubtopicQrels.read({"1": {"d1": 1}})


def test_eval_mixes_diversity_and_ordinary_measures(capsys, files):
    status, out, err = run_main(
        capsys, "eval", files["adhoc"], files["run"], "-m", "P@2", "alpha_nDCG@5",
        "StRecall@2", "--subtopic-qrels", files["qrels"], "-f", "csv",
    )  # fmt: skip
    assert status == 0, err
    header, row = out.splitlines()[:2]
    assert header == "run,P@2,alpha_nDCG@5,StRecall@2"
    assert row.split(",")[3] == "0.5"  # topic 1: both subtopics; topic 2: none -> 0


@pytest.mark.parametrize(
    "extra, words",
    [
        ([], "needs subtopic qrels"),
        (["--subtopic-qrels", "missing.txt"], "missing.txt"),
        (["--subtopic-qrels", "{run}"], "run:1: expected 4 fields"),
    ],
)
def test_eval_refusals_are_one_line(capsys, files, extra, words):
    extra = [e.format(run=files["run"]) for e in extra]
    with Unchanged(*files.values()):
        status, out, err = run_main(
            capsys, "eval", files["adhoc"], files["run"], "-m", "alpha_nDCG@5", *extra
        )
    assert status == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err, err
    assert words in err


def test_a_cutoff_beyond_the_computed_depth_is_refused(capsys, files):
    status, _, err = run_main(
        capsys, "eval", files["adhoc"], files["run"], "-m", "P_IA@2000000",
        "--subtopic-qrels", files["qrels"],
    )  # fmt: skip
    assert status != 0 and "1000000" in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "argv, words",
    [
        ([], "expected [options] qrels run"),
        (["-x", "{qrels}", "{run}"], "unknown option"),
        (["-alpha", "2", "{qrels}", "{run}"], "-alpha expects a number in [0, 1]"),
        (["-beta", "x", "{qrels}", "{run}"], "-beta expects a number"),
        (["-M", "0", "{qrels}", "{run}"], "-M expects a positive integer"),
        (["-riskAlpha", "-1", "{qrels}", "{run}"], "-riskAlpha expects a number >= 0"),
        (["{qrels}", "{run}", "extra"], "got '"),
        (["-", "-"], "only one of the files"),
    ],
)
def test_ndeval_usage_errors(capsys, files, argv, words):
    argv = [a.format(**files) for a in argv]
    status, out, err = run_main(capsys, "ndeval", *argv)
    assert status == 1 and out == "" and err.count("\n") == 1, err
    assert words in err


def test_ndeval_input_errors_name_the_file(capsys, files, tmp_path):
    bad = tmp_path / "bad"
    bad.write_text("1 Q0 d1 1 1.0 r\n1 Q0 d2 x 1.0 r\n")
    status, out, err = run_main(capsys, "ndeval", files["qrels"], bad)
    assert status == 2 and out == ""
    assert f"{bad}:2:" in err and err.count("\n") == 1
    status, _, err = run_main(capsys, "ndeval", files["qrels"], tmp_path / "none")
    assert status == 2 and "none" in err and err.count("\n") == 1
    with pytest.raises(SystemExit) as done:
        run_main(capsys, "ndeval", "-help")
    assert done.value.code == 0 and "-riskAlpha" in capsys.readouterr().out


def test_ndeval_as_a_process_reads_standard_input(files):
    out = run_cli("ndeval", "-c", files["qrels"], "-", stdin=RUN.encode())
    assert out.status == 0 and out.stderr == "", out
    lines = out.stdout.decode().splitlines()
    assert lines[0].startswith("runid,topic,ERR-IA@5") and lines[-1].startswith("r,amean,")
    assert len(lines) == 4
    bad = run_cli("ndeval", files["qrels"], files["qrels"])  # qrels given as the run
    assert_clean_failure(bad, "syntax error", status=2)


def test_diversity_on_dask_is_refused_in_one_line(capsys, files):
    status, out, err = run_main(
        capsys, "eval", files["adhoc"], files["run"], "-m", "alpha_nDCG@5",
        "--subtopic-qrels", files["qrels"], "--engine", "dask",
    )  # fmt: skip
    assert status == 2 and out == "" and err.count("\n") == 1
    assert "local with subtopic qrels" in err


def test_compare_takes_diversity_measures(capsys, files, tmp_path):
    other = tmp_path / "other"
    other.write_text("1 Q0 d2 1 2.0 o\n1 Q0 d1 2 1.0 o\n2 Q0 d1 1 1.0 o\n")
    status, out, err = run_main(
        capsys, "compare", files["adhoc"], files["run"], other, "-m", "alpha_nDCG@1",
        "--subtopic-qrels", files["qrels"], "-f", "csv",
    )  # fmt: skip
    assert status == 0, err
    assert "alpha_nDCG@1" in out
    status, _, err = run_main(
        capsys, "compare", files["adhoc"], files["run"], other, "-m", "alpha_nDCG@1"
    )
    assert status != 0 and "needs subtopic qrels" in err and err.count("\n") == 1


def test_intent_probabilities_on_the_command_line(capsys, files, tmp_path):
    good, bad = tmp_path / "good.csv", tmp_path / "bad.csv"
    good.write_text("qid,subtopic,p\n1,1,0.25\n1,2,0.75\n")
    bad.write_text("qid,subtopic,p\n1,1,0.25\n")
    argv = ["eval", files["adhoc"], files["run"], "-m", "StRecall@1", "-f", "csv"]
    status, out, err = run_main(capsys, *argv, "--subtopic-qrels", files["qrels"])
    assert status == 0 and out.splitlines()[1].split(",")[1] == "0.25", err  # (1/2 + 0)/2
    status, out, err = run_main(
        capsys, *argv, "--subtopic-qrels", files["qrels"], "--intent-probabilities", good
    )
    assert status == 0 and out.splitlines()[1].split(",")[1] == "0.125", err  # 0.25 / 2
    status, out, err = run_main(
        capsys, *argv, "--subtopic-qrels", files["qrels"], "--intent-probabilities", bad
    )
    assert status == 2 and out == "" and err.count("\n") == 1 and "sum to 0.25" in err
    status, _, err = run_main(capsys, *argv, "--intent-probabilities", good)
    assert status == 2 and err.count("\n") == 1 and "--subtopic-qrels beside it" in err


@pytest.mark.parametrize(
    "extra, words",
    [
        ([], "needs subtopic qrels"),
        (["--subtopic-qrels", "{run}"], "run:1: expected 4 fields"),
        (["--subtopic-qrels", "{qrels}", "--intent-probabilities", "{run}"], "run"),
        (["--intent-probabilities", "{qrels}"], "--subtopic-qrels beside it"),
    ],
)
def test_report_refusals_are_one_line(capsys, files, tmp_path, extra, words):
    extra = [e.format(run=files["run"], qrels=files["qrels"]) for e in extra]
    out = tmp_path / "report.html"
    with Unchanged(*files.values()):
        status, stdout, err = run_main(
            capsys, "report", files["adhoc"], files["run"], "-m", "D_nDCG@5", *extra,
            "-o", str(out),
        )  # fmt: skip
    assert status == 2 and stdout == "" and err.count("\n") == 1 and "Traceback" not in err, err
    assert words in err and not out.exists()
