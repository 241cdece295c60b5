"""Hostile inputs for `cranfield meta power|swap|topics|anova` and `cranfield repro`, run as
real processes: one line on stderr and status 2, or a defined result with no NaN shown as
a number; the inputs unchanged."""

from __future__ import annotations

import json

import pytest

from .harness import Unchanged, assert_clean_failure, assert_success, run_cli

ONE_RUN = "run,query,AP\na,1,0.5\na,2,0.25\n"
ONE_TOPIC = "run,query,AP\na,1,0.5\nb,1,0.25\n"
APART = "run,query,AP\na,1,0.5\na,2,0.1\nb,1,0.25\nb,3,0.2\n"
DISJOINT = "run,query,AP\na,1,0.5\nb,2,0.25\n"
CONSTANT = "run,query,AP\n" + "".join(f"{r},{q},0.5\n" for r in "abc" for q in range(1, 6))

CASES = {
    "power one run": (["meta", "power"], ONE_RUN, [], "at least two runs"),
    "swap one topic": (["meta", "swap"], ONE_TOPIC, [], "two topics"),
    "topics apart": (["meta", "topics"], APART, [], "not scored on the same queries"),
    "anova apart": (["meta", "anova"], APART, [], "no residual degrees of freedom"),
    "topics constant": (["meta", "topics"], CONSTANT, [], "no residual variance"),
    "power bad samples": (["meta", "power"], CONSTANT, ["--samples", "0"], "--samples"),
    "swap bad size": (["meta", "swap"], CONSTANT, ["--sizes", "3"], "--sizes"),
    "topics bad beta": (["meta", "topics"], CONSTANT, ["--beta", "1"], "--beta"),
    "mixed standardised": (
        ["meta", "anova"],
        APART,
        ["--model", "mixed", "--standardised"],
        "--model",
    ),
    "mixed too few": (["meta", "anova"], DISJOINT, ["--model", "mixed"], "degrees of freedom"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_is_one_line(tmp_file, case):
    command, content, extra, message = CASES[case]
    path = tmp_file("s.csv", content)
    with Unchanged(path):
        outcome = run_cli(*command, "--from-per-query", path, *extra)
    line = assert_clean_failure(outcome, message)
    assert line.startswith("cranfield meta")
    assert outcome.stdout == b""


def test_constant_scores_are_a_defined_result(tmp_file):
    path = tmp_file("s.csv", CONSTANT)
    outcome = run_cli("meta", "anova", "--from-per-query", path, "-f", "json")
    assert_success(outcome)
    doc = json.loads(outcome.stdout)["measures"]["AP"]
    assert doc["system"]["f"] is None and doc["system"]["eta2"] is None  # null, never NaN
    assert "no variance" in outcome.stderr
    outcome = run_cli("meta", "anova", "--model", "mixed", "--from-per-query", path, "-f", "json")
    assert_success(outcome)
    doc = json.loads(outcome.stdout)["measures"]["AP"]
    assert doc["topic"]["icc"] is None and doc["system"]["share"] is None
    assert doc["total"]["variance"] == 0 and "no variance" in outcome.stderr


def test_repro_of_runs_on_different_topics_is_one_line(tmp_file):
    qrels = tmp_file("q.txt", "1 0 d1 1\n2 0 d2 1\n")
    a = tmp_file("a.txt", "1 Q0 d1 1 2.0 a\n2 Q0 d2 1 1.0 a\n")
    b = tmp_file("b.txt", "1 Q0 d2 1 2.0 b\n1 Q0 d1 2 1.0 b\n")
    with Unchanged(qrels, a, b):
        roles = f"--orig-baseline {a} --orig-advanced {a} --rpd-baseline {b} --rpd-advanced {b}"
        outcome = run_cli("repro", *roles.split(), "--qrels", qrels, "-m", "AP")
    assert_clean_failure(outcome, "not scored on the same", "--complete")
