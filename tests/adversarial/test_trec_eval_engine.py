"""``cranfield trec_eval``'s engine path under hostile inputs and streams: the same
outcome as the general path (a result, or one line on stderr and status 2), inputs
unchanged, never a traceback."""

from __future__ import annotations

import pytest

from cranfield.core import trec_eval as trec_eval_core
from cranfield.core.qrels import Qrels
from cranfield.core.run import Run

from .harness import Unchanged, assert_clean_failure, assert_success, run_cli, run_main

QRELS = b"1 0 a 1\n1 0 b 0\n2 0 c 2\n\xe9t\xe9 0 d 1\n"
RUN = b"1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n2 Q0 x 1 1.0 r\n\xe9t\xe9 Q0 d 1 0.5 r\xff\n"

# in-process runs (captured as UTF-8 text) use ASCII ids
QA, RA = QRELS.replace(b"\xe9", b"e"), RUN.replace(b"\xe9", b"e").replace(b"\xff", b"z")

# (name, qrels bytes, run bytes): problems the engine path reports as the general path
HOSTILE = [
    ("nul_in_run", QA, RA + b"1 Q0 c 3 0\x00.5 r\n"),
    ("bad_score", QA, RA + b"1 Q0 c 3 x r\n"),
    ("nan_score", QA, RA + b"1 Q0 c 3 nan r\n"),
    ("five_fields", QA, RA + b"1 Q0 c 3 r\n"),
    ("duplicate_doc", QA, RA + b"1 Q0 a 3 0.1 r\n"),
    ("duplicate_judgment", QA + b"1 0 a 0\n", RA),
    ("bad_grade", QA + b"2 0 z x\n", RA),
    ("fractional_grade", QA + b"2 0 z 0.5\n", RA),
    ("empty_run", QA, b""),
    ("empty_qrels", b"", RA),
    ("no_shared_query", b"9 0 a 1\n", RA),
    ("no_newline_at_end", QA, RA.rstrip(b"\n")),
    ("crlf", QA.replace(b"\n", b"\r\n"), RA.replace(b"\n", b"\r\n")),
]


def _general_ran(*a, **k):
    raise AssertionError("the general path ran")


def general(monkeypatch, capsys, argv):
    monkeypatch.setattr(trec_eval_core, "trec_eval_by_engine", lambda *a, **k: None)
    got = run_main(capsys, *argv)
    monkeypatch.undo()
    return got


@pytest.mark.parametrize(("name", "qrels", "run"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_inputs_as_the_general_path(tmp_path, monkeypatch, capsys, name, qrels, run):
    q, r = tmp_path / "q", tmp_path / "r"
    q.write_bytes(qrels)
    r.write_bytes(run)
    for options in ([], ["-q", "-c"]):
        argv = ["trec_eval", *options, "-m", "map", "-m", "P.5", "-m", "num_ret", q, r]
        with monkeypatch.context() as m:
            m.setattr(Qrels, "read", _general_ran)  # the engine path alone
            m.setattr(Run, "read", _general_ran)
            engine = run_main(capsys, *argv)
        assert engine == general(monkeypatch, capsys, argv), name
        status, out, err = engine
        assert "Traceback" not in err
        if status:
            assert status == 2 and not out and err.count("\n") == 1, engine


def test_latin1_ids_and_tag_bytes_as_read(tmp_path):
    q, r = tmp_path / "q", tmp_path / "r"
    q.write_bytes(QRELS)
    r.write_bytes(RUN)
    with Unchanged(q, r):
        outcome = run_cli("trec_eval", "-q", "-m", "runid", "-m", "num_ret", q, r)
    assert_success(outcome, quiet=True)
    lines = outcome.stdout.split(b"\n")
    assert f"{'num_ret':<22}".encode() + b"\t\xe9t\xe9\t1" in lines
    assert f"{'runid':<22}".encode() + b"\tall\tr\xff" in lines


def test_closed_stdout_and_missing_file(tmp_path):
    q, r = tmp_path / "q", tmp_path / "r"
    q.write_bytes(QRELS)
    r.write_bytes(RUN)
    closed = run_cli("trec_eval", "-q", "-m", "map", q, r, close_stdout=True)
    assert closed.status in (0, 1, 2) and "Traceback" not in closed.stderr
    missing = run_cli("trec_eval", "-m", "map", q, tmp_path / "absent")
    assert_clean_failure(missing, "absent")
    directory = run_cli("trec_eval", "-m", "map", q, tmp_path)
    assert_clean_failure(directory)
