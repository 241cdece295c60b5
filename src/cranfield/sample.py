"""A small, deterministic sample test collection.

Forty TREC-style topics (``"301"`` to ``"340"``), each with 150 to 400 judged documents
graded 0-3 — a handful relevant per topic, and two topics (``"312"`` and ``"329"``)
without any relevant document — and four runs of clearly different quality, 100
documents per topic each:

========  =================================================================
``hybrid``  the best: score = 2.0 * grade + noise
``bm25``    good: score = 1.2 * grade + noise, rounded to 0.1 (many ties)
``dense``   weaker: score = 0.7 * grade + noise; topic ``"317"`` is missing
``random``  scores unrelated to relevance, rounded to 0.01 (some ties)
========  =================================================================

Every run also retrieves documents that were never judged. Everything is drawn from
``numpy.random.default_rng(SEED)`` in a fixed order, so the collection is identical on
every machine and in every session.

Examples
--------
>>> from cranfield import sample
>>> qrels, runs = sample.load()
>>> sorted(runs), len(qrels.query_ids())
(['bm25', 'dense', 'hybrid', 'random'], 40)
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pyarrow as pa

from .core.qrels import Qrels
from .core.run import Run

SEED = 20240501
QUERY_IDS = [str(q) for q in range(301, 341)]
NO_RELEVANT = ("312", "329")
MISSING = ("dense", "317")
DEPTH = 100
COLLECTION = 50_000

# name -> (weight of the grade in the score, noise sd, rounding decimals)
SYSTEMS: dict[str, tuple[float, float, int]] = {
    "bm25": (1.2, 1.0, 1),
    "dense": (0.7, 1.0, 4),
    "hybrid": (2.0, 0.8, 3),
    "random": (0.0, 1.0, 2),
}


def _doc_ids(numbers: np.ndarray) -> list[str]:
    return [f"FBIS4-{n:05d}" for n in numbers]


def _generate() -> tuple[pa.Table, dict[str, pa.Table]]:
    rng = np.random.default_rng(SEED)
    q_cols: dict[str, list] = {"query_id": [], "doc_id": [], "relevance": []}
    r_cols = {name: {"query_id": [], "doc_id": [], "score": []} for name in SYSTEMS}
    for qid in QUERY_IDS:
        n_judged = int(rng.integers(150, 401))
        n_unjudged = 80
        docs = rng.choice(COLLECTION, size=n_judged + n_unjudged, replace=False)
        judged, unjudged = docs[:n_judged], docs[n_judged:]
        grades = np.zeros(n_judged, dtype=np.int64)
        if qid not in NO_RELEVANT:
            n_rel = int(rng.integers(3, 16))
            grades[:n_rel] = rng.choice([1, 2, 3], size=n_rel, p=[0.5, 0.3, 0.2])
        perm = rng.permutation(n_judged)  # judged docs appear in no particular order
        q_cols["query_id"] += [qid] * n_judged
        q_cols["doc_id"] += _doc_ids(judged[perm])
        q_cols["relevance"] += grades[perm].tolist()

        candidates = np.concatenate([judged, unjudged])
        truth = np.concatenate([grades, np.zeros(n_unjudged, dtype=np.int64)])
        for name, (weight, sd, decimals) in SYSTEMS.items():
            noise = rng.normal(0.0, sd, size=len(candidates))
            if (name, qid) == MISSING:
                continue
            score = np.round(10.0 + weight * truth + noise, decimals)
            # trec_eval order: score descending, doc id descending
            ids = np.array(_doc_ids(candidates))
            order = np.lexsort((ids, score))[::-1][:DEPTH]
            r_cols[name]["query_id"] += [qid] * DEPTH
            r_cols[name]["doc_id"] += ids[order].tolist()
            r_cols[name]["score"] += score[order].tolist()
    qrels = pa.table(
        {
            "query_id": pa.array(q_cols["query_id"], pa.string()),
            "doc_id": pa.array(q_cols["doc_id"], pa.string()),
            "relevance": pa.array(q_cols["relevance"], pa.int64()),
        }
    )
    runs = {
        name: pa.table(
            {
                "query_id": pa.array(c["query_id"], pa.string()),
                "doc_id": pa.array(c["doc_id"], pa.string()),
                "score": pa.array(c["score"], pa.float64()),
            }
        )
        for name, c in r_cols.items()
    }
    return qrels, runs


def load() -> tuple[Qrels, dict[str, Run]]:
    """The sample qrels and the four runs, keyed by run name."""
    qrels, runs = _generate()
    return (
        Qrels(qrels, source="sample qrels"),
        {name: Run(t, source=f"sample run {name}", name=name) for name, t in runs.items()},
    )


def write(directory: str | os.PathLike) -> list[Path]:
    """Write ``qrels.txt`` and one ``<run>.txt`` per run (TREC format) into ``directory``.

    Returns the paths written, qrels first. The directory is created if needed.
    """
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    qrels, runs = load()
    paths = [out / "qrels.txt"]
    qrels.to_trec(paths[0])
    for name, run in runs.items():
        paths.append(out / f"{name}.txt")
        run.to_trec(paths[-1])
    return paths
