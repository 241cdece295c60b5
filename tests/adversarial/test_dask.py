"""``--engine dask`` and ``--scheduler`` under bad input: one clear line on stderr, a
non-zero status, bounded time (a scheduler that does not answer is given up after
``cluster.CONNECT_TIMEOUT`` seconds), nothing on stdout."""

from __future__ import annotations

import json

import numpy as np
import pytest

from adversarial.harness import Unchanged, assert_clean_failure, assert_success, run_cli


@pytest.fixture
def files(sample_paths):
    return sample_paths[0], sample_paths[1]


def test_unreachable_scheduler(files, tmp_path):
    qrels, run = files
    out = tmp_path / "out.txt"
    with Unchanged(qrels, run, out):
        outcome = run_cli("eval", qrels, run, "--scheduler", "tcp://127.0.0.1:9", "-o", out)
    assert_clean_failure(outcome, "cannot connect to the Dask scheduler", "tcp://127.0.0.1:9")
    assert "connection refused" in outcome.stderr  # said at once, not after the timeout
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


# ------------------------------------------------------------ pool and clicks on Dask
def click_sessions(seed: int, n: int = 400) -> list[str]:
    """Random sessions in PyClick's text format (query, ranked documents, clicks)."""
    rng = np.random.default_rng(seed)
    lines = []
    for _ in range(n):
        docs = rng.permutation(12)[: rng.integers(2, 6)]
        clicked = [d for r, d in enumerate(docs) if rng.random() < (0.3 + 0.05 * d) / (1 + r)]
        shown = ",".join(f"d{d}" for d in docs)
        lines.append(f"q{rng.integers(0, 4)}\t{shown} : {' , '.join(f'd{d}' for d in clicked)};\n")
    return lines


def test_pool_engine_dask_equals_local(sample_paths, tmp_path):
    runs = sample_paths[1:4]
    local = run_cli("pool", *runs, "-k", "7", "-f", "qrels")
    assert_success(local, quiet=True)
    out = tmp_path / "pool.txt"
    with Unchanged(*runs):
        dask = run_cli(
            "pool", *runs, "-k", "7", "-f", "qrels", "--engine", "dask", "-o", out, memory=None
        )
    assert_success(dask)
    assert local.stdout.count(b"\n") > 10 and out.read_bytes() == local.stdout


def test_clicks_fit_engine_dask_equals_local(tmp_path):
    """A log cut into three partitions (a directory) fitted in Dask workers: the model
    file of the whole log, each parameter within 1e-12."""
    lines = click_sessions(3)
    whole = tmp_path / "whole.pyclick"
    whole.write_text("".join(lines))
    parts = tmp_path / "parts"
    parts.mkdir()
    for i, cut in enumerate(np.array_split(np.arange(len(lines)), 3)):
        (parts / f"p{i}.pyclick").write_text("".join(lines[j] for j in cut))
    argv = ["--model", "dbn", "--tol", "1e-4", "--max-iter", "50"]
    local = run_cli("clicks", "fit", whole, *argv)
    assert_success(local, quiet=True)
    dask = run_cli("clicks", "fit", parts, *argv, "--engine", "dask", memory=None)
    assert_success(dask)
    a, b = json.loads(local.stdout), json.loads(dask.stdout)
    assert a["iterations"] > 3 and a["converged"]
    for key in ("model", "iterations", "converged", "queries", "ranks"):
        assert a[key] == b[key], key
    assert a["global"].keys() == b["global"].keys()
    assert all(abs(a["global"][k] - b["global"][k]) < 1e-12 for k in a["global"])
    pa = {(p["query"], p["doc"]): p for p in a["pairs"]}
    pb = {(p["query"], p["doc"]): p for p in b["pairs"]}
    assert pa.keys() == pb.keys()
    for key, p in pa.items():
        q = pb[key]
        assert p["impressions"] == q["impressions"] and p["clicks"] == q["clicks"]
        for name in ("attractiveness", "satisfaction"):
            assert abs(p[name] - q[name]) < 1e-12, (key, name)


