"""Malformed input through ``cranfield trec_eval``: exit code, one stderr line, no changes.

Each case checks the exact exit status, that stderr is a single line naming the file
(and line, where there is one) and the problem, that no traceback is printed, that
nothing goes to stdout, and that the input files are byte-for-byte unchanged with the
same modification time.
"""

from __future__ import annotations

import os

import pytest

from cranfield import Qrels, Run
from cranfield.cli.main import main
from cranfield.errors import InputError

GOOD_QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 1\n"
GOOD_RUN = "1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n2 Q0 c 1 1.0 t\n"


def _snapshot(paths):
    return {p: (open(p, "rb").read(), os.stat(p).st_mtime_ns) for p in paths if os.path.exists(p)}


def _run(
    capsys, tmp_path, qrels_text, run_text, *flags, qrels_name="qrels.txt", run_name="run.txt"
):
    q, r = tmp_path / qrels_name, tmp_path / run_name
    if qrels_text is not None:
        q.write_text(qrels_text)
    if run_text is not None:
        r.write_text(run_text)
    before = _snapshot([q, r])
    code = main(["trec_eval", *flags, str(q), str(r)])
    out, err = capsys.readouterr()
    assert _snapshot([q, r]) == before, "input files were modified"
    assert "Traceback" not in err
    assert out == ""
    return code, err, str(q), str(r)


def _one_line(err: str) -> str:
    assert err.endswith("\n") and err.count("\n") == 1, err
    return err.rstrip("\n")


def test_qrels_given_as_run(capsys, tmp_path):
    code, err, q, r = _run(capsys, tmp_path, GOOD_QRELS, GOOD_QRELS)
    assert code == 2
    line = _one_line(err)
    assert f"{r}:1:" in line
    assert "expected 6 fields" in line and "got 4" in line and "qrels" in line


def test_run_given_as_qrels(capsys, tmp_path):
    code, err, q, r = _run(capsys, tmp_path, GOOD_RUN, GOOD_RUN)
    assert code == 2
    line = _one_line(err)
    assert f"{q}:1:" in line
    assert "expected 4 fields" in line and "got 6" in line and "run" in line


def test_wrong_field_count_reports_the_physical_line(capsys, tmp_path):
    run = "# comment\n\n1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0\n"
    code, err, _, r = _run(capsys, tmp_path, GOOD_QRELS, run)
    assert code == 2
    line = _one_line(err)
    assert f"{r}:4:" in line and "got 5" in line


def test_non_numeric_score(capsys, tmp_path):
    run = "1 Q0 a 1 2.0 t\n1 Q0 b 2 high t\n"
    code, err, _, r = _run(capsys, tmp_path, GOOD_QRELS, run)
    assert code == 2
    line = _one_line(err)
    assert f"{r}:2:" in line and "'high'" in line and "not a number" in line


def test_non_numeric_grade(capsys, tmp_path):
    qrels = "1 0 a 1\n1 0 b yes\n"
    code, err, q, _ = _run(capsys, tmp_path, qrels, GOOD_RUN)
    assert code == 2
    line = _one_line(err)
    assert f"{q}:2:" in line and "'yes'" in line and "not an integer" in line


@pytest.mark.parametrize("which", ["qrels", "run"])
def test_empty_file(capsys, tmp_path, which):
    qrels, run = ("", GOOD_RUN) if which == "qrels" else (GOOD_QRELS, "")
    code, err, q, r = _run(capsys, tmp_path, qrels, run)
    assert code == 2
    line = _one_line(err)
    assert (q if which == "qrels" else r) in line and "empty" in line


def test_duplicate_document_in_run(capsys, tmp_path):
    run = "1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n1 Q0 a 3 0.5 t\n"
    code, err, _, r = _run(capsys, tmp_path, GOOD_QRELS, run)
    assert code == 2
    line = _one_line(err)
    # reported at the second occurrence, naming both lines
    assert f"{r}:3:" in line and "'a'" in line and "'1'" in line and "twice" in line


