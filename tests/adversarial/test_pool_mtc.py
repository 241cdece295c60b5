"""``cranfield pool mtc`` under hostile input: one line on stderr, a non-zero status,
inputs unchanged, nothing written."""

from __future__ import annotations

import pytest

from .harness import Outcome, Unchanged, assert_clean_failure, run_cli

RUN_A = "1 Q0 a 1 3.0 A\n1 Q0 b 2 2.0 A\n2 Q0 c 1 1.0 A\n"
RUN_B = "1 Q0 b 1 5.0 B\n1 Q0 d 2 4.0 B\n2 Q0 e 1 1.0 B\n"

#: extra arguments -> what the one line on stderr names
CASES = {
    "one run": (["--only-a"], ("at least two runs",)),
    "batch 0": (["-n", "0"], ("--batch", ">= 1")),
    "batch text": (["-n", "x"], ("--batch",)),
    "stop 0": (["--stop", "0"], ("--stop", "(0, 0.5]")),
    "stop above half": (["--stop", "0.7"], ("--stop", "(0, 0.5]")),
    "stop nan": (["--stop", "nan"], ("--stop",)),
    "prior 1": (["--prior", "1"], ("--prior", "(0, 1)")),
    "prior nan": (["--prior", "nan"], ("--prior",)),
    "prior word": (["--prior", "rank"], ("--prior", "'ranks'")),
    "depth 0": (["-k", "0"], ("depth", ">= 1")),
    "measure unknown": (["-m", "nDCG@10"], ("AP, P@k or DCG@k",)),
    "measure P@0": (["-m", "P@0"], ("AP, P@k or DCG@k",)),
    "two measures": (["-m", "AP,P@5"], ("one measure",)),
    "format": (["-f", "csv"], ("--format",)),
    "qrels missing": (["--qrels", "/nonexistent/qrels"], ("/nonexistent/qrels",)),
    "qrels broken": (["--qrels", "@BAD"], ("bad:1", "expected 4 fields")),
    "qrels empty": (["--qrels", "@EMPTY"], ("empty",)),
}

USAGE = {"batch text", "format"}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_is_one_line(cli, tmp_file, case):
    extra, mentions = CASES[case]
    a, b = tmp_file("a.run", RUN_A), tmp_file("b.run", RUN_B)
    bad, empty = tmp_file("bad", "1 0 a\n"), tmp_file("empty", "")
    runs = [a] if extra == ["--only-a"] else [a, b]
    extra = [] if extra == ["--only-a"] else extra
    extra = [str(bad) if x == "@BAD" else str(empty) if x == "@EMPTY" else x for x in extra]
    argv = ["pool", "mtc", *map(str, runs), *extra]
    with Unchanged(a, b, bad, empty):
        if case in USAGE:  # argparse's own refusals end the process: run it as one
            outcome = run_cli(*argv)
        else:
            status, out, err = cli(*argv)
            outcome = Outcome(argv, status, out.encode(), err)
    assert_clean_failure(outcome, *mentions)


def test_output_onto_a_run_is_refused(cli, tmp_file):
    a, b = tmp_file("a.run", RUN_A), tmp_file("b.run", RUN_B)
    argv = ["pool", "mtc", str(a), str(b), "-o", str(a)]
    with Unchanged(a, b):
        status, out, err = cli(*argv)
    assert_clean_failure(Outcome(argv, status, out.encode(), err))


def test_decisions_onto_the_order_is_refused(cli, tmp_file, tmp_path):
    a, b = tmp_file("a.run", RUN_A), tmp_file("b.run", RUN_B)
    out_path = tmp_path / "order"
    argv = ["pool", "mtc", str(a), str(b), "-o", str(out_path), "--decisions", str(out_path)]
    status, out, err = cli(*argv)
    assert_clean_failure(Outcome(argv, status, out.encode(), err))
    assert not out_path.exists()


def test_disjoint_runs_and_foreign_judgments_work(cli, tmp_file):
    # runs with no topic in common, judgments of topics and documents no run has
    a = tmp_file("a.run", "1 Q0 a 1 3.0 A\n")
    b = tmp_file("b.run", "2 Q0 b 1 3.0 B\n")
    q = tmp_file("q", "9 0 z 1\n1 0 y 1\n1 0 a -1\n")
    status, out, err = cli("pool", "mtc", str(a), str(b), "--qrels", str(q))
    assert status == 0, err
    # by hand: topic 2, R = max(1, 1/2): |w_b| = 1; topic 1, R = 1/2 + 1 (y, relevant,
    # no run has it; a's -1 is no judgment): |w_a| / R = 2/3
    assert out == "2 b 1\n1 a 0.6666666666666666\n"
    assert err.count("\n") == 1 and "run pairs decided" in err


def test_too_large_a_state_is_one_line(cli, tmp_file, monkeypatch):
    # the state's arrays are topics x runs x pooled documents: above MAX_CELLS the
    # command refuses before allocating them (here made small: 2 x 2 x 3 = 12 > 8)
    from cranfield.pooling import mtc

    monkeypatch.setattr(mtc, "MAX_CELLS", 8)
    a, b = tmp_file("a.run", RUN_A), tmp_file("b.run", RUN_B)
    argv = ["pool", "mtc", str(a), str(b)]
    status, out, err = cli(*argv)
    line = assert_clean_failure(Outcome(argv, status, out.encode(), err), "--depth")
    assert "2 topics x 2 runs x 3 pooled documents" in line
