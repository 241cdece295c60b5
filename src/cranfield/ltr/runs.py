"""Ranking data as cranfield inputs: the labels as qrels, a scoring as a run.

With these every cranfield command applies to a learnt ranker's output: the qrels hold
every (query, document, label) of the data, the run the documents' scores. Scores are
written with 17 significant digits, so a TREC file read back holds the same float64
values, and trec_eval's tie order (score, then document id) is the objective's.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .data import RankingData


def qrels_table(data: RankingData) -> pa.Table:
    """``query_id, doc_id, relevance`` of every document."""
    return pa.table(
        {
            "query_id": pa.array(data.query_ids[data.query_of_doc].astype(str)),
            "doc_id": pa.array(data.doc_ids.astype(str)),
            "relevance": pa.array(data.labels.astype(np.int64)),
        }
    )


def to_qrels(data: RankingData):
    """The labels as a :class:`~cranfield.Qrels`."""
    from ..core.qrels import Qrels

    return Qrels(qrels_table(data), source=data.source)


def to_run(data: RankingData, scores: np.ndarray, name: str = "ltr"):
    """One score per document as a :class:`~cranfield.Run` called ``name``."""
    from ..core.run import Run

    table = pa.table(
        {
            "query_id": pa.array(data.query_ids[data.query_of_doc].astype(str)),
            "doc_id": pa.array(data.doc_ids.astype(str)),
            "score": pa.array(np.asarray(scores, dtype=np.float64) + 0.0),
        }
    )
    return Run(table, source=name, name=name)


def trec_run_text(data: RankingData, scores: np.ndarray, name: str = "ltr") -> str:
    """The run in TREC format, ranked as trec_eval ranks it (``Q0``, rank, 17 digits)."""
    return trec_lines(to_run(data, scores, name))


def trec_lines(run) -> str:
    ranked = run.ranked()
    q = ranked.column("query_id").to_pylist()
    d = ranked.column("doc_id").to_pylist()
    s = ranked.column("score").to_numpy()
    qa = np.asarray(q, dtype=object)
    starts = np.concatenate(([True], qa[1:] != qa[:-1])) if len(qa) else np.zeros(0, bool)
    idx = np.arange(len(qa))
    rank = idx - np.maximum.accumulate(np.where(starts, idx, 0))
    name = run.name
    return "".join(
        f"{qi} Q0 {di} {r} {si!r} {name}\n"
        for qi, di, r, si in zip(q, d, (rank + 1).tolist(), s.tolist(), strict=True)
    )
