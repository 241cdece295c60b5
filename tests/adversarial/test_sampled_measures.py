"""``eval``, ``compare`` and ``report`` with ``--sampled-qrels`` (the sampled estimators)
under hostile input: a missing or unreadable file, bad columns, a measure that needs the
sampled qrels without them, statAP without inclusion probabilities, a run read once, the
Dask engine: each ends with one line on stderr and status 2, inputs unchanged."""

from __future__ import annotations

import pytest

from .harness import Outcome, Unchanged, assert_clean_failure, run_cli

QRELS = "1 0 a 1\n1 0 c 0\n2 0 a 2\n"
SAMPLED = "1 0 a 1 1\n1 0 b 1 -1\n1 0 c 2 0\n2 0 a 1 2\n"
RUN = "1 Q0 a 1 3 r\n1 Q0 c 2 2 r\n2 Q0 a 1 1 r\n"
RUN2 = "1 Q0 c 1 3 s\n1 Q0 a 2 2 s\n2 Q0 a 1 1 s\n"


def fails(cli, command, *argv, mentions=()) -> str:
    with Unchanged(*[a for a in argv if not str(a).startswith("-")]):
        status, out, err = cli(command, *argv)
    return assert_clean_failure(
        Outcome([command, *map(str, argv)], status, out.encode(), err), *mentions
    )


@pytest.fixture
def files(tmp_file):
    return tmp_file("q.txt", QRELS), tmp_file("r.txt", RUN), tmp_file("s.txt", RUN2)


def test_a_good_evaluation(cli, files, tmp_file):
    q, r, s = files
    status, out, err = cli(
        "eval", q, r, "-m", "xinfAP", "--sampled-qrels", tmp_file("x.txt", SAMPLED)
    )
    assert status == 0, err
    assert out.splitlines()[0].split() == ["run", "xinfAP"]


@pytest.mark.parametrize("command", ["eval", "compare", "report"])
def test_a_measure_without_the_sampled_qrels(cli, files, tmp_path, command):
    q, r, s = files
    more = ["-o", tmp_path / "out.html"] if command == "report" else []
    fails(cli, command, q, r, s, "-m", "xinfAP", *more, mentions=("--sampled-qrels",))


@pytest.mark.parametrize("command", ["eval", "compare"])
def test_a_missing_sampled_qrels_file(cli, files, tmp_path, command):
    q, r, s = files
    fails(
        cli,
        command,
        q,
        r,
        s,
        "-m",
        "AP",
        "--sampled-qrels",
        tmp_path / "none.txt",
        mentions=("none.txt",),
    )


@pytest.mark.parametrize(
    ("sampled", "mentions"),
    [
        ("1 0 a 1\n", ("x.txt:1", "expected 5 fields")),
        ("1 0 a 1 1\n1 0 b 1 x\n", ("x.txt:2", "not an integer")),
        ("1 0 a 1 1\n1 0 a 2 0\n", ("x.txt:2", "listed twice")),
        ("1 0 a 1 1 0.5\n1 0 b 1 0 2\n", ("x.txt:2", "probability")),
        ("", ("x.txt", "empty")),
    ],
)
def test_bad_sampled_qrels(cli, files, tmp_file, sampled, mentions):
    q, r, _ = files
    fails(
        cli,
        "eval",
        q,
        r,
        "-m",
        "infNDCG",
        "--sampled-qrels",
        tmp_file("x.txt", sampled),
        mentions=mentions,
    )


@pytest.mark.parametrize(
    ("measure", "more", "mention"),
    [
        ("statAP", [], "inclusion probabilities"),  # five columns: no probabilities
        ("xinfAP", ["--engine", "dask"], "sampled qrels"),
    ],
)
def test_what_the_sampled_qrels_cannot_give(cli, files, tmp_file, measure, more, mention):
    q, r, _ = files
    x = tmp_file("x.txt", SAMPLED)
    fails(cli, "eval", q, r, "-m", measure, "--sampled-qrels", x, *more, mentions=(mention,))


def test_a_run_on_standard_input(files, tmp_file):
    q, r, _ = files
    x = tmp_file("x.txt", SAMPLED)
    outcome = run_cli("eval", q, "-", "-m", "xinfAP", "--sampled-qrels", x, stdin=RUN.encode())
    assert_clean_failure(outcome, "read once")
