"""What a run holds: topics, depth, ties, scores and its ir_metadata annotations.

:func:`describe_run` summarises one :class:`~cranfield.core.run.Run` with whole-array
operations (one sort, no loop per topic or document): the numbers a researcher checks
before trusting an evaluation -- how many topics the run answers, how deep it ranks,
how often it leaves the order to a tie-break (trec_eval breaks score ties by document
id, descending: a run with many ties is ranked by its document ids, not by its scores),
and the range of its scores.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow.compute as pc

from .run import Run, trec_order

__all__ = ["RunSummary", "describe_run", "SUMMARY_COLUMNS"]

#: the columns of a summary table, in order
SUMMARY_COLUMNS = (
    "run",
    "topics",
    "documents",
    "depth_min",
    "depth_median",
    "depth_max",
    "topics_with_ties",
    "tied_documents",
    "score_min",
    "score_max",
)


@dataclass(frozen=True)
class RunSummary:
    """The summary of one run.

    Attributes
    ----------
    run, source
        The run's name and where it was read from.
    topics, documents
        Topics with at least one document; rows of the run.
    depth_min, depth_median, depth_max
        Documents per topic (``None`` for an empty run).
    topics_with_ties
        Topics where two or more documents share a score.
    tied_documents
        Documents sharing their score with another document of their topic: their order
        comes from trec_eval's tie-break (document id, descending), not from the run.
    score_min, score_max
        The range of the scores (``None`` for an empty run).
    metadata
        The run file's ir_metadata annotations (:mod:`cranfield.core.io.metadata`),
        ``None`` without them.
    """

    run: str
    source: str | None
    topics: int
    documents: int
    depth_min: int | None
    depth_median: float | None
    depth_max: int | None
    topics_with_ties: int
    tied_documents: int
    score_min: float | None
    score_max: float | None
    metadata: dict | None = field(default=None)

    def row(self) -> dict:
        """The table columns (:data:`SUMMARY_COLUMNS`) as a dict."""
        return {name: getattr(self, name) for name in SUMMARY_COLUMNS}


def describe_run(run: Run, metadata: dict | None = None) -> RunSummary:
    """Summarise ``run`` (see :class:`RunSummary`); ``metadata`` is carried as given."""
    t = run.table
    n = len(t)
    if n == 0:
        return RunSummary(run.name, run.source, 0, 0, None, None, None, 0, 0, None, None, metadata)
    t = t.take(trec_order(t["query_id"], t["score"], t["doc_id"]))
    topic = pc.dictionary_encode(t["query_id"].combine_chunks()).indices
    topic = np.asarray(topic.to_numpy(zero_copy_only=False), dtype=np.int64)
    score = np.asarray(t["score"].combine_chunks().to_numpy(zero_copy_only=False))
    depth = np.bincount(topic)
    depth = depth[depth > 0]
    # sorted by topic, then score: a tie is an equal score next to it in the same topic
    same = (topic[1:] == topic[:-1]) & (score[1:] == score[:-1])
    tied = np.zeros(n, dtype=bool)
    tied[1:] |= same
    tied[:-1] |= same
    return RunSummary(
        run=run.name,
        source=run.source,
        topics=int(depth.size),
        documents=n,
        depth_min=int(depth.min()),
        depth_median=float(np.median(depth)),
        depth_max=int(depth.max()),
        topics_with_ties=int(np.unique(topic[tied]).size),
        tied_documents=int(tied.sum()),
        score_min=float(score.min()),
        score_max=float(score.max()),
        metadata=metadata,
    )
