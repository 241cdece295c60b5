"""``--engine dask`` and ``--scheduler`` under bad input: one clear line on stderr, a
non-zero status, bounded time (a scheduler that does not answer is given up after
``cluster.CONNECT_TIMEOUT`` seconds), nothing on stdout."""

from __future__ import annotations

import pytest

from adversarial.harness import Unchanged, assert_clean_failure, run_cli


@pytest.fixture
def files(sample_paths):
    return sample_paths[0], sample_paths[1]


def test_unreachable_scheduler(files, tmp_path):
    qrels, run = files
    out = tmp_path / "out.txt"
    with Unchanged(qrels, run, out):
        outcome = run_cli("eval", qrels, run, "--scheduler", "tcp://127.0.0.1:9", "-o", out)
    assert_clean_failure(outcome, "cannot connect to the Dask scheduler", "tcp://127.0.0.1:9")
    assert outcome.stdout == b""
    outcome = run_cli("trec_eval", qrels, run, "--scheduler", "nonsense")
    assert_clean_failure(outcome, "cannot connect to the Dask scheduler")


@pytest.mark.parametrize("address", ["nonsense", "tcp://", "tcp://256.1.1.1:x", "   "])
def test_malformed_scheduler_address(files, address):
    outcome = run_cli("eval", *files, "--scheduler", address)
    assert_clean_failure(outcome, "scheduler")


@pytest.mark.parametrize(
    "argv, mention",
    [
        (["--engine", "spark"], "invalid choice"),
        (["--engine", "local", "--scheduler", "tcp://h:1"], "--engine"),
        (["--engine", "dask", "--stream"], "--stream"),
        (["--engine", "dask", "-M", "0"], "--depth"),
    ],
)
def test_bad_engine_options(files, argv, mention):
    assert_clean_failure(run_cli("eval", *files, *argv), mention)


def test_missing_partitions_fail_before_any_cluster(files, tmp_path):
    qrels, _ = files
    (tmp_path / "empty").mkdir()
    for runs, mention in (
        ([tmp_path / "none"], "none"),
        ([tmp_path / "empty"], "holds no files"),
        ([str(tmp_path / "*.txt")], "no file matches"),
        (["-"], "standard input"),
    ):
        outcome = run_cli("eval", qrels, *runs, "--engine", "dask", timeout=30)
        assert_clean_failure(outcome, mention)


def test_trec_eval_engine_usage(files):
    qrels, run = files
    assert_clean_failure(run_cli("trec_eval", qrels, "-", "--engine", "dask"), "dask", status=1)
    outcome = run_cli("trec_eval", qrels, run, "--engine", "local", "--scheduler", "tcp://h:1")
    assert_clean_failure(outcome, "--scheduler", status=1)


def test_bad_line_in_a_partition(files, tmp_path):
    """The worker's input error comes back as the one line the local engine prints
    (file and line), and the workers log nothing of their own."""
    qrels, run = files
    parts = tmp_path / "parts"
    parts.mkdir()
    lines = run.read_text().splitlines(True)
    (parts / "a.txt").write_text("".join(lines[:100]))
    (parts / "b.txt").write_text("q1 Q0 d1 1 not-a-number tag\n")
    outcome = run_cli("eval", qrels, parts, "--engine", "dask", memory=None)
    assert_clean_failure(outcome, "b.txt:1")
