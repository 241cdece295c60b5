"""Hostile inputs for `cranfield compare` and `cranfield correlate`, run as real processes.

Each case: bounded time and memory (the harness), the right status, exactly one line on
stderr when it fails (no traceback, no raw warning), and the input files unchanged.
"""

from __future__ import annotations

import json
import os

import pytest

from .harness import Unchanged, assert_clean_failure, assert_success, run_cli

GOOD = "run,query,AP\na,1,0.5\na,2,0.25\na,3,0.75\nb,1,0.6\nb,2,0.5\nb,3,0.7\n"


@pytest.fixture
def files(tmp_file):
    return tmp_file


BAD_TABLES = {
    "binary": (bytes(range(256)) * 8, "not UTF-8"),
    "empty": ("", "file is empty"),
    "blank": ("\n \n\t\n", "file is empty"),
    "nan": ("run,query,AP\na,1,nan\nb,1,0.5\n", ":2: value is 'nan'"),
    "inf": ("run,query,AP\na,1,0.5\nb,1,-inf\n", ":3: value is '-inf'"),
    "text": ("hello world\n", ":1: expected 3 fields"),
    "ragged": ("run,query,AP\na,1\n", ":2: expected 3 fields, got 2"),
    "bad json": ('{"runs": [{"name": 1}]}', "expected an object with a string 'name'"),
    "huge line": ("x" * ((1 << 20) + 10), "line longer than"),
}


@pytest.mark.parametrize("case", sorted(BAD_TABLES))
@pytest.mark.parametrize("command", ["compare", "correlate"])
def test_bad_tables(files, case, command):
    content, message = BAD_TABLES[case]
    path = files("t.csv", content)
    argv = ["compare", "--from-per-query", path] if command == "compare" else ["correlate", path]
    with Unchanged(path):
        outcome = run_cli(*argv)
    line = assert_clean_failure(outcome, message)
    assert line.startswith(f"cranfield {command}: error: {path}")
    assert outcome.stdout == b""


@pytest.mark.parametrize("command", ["compare", "correlate"])
def test_directory_and_missing_file(tmp_path, command):
    for target, message in ((tmp_path, "is a directory"), (tmp_path / "nope", "no such file")):
        argv = (
            ["compare", "--from-per-query", target]
            if command == "compare"
            else ["correlate", target, "-m", "AP"]
        )
        assert_clean_failure(run_cli(*argv), message)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_dev_zero_is_refused_in_bounded_memory():
    outcome = run_cli("compare", "--from-per-query", "/dev/zero", timeout=30, memory=2 << 30)
    assert_clean_failure(outcome, "line longer than")


def test_one_query(files):
    path = files("one.csv", "run,query,AP\na,1,0.5\nb,1,0.75\n")
    with Unchanged(path):
        outcome = run_cli("compare", "--from-per-query", path, "--format", "json")
    assert_success(outcome, quiet=True)
    row = json.loads(outcome.stdout)["rows"][0]
    assert row["p_t"] is None and row["n_queries"] == 1  # undefined: null, not NaN
    outcome = run_cli("correlate", path)
    assert_success(outcome, quiet=True)  # two runs: tau defined, intervals undefined
    assert b"\tnan\tnan" in outcome.stdout


def test_one_run_only(files):
    path = files("one_run.csv", "run,query,AP\na,1,0.5\na,2,0.75\n")
    assert_clean_failure(run_cli("compare", "--from-per-query", path), "need at least two runs")


def test_unknown_baseline(files):
    path = files("pq.csv", GOOD)
    with Unchanged(path):
        outcome = run_cli("compare", "--from-per-query", path, "--baseline", "zzz")
    assert_clean_failure(outcome, "--baseline", "a run name (a, b)", "'zzz'")


@pytest.mark.parametrize(
    "argv",
    [
        ("compare", "--permutations", "1e20"),
        ("compare", "--test", "bootstrap", "--permutations", "99999999999999999999"),
        ("compare", "--alpha", "-1"),
        ("correlate", "--depth", "0"),
        ("correlate", "--digits", "-1"),
        ("correlate", "-p", "nan"),
    ],
)
def test_bad_numbers_refused_at_once(files, argv):
    path = files("pq.csv", GOOD)
    command, *options = argv
    files_argv = ["--from-per-query", path] if command == "compare" else [path]
    outcome = run_cli(command, *files_argv, *options, timeout=30)
    assert_clean_failure(outcome, "invalid value for", "expected")


