"""The ranked documents of several runs, coded as integers, for all topics at once.

Every pooling strategy reads the same thing: for each retrieved (topic, document) pair,
which run retrieved it at which rank. :func:`collect` ranks each run in trec_eval's
order (:meth:`cranfield.Run.ranked`: score descending, then doc id descending, the
order the evaluator uses), concatenates the runs, and codes topic and document ids as
integers whose order is the byte order of the ids. The pair key
``topic * num_docs + doc`` therefore sorts by topic (trec_eval's topic order), then by
document id.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import InputError

MAX_RANK = 1 << 62  # ranks and depths beyond this are all the same: "everything"


@dataclass
class Candidates:
    """Rows ``(topic code, doc code, run index, rank)`` of every ranked document.

    ``queries`` and ``docs`` are the sorted distinct ids; a code is an index into them.
    """

    queries: pa.Array
    docs: pa.Array
    q: np.ndarray
    d: np.ndarray
    run: np.ndarray
    rank: np.ndarray
    names: list[str]

    @property
    def key(self) -> np.ndarray:
        """Pair key ``q * len(docs) + d``: sorts by topic, then document id."""
        return self.q * np.int64(max(len(self.docs), 1)) + self.d

    def take(self, rows: np.ndarray) -> Candidates:
        """The candidates restricted to ``rows`` (a boolean mask or indices)."""
        return Candidates(
            self.queries,
            self.docs,
            self.q[rows],
            self.d[rows],
            self.run[rows],
            self.rank[rows],
            self.names,
        )

    def decode(self, keys: np.ndarray) -> pa.Table:
        """A ``(query_id, doc_id)`` table of pair keys, in the order given."""
        n_docs = np.int64(max(len(self.docs), 1))
        q = pa.array(keys // n_docs, pa.int64())
        d = pa.array(keys % n_docs, pa.int64())
        return pa.table({"query_id": self.queries.take(q), "doc_id": self.docs.take(d)})


def _sorted_codes(values: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """(sorted distinct values, code of every value), codes in byte order of the ids."""
    encoded = pc.dictionary_encode(values)
    dictionary = encoded.dictionary
    order = np.asarray(pc.sort_indices(dictionary), dtype=np.int64)
    inverse = np.empty_like(order)
    inverse[order] = np.arange(len(order), dtype=np.int64)
    indices = np.asarray(encoded.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
    return dictionary.take(pa.array(order)), inverse[indices]


def _plain(col) -> pa.Array:
    arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    return arr.cast(pa.string()) if arr.type != pa.string() else arr


def top_rows(run, k: int):
    """The run restricted to rows that can rank ``k`` or better, or None if all can.

    Rows are grouped in blocks of consecutive rows with one query id (a topic may span
    several blocks). Within a block, T is its k-th highest score (or its lowest, if it
    has fewer than k rows); a block is part of its topic, so T is at most the topic's
    k-th highest score. Keeping the rows scoring >= T therefore keeps every row that
    ranks k or better in its topic and every row ranked before it (they score at least
    as high, hence at least the topic's k-th highest score), so the ranks up to k of the
    kept rows are their ranks in the whole run; only scores are compared here, the
    ranks themselves come from ``Run.ranked``. Runs written ranked (the usual case)
    need no sort at all.
    """
    from ..core.run import Run

    t = run.table
    n = t.num_rows
    if n <= k:
        return None
    k = int(k)
    q = _plain(t["query_id"])
    starts = np.ones(n, dtype=bool)
    starts[1:] = np.asarray(pc.not_equal(q[1:], q[:-1]).to_numpy(zero_copy_only=False))
    block = np.cumsum(starts) - 1
    first = np.flatnonzero(starts)
    ends = np.r_[first[1:], n]
    score = np.asarray(t["score"].to_numpy(), dtype=np.float64)
    if np.isnan(score).any():
        return None
    descending = np.all((score[1:] <= score[:-1]) | starts[1:])
    order = np.arange(n) if descending else np.lexsort((-score, block))
    kth = score[order[np.minimum(first + k, ends) - 1]]
    keep = score >= kth[block]
    if keep.all():
        return None
    return Run.of_table(t.filter(pa.array(keep)), run.source, name=run.name)


def collect(runs, max_rank: int | None = None) -> Candidates:
    """Rank every run and code the (topic, document) pairs of all of them.

    Parameters
    ----------
    runs
        :class:`~cranfield.Run` objects (at least one); a Python loop runs over them,
        never over topics or documents.
    max_rank
        Keep only the documents ranked ``max_rank`` or better in each run.
    """
    if max_rank is not None:
        max_rank = min(int(max_rank), MAX_RANK)  # deeper than any run can be
    qs, ds, run_idx, ranks = [], [], [], []
    for i, run in enumerate(runs):
        if max_rank is not None:
            run = top_rows(run, max_rank) or run
        t = run.ranked()
        if max_rank is not None:
            t = t.filter(pc.less_equal(t["rank"], max_rank))
        qs.append(_plain(t["query_id"]))
        ds.append(_plain(t["doc_id"]))
        ranks.append(np.asarray(t["rank"].to_numpy(), dtype=np.int64))
        run_idx.append(np.full(t.num_rows, i, dtype=np.int64))
    if not qs:
        raise InputError("no runs to pool")
    queries, q = _sorted_codes(pa.concat_arrays(qs))
    docs, d = _sorted_codes(pa.concat_arrays(ds))
    return Candidates(
        queries,
        docs,
        q,
        d,
        np.concatenate(run_idx),
        np.concatenate(ranks),
        [run.name for run in runs],
    )


def pair_keys(cands: Candidates, query_ids, doc_ids) -> tuple[np.ndarray, np.ndarray]:
    """Pair keys of (query, doc) id columns in the candidates' coding.

    Returns ``(keys, known)``: ``known`` marks the rows whose topic and document some
    run retrieved; ``keys`` holds the keys of those rows only.
    """
    qi = pc.index_in(_plain(query_ids), value_set=cands.queries)
    di = pc.index_in(_plain(doc_ids), value_set=cands.docs)
    known = pc.and_(pc.is_valid(qi), pc.is_valid(di))
    qi = np.asarray(qi.filter(known).to_numpy(zero_copy_only=False), dtype=np.int64)
    di = np.asarray(di.filter(known).to_numpy(zero_copy_only=False), dtype=np.int64)
    mask = np.asarray(known.to_numpy(zero_copy_only=False), dtype=bool)
    return qi * np.int64(max(len(cands.docs), 1)) + di, mask


def contributions(cands: Candidates) -> tuple[np.ndarray, np.ndarray]:
    """``(sorted distinct pair keys, pairs x runs boolean matrix)``: which run retrieved
    which pair (among the candidates)."""
    ukeys, inverse = np.unique(cands.key, return_inverse=True)
    matrix = np.zeros((len(ukeys), len(cands.names)), dtype=bool)
    matrix[inverse.ravel(), cands.run] = True
    return ukeys, matrix
