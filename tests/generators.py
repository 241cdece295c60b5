"""Seeded generators of adversarial qrels and runs, and the one reference ranking order.

Every differential test (cranfield against trec_eval 10.0, pytrec_eval, ir_measures or a
brute-force re-implementation) takes its random inputs from here, so that a new
adversarial feature is added once and reaches them all. Each generator is a pure
function of its seed (or of the ``numpy.random.Generator`` it is given): the same call
gives the same case on every run and every machine, and a failing case is reproduced
by its seed alone.

What each generator produces beyond graded judgments, documents retrieved but never
judged and documents judged but never retrieved (which they all have):

* :func:`judging_case`: 0-12 topics of 0-40 documents, tied or normal scores, grades
  -2..4 (every fifth seed up to 40, every tenth up to 1000: int64 labels) or fractions,
  topics on one side only (the engine's kernels against the specification);
* :func:`judging_files`: TREC files of ids in UTF-8 or Latin-1 bytes, float32-only
  ties, infinities, ``-0``, fractional grades in many spellings, duplicate lines,
  shuffled topics, CRLF, comments (the engine's judge against a plain reference);
* :func:`adversarial_case`: exact ties, 1e-9 and float32 near-ties, +-1e6 scores,
  negative judgments, one-document, empty and 2000-document rankings, topics on one side
  only, ids of mixed case and width (non-numeric; byte order unlike numeric order);
* :func:`layout_case`: run rows in trec_eval order, with ties in the wrong order, with
  topics out of byte order, with a topic split over two blocks, or shuffled; ``-0.0``,
  1e-9 and near-tied scores, non-ASCII ids, topics on one side only;
* :func:`mixed_topics_case`: ties and 1e-9 near-ties, negative judgments, a topic only in
  the qrels and one only in the run;
* :func:`graded_collection`: ties, rankings of every length from empty;
* :func:`sparse_case`: few distinct scores, negative judgments, empty rankings, optionally
  rankings all of one length;
* :func:`large_collection`: hundreds of topics, rankings up to 2999 documents, ties from
  rounding, judgments on 0.1 % to 30 % of a ranking;
* :func:`unranked_collection`: rankings up to 499 documents, tie-free, rows in random
  order, judgments on 0.2 % to 50 % of a ranking;
* :func:`trec_files`: trec_eval file text, topics in file order (not byte order), tab or
  space separators, comments and blank lines between topics;
* :func:`trec_rows`: the fields of qrels or run lines, ids with punctuation, non-ASCII
  and ``#``, numbers in many spellings (``+1``, ``.5``, ``1e3``, ``-0``, ``inf``,
  ``007``); :func:`messy_text` adds random whitespace, comments, blank lines and extra
  fields;
* :func:`pool_runs`, :func:`pool_qrels`: several runs over shared non-ASCII, non-numeric
  ids, many ties within and across runs;
* :func:`collections` (Hypothesis): small collections, tie-free or with ties;
* :func:`measure_variants`: measures of one registered family, generated from its
  declaration (each cutoff kind, each parameter's choices and declared range).

The reference order, :func:`trec_order`, is trec_eval's: score descending, ties broken
by document id descending in byte order (docs/trec_eval.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pyarrow as pa
from hypothesis import strategies as st

# -- the reference order ---------------------------------------------------------------


def trec_ranked(pairs: Iterable[tuple[str, float]]) -> list[tuple[str, float]]:
    """``(doc, score)`` pairs in trec_eval's order: score descending, then document id
    descending as UTF-8 bytes (Python's stable sort, the slow and obvious way)."""
    by_docno = sorted(pairs, key=lambda pair: pair[0].encode(), reverse=True)
    return sorted(by_docno, key=lambda pair: -pair[1])  # stable: ties keep docno order


def trec_order(ranking: Mapping[str, float]) -> list[str]:
    """The document ids of ``{doc: score}`` in trec_eval's order (:func:`trec_ranked`)."""
    return [doc for doc, _ in trec_ranked(ranking.items())]


def byte_sorted(ids: Iterable[str]) -> list[str]:
    """Topic or document ids in ascending UTF-8 byte order (trec_eval's topic order)."""
    return sorted(ids, key=str.encode)


# -- building blocks -------------------------------------------------------------------

QIDS = ["1", "2", "9", "10", "100", "3a", "Q7", "07"]


def doc_ids(rng: np.random.Generator, n: int) -> list[str]:
    """``n`` distinct doc ids of mixed prefix and length, so byte order differs from
    numeric order."""
    numbers = rng.choice(10 * n + 20, size=n, replace=False)
    prefixes = np.array(["d", "D", "doc-", "d0", ""])
    picked = prefixes[rng.integers(0, len(prefixes), size=n)]
    ids = [f"{p}{k}" for p, k in zip(picked, numbers, strict=True)]
    assert len(set(ids)) == n
    return ids


def scores(rng: np.random.Generator, n: int) -> np.ndarray:
    """Scores of one of five kinds: many exact ties; near-ties 1e-9 apart; distinct
    doubles that round to the same float32; large magnitudes of either sign rounded to a
    few decimals; plain normal draws."""
    kind = rng.integers(0, 5)
    if kind == 0:  # many exact ties
        return rng.integers(0, 4, size=n).astype(float)
    if kind == 1:  # near ties 1e-9 apart (distinct in float64 and float32 differs)
        return 1000.0 + rng.integers(0, 3, size=n) * 1e-9 + rng.integers(0, 2, size=n)
    if kind == 2:  # distinct doubles that round to the same float32
        base = np.float64(np.float32(rng.normal()))
        ulp32 = float(np.spacing(np.float32(base)))
        return base + rng.integers(0, 4, size=n) * ulp32 * 0.1 + rng.integers(0, 2, size=n) * 0.5
    if kind == 3:  # negative and large magnitudes
        return rng.normal(0, 1e6, size=n).round(rng.integers(0, 4))
    return rng.normal(size=n)


def grades(rng: np.random.Generator, n: int) -> np.ndarray:
    """Graded labels 0..4 and negative ones (-1, -2: pooled but unjudged), in random
    proportions."""
    p = rng.dirichlet(np.ones(7))
    return rng.choice([-2, -1, 0, 1, 2, 3, 4], size=n, p=p)


def run_from_rows(rows: list[tuple[str, str, float]], name: str = "r"):
    """A :class:`cranfield.core.run.Run` holding ``(query, doc, score)`` rows in this order
    (``Run.from_dict`` would not keep an order that is not trec_eval's)."""
    from cranfield.core.run import Run

    table = pa.table(
        {
            "query_id": [r[0] for r in rows],
            "doc_id": [r[1] for r in rows],
            "score": pa.array([r[2] for r in rows], pa.float64()),
        }
    )
    return Run(table, name=name)


# -- generators of dict cases ----------------------------------------------------------


def judging_case(seed: int, fractional: bool = False) -> tuple[dict, dict]:
    """``(qrels, run)`` dicts: 0-12 queries of 0-40 documents, tied scores, grades -2..4
    (negative: pooled but unjudged), queries only in the run or only in the qrels, and
    every few seeds large grades (up to 40; every tenth seed up to 1000, beyond int8:
    int64 labels)."""
    rng = np.random.default_rng(seed)
    nq = int(rng.integers(0, 13))
    qrels: dict = {}
    run: dict = {}
    high = 4 if seed % 5 else (1000 if seed % 10 == 0 else 40)
    for q in range(nq):
        qid = f"q{q}"
        n = int(rng.integers(0, 41))
        docs = [f"d{i}" for i in range(int(rng.integers(n, n + 30)) + 1)]
        scores = rng.integers(0, 8, n).astype(float) if seed % 2 else rng.normal(size=n)
        ranked = rng.choice(len(docs), n, replace=False)
        if q % 7 != 6:  # some queries only in the qrels
            run[qid] = {docs[i]: float(s) for i, s in zip(ranked, scores, strict=True)}
        if q % 5 != 4:  # some only in the run
            judged = rng.random(len(docs)) < rng.random()
            grades = rng.integers(-2, high + 1, len(docs))
            if fractional:
                values = np.round(rng.random(len(docs)) * high, 2)
                values[grades < 0] = grades[grades < 0]
            else:
                values = grades
            qrels[qid] = {
                d: (float(g) if fractional else int(g))
                for d, g, j in zip(docs, values, judged, strict=True)
                if j
            }
    return qrels, run


def adversarial_case(seed: int) -> tuple[dict, dict]:
    """One adversarial ``(qrels, run)`` pair as pytrec_eval-style dicts.

    One to six topics out of :data:`QIDS`, each of one shape: a ranking of 2-59
    documents (most often), of one document, of 2000 documents, an empty ranking (the
    topic is then only in the qrels), a topic only in the run, or only in the qrels.
    Scores from :func:`scores`, judgments from :func:`grades` on about 70 % of the
    retrieved documents plus up to 14 never retrieved. Every judged topic keeps one
    judgment >= 0 (pytrec_eval corrupts memory on a topic without any), and the qrels
    always hold a topic.
    """
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    n_queries = int(rng.integers(1, 7))
    qids = rng.choice(QIDS, size=n_queries, replace=False)
    for qid in qids:
        shape = rng.choice(
            ["normal", "normal", "normal", "one", "long", "empty", "run_only", "qrels_only"],
            p=[0.25, 0.2, 0.15, 0.1, 0.06, 0.08, 0.08, 0.08],
        )
        n_ret = {"one": 1, "long": 2000, "empty": 0}.get(shape, int(rng.integers(2, 60)))
        n_extra = int(rng.integers(0, 15))  # judged but never retrieved
        docs = doc_ids(rng, n_ret + n_extra)
        retrieved, others = docs[:n_ret], docs[n_ret:]
        if shape != "qrels_only" and n_ret:
            run[str(qid)] = dict(zip(retrieved, scores(rng, n_ret).tolist(), strict=True))
        if shape != "run_only":
            judged_ret = [d for d in retrieved if rng.random() < 0.7]  # the rest unjudged
            pool = judged_ret + others
            if pool:
                labels = grades(rng, len(pool))
                if (labels < 0).all():
                    # pytrec_eval corrupts memory on a topic without any judgment >= 0
                    # (hangs, segfaults); such topics are tested without it elsewhere
                    labels[rng.integers(0, len(pool))] = 0
                qrels[str(qid)] = dict(zip(pool, labels.tolist(), strict=True))
    if not qrels:  # pytrec_eval and cranfield need at least one judged topic
        qrels["zz"] = {"x": 1}
    return qrels, run


def mixed_topics_case(seed: int) -> tuple[dict, dict]:
    """``(qrels, run)`` dicts over two to five of the topics 1, 10, 2, 9, x (byte order
    unlike numeric order), rankings of 1-39 documents with scores 0..5 and 1e-9
    near-ties, about 60 % of the documents judged -1..3 (some never retrieved), and
    the topics ``only-in-qrels`` and ``only-in-run``."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in rng.choice(["1", "10", "2", "9", "x"], size=int(rng.integers(2, 6)), replace=False):
        n = int(rng.integers(1, 40))
        docs = [f"d{k}" for k in rng.choice(200, size=n + 10, replace=False)]
        values = rng.integers(0, 6, size=n).astype(float) + rng.integers(0, 2, size=n) * 1e-9
        run[str(q)] = dict(zip(docs[:n], values.tolist(), strict=True))
        judged = [d for d in docs if rng.random() < 0.6]
        if judged:
            qrels[str(q)] = {d: int(rng.integers(-1, 4)) for d in judged}
    qrels.setdefault("only-in-qrels", {"z": 1, "y": 0})
    run.setdefault("only-in-run", {"z": 1.0})
    return qrels, run


def graded_collection(rng: np.random.Generator, queries: int = 12) -> tuple[dict, dict]:
    """``(qrels, run)`` dicts of ``queries`` topics ``q0, q1, ...``: 1-39 candidate
    documents graded -1..2 (-1: left unjudged), a judged document ``x`` never retrieved,
    a random subset retrieved (possibly none: the topic is then only in the qrels) with
    integer scores 0..4 (ties)."""
    qrels, run = {}, {}
    for q in range(queries):
        qid = f"q{q}"
        n_docs = int(rng.integers(1, 40))
        labels = rng.integers(-1, 3, size=n_docs)  # -1: unjudged
        qrels[qid] = {f"d{i}": int(g) for i, g in enumerate(labels) if g >= 0}
        qrels[qid]["x"] = int(rng.integers(0, 3))  # judged, never retrieved
        retrieved = rng.permutation(n_docs)[: int(rng.integers(0, n_docs + 1))]
        values = rng.integers(0, 5, size=len(retrieved)).astype(float)  # ties too
        run[qid] = {f"d{i}": float(s) for i, s in zip(retrieved, values, strict=True)}
        if not run[qid]:
            del run[qid]
    return qrels, run


# -- generators of row lists (the order of the rows matters) ---------------------------

LAYOUT_DOCS = ["d1", "d10", "d2", "d1é", "doc-00000001", "doc-00000002", "D7", "x", "abcdefghij"]
LAYOUTS = ["ranked", "wrong_ties", "topics_unordered", "split", "shuffled"]


def layout_case(rng: np.random.Generator, layout: str, n_topics: int = 6):
    """``(qrels, rows)``: qrels dicts and ``(query, doc, score)`` run rows in one of the
    :data:`LAYOUTS` of a run file.

    ``ranked``: trec_eval's order throughout; ``wrong_ties``: tied documents in
    ascending doc order; ``topics_unordered``: each topic ranked, topics not in byte
    order; ``split``: the first line of the first topic moved to the end; ``shuffled``:
    lines in random order. Judgments -1..3; the last topic has none, and (except in
    ``split``) the first has no results. Scores include 0.0, -0.0, 1e-9 and near-ties.
    """
    topics = [str(t) for t in rng.choice([1, 2, 9, 10, 11, 100, 301, 42], n_topics, False)]
    qrels: dict = {}
    for q in topics[: n_topics - 1]:  # the last topic has no judgments
        judged = rng.choice(LAYOUT_DOCS, int(rng.integers(1, len(LAYOUT_DOCS))), replace=False)
        qrels[q] = {str(d): int(rng.integers(-1, 4)) for d in judged}
    rows = []
    for q in topics:
        if q == topics[0] and layout != "split":  # one qrels topic without results
            continue
        docs = rng.choice(LAYOUT_DOCS, int(rng.integers(1, len(LAYOUT_DOCS) + 1)), replace=False)
        values = rng.choice([0.0, -0.0, 1.0, 1.5, 2.0, 1e-9, 3.0000001, 3.0], len(docs))
        block = [(q, str(d), float(s)) for d, s in zip(docs, values, strict=True)]
        if layout in ("ranked", "wrong_ties", "topics_unordered", "split"):
            block.sort(key=lambda x: x[1].encode(), reverse=layout != "wrong_ties")
            block.sort(key=lambda x: -x[2])
        rows.extend(block)
    if layout == "ranked":
        rows.sort(key=lambda x: x[0].encode())
    elif layout == "shuffled":
        rows = [rows[i] for i in rng.permutation(len(rows))]
    elif layout == "split" and len(rows) > 2:
        rows = rows[1:] + rows[:1]  # first line of the first block moves to the end
    return qrels, rows


def sparse_case(seed: int, uniform: bool = False):
    """``(qrels, rows, complete)``: up to nine topics ``q0, q1, ...`` with 1-29 judgments
    -1..4 each, rankings of 0-39 documents (all of one random length if ``uniform``)
    with scores 0.5, 1, 2, 3 (ties), and a random choice of ``complete`` (-c)."""
    rng = np.random.default_rng(seed)
    nq = int(rng.integers(1, 10))
    qrels = {}
    for q in range(nq):
        docs = rng.choice(50, int(rng.integers(1, 30)), replace=False)
        qrels[f"q{q}"] = {f"d{d}": int(rng.integers(-1, 5)) for d in docs}
    rows = []
    depth = int(rng.integers(1, 40))
    for q in range(nq):
        n = depth if uniform else int(rng.integers(0, 40))
        docs = rng.choice(60, n, replace=False)
        values = rng.choice([0.5, 1.0, 2.0, 3.0], n)
        rows += [(f"q{q}", f"d{d}", float(s)) for d, s in zip(docs, values, strict=True)]
    if not rows:
        rows = [("q0", "d1", 1.0)]
    return qrels, rows, bool(rng.integers(2))


def large_collection(seed: int):
    """``(qrels, rows)`` of 1-299 topics ``q0, q1, ...``; about one ranking in ten empty,
    the others up to 2999 documents long with scores rounded to 1-3 decimals (ties);
    0.1 %, 2 % or 30 % of the ranking judged -1..3, plus one judged document per topic
    that is never retrieved."""
    rng = np.random.default_rng(seed)
    n_q = int(rng.integers(1, 300))
    lengths = rng.integers(0, 3000, n_q) * (rng.random(n_q) < 0.9)
    qrels = {}
    rows = []
    for q in range(n_q):
        docs = [f"d{i}" for i in range(int(lengths[q]))]
        rel = rng.random(len(docs)) < rng.choice([0.001, 0.02, 0.3])
        judged = {d: int(rng.integers(-1, 4)) for d, r in zip(docs, rel, strict=True) if r}
        judged[f"missing{q}"] = int(rng.integers(0, 4))
        qrels[f"q{q}"] = judged
        values = np.round(rng.normal(size=len(docs)), int(rng.integers(1, 4)))
        rows += [(f"q{q}", d, float(s)) for d, s in zip(docs, values, strict=True)]
    assert len(rows) == int(lengths.sum())
    return qrels, rows


def unranked_collection(seed: int):
    """``(qrels, rows)`` of 1-199 topics ``q0, q1, ...`` with rankings of 0-499 documents
    and normal scores (rows not in trec_eval order); 0.2 %, 5 % or 50 % of the ranking
    judged -1..3, plus one judged document per topic that is never retrieved."""
    rng = np.random.default_rng(seed)
    qrels, rows = {}, []
    for q in range(int(rng.integers(1, 200))):
        docs = [f"d{i}" for i in range(int(rng.integers(0, 500)))]
        p = rng.choice([0.002, 0.05, 0.5])
        qrels[f"q{q}"] = {d: int(rng.integers(-1, 4)) for d in docs if rng.random() < p}
        qrels[f"q{q}"][f"gone{q}"] = int(rng.integers(0, 3))
        rows += [
            (f"q{q}", d, float(s)) for d, s in zip(docs, rng.normal(size=len(docs)), strict=True)
        ]
    return qrels, rows


# -- generators of file text -----------------------------------------------------------


# query and document ids: byte order differs from any "natural" order
ASCII_IDS = ["1", "10", "2", "A", "a", "B", "b", "Z9", "z", "q-1", "q_1", "Q1", "q1", "0"]
UTF8_IDS = ["é", "e", "ü", "日本", "日", "Ω", "a\u00e9", "\U0001f600", "ß", "ss"]
LATIN1_IDS = [b"\xe9", b"e", b"\xff", b"\x80x", b"a\xa0", b"Z", b"\xc3\xa9", b"z"]

# scores: ties, -0.0 / 0.0, infinities, and pairs equal only after rounding to float32
SCORES = [
    "1",
    "1.0",
    "2",
    "0",
    "-0",
    "-0.0",
    "0.5",
    "-3",
    "inf",
    "-inf",
    "1e300",
    "-1e300",
    "0.1",
    "0.10000000000000002",
    "1.00000001",
    "1.00000002",
    "16777217",
    "16777216",
    "3.4028235e38",
    "3.4028236e38",
]
FRACTIONS = ["0.5", "-0.0", "0.0", "0", "1.25", "2", "-1.5", "-0", "3.75", "1e-300"]


def _ids(rng, pool, n):
    return [pool[i] for i in rng.choice(len(pool), size=min(n, len(pool)), replace=False)]


def _encode(value, latin1: bool) -> bytes:
    return value if isinstance(value, bytes) else value.encode("latin-1" if latin1 else "utf-8")


def judging_files(seed: int, directory):
    """A TREC run and qrels file written in ``directory`` (names from ``seed``):
    ``(run path, qrels path, latin1, fractional, qrels duplicates policy)``.

    One to eight topics of up to 30 documents over ids whose byte order differs from any
    natural order (case, digits, non-ASCII UTF-8; every fourth seed Latin-1 bytes, not
    UTF-8), scores from :data:`SCORES` (ties, ``-0``, infinities, pairs equal only as
    float32) or normal draws, grades -3..4 (every seventh seed some times 300, beyond
    int8) or, every fifth seed, fractions from :data:`FRACTIONS`; topics only in one
    file, now and then a duplicate line, shuffled lines (topics in several blocks),
    CRLF line ends, a comment and blank line, and run tags in UTF-8 or Latin-1.
    """
    rng = np.random.default_rng(seed)
    latin1 = seed % 4 == 3
    fractional = seed % 5 == 4
    pool = LATIN1_IDS + [s.encode() for s in ASCII_IDS] if latin1 else ASCII_IDS + UTF8_IDS
    queries = _ids(rng, pool, int(rng.integers(1, 9)))
    docs_pool = pool + [f"d{i}" for i in range(40)]
    big = seed % 7 == 0
    q_lines, r_lines = [], []
    for qi, q in enumerate(queries):
        docs = _ids(rng, docs_pool, int(rng.integers(0, 30)))
        # qrels: some topics only in the run, some only in the qrels
        if qi % 5 != 4:
            for d in docs[: int(rng.integers(0, len(docs) + 1))]:
                if fractional:
                    g = FRACTIONS[int(rng.integers(len(FRACTIONS)))]
                else:
                    g = str(int(rng.integers(-3, 5)) * (300 if big and rng.random() < 0.2 else 1))
                q_lines.append((q, d, g))
        if qi % 5 != 3:
            ranked = docs[: int(rng.integers(0, len(docs) + 1))] + [f"x{j}" for j in range(3)]
            for d in ranked:
                s = SCORES[int(rng.integers(len(SCORES)))] if seed % 3 else str(rng.normal())
                r_lines.append((q, d, s))
    # duplicate lines now and then (the policies decide what they mean)
    for lines in (q_lines, r_lines):
        if lines and rng.random() < 0.3:
            q, d, v = lines[int(rng.integers(len(lines)))]
            lines.insert(
                int(rng.integers(len(lines) + 1)), (q, d, v if rng.random() < 0.5 else "1")
            )
    # shuffled files: topics in several blocks
    for lines in (q_lines, r_lines):
        if rng.random() < 0.5:
            order = rng.permutation(len(lines))
            lines[:] = [lines[i] for i in order]
    if not r_lines:
        r_lines.append((pool[0], "d0", "1"))
    if not q_lines:
        q_lines.append((pool[1], "d0", "1"))
    tags = [b"runA", b"r\xe9n" if latin1 else "rün".encode(), b"t\xff" if not latin1 else b"x"]
    tag = tags[seed % 3]
    end = [b"\n", b"\r\n", b"\n"][seed % 3]
    q_text = b"".join(
        _encode(q, latin1) + b" 0 " + _encode(d, latin1) + b" " + g.encode() + end
        for q, d, g in q_lines
    )
    r_text = b"".join(
        _encode(q, latin1) + b" Q0 " + _encode(d, latin1) + f" {i} {s} ".encode() + tag + end
        for i, (q, d, s) in enumerate(r_lines)
    )
    if seed % 6 == 0:
        r_text = b"# a comment\n\n" + r_text
    run_path, qrels_path = directory / f"run{seed}", directory / f"qrels{seed}"
    run_path.write_bytes(r_text)
    qrels_path.write_bytes(q_text)
    qrels_policy = ["error", "first", "max"][seed % 3]
    return run_path, qrels_path, latin1, fractional, qrels_policy


def trec_files(seed: int, sep: str = " ") -> tuple[str, str]:
    """``(qrels_text, run_text)`` in trec_eval's formats, run tag ``tag<seed>``.

    Twelve topics out of 0..399 in file order (not byte order); ten judged with 0-24
    judgments -1..3 each, two only in the run; a topic ``999`` only in the qrels.
    Rankings of 0-59 documents (the first topic at least one); scores from five values
    (ties) for odd seeds, uniform otherwise; for seeds divisible by 3, a comment and a
    blank line after every non-empty topic. ``sep`` separates the run's fields.
    """
    rng = np.random.default_rng(seed)
    topics = [str(t) for t in rng.choice(400, 12, replace=False)]
    qlines = []
    for q in topics[:10]:  # two run topics without judgments
        for d in rng.choice(60, int(rng.integers(0, 25)), replace=False):
            qlines.append(f"{q} 0 D{d} {int(rng.integers(-1, 4))}")
    qlines.append("999 0 D1 1")  # a qrels topic without results
    lines = []
    for q in topics:  # grouped by query, queries in file order (not byte order)
        n = int(rng.integers(0 if q != topics[0] else 1, 60))
        docs = rng.choice(80, n, replace=False)
        values = rng.choice([0.5, 1.0, 1.25, 2.0, 3.0], n) if seed % 2 else rng.random(n)
        for r, (d, s) in enumerate(zip(docs, values, strict=True)):
            lines.append(f"{q}{sep}Q0{sep}D{d}{sep}{r + 1}{sep}{float(s)!r}{sep}tag{seed}")
        if seed % 3 == 0 and n:
            lines.append("# a comment between queries")
            lines.append("")
    return "\n".join(qlines) + "\n", "\n".join(lines) + "\n"


TEXT_ID_CHARS = list("abcXYZ0123456789-_.:/é#")
TEXT_SCORES = ["1", "-2", "0.5", "+1.25", ".5", "-0", "1e3", "2.5E-3", "inf", "-inf", "12345678.9"]
TEXT_GRADES = ["0", "1", "2", "3", "-1", "-2", "2.7", "-0.5", "+1", "007"]


def _ident(rng: np.random.Generator, first_hash_ok: bool = True) -> str:
    n = int(rng.integers(1, 9))
    s = "".join(rng.choice(TEXT_ID_CHARS, size=n))
    return s if first_hash_ok or s[0] != "#" else "x" + s


def trec_rows(rng: np.random.Generator, kind: str, n: int) -> list[list[str]]:
    """``n`` rows of the fields of a ``kind`` (``"run"`` or ``"qrels"``) file: unique
    (qid, docno) pairs, ids of 1-8 characters among :data:`TEXT_ID_CHARS` (non-ASCII,
    punctuation, ``#`` but never first in a qid), numbers in many spellings (signs, a
    leading dot, exponents, ``-0``, ``inf``, leading zeros: :data:`TEXT_SCORES`,
    :data:`TEXT_GRADES`), run tag ``tag<qid>``."""
    rows, seen = [], set()
    qids = [_ident(rng, False) for _ in range(int(rng.integers(1, 6)))]
    while len(rows) < n:
        q, d = qids[int(rng.integers(len(qids)))], _ident(rng)
        if (q, d) in seen:
            continue
        seen.add((q, d))
        if kind == "run":
            rows.append([q, "Q0", d, str(len(rows) + 1), str(rng.choice(TEXT_SCORES)), "tag" + q])
        else:
            rows.append([q, "0", d, str(rng.choice(TEXT_GRADES))])
    return rows


def rows_text(rows: list[list[str]], sep: str = " ", newline: str = "\n") -> bytes:
    """The file of ``rows``: fields joined by ``sep``, every line ended by ``newline``."""
    return (newline.join(sep.join(r) for r in rows) + newline).encode()


def messy_text(rng: np.random.Generator, rows: list[list[str]]) -> tuple[bytes, list[int]]:
    """Same rows with random whitespace, comments, blank lines and extra run fields.

    Returns the bytes and the physical line number of every data row.
    """
    lines, where = [], []
    for r in rows:
        for _ in range(int(rng.integers(0, 3))):
            lines.append(str(rng.choice(["", "   ", "\t", "# a comment", "#", "# q Q0 d 1 2 t"])))
        seps = [str(rng.choice([" ", "  ", "\t", " \t "])) for _ in r]
        fields = list(r)
        if len(r) == 6 and rng.random() < 0.3:
            fields.append("extra")
            seps.append(" ")
        text = "".join(f + s for f, s in zip(fields, seps, strict=True))[: -len(seps[-1])]
        lead = str(rng.choice(["", " ", "\t"]))
        trail = str(rng.choice(["", " ", "\t", "\r"]))
        lines.append(lead + text + trail)
        where.append(len(lines))
    return ("\n".join(lines) + "\n").encode(), where


# -- several runs over one topic set (pooling) -----------------------------------------

# non-numeric ids, ids whose byte order differs from numeric order, non-ASCII ids
POOL_TOPICS = ["10", "9", "q-a", "Q_b", "é1", "301"]
POOL_DOCS = [f"d{i}" for i in range(12)] + ["D-x", "ü9", "10", "9"]


def pool_runs(rng: np.random.Generator, n_runs: int) -> list[dict[str, dict[str, float]]]:
    """``n_runs`` run dicts over :data:`POOL_TOPICS` and :data:`POOL_DOCS`; few distinct
    scores (0, 0.5, 1, 1.5, -2): many ties, the same scores across documents and runs."""
    runs = []
    for _ in range(n_runs):
        run: dict[str, dict[str, float]] = {}
        for q in rng.choice(POOL_TOPICS, size=rng.integers(1, len(POOL_TOPICS) + 1), replace=False):
            docs = rng.choice(POOL_DOCS, size=rng.integers(1, len(POOL_DOCS) + 1), replace=False)
            # few distinct scores: many ties, duplicate scores across documents and runs
            values = rng.choice([0.0, 0.5, 1.0, 1.5, -2.0], size=len(docs))
            run[str(q)] = {str(d): float(s) for d, s in zip(docs, values, strict=True)}
        runs.append(run)
    return runs


def pool_qrels(rng: np.random.Generator) -> dict[str, dict[str, int]]:
    """Qrels over every topic of :data:`POOL_TOPICS`, judgments -1..2."""
    out = {}
    for q in POOL_TOPICS:
        docs = rng.choice(POOL_DOCS, size=rng.integers(1, len(POOL_DOCS)), replace=False)
        out[q] = {str(d): int(g) for d, g in zip(docs, rng.integers(-1, 3, len(docs)), strict=True)}
    return out


# -- measures ---------------------------------------------------------------------------

# cutoffs of each cutoff kind, and candidate values of numeric parameters (those outside
# a parameter's declared range are dropped)
VARIANT_CUTOFFS = {
    None: [None],
    "rank": [None, 1, 5],
    "recall": [None, 0.5],
    "positive": [0.5, 2.0],
}
VARIANT_INTS = [0, 2, 3, 40, 1_000_000]
VARIANT_FLOATS = [0.5, 0.95, 2.0, 3.0, -1.0, 0.0]


def parameter_values(p) -> list:
    """Values of measure parameter ``p`` worth checking besides its default."""
    if p.choices:
        values = list(p.choices)
    elif p.kind is bool:
        values = [not p.default]
    elif p.kind == "gains":
        values = [((1, 2.0), (2, 0.5)), ((0, 1.0), (3, 7.0))]
    elif p.kind == "floats":
        values = [(0.0, 0.25, 1.0)]
    elif p.kind is int:
        values = VARIANT_INTS
    elif p.kind is float:
        values = VARIANT_FLOATS
    else:
        values = []
    ok = [v for v in values if v != p.default and (p.check is None or p.check(v))]
    return ok[:3]


def _measure_of(name: str, cutoff, params: dict):
    from cranfield.core.measures.registry import Measure
    from cranfield.errors import CranfieldError

    try:
        return Measure.of(name, cutoff, **params)
    except CranfieldError:  # a combination the declaration refuses
        return None


def measure_variants(d) -> list:
    """Measures of the family declared by ``d`` (a ``MeasureDef``): its defaults at each
    cutoff, then one parameter at a time (parameters without a default, such as a
    collection size, get their first value)."""
    cutoffs = [c for c in VARIANT_CUTOFFS[d.cutoff] if c is not None or not d.cutoff_required]
    base = {}
    if _measure_of(d.name, cutoffs[-1], {}) is None:
        base = {
            p.name: parameter_values(p)[0]
            for p in d.params
            if p.default is None and parameter_values(p)
        }
    out = [_measure_of(d.name, c, base) for c in cutoffs]
    for p in d.params:
        out += [_measure_of(d.name, cutoffs[-1], {**base, p.name: v}) for v in parameter_values(p)]
    return [m for m in out if m is not None]


# -- Hypothesis ------------------------------------------------------------------------


@st.composite
def collections(draw, ties: bool = False, max_grade: int = 4):
    """(Hypothesis) qrels and a run over numeric query ids; scores distinct unless
    ``ties``, judgments 0..``max_grade``, every topic on both sides."""
    num_q = draw(st.integers(1, 4))
    qrels, run = {}, {}
    for q in range(1, num_q + 1):
        pool = draw(st.integers(1, 14))
        docs = [f"D{i:02d}" for i in range(pool)]
        judged = draw(st.lists(st.sampled_from(docs), unique=True, min_size=1))
        qrels[str(q)] = {d: draw(st.integers(0, max_grade)) for d in judged}
        retrieved = draw(st.lists(st.sampled_from(docs), unique=True, min_size=1))
        if ties:
            values = [float(draw(st.integers(0, 3))) for _ in retrieved]
        else:
            values = [float(s) for s in draw(st.permutations(range(len(retrieved))))]
        run[str(q)] = dict(zip(retrieved, values, strict=True))
    return qrels, run


# -- fusion -----------------------------------------------------------------------------

FUSION_KINDS = ("random", "ties", "disjoint", "one-doc", "negative", "equal", "missing-topic")


def fusion_case(seed: int, kind: str | None = None, full: bool = False):
    """``(runs, qrels, kind)``: 2-5 run dicts ``{qid: {doc: score}}`` of at most 15
    documents per query (below numba's insertion-sort threshold, so ranx keeps tied
    documents in insertion order), each query's documents inserted in trec_eval's order,
    and qrels (grades 0-2, every query with a relevant document). Kinds: random scores,
    ties, disjoint runs, one-document lists, negative scores, all scores equal, a run
    missing a topic (empty there). ``full``: every run retrieves every document of a
    query (the Condorcet cases), in 3 or 5 runs."""
    rng = np.random.default_rng(seed)
    kind = kind or FUSION_KINDS[seed % len(FUSION_KINDS)]
    n_runs = int(rng.choice([3, 5])) if full else int(rng.integers(2, 6))
    topics = [f"q{i}" for i in rng.choice(30, size=int(rng.integers(1, 5)), replace=False)]
    runs: list[dict] = [{} for _ in range(n_runs)]
    qrels: dict = {}
    for q in topics:
        pool = doc_ids(rng, 15 if not full else int(rng.integers(2, 8)))
        for r in range(n_runs):
            if full:
                docs = list(pool)
            elif kind == "disjoint":
                share = len(pool) // n_runs
                docs = pool[r * share : (r + 1) * share] or pool[:1]
            elif kind == "one-doc":
                docs = [pool[int(rng.integers(0, len(pool)))]]
            else:
                docs = list(
                    rng.choice(pool, size=int(rng.integers(1, len(pool) + 1)), replace=False)
                )
            n = len(docs)
            if full:
                s = rng.permutation(n).astype(float)
            elif kind == "ties":
                s = rng.integers(0, 3, size=n).astype(float)
            elif kind == "negative":
                s = -np.abs(rng.normal(0, 10, size=n))
            elif kind == "equal":
                s = np.full(n, 2.5)
            else:
                s = rng.normal(size=n)
            runs[r][q] = dict(trec_ranked(zip(docs, s.tolist(), strict=True)))
        relevant = list(rng.choice(pool, size=int(rng.integers(1, len(pool) + 1)), replace=False))
        qrels[q] = {d: int(rng.integers(0, 3)) for d in relevant}
        qrels[q][relevant[0]] = max(1, qrels[q][relevant[0]])
    if kind == "missing-topic" and len(topics) > 1:
        runs[int(rng.integers(0, n_runs))][topics[0]] = {}
    return runs, qrels, kind


def rec_log_files(seed: int, tmp_path):
    """An interaction log and recommendation lists (CSV files in ``tmp_path``) of a
    random recommender collection: Zipf-popular items, ratings, some users without
    lists, some recommended items never interacted with."""
    rng = np.random.default_rng(seed)
    n_users, n_items = int(rng.integers(6, 40)), int(rng.integers(15, 60))
    rows = set()
    for u in range(n_users):
        for _ in range(int(rng.integers(2, 14))):
            rows.add((f"u{u}", f"i{int(rng.zipf(1.3)) % n_items}"))
    ratings = rng.integers(1, 6, len(rows))
    log_lines = ["user,item,rating"] + [
        f"{u},{i},{r}" for (u, i), r in zip(sorted(rows), ratings, strict=True)
    ]
    recs = []
    for u in range(n_users - int(rng.integers(0, 3))):
        items = rng.permutation(n_items + 5)[: int(rng.integers(1, 25))]  # some never seen
        recs += [(f"u{u}", f"i{i}", float(len(items) - r) + 0.5) for r, i in enumerate(items)]
    log_path, recs_path = tmp_path / f"log{seed}.csv", tmp_path / f"recs{seed}.csv"
    log_path.write_text("\n".join(log_lines) + "\n")
    recs_path.write_text("".join(["user,item,score\n"] + [f"{u},{i},{v!r}\n" for u, i, v in recs]))
    return log_path, recs_path
