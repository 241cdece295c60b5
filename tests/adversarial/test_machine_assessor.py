"""``cranfield judge``, ``validate`` and ``ppi`` under bad input and parameters: one line on
stderr, status 2, inputs untouched (in this process; no server is reached)."""

from __future__ import annotations

import json

import pytest

from .harness import Outcome, Unchanged, assert_clean_failure, run_main


@pytest.fixture
def files(tmp_path):
    (tmp_path / "topics.jsonl").write_text(json.dumps({"id": "1", "title": "cats"}) + "\n")
    (tmp_path / "docs.jsonl").write_text(json.dumps({"id": "a", "title": "", "text": "x"}) + "\n")
    (tmp_path / "pool.txt").write_text("1 a\n")
    (tmp_path / "q.qrels").write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    (tmp_path / "r.txt").write_text("1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n2 Q0 c 1 1.0 r\n")
    return tmp_path


def failure(capsys, *argv) -> Outcome:
    status, out, err = run_main(capsys, *argv)
    return Outcome([str(a) for a in argv], status, out.encode(), err)


JUDGE = ["--command", "false", "--retries", "0"]


@pytest.mark.parametrize(
    ("name", "content", "extra", "mentions"),
    [
        ("pool.txt", "", [], ["pool.txt", "the pool is empty"]),
        ("pool.txt", "1 0 a\n", [], ["pool.txt:1", "expected 2 fields"]),
        ("pool.txt", "9 a\n", [], ["1 topic(s) of the pool have no statement", "'9'"]),
        ("pool.txt", "1 zz\n", [], ["1 document(s) of the pool have no text", "'zz'"]),
        ("topics.jsonl", "{not json\n", [], ["topics.jsonl:1"]),
        ("docs.jsonl", "\x00\x01", [], ["docs.jsonl"]),
        ("prompt.txt", "Query: {title}", ["--prompt"], ["no {document} placeholder"]),
        ("cache.sqlite", "not a database " * 40, ["--cache"], ["not a usable label cache"]),
        (None, None, ["--samples", "0"], ["--samples"]),
        (None, None, ["--timeout", "0"], ["--timeout"]),
        (None, None, ["--scale", "a,b"], ["--scale"]),
        (None, None, ["--base-url", "ftp://x"], ["--command", "--base-url"]),
    ],
)
def test_judge_fails_cleanly(files, capsys, name, content, extra, mentions):
    args = list(extra)
    if name is not None:
        (files / name).write_text(content)
        if extra and extra[-1].startswith("--"):
            args.append(str(files / name))
    base = [files / "pool.txt", files / "topics.jsonl", files / "docs.jsonl"]
    cache = ["--cache", str(files / "c.sqlite")]
    with Unchanged(*base):
        out = failure(capsys, "judge", *base, *JUDGE, *cache, *args)
    assert_clean_failure(out, *mentions)


def test_judge_refuses_to_write_over_its_input(files, capsys):
    pool = files / "pool.txt"
    with Unchanged(pool):
        out = failure(
            capsys,
            "judge",
            pool,
            files / "topics.jsonl",
            files / "docs.jsonl",
            *JUDGE,
            "--no-cache",
            "-o",
            pool,
        )
    assert_clean_failure(out, "is also an input")


@pytest.mark.process
def test_a_failing_command_leaves_no_output(files, capsys):
    target = files / "out.qrels"
    out = failure(
        capsys,
        "judge",
        files / "pool.txt",
        files / "topics.jsonl",
        files / "docs.jsonl",
        *JUDGE,
        "--no-cache",
        "-o",
        target,
    )
    assert_clean_failure(out, "the command failed (status 1)")
    assert not target.exists()


@pytest.mark.parametrize(
    ("content", "extra", "mentions"),
    [
        ("1 0 a\n", [], ["m.qrels:1"]),
        ("1 0 zz 1\n", [], ["no topic-document pair was judged by both"]),
        ("1 0 a 1\n", ["--run", "r.txt", "--measure", "bogus"], ["bogus"]),
        ("1 0 a 1\n", ["--samples", "missing.tsv"], ["missing.tsv"]),
    ],
)
def test_validate_fails_cleanly(files, capsys, content, extra, mentions):
    (files / "m.qrels").write_text(content)
    extra = [str(files / e) if e.endswith((".txt", ".tsv")) else e for e in extra]
    out = failure(capsys, "validate", files / "q.qrels", files / "m.qrels", *extra)
    assert_clean_failure(out, *mentions)


@pytest.mark.parametrize(
    ("human", "extra", "mentions"),
    [
        ("9 0 a 1\n1 0 a 1\n", [], ["no machine labels", "'9'"]),
        ("1 0 a 1\n2 0 c 1\n", ["--inclusion", "0"], ["--inclusion"]),
        (
            "1 0 a 1\n2 0 c 1\n",
            ["--inclusion", "p.txt"],
            ["p.txt: inclusion probability 'x' of topic 1 is not a number"],
        ),
        ("1 0 a 1\n2 0 c 1\n", ["--confidence", "1"], ["--confidence"]),
        ("1 0 a 1\n", [], ["2 or more labelled units"]),
        ("1 0 a x\n", [], ["h.qrels:1"]),
        ("1 0 a 1\n2 0 c 1\n", ["--units", "pairs", "-m", "ndcg"], ["P@k or DCG@k", "'ndcg'"]),
        ("1 0 a 1\n", ["--units", "pairs", "--estimator", "ppi++"], ["ppi or classical"]),
        ("1 0 zz 1\n", ["--units", "pairs"], ["no machine label", "document zz"]),
        ("1 0 a 1\n1 0 a 0\n", ["--units", "pairs", "--inclusion", "0.5"], ["h.qrels"]),
        ("1 0 a 1 1 0.5\n1 0 b 1 -1 1.5\n", ["--units", "pairs"], ["h.qrels:2", "(0, 1]"]),
        ("1 0 a 1 1 0.5\n1 0 b 1 0\n", ["--units", "pairs"], ["h.qrels:2", "expected 6"]),
        ("1 0 a 1\n", ["--units", "pairs", "--confidence", "0"], ["--confidence"]),
        ("1 0 a 1\n2 0 c 1\n", ["--centre", "model"], ["--centre", "--units pairs -m AP"]),
        (
            "1 0 a 1\n",
            ["--units", "pairs", "-m", "P@1", "--working-model", "calibrated"],
            ["--working-model"],
        ),
        ("1 0 zz 1\n", ["--units", "pairs", "-m", "P@1"], ["no machine label", "document zz"]),
        (
            "1 0 a 1\n",
            ["--units", "pairs", "-m", "P@1", "--inclusion", "p.txt"],
            ["one probability"],
        ),
    ],
)
def test_ppi_fails_cleanly(files, capsys, human, extra, mentions):
    (files / "h.qrels").write_text(human)
    (files / "p.txt").write_text("1 x\n")
    extra = [str(files / e) if e.endswith(".txt") else e for e in extra]
    with Unchanged(files / "h.qrels", files / "q.qrels"):
        out = failure(capsys, "ppi", files / "q.qrels", files / "h.qrels", files / "r.txt", *extra)
    assert_clean_failure(out, *mentions)
