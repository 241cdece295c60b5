"""``cranfield pool --sample`` and ``cranfield pool sampled`` under hostile input: one
line on stderr, a non-zero status, inputs unchanged, nothing written."""

from __future__ import annotations

import pytest

from .harness import Outcome, Unchanged, assert_clean_failure

RUN_A = "1 Q0 a 1 3.0 A\n1 Q0 b 2 2.0 A\n2 Q0 c 1 1.0 A\n"
RUN_B = "1 Q0 b 1 5.0 B\n1 Q0 d 2 4.0 B\n2 Q0 e 1 1.0 B\n"
FRAME = "1 a 1 1 1\n1 b 1 0.5 0\n2 c 1 1 1\n"


def fails(cli, *argv, mentions=()) -> str:
    inputs = [a for a in argv if "/" in str(a)]
    with Unchanged(*inputs):
        status, out, err = cli(*map(str, argv))
    return assert_clean_failure(Outcome(list(map(str, argv)), status, out.encode(), err), *mentions)


@pytest.mark.parametrize(
    ("args", "mentions"),
    [
        (["--sample", "magic"], ("uniform, stratified, statap",)),
        (["--sample", "uniform", "--rate", "0"], ("rate", "(0, 1]")),
        (["--sample", "uniform", "--rate", "1.5"], ("rate",)),
        (["--sample", "uniform", "--rate", "x"], ("rate",)),
        (["--sample", "uniform", "--rate", "nan"], ("rate",)),
        (["--sample", "statap", "--size", "5"], ("--size", "smallest pool (2 pairs)")),
        (["--sample", "uniform", "--size", "1", "--rate", "0.5"], ("--size",)),
        (["--sample", "uniform", "--size", "-1"], ("size", ">= 1")),
        (["--sample", "statap", "--size", "0"], ("size", ">= 1")),
        (["--sample", "uniform", "--strata", "1,2"], ("--strata", "stratified")),
        (["--sample", "stratified", "--rate", "1"], ("--strata",)),
        (["--sample", "stratified", "--strata", "1,2", "--rate", "1"], ("one rate per stratum",)),
        (["--sample", "stratified", "--strata", "2,1", "--rate", "1,1"], ("increasing",)),
        (["--sample", "stratified", "--strata", "1.5", "--rate", "1"], ("increasing",)),
        (["--sample", "stratified", "--strata", "1,2", "--rate", "1,0"], ("(0, 1]",)),
        (["--rate", "0.5"], ("--rate", "only with --sample")),
        (["--sample", "uniform", "--seed", "-1"], ("--seed",)),
    ],
)
def test_bad_sampling_options(cli, tmp_file, args, mentions):
    a, b = tmp_file("a.run", RUN_A), tmp_file("b.run", RUN_B)
    fails(cli, "pool", a, b, "--depth", "2", *args, mentions=mentions)


def test_to_judge_onto_the_frame_is_refused(cli, tmp_file, tmp_path):
    a = tmp_file("a.run", RUN_A)
    out = tmp_path / "x"
    fails(cli, "pool", a, "--sample", "uniform", "-o", out, "--to-judge", out)


@pytest.mark.parametrize(
    ("frame", "qrels", "mentions"),
    [
        ("1 a 1\n", "1 0 a 1\n", ("frame:1", "expected 5 fields")),
        ("1 a 1 2 1\n", "1 0 a 1\n", ("frame:1", "(0, 1]")),
        ("1 a 1 0.5 yes\n", "1 0 a 1\n", ("frame:1", "0 or 1")),
        ("", "1 0 a 1\n", ("frame", "empty")),
        (FRAME, "1 0 a 1\n", ("1 drawn pair(s) have no judgment", "topic 2 document c")),
        (FRAME, "1 0 a 1\n2 0 c -1\n", ("no judgment",)),  # pooled-unjudged is no judgment
        (FRAME, "1 0 a\n", ("qrels",)),
    ],
)
def test_bad_sampled_join(cli, tmp_file, frame, qrels, mentions):
    f, q = tmp_file("frame", frame), tmp_file("qrels", qrels)
    fails(cli, "pool", "sampled", f, q, mentions=mentions)


def test_sampled_join_writes_five_columns(cli, tmp_file):
    f, q = tmp_file("frame", FRAME), tmp_file("qrels", "1 0 a 2\n2 0 c 0\n1 0 b 1\n")
    status, out, err = cli("pool", "sampled", str(f), str(q))
    assert status == 0, err
    assert out == "1 0 a 1 2\n1 0 b 1 -1\n2 0 c 1 0\n"  # b judged but not drawn: -1
    status, out, err = cli("pool", "sampled", "--probabilities", str(f), str(q))
    assert out == "1 0 a 1 2 1\n1 0 b 1 -1 0.5\n2 0 c 1 0 1\n"
