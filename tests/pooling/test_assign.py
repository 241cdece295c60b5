"""Topic assignment, assessment packages and their merge back into qrels."""

from __future__ import annotations

from collections import Counter

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield import Qrels
from cranfield.cli.main import main
from cranfield.errors import InputError, ParameterError
from cranfield.pooling.assign import (
    assign_topics,
    build_packages,
    merge_packages,
    write_packages,
)


def check_assignment(out, topics, names, r):
    assert list(out) == list(dict.fromkeys(topics))
    for who in out.values():
        assert len(who) == r and len(set(who)) == r  # exactly r, never twice
        assert set(who) <= set(names)
    loads = Counter(a for who in out.values() for a in who)
    counts = [loads.get(a, 0) for a in names]
    assert max(counts) - min(counts) <= 1


@settings(max_examples=150, deadline=None)
@given(
    n_topics=st.integers(1, 40),
    n_people=st.integers(1, 9),
    data=st.data(),
    seed=st.integers(0, 2**32 - 1),
)
def test_every_topic_exactly_r_times_and_balanced(n_topics, n_people, data, seed):
    topics = [f"t{i}" for i in range(n_topics)]
    names = [f"p{i}" for i in range(n_people)]
    r = data.draw(st.integers(1, n_people))
    out = assign_topics(topics, names, r, seed)
    check_assignment(out, topics, names, r)
    assert assign_topics(topics, names, r, seed) == out  # seeded: the same again


@settings(max_examples=150, deadline=None)
@given(
    n_topics=st.integers(1, 30),
    n_people=st.integers(2, 6),
    data=st.data(),
    seed=st.integers(0, 1000),
)
def test_proposers_judge_their_topics(n_topics, n_people, data, seed):
    topics = [f"t{i}" for i in range(n_topics)]
    names = [f"p{i}" for i in range(n_people)]
    r = data.draw(st.integers(1, n_people))
    # each assessor proposes at most floor(topics * r / assessors) topics
    cap = n_topics * r // n_people
    proposed = {}
    for t in topics:
        a = data.draw(st.sampled_from(names + [None]))
        if a is not None and sum(v == a for v in proposed.values()) < cap:
            proposed[t] = a
    out = assign_topics(topics, names, r, seed, proposed)
    check_assignment(out, topics, names, r)
    for t, a in proposed.items():
        assert a in out[t]


def test_impossible_proposals_are_an_error():
    # one assessor proposed every topic: with 2 assessors and r = 1 the loads are 4 and 0
    with pytest.raises(InputError, match="cannot balance"):
        assign_topics(["a", "b", "c", "d"], ["x", "y"], 1, 0, {t: "x" for t in "abcd"})


@pytest.mark.parametrize(
    "names, r",
    [(["a", "b"], 3), (["a", "b"], 0), (["a", "a"], 1), (["a/b"], 1), ([], 1), (["a b"], 1)],
)
def test_bad_parameters(names, r):
    with pytest.raises(ParameterError):
        assign_topics(["1"], names, r)


POOL = pa.table(
    {
        "query_id": ["1", "1", "1", "2", "2", "10"],
        "doc_id": ["c", "a", "b", "x", "y", "z"],
    }
)


@pytest.mark.parametrize("order", ["shuffle", "docid"])
def test_packages_hold_each_topic_pair_once_per_assessor(order):
    assignment = assign_topics(["1", "2", "10"], ["ann", "bo", "cy"], 2, 3)
    packages = build_packages(POOL, assignment, order, seed=3)
    pairs = set(zip(POOL["query_id"].to_pylist(), POOL["doc_id"].to_pylist(), strict=True))
    seen = Counter()
    for pk in packages:
        lines = pk.lines
        assert len(set(lines)) == len(lines)
        for q, d in lines:
            assert pk.assessor in assignment[q]
            seen[(q, d)] += 1
        if order == "docid":
            assert lines == sorted(lines, key=lambda p: (p[0].encode(), p[1].encode()))
    assert set(seen) == pairs and set(seen.values()) == {2}