def test_clicks_compare_engine_dask_equals_local(tmp_path):
    """Models fitted on a partitioned training log in Dask workers, scored on the test
    log on the client: the local table (numbers within 1e-9)."""
    lines = click_sessions(6)
    whole = tmp_path / "train.pyclick"
    whole.write_text("".join(lines[:300]))
    parts = tmp_path / "parts"
    parts.mkdir()
    (parts / "a.pyclick").write_text("".join(lines[:120]))
    (parts / "b.pyclick").write_text("".join(lines[120:300]))
    test = tmp_path / "test.pyclick"
    test.write_text("".join(lines[300:]))
    argv = ["--models", "ubm,ccm", "--tol", "1e-4", "-f", "json"]
    local = run_cli("clicks", "compare", whole, test, *argv)
    assert_success(local, quiet=True)
    dask = run_cli("clicks", "compare", parts, test, *argv, "--engine", "dask", memory=None)
    assert_success(dask)
    a, b = json.loads(local.stdout), json.loads(dask.stdout)
    assert [r["model"] for r in a] == [r["model"] for r in b] == ["ubm", "ccm"]
    for ra, rb in zip(a, b, strict=True):
        assert ra.keys() == rb.keys()
        for key, value in ra.items():
            if isinstance(value, float):
                assert abs(value - rb[key]) <= 1e-9 * max(1.0, abs(value)), key
            elif isinstance(value, list):
                assert np.allclose(value, rb[key], rtol=1e-9, atol=0), key
            else:
                assert value == rb[key], key


def test_pool_and_clicks_unreachable_scheduler(sample_paths, tmp_path):
    log = tmp_path / "log.pyclick"
    log.write_text("".join(click_sessions(1, 20)))
    bad = "tcp://127.0.0.1:9"
    outcome = run_cli("pool", sample_paths[1], "--scheduler", bad)
    assert_clean_failure(outcome, "cannot connect to the Dask scheduler", bad)
    outcome = run_cli("clicks", "fit", log, "--model", "ccm", "--scheduler", bad)
    assert_clean_failure(outcome, "cannot connect to the Dask scheduler", bad)
    outcome = run_cli("clicks", "relevance", log, "--model", "pbm", "--scheduler", "nonsense")
    assert_clean_failure(outcome, "scheduler")
    outcome = run_cli("pool", sample_paths[1], "--scheduler", "tcp://no-such-host.invalid:8786")
    assert_clean_failure(outcome, "cannot connect to the Dask scheduler", "no-such-host.invalid")


def test_clicks_engine_usage(tmp_path):
    """Refused before any cluster starts: models and options the Dask fit lacks, logs
    the workers cannot read."""
    log = tmp_path / "log.pyclick"
    log.write_text("".join(click_sessions(2, 20)))
    (tmp_path / "empty").mkdir()
    for argv, mention in (
        ([log, "--model", "dctr", "--engine", "dask"], "--model"),
        ([log, log, "--models", "pbm,cm", "--engine", "dask"], "--models"),
        ([log, "--model", "dbn", "--engine", "dask", "--seed", "3"], "--seed"),
        ([log, "--model", "dbn", "--engine", "local", "--scheduler", "tcp://h:1"], "--engine"),
        ([tmp_path / "none", "--model", "pbm", "--engine", "dask"], "no such file"),
        ([tmp_path / "empty", "--model", "pbm", "--engine", "dask"], "holds no files"),
        (["-", "--model", "pbm", "--engine", "dask"], "standard input"),
    ):
        action = "compare" if "--models" in argv else "fit"
        assert_clean_failure(run_cli("clicks", action, *argv, timeout=30), mention)
    outcome = run_cli("pool", log, "--engine", "local", "--scheduler", "tcp://h:1")
    assert_clean_failure(outcome, "--engine")


def test_clicks_bad_partition_one_line(tmp_path):
    parts = tmp_path / "parts"
    parts.mkdir()
    (parts / "a.pyclick").write_text("".join(click_sessions(4, 30)))
    (parts / "b.pyclick").write_text("q1 d1 d2\n")  # no tab, no clicks
    outcome = run_cli("clicks", "fit", parts, "--model", "dbn", "--engine", "dask", memory=None)
    assert_clean_failure(outcome, "b.pyclick:1", "expected")
