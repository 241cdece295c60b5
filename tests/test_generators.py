"""The shared generators (tests/generators.py) produce what their documentation promises,
the same case for the same seed, and the reference order is trec_eval's."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import generators as gen


def _by_cmp(pairs):
    """trec_eval's order written as a comparison: higher score first, then the larger
    document id as bytes first (an independent formulation of ``trec_ranked``)."""

    def cmp(a, b):
        if a[1] != b[1]:
            return -1 if a[1] > b[1] else 1
        x, y = a[0].encode(), b[0].encode()
        return (x < y) - (x > y)

    return sorted(pairs, key=functools.cmp_to_key(cmp))


def test_trec_order_is_score_then_docno_descending_in_bytes():
    rng = np.random.default_rng(0)
    ids = ["d1", "d10", "d9", "D9", "é", "e", "z", "", "d1é", "d1\x00"]
    for _ in range(200):
        picked = rng.choice(len(ids), size=int(rng.integers(1, len(ids))), replace=False)
        docs = [ids[i] for i in picked]  # (NumPy strings would drop the trailing NUL)
        scores = rng.choice([0.0, -0.0, 1.0, 1e-9, -2.5], size=len(docs)).tolist()
        pairs = list(zip(docs, scores, strict=True))
        assert gen.trec_ranked(pairs) == _by_cmp(pairs)
        assert gen.trec_order(dict(pairs)) == [d for d, _ in _by_cmp(pairs)]
    assert gen.byte_sorted(["10", "9", "é", "z", "1"]) == ["1", "10", "9", "z", "é"]


SEEDED = [
    lambda s: gen.adversarial_case(s),
    lambda s: gen.judging_case(s, fractional=bool(s % 2)),
    lambda s: gen.mixed_topics_case(s),
    lambda s: gen.graded_collection(np.random.default_rng(s)),
    lambda s: gen.sparse_case(s, uniform=bool(s % 2)),
    lambda s: gen.trec_files(s, sep="\t" if s % 2 else " "),
    lambda s: [gen.layout_case(np.random.default_rng(s), lay) for lay in gen.LAYOUTS],
    lambda s: (
        gen.pool_runs(np.random.default_rng(s), 3),
        gen.pool_qrels(rng=np.random.default_rng(s)),
    ),
    lambda s: gen.trec_rows(np.random.default_rng(s), "run" if s % 2 else "qrels", 40),
]


@pytest.mark.parametrize("make", range(len(SEEDED)))
def test_same_seed_same_case_other_seed_other_case(make):
    cases = [repr(SEEDED[make](seed)) for seed in range(6)]
    assert cases == [repr(SEEDED[make](seed)) for seed in range(6)]
    assert len(set(cases)) == len(cases)


def test_judging_files_are_a_function_of_the_seed(tmp_path):
    def texts(seed: int, where: str) -> tuple:
        (tmp_path / where).mkdir(exist_ok=True)
        run, qrels, *rest = gen.judging_files(seed, tmp_path / where)
        return run.read_bytes(), qrels.read_bytes(), *rest

    cases = [texts(seed, "a") for seed in range(8)]
    assert cases == [texts(seed, "b") for seed in range(8)]
    assert len(set(cases)) == len(cases)


def _has_ties(ranking: dict) -> bool:
    return len(set(ranking.values())) < len(ranking)


def test_mixed_topics_and_graded_collections_have_their_features():
    seen = set()
    for seed in range(40):
        qrels, run = gen.mixed_topics_case(seed)
        assert "only-in-qrels" in qrels and "only-in-qrels" not in run
        assert "only-in-run" in run and "only-in-run" not in qrels
        for q, ranking in run.items():
            values = sorted(set(ranking.values()))
            if any(0 < b - a < 2e-9 for a, b in zip(values, values[1:], strict=False)):
                seen.add("1e-9 near ties")
            seen |= {"ties"} if _has_ties(ranking) else set()
            if any(d not in qrels.get(q, {}) for d in ranking):
                seen.add("unjudged retrieved")
        if any(g < 0 for judged in qrels.values() for g in judged.values()):
            seen.add("negative judgments")
    assert seen == {"1e-9 near ties", "ties", "unjudged retrieved", "negative judgments"}
    seen = set()
    for seed in range(40):
        qrels, run = gen.graded_collection(np.random.default_rng(seed))
        assert all(
            "x" in judged and all("x" not in r for r in run.values()) for judged in qrels.values()
        )
        seen |= {"empty ranking"} if set(qrels) - set(run) else set()
        seen |= {"ties"} if any(_has_ties(r) for r in run.values()) else set()
        seen |= {"grade 2"} if any(2 in j.values() for j in qrels.values()) else set()
    assert seen == {"empty ranking", "ties", "grade 2"}


def test_layouts_are_what_they_say():
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(30):
        for layout in gen.LAYOUTS:
            qrels, rows = gen.layout_case(rng, layout)
            topics = list(dict.fromkeys(q for q, _, _ in rows))
            blocks = [q for i, (q, _, _) in enumerate(rows) if i == 0 or rows[i - 1][0] != q]
            if layout == "ranked":
                ranked = [
                    (q, d, s)
                    for q in gen.byte_sorted(topics)
                    for d, s in gen.trec_ranked((d, s) for t, d, s in rows if t == q)
                ]
                assert rows == ranked
            if layout == "split" and len(rows) > 2 and len(blocks) > len(topics):
                seen.add("split topic")
            if layout == "wrong_ties":
                for q in topics:
                    pairs = [(d, s) for t, d, s in rows if t == q]
                    if pairs != gen.trec_ranked(pairs):
                        seen.add("ties in the wrong order")
            if layout == "topics_unordered" and topics != gen.byte_sorted(topics):
                seen.add("topics out of byte order")
            if layout == "shuffled" and len(blocks) > len(topics):
                seen.add("shuffled")
            if any(str(s) == "-0.0" for _, _, s in rows):
                seen.add("-0.0")
            if any(any(ord(c) > 127 for c in d) for _, d, _ in rows):
                seen.add("non-ASCII id")
            if set(qrels) - set(topics):
                seen.add("topic only in qrels")
            if set(topics) - set(qrels):
                seen.add("topic only in run")
    assert seen == {
        "split topic",
        "ties in the wrong order",
        "topics out of byte order",
        "shuffled",
        "-0.0",
        "non-ASCII id",
        "topic only in qrels",
        "topic only in run",
    }


def test_sparse_and_file_generators_have_their_features():
    seen = set()
    for seed in range(30):
        qrels, rows, complete = gen.sparse_case(seed, uniform=True)
        lengths = {q: 0 for q in qrels}
        for q, _, _ in rows:
            lengths[q] += 1
        assert len(set(lengths.values()) - {0}) <= 1 or rows == [("q0", "d1", 1.0)]
        qrels, rows, complete = gen.sparse_case(seed)
        seen |= {f"complete={complete}"}
        if {q for q, _, _ in rows} < set(qrels):
            seen.add("empty ranking")
    assert seen == {"complete=True", "complete=False", "empty ranking"}
    for seed in range(6):
        qrels_text, run_text = gen.trec_files(seed, sep="\t" if seed == 4 else " ")
        assert "999 0 D1 1" in qrels_text
        assert ("# a comment between queries" in run_text) == (seed % 3 == 0)
        assert ("\t" in run_text) == (seed == 4)
        assert all(
            line.endswith(f"tag{seed}") for line in run_text.splitlines() if line[:1].isdigit()
        )


def test_pool_runs_tie_within_and_across_runs():
    rng = np.random.default_rng(0)
    runs = gen.pool_runs(rng, 4)
    assert any(_has_ties(r) for run in runs for r in run.values())
    triples = [{(q, d, s) for q, r in run.items() for d, s in r.items()} for run in runs]
    assert triples[0] & triples[1]  # the same document at the same score in two runs
    assert any(any(ord(c) > 127 for c in d) for run in runs for r in run.values() for d in r)
    assert set(gen.pool_qrels(rng)) == set(gen.POOL_TOPICS)