def test_shuffled_packages_are_seeded():
    assignment = {"1": ["ann"], "2": ["ann"], "10": ["ann"]}
    one = build_packages(POOL, assignment, "shuffle", seed=1)[0].lines
    assert one == build_packages(POOL, assignment, "shuffle", seed=1)[0].lines
    orders = {tuple(build_packages(POOL, assignment, "shuffle", seed=s)[0].lines) for s in range(8)}
    assert len(orders) > 1


def test_write_judge_merge_round_trip(tmp_path):
    assignment = {"1": ["ann", "bo"], "2": ["bo"], "10": ["ann"]}
    target = tmp_path / "pk"
    write_packages(str(target), build_packages(POOL, assignment, "docid"), assignment)
    assert sorted(p.name for p in target.iterdir()) == ["ann.qrels", "assignment.tsv", "bo.qrels"]
    # the assessors fill in grades; bo leaves (10 is not his) and (1, c) unjudged
    (target / "ann.qrels").write_text("1 0 a 2\n1 0 b 0\n1 0 c -1\n10 0 z 1\n")
    (target / "bo.qrels").write_text("1 0 a 1\n1 0 b 1\n1 0 c -1\n2 0 x 0\n2 0 y 3\n")
    merged = merge_packages(str(target), "max")
    got = Qrels(merged.qrels).table
    rows = set(
        zip(
            got["query_id"].to_pylist(),
            got["doc_id"].to_pylist(),
            got["relevance"].to_pylist(),
            strict=True,
        )
    )
    assert rows == {
        ("1", "a", 2),
        ("1", "b", 1),
        ("1", "c", -1),
        ("10", "z", 1),
        ("2", "x", 0),
        ("2", "y", 3),
    }
    low = merge_packages(str(target), "min").qrels
    assert (
        dict(
            zip(
                zip(low["query_id"].to_pylist(), low["doc_id"].to_pylist(), strict=True),
                low["relevance"].to_pylist(),
                strict=True,
            )
        )[("1", "a")]
        == 1
    )
    prov = merged.provenance
    assert prov.num_rows == 9
    assert ("1", "a", "ann", 2) in set(
        zip(
            prov["query_id"].to_pylist(),
            prov["doc_id"].to_pylist(),
            prov["assessor"].to_pylist(),
            prov["relevance"].to_pylist(),
            strict=True,
        )
    )
    text = merged.provenance_bytes().decode().splitlines()
    assert text[0] == "query_id\tdoc_id\tassessor\trelevance"
    # judgments of a topic not assigned to the assessor are refused
    (target / "bo.qrels").write_text("10 0 z 1\n")
    with pytest.raises(InputError, match="not assigned to 'bo'"):
        merge_packages(str(target))


def test_packages_are_never_written_over(tmp_path):
    assignment = {"1": ["ann"], "2": ["ann"], "10": ["ann"]}
    target = tmp_path / "pk"
    target.mkdir()
    (target / "ann.qrels").write_text("1 0 a 2\n")
    with pytest.raises(InputError, match="not empty"):
        write_packages(str(target), build_packages(POOL, assignment), assignment)
    assert (target / "ann.qrels").read_text() == "1 0 a 2\n"


def test_cli_assign_and_merge(tmp_path, capsys):
    pool = tmp_path / "pool.txt"
    pool.write_text("1 a\n1 b\n2 c\n")
    names = tmp_path / "names.txt"
    names.write_text("ann\n# a comment\nbo\n")
    out = tmp_path / "pk"
    argv = ["pool", "assign", str(pool), "--assessors", str(names), "--per-topic", "2"]
    assert main([*argv, "--seed", "0", "-o", str(out)]) == 0
    for name in ("ann", "bo"):
        lines = (out / f"{name}.qrels").read_text().splitlines()
        assert sorted(lines) == ["1 0 a -1", "1 0 b -1", "2 0 c -1"]
    assert main(["pool", "merge", str(out)]) == 0
    assert capsys.readouterr().out == "1 0 a -1\n1 0 b -1\n2 0 c -1\n"
