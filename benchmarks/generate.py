"""Deterministic synthetic TREC runs and qrels for benchmarks.

Two judgment profiles:

* ``dense`` (TREC-like): about ``judged`` judgments per query, grades 0-3 (most 0),
  drawn mostly from the run's top documents as a pooled collection would be;
* ``sparse`` (MS MARCO-like): 1-2 relevant documents per query, grade 1, nothing else.

Runs list ``depth`` documents per query in trec_eval order (score descending), as
retrieval systems write them. Everything depends only on the seed.

Usage::

    python benchmarks/generate.py --queries 7000 --depth 1000 --profile dense --runs 10

writes ``benchmarks/data/<name>/qrels.txt`` and ``run1.txt`` ... into the data directory
(ignored by git).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent / "data"


def _lines(cols: list) -> bytes:
    """Space-separated lines from columns (NumPy arrays or Arrow arrays), via Arrow's writer."""
    import io

    import pyarrow as pa
    import pyarrow.csv as pacsv

    table = pa.table({f"c{i}": c for i, c in enumerate(cols)})
    sink = io.BytesIO()
    options = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    pacsv.write_csv(table, sink, write_options=options)
    return sink.getvalue()


def _docnos(codes: np.ndarray):
    """``D`` + 7-digit zero-padded number, as an Arrow string array."""
    import pyarrow as pa
    import pyarrow.compute as pc

    digits = pc.utf8_lpad(pc.cast(pa.array(codes), pa.string()), 7, "0")
    return pc.binary_join_element_wise("D", digits, "")


def make_collection(
    queries: int,
    depth: int,
    profile: str = "dense",
    judged: int = 27,
    runs: int = 1,
    seed: int = 0,
    corpus: int = 8_000_000,
    first_qid: int = 1000,
):
    """Return (qrels_bytes, [run_bytes, ...]).

    Query ids are numbers from ``first_qid`` (all the same width); doc ids are
    ``D<7 digits>`` drawn from a corpus of ``corpus`` documents.
    """
    import pyarrow as pa

    rng = np.random.default_rng(seed)
    qids = np.array([f"{first_qid + i}" for i in range(queries)])
    # every query has a pool of candidate documents; runs are permutations of samples
    pool = max(depth * 2, judged * 2)
    pool_docs = rng.integers(0, corpus, size=(queries, pool))
    # distinct within a query: add a per-position stride (mod corpus) to break repeats
    pool_docs = (pool_docs[:, :1] + np.arange(pool)[None, :] * 7919) % corpus
    pool_docs = rng.permuted(pool_docs, axis=1)

    # qrels: judged documents come from the first part of the pool (the "good" docs)
    if profile == "dense":
        per_q = np.clip(rng.poisson(judged, size=queries), 1, pool)
        grade_p = np.array([0.6, 0.2, 0.12, 0.08])
    elif profile == "sparse":
        per_q = rng.integers(1, 3, size=queries)
        grade_p = np.array([0.0, 1.0, 0.0, 0.0])
    else:
        raise ValueError(f"profile must be 'dense' or 'sparse', got {profile!r}")
    q_idx = np.repeat(np.arange(queries), per_q)
    pos = np.concatenate([np.arange(k) for k in per_q]) if queries else np.zeros(0, int)
    # judged docs: mostly among the top half of the pool (so runs retrieve many of them)
    judged_pos = np.minimum(pos * 3, pool - 1)
    q_docs = pool_docs[q_idx, judged_pos]
    grades = rng.choice(4, size=len(q_idx), p=grade_p)
    qrels = _lines(
        [
            pa.array(qids).take(q_idx),
            np.zeros(len(q_idx), dtype=np.int64),
            _docnos(q_docs),
            grades,
        ]
    )

    run_bytes = []
    for r in range(runs):
        rr = np.random.default_rng(seed * 1000 + r + 1)
        # each run retrieves `depth` documents of the pool, biased to the front
        noise = rr.random((queries, pool)) + np.linspace(0, 1.2, pool)[None, :]
        pick = np.argsort(noise, axis=1, kind="stable")[:, :depth]
        docs = np.take_along_axis(pool_docs, pick, axis=1).ravel()
        scores = np.sort(rr.normal(10.0, 3.0, size=(queries, depth)), axis=1)[:, ::-1]
        scores = np.round(scores, 6).ravel()
        ranks = np.tile(np.arange(1, depth + 1), queries)
        n = queries * depth
        run_bytes.append(
            _lines(
                [
                    pa.array(qids).take(np.repeat(np.arange(queries), depth)),
                    pa.array(["Q0"], pa.string()).take(np.zeros(n, dtype=np.int64)),
                    _docnos(docs),
                    ranks,
                    scores,
                    pa.array([f"run{r + 1}"], pa.string()).take(np.zeros(n, dtype=np.int64)),
                ]
            )
        )
    return qrels, run_bytes


def generate(
    name: str,
    queries: int,
    depth: int,
    profile: str = "dense",
    judged: int = 27,
    runs: int = 1,
    seed: int = 0,
    out: Path = DATA,
) -> Path:
    """Write qrels.txt and run1.txt.. into ``out/name`` (skipped when already there)."""
    target = out / name
    stamp = target / "params.txt"
    params = f"{queries} {depth} {profile} {judged} {runs} {seed}\n"
    if stamp.exists() and stamp.read_text() == params:
        return target
    target.mkdir(parents=True, exist_ok=True)
    if queries <= BATCH:
        qrels, run_bytes = make_collection(queries, depth, profile, judged, runs, seed)
        (target / "qrels.txt").write_bytes(qrels)
        for i, data in enumerate(run_bytes, 1):
            (target / f"run{i}.txt").write_bytes(data)
    else:  # batches of BATCH queries (seeded by batch), ids 100000.. of one width
        files = [open(target / "qrels.txt", "wb")]
        files += [open(target / f"run{i}.txt", "wb") for i in range(1, runs + 1)]
        try:
            for b, start in enumerate(range(0, queries, BATCH)):
                n = min(BATCH, queries - start)
                qrels, run_bytes = make_collection(
                    n, depth, profile, judged, runs, seed * 1009 + b + 1, first_qid=100000 + start
                )
                for fh, data in zip(files, [qrels, *run_bytes], strict=True):
                    fh.write(data)
        finally:
            for fh in files:
                fh.close()
    stamp.write_text(params)
    return target


BATCH = 10_000  # queries generated at once (Arrow string arrays stay under 2 GiB)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--name", help="directory under benchmarks/data (default from sizes)")
    p.add_argument("--queries", type=int, default=7000)
    p.add_argument("--depth", type=int, default=1000)
    p.add_argument("--profile", choices=["dense", "sparse"], default="dense")
    p.add_argument("--judged", type=int, default=27, help="mean judgments per query (dense)")
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    name = a.name or f"{a.profile}-{a.queries}x{a.depth}"
    path = generate(name, a.queries, a.depth, a.profile, a.judged, a.runs, a.seed)
    print(path)


if __name__ == "__main__":
    main()