@pytest.mark.parametrize("command", ["compare", "correlate"])
def test_closed_stdout(files, command):
    path = files("pq.csv", GOOD)
    argv = ["compare", "--from-per-query", path] if command == "compare" else ["correlate", path]
    with Unchanged(path):
        outcome = run_cli(*argv, close_stdout=True)
    assert_clean_failure(outcome, status=None)


@pytest.mark.parametrize("command", ["compare", "correlate"])
def test_closed_stderr_keeps_notes_out_of_stdout(files, command):
    path = files("pq.txt", "runid all a\nmap 1 0.5000\nmap 2 0.2500\nrunid all b\n"
                 "map 1 0.6000\nmap 2 0.1000\n")  # fmt: skip
    argv = ["compare", "--from-per-query", path] if command == "compare" else ["correlate", path]
    outcome = run_cli(*argv, "--format", "json", close_stderr=True)
    assert outcome.status == 0
    json.loads(outcome.stdout)  # the rounding note went nowhere, not into the JSON
    outcome = run_cli(*argv)
    assert_success(outcome)
    assert outcome.stderr.count("\n") == 1 and "rounded to 4 decimals" in outcome.stderr


def test_runs_without_a_common_query(files):
    a = files("a.run", "q1 Q0 d1 1 1.0 x\n")
    b = files("b.run", "q2 Q0 d1 1 1.0 y\n")
    with Unchanged(a, b):
        outcome = run_cli("correlate", a, b)
    assert_clean_failure(outcome, "no query in common")


def test_no_raw_warnings(files):
    path = files("same.csv", "run,query,AP\na,1,0.5\na,2,0.5\nb,1,0.5\nb,2,0.5\n")
    tests = [a for t in ("t", "wilcoxon", "sign", "randomization", "bootstrap", "tukey")
             for a in ("--test", t)]  # fmt: skip
    outcome = run_cli("compare", "--from-per-query", path, *tests, "--ci", "bootstrap")
    assert_success(outcome, quiet=True)
    assert outcome.stdout.count(b"nan") >= 4  # undefined t, d, tukey: the text token
    outcome = run_cli("correlate", path)
    assert_success(outcome, quiet=True)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
@pytest.mark.parametrize("command", ["compare", "correlate"])
def test_named_pipe_is_read_once(tmp_path, command):
    import threading

    fifo = tmp_path / "pq.csv"
    os.mkfifo(fifo)

    def writer():
        with open(fifo, "w") as fh:  # blocks until the reader opens the pipe
            fh.write(GOOD)

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    argv = ["compare", "--from-per-query", fifo] if command == "compare" else ["correlate", fifo]
    outcome = run_cli(*argv, "--format", "json", timeout=30)
    assert_success(outcome, quiet=True)
    assert json.loads(outcome.stdout)
    thread.join(5)


def test_runs_with_undefined_correlations_warn_nothing(files):
    # one common document per query: tau and rho are undefined everywhere, their mean too
    a = files("a.run", "q1 Q0 d1 1 1.0 x\nq2 Q0 d2 1 1.0 x\n")
    b = files("b.run", "q1 Q0 d1 1 2.0 y\nq2 Q0 d2 1 2.0 y\n")
    outcome = run_cli("correlate", a, b)
    assert_success(outcome, quiet=True)  # no "RuntimeWarning: Mean of empty slice"
    assert outcome.stdout.decode().splitlines()[-1] == "mean\tnan\tnan\t1.0000\t1.0000"
    outcome = run_cli("correlate", a, b, "--format", "json")
    assert json.loads(outcome.stdout)["mean"]["kendall_tau"] is None


SYSTEMS = {
    "no name": (["=a"], "expected NAME=RUN"),
    "no runs": (["x="], "expected NAME=RUN"),
    "no match": (["x=["], "got '['"),
    "a run's name": (["a=b"], "a name no other run has"),
    "one run twice": (["x=a", "y=a"], "run a in one system only"),
    "one system left": (["x=*"], "need at least two runs"),
}


@pytest.mark.parametrize("case", sorted(SYSTEMS))
def test_bad_systems(files, case):
    """``--system``: every wrong value is one line, the input untouched."""
    specs, message = SYSTEMS[case]
    path = files("t.csv", GOOD)
    argv = ["compare", "--from-per-query", path]
    for spec in specs:
        argv += ["--system", spec]
    with Unchanged(path):
        outcome = run_cli(*argv)
    assert_clean_failure(outcome, message)
    assert outcome.stdout == b""
