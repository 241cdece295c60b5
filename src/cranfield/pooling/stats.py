"""Pool statistics: pool sizes, what each run alone contributed, judged fractions, and
how many runs found each relevant document.

For a depth-k pool (:func:`~cranfield.pooling.build_pool` with ``depth(k)``) and the
judgments made on it, :func:`pool_stats` reports

* the pool size, in total and per topic;
* per run: ``unique`` — the pooled documents that this run alone put in its top k
  (no other run did), and ``unique_relevant`` — how many of those are relevant
  (grade >= ``rel_level``); Zobel (1998) measures pool bias this way;
* per run: Judged@d — the fraction of its top d that has a judgment — at several
  depths d, computed by :func:`cranfield.evaluate` with the registry's ``Judged@d``;
* per topic: the relevant documents, and how many runs found each of them in their
  top k (0 = found by no run at that depth).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import pyarrow.compute as pc

from .. import output
from ..errors import InputError, ParameterError
from .candidates import MAX_RANK, collect, contributions, pair_keys
from .pool import as_runs, check_depth

DEFAULT_JUDGED_AT = (10, 20, 50, 100)


@dataclass
class RunPoolStats:
    """What one run contributed to the pool."""

    name: str
    unique: int
    unique_relevant: int
    judged: dict[int, float]


@dataclass
class PoolStats:
    """Statistics of a depth-k pool; :meth:`to_json` gives the documented schema."""

    depth: int
    pool_size: int
    topics: dict[str, int]
    runs: list[RunPoolStats]
    relevant: dict[str, int] = field(default_factory=dict)
    found_by: dict[str, dict[int, int]] = field(default_factory=dict)
    rel_level: int = 1
    overlap: dict[str, dict[str, float]] | None = None

    def to_json(self) -> dict:
        """``{"depth", "pool_size", "topics": {qid: size}, "runs": [{"name", "unique",
        "unique_relevant", "judged": {"10": fraction, ...}}]}``."""
        out = {
            "depth": self.depth,
            "pool_size": self.pool_size,
            "topics": dict(self.topics),
            "runs": [
                {
                    "name": r.name,
                    "unique": r.unique,
                    "unique_relevant": r.unique_relevant,
                    "judged": {str(d): v for d, v in r.judged.items()},
                }
                for r in self.runs
            ],
        }
        if self.overlap is not None:  # only when asked for: the default schema is fixed
            out["overlap"] = {
                a: {b: (None if math.isnan(v) else v) for b, v in row.items()}
                for a, row in self.overlap.items()
            }
        return out


def overlap_matrix(matrix: np.ndarray, topic_starts: np.ndarray) -> np.ndarray:
    """Mean over topics of the Jaccard overlap of two runs' top k, for every pair.

    ``matrix`` is the pooled pairs x runs membership (pairs sorted by topic, topics
    starting at ``topic_starts``). For runs a and b and topic t,
    J_t = |A_t ∩ B_t| / |A_t ∪ B_t|; the mean is over the topics where A_t ∪ B_t is
    not empty (``nan`` if there is none). A loop over runs, whole arrays inside.
    """
    n_runs = matrix.shape[1]
    out = np.full((n_runs, n_runs), np.nan)
    if matrix.shape[0] == 0:
        return out
    size = np.add.reduceat(matrix.astype(np.int64), topic_starts, axis=0)  # topics x runs
    for i in range(n_runs):
        both = matrix & matrix[:, i : i + 1]
        inter = np.add.reduceat(both.astype(np.int64), topic_starts, axis=0)
        union = size[:, i : i + 1] + size - inter
        some = union > 0
        jac = np.where(some, inter / np.maximum(union, 1), 0.0)
        counted = some.sum(axis=0)
        out[i] = np.where(counted > 0, jac.sum(axis=0) / np.maximum(counted, 1), np.nan)
    return out


def check_topics(qrels, runs) -> None:
    """Every topic of every run must be in the qrels (else the judgments cannot speak
    for the run); raises :class:`InputError` naming the run and some of the topics."""
    topics = set(qrels.query_ids())
    for run in runs:
        missing = sorted(set(run.query_ids()) - topics, key=str.encode)
        if missing:
            shown = ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")
            raise InputError(
                f"run {run.name!r} has {len(missing)} topic(s) absent from the qrels: {shown}",
                source=run.source,
            )


def _depths(judged_at: Iterable[int]) -> list[int]:
    out = []
    for d in judged_at:
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
            raise ParameterError("judged_at", "integers >= 1", d)
        if int(d) not in out:
            out.append(int(d))
    if not out:
        raise ParameterError("judged_at", "at least one depth", list(judged_at))
    return sorted(out)


def pool_stats(
    qrels,
    runs,
    depth: int,
    *,
    judged_at: Iterable[int] = DEFAULT_JUDGED_AT,
    rel_level: int = 1,
    overlap: bool = False,
) -> PoolStats:
    """Statistics of the depth-``depth`` pool of ``runs`` judged by ``qrels``.

    Parameters
    ----------
    qrels
        The judgments (:class:`~cranfield.Qrels` or anything ``Qrels.coerce`` takes).
    runs
        The pooled runs (a list of :class:`~cranfield.Run`, paths, or a dict).
    depth
        Pool depth k.
    judged_at
        Depths d of Judged@d (default 10, 20, 50, 100).
    rel_level
        Minimum relevant grade.
    overlap
        Also the mean Jaccard overlap of every two runs' top k
        (:func:`overlap_matrix`; R^2 x pool-size work).

    Returns
    -------
    PoolStats
    """
    from ..core.evaluation import evaluate
    from ..core.qrels import Qrels

    k = check_depth(depth)
    depths = _depths(judged_at)
    qrels = qrels if isinstance(qrels, Qrels) else Qrels.coerce(qrels)
    run_list = as_runs(runs)
    check_topics(qrels, run_list)
    cands = collect(run_list, k)
    ukeys, matrix = contributions(cands)
    n_docs = np.int64(max(len(cands.docs), 1))

    # grade of every pooled pair (absent from the qrels: not relevant)
    grades = np.asarray(qrels.table["relevance"].to_numpy(), dtype=np.int64)
    qkeys, known = pair_keys(cands, qrels.table["query_id"], qrels.table["doc_id"])
    rel_keys = np.sort(qkeys[grades[known] >= rel_level])
    pos = np.searchsorted(rel_keys, ukeys)
    if len(rel_keys):
        relevant = (pos < len(rel_keys)) & (rel_keys[np.minimum(pos, len(rel_keys) - 1)] == ukeys)
    else:
        relevant = np.zeros(len(ukeys), dtype=bool)

    found = matrix.sum(axis=1)
    only = found == 1
    unique = matrix[only].sum(axis=0)
    unique_rel = matrix[only & relevant].sum(axis=0)

    topic_codes, sizes = np.unique(ukeys // n_docs, return_counts=True)
    topics = dict(zip(cands.queries.take(topic_codes).to_pylist(), sizes.tolist(), strict=True))

    # depths beyond any ranking all mean "the whole ranking" (and stay within int64)
    cut = {d: min(d, MAX_RANK) for d in depths}
    measures = list(dict.fromkeys(f"Judged@{c}" for c in cut.values()))
    results = evaluate(qrels, run_list, measures, rel_level=rel_level)
    run_stats = [
        RunPoolStats(
            name,
            int(unique[j]),
            int(unique_rel[j]),
            {d: float(results[name][f"Judged@{cut[d]}"]) for d in depths},
        )
        for j, name in enumerate(cands.names)
    ]

    # relevant documents per qrels topic, and how many runs found each (0 if unpooled)
    is_rel = pc.greater_equal(qrels.table["relevance"], rel_level)
    rel_topics = qrels.table["query_id"].filter(is_rel)
    per_topic = pc.value_counts(rel_topics)
    relevant_per_topic = dict(
        zip(
            per_topic.field("values").to_pylist(),
            per_topic.field("counts").to_pylist(),
            strict=True,
        )
    )
    # (topic, number of runs) of every pooled relevant pair, counted
    found_by: dict[str, dict[int, int]] = {}
    if relevant.any():
        pairs, counts = np.unique(
            np.stack([ukeys[relevant] // n_docs, found[relevant]]), axis=1, return_counts=True
        )
        names = cands.queries.take(pairs[0]).to_pylist()
        for q, c, n in zip(names, pairs[1].tolist(), counts.tolist(), strict=True):
            found_by.setdefault(q, {})[int(c)] = int(n)
    order = sorted(relevant_per_topic, key=str.encode)
    for q in order:
        hist = found_by.setdefault(q, {})
        missed = relevant_per_topic[q] - sum(hist.values())
        if missed:
            hist[0] = missed
        found_by[q] = dict(sorted(hist.items()))
    jaccard = None
    if overlap:
        starts = np.flatnonzero(np.r_[True, np.diff(ukeys // n_docs) != 0]) if len(ukeys) else []
        m = overlap_matrix(matrix, np.asarray(starts, dtype=np.int64))
        jaccard = {
            a: {b: float(m[i, j]) for j, b in enumerate(cands.names)}
            for i, a in enumerate(cands.names)
        }
    return PoolStats(
        k,
        int(len(ukeys)),
        topics,
        run_stats,
        {q: int(relevant_per_topic[q]) for q in order},
        {q: found_by[q] for q in order},
        rel_level,
        jaccard,
    )


def table(head: list[str], body: list[list[str]], fmt: str) -> str:
    """Pooling's table layout (:func:`cranfield.output.table`): text aligned with the
    first column left, Markdown left-aligned; ends with a newline."""
    return output.table(head, body, fmt, left=1 if fmt == "text" else len(head)) + "\n"


def render(stats: PoolStats, fmt: str = "text", digits: int = 4) -> str:
    """``text``, ``markdown`` or ``json`` (the schema of :meth:`PoolStats.to_json`)."""

    if fmt == "json":
        from ..output import dumps_json

        return dumps_json(stats.to_json()) + "\n"
    if fmt not in ("text", "markdown"):
        raise ParameterError("format", "one of text, json, markdown", fmt)
    depths = list(stats.runs[0].judged) if stats.runs else []
    n_topics = len(stats.topics)
    mean = stats.pool_size / n_topics if n_topics else 0.0
    title = (
        f"depth-{stats.depth} pool: {stats.pool_size} documents, {n_topics} topics "
        f"({mean:.1f} per topic)"
    )
    head = ["run", "unique", "unique_relevant"] + [f"Judged@{d}" for d in depths]
    body = [
        [r.name, str(r.unique), str(r.unique_relevant)]
        + [f"{r.judged[d]:.{digits}f}" for d in depths]
        for r in stats.runs
    ]
    topics = sorted(set(stats.topics) | set(stats.relevant), key=str.encode)
    t_head = ["topic", "pool", "relevant", "found_by_none", "found_by_one", "found_by_more"]
    t_body = []
    for q in topics:
        hist = stats.found_by.get(q, {})
        more = sum(n for c, n in hist.items() if c >= 2)
        t_body.append(
            [
                q,
                str(stats.topics.get(q, 0)),
                str(stats.relevant.get(q, 0)),
                str(hist.get(0, 0)),
                str(hist.get(1, 0)),
                str(more),
            ]
        )
    sep = "\n"
    over = ""
    if stats.overlap is not None:
        names = list(stats.overlap)
        o_body = [
            [a] + [output.number_cell(stats.overlap[a][b], digits) for b in names] for a in names
        ]
        o_title = f"mean Jaccard overlap of the runs' top {stats.depth} (over topics)"
        lead = f"**{o_title}**\n\n" if fmt == "markdown" else f"# {o_title}\n"
        over = sep + lead + table(["run", *names], o_body, fmt)
    if fmt == "markdown":
        return (
            f"**{title}**\n\n"
            + table(head, body, fmt)
            + sep
            + f"**relevant documents (grade >= {stats.rel_level}) and the runs that found "
            f"them in their top {stats.depth}**\n\n" + table(t_head, t_body, fmt)
        )
    return (
        f"# {title}\n"
        + table(head, body, fmt)
        + sep
        + f"# relevant documents (grade >= {stats.rel_level}) and the runs that found them "
        f"in their top {stats.depth}\n" + table(t_head, t_body, fmt) + over
    )