def test_duplicate_document_in_qrels(capsys, tmp_path):
    qrels = "1 0 a 1\n2 0 c 1\n1 0 a 0\n"
    code, err, q, _ = _run(capsys, tmp_path, qrels, GOOD_RUN)
    assert code == 2
    line = _one_line(err)
    assert f"{q}:3:" in line and "'a'" in line and "twice" in line


def test_duplicates_option_of_the_readers(tmp_path):
    run_path = tmp_path / "run.txt"
    run_path.write_text("1 Q0 a 1 0.5 t\n1 Q0 b 2 1.0 t\n1 Q0 a 3 2.0 t\n")
    qrels_path = tmp_path / "qrels.txt"
    qrels_path.write_text("1 0 a 1\n1 0 b 0\n1 0 a 3\n")
    with pytest.raises(InputError) as exc:
        Run.read(run_path)
    assert exc.value.line == 3 and exc.value.source == str(run_path)
    with pytest.raises(InputError):
        Qrels.read(qrels_path)

    first = Run.read(run_path, duplicates="first").to_dict()
    best = Run.read(run_path, duplicates="max").to_dict()
    assert first == {"1": {"a": 0.5, "b": 1.0}}
    assert best == {"1": {"a": 2.0, "b": 1.0}}
    assert Qrels.read(qrels_path, duplicates="first").to_dict() == {"1": {"a": 1, "b": 0}}
    assert Qrels.read(qrels_path, duplicates="max").to_dict() == {"1": {"a": 3, "b": 0}}


def test_missing_file(capsys, tmp_path):
    code, err, q, r = _run(capsys, tmp_path, GOOD_QRELS, None, run_name="absent.txt")
    assert code == 2
    line = _one_line(err)
    assert r in line and "no such file" in line.lower()
    assert not os.path.exists(r)


def test_unknown_measure_suggests(capsys, tmp_path):
    code, err, _, _ = _run(capsys, tmp_path, GOOD_QRELS, GOOD_RUN, "-m", "mapp")
    assert code == 1
    line = _one_line(err)
    assert "'mapp'" in line and "did you mean" in line and "map" in line


def test_malformed_cutoffs(capsys, tmp_path):
    code, err, _, _ = _run(capsys, tmp_path, GOOD_QRELS, GOOD_RUN, "-m", "P.x")
    assert code == 1
    assert "'x'" in _one_line(err)


def test_unknown_measure_is_reported_before_reading_files(capsys, tmp_path):
    # the qrels file is malformed, but the measure error comes first (exit 1)
    code, err, _, _ = _run(capsys, tmp_path, GOOD_RUN, GOOD_RUN, "-m", "nDCGG")
    assert code == 1 and "nDCGG" in _one_line(err)


@pytest.mark.parametrize("value", ["0", "-3", "x", "1.5"])
def test_bad_depth(capsys, tmp_path, value):
    code, err, _, _ = _run(capsys, tmp_path, GOOD_QRELS, GOOD_RUN, "-M", value)
    assert code == 1
    # one line naming the option and the problem, and where to find the usage
    line = _one_line(err)
    assert "-M" in line and ("positive" in line or repr(value) in line) and "-h" in line


def test_good_input_still_works(capsys, tmp_path):
    """Control: the same helper on valid files succeeds (so the checks above can fail)."""
    q, r = tmp_path / "q", tmp_path / "r"
    q.write_text(GOOD_QRELS)
    r.write_text(GOOD_RUN)
    assert main(["trec_eval", "-m", "map", str(q), str(r)]) == 0
    out, err = capsys.readouterr()
    assert out == "map                   \tall\t1.0000\n" and err == ""


def test_help_prints_usage_once(capsys):
    assert main(["trec_eval", "-h"]) == 0
    out, _ = capsys.readouterr()
    assert out.startswith("usage: cranfield trec_eval ")
    assert out.count("usage:") == 1
