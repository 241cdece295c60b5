"""Hostile input for ``cranfield sample_eval``: each bad sampled-qrels or run file ends
with one line on stderr naming the file (and line) and status 2; inputs unchanged."""

from __future__ import annotations

import pytest

from .harness import Outcome, Unchanged, assert_clean_failure

QRELS = "1 0 a 1 1\n1 0 b 1 -1\n1 0 c 2 0\n2 0 a 1 2\n"
RUN = "1 Q0 a 1 3 r\n1 Q0 c 2 2 r\n2 Q0 a 1 1 r\n"


def fails(cli, *argv, mentions=()) -> str:
    with Unchanged(*argv):
        status, out, err = cli("sample_eval", *argv)
    return assert_clean_failure(Outcome(list(map(str, argv)), status, out.encode(), err), *mentions)


def test_a_good_run(cli, tmp_file):
    status, out, err = cli("sample_eval", tmp_file("q.txt", QRELS), tmp_file("r.txt", RUN))
    assert status == 0, err
    assert out.splitlines()[0].startswith("infAP\t\tall\t\t")


@pytest.mark.parametrize(
    ("qrels", "mentions"),
    [
        ("1 0 a 1\n", ("q.txt:1", "expected 5 fields")),
        ("1 0 a 1 1\n1 0 b 1 x\n", ("q.txt:2", "not an integer")),
        ("1 0 a 1 1\n1 0 a 2 0\n", ("q.txt:2", "listed twice")),
        ("", ("q.txt", "empty")),
        (b"\xff\xfe\x00 1 0 a 1\n", ("q.txt:1",)),
    ],
)
def test_bad_sampled_qrels(cli, tmp_file, qrels, mentions):
    fails(cli, tmp_file("q.txt", qrels), tmp_file("r.txt", RUN), mentions=mentions)


@pytest.mark.parametrize(
    ("run", "mentions"),
    [
        ("", ("r.txt",)),
        ("1 Q0 a 1 x r\n", ("r.txt:1",)),
        ("1 Q0 a\n", ("r.txt:1",)),
        ("1 Q0 a 1 3 r\n1 Q0 a 2 2 r\n", ("r.txt",)),  # a document twice: refused
        ("9 Q0 a 1 3 r\n", ("r.txt", "no topic of the run")),
    ],
)
def test_bad_runs(cli, tmp_file, run, mentions):
    fails(cli, tmp_file("q.txt", QRELS), tmp_file("r.txt", run), mentions=mentions)
