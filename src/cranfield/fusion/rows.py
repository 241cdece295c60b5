"""The runs to fuse as one coded table: every retrieved (run, query, document) row, with
its rank, the run's list length and the candidate (query, document) it votes for.

Built once per :func:`cranfield.fuse` call by the engine
(``_engine.fusion_rows_arrow``, one pass with hash maps over the runs' Arrow
buffers): each run is ranked in trec_eval's order (score descending, ties by document
id descending), the query ids of all runs are coded against their sorted union, the
document ids by first appearance, and the (query, document) pairs against the
distinct pairs, which are the candidates of the fused run (sorted by query code, then
document code, so the candidates of one query are contiguous).
"""

from __future__ import annotations

from dataclasses import dataclass

from .._lazy import lazy
from ..core.io import arrays
from ..core.run import Run
from ..errors import InputError
from .choices import TOPIC_POLICIES

np = lazy("numpy", __name__, "np")
pa = lazy("pyarrow", __name__, "pa")
pc = lazy("pyarrow.compute", __name__, "pc")


@dataclass(eq=False)
class Rows:
    """Coded rows of the runs (see the module's documentation).

    Row arrays (one entry per row, rows grouped by run, then query, then rank):
    ``run``, ``query``, ``cand``, ``rank`` (1-based, trec order), ``length`` (the run's
    number of documents for that query), ``score`` (as read), ``value`` (the score
    after normalisation), ``counts`` (the row is in the normalised run: it counts in
    CombMNZ's "retrieved by"), ``ranked`` (the row has a rank: a retrieved document).
    Normalisations may append rows (``ranked`` False) for documents a run did not
    retrieve (Borda normalisation, the default-minimum treatment).

    Candidate arrays: ``cand_query`` (query code of each candidate) and
    ``cand_offsets`` (the candidates of query ``q`` are
    ``cand_offsets[q]:cand_offsets[q + 1]``); ``doc_ids`` (Arrow strings) of the
    candidates; ``query_ids`` the sorted union of the runs' query ids;
    ``present[r, q]`` whether run ``r`` retrieved anything for query ``q``.
    """

    n_runs: int
    query_ids: pa.Array
    doc_ids: pa.Array
    cand_query: np.ndarray
    cand_offsets: np.ndarray
    run: np.ndarray
    query: np.ndarray
    cand: np.ndarray
    rank: np.ndarray
    length: np.ndarray
    score: np.ndarray
    value: np.ndarray
    counts: np.ndarray
    ranked: np.ndarray
    present: np.ndarray

    @property
    def n_cands(self) -> int:
        return len(self.cand_query)

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    def cands_per_query(self) -> np.ndarray:
        return np.diff(self.cand_offsets)

    def group_offsets(self) -> np.ndarray:
        """CSR offsets of the (run, query) groups of the first, ranked rows (one group
        per present pair, in run-major order)."""
        n = int(self.ranked.sum())
        key = self.run[:n] * self.n_queries + self.query[:n]
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if n else np.zeros(0, int)
        return np.r_[starts, n].astype(np.int64)

    def append(self, run, query, cand, value, counts: bool) -> None:
        """Add rows of documents a run did not retrieve (no rank)."""
        k = len(run)
        self.run = np.concatenate((self.run, run))
        self.query = np.concatenate((self.query, query))
        self.cand = np.concatenate((self.cand, cand))
        self.rank = np.concatenate((self.rank, np.zeros(k, np.int64)))
        self.length = np.concatenate((self.length, np.zeros(k, np.int64)))
        self.score = np.concatenate((self.score, np.full(k, np.nan)))
        self.value = np.concatenate((self.value, value))
        self.counts = np.concatenate((self.counts, np.full(k, counts)))
        self.ranked = np.concatenate((self.ranked, np.zeros(k, bool)))

    def missing(self) -> tuple[np.ndarray, np.ndarray]:
        """``(run, cand)`` of every candidate a run did not retrieve (with its rows
        appended so far: a pair already filled is not missing)."""
        have = np.zeros((self.n_cands, self.n_runs), dtype=bool)
        have[self.cand, self.run] = True
        cand, run = np.nonzero(~have)
        order = np.lexsort((cand, run))
        return run[order], cand[order]

    def column(self, r: int, values: np.ndarray, fill, mask: np.ndarray | None = None):
        """Run ``r``'s value of every candidate: ``values`` of its rows (those in
        ``mask``), ``fill`` (a number, or one per candidate) for the others."""
        sel = self.run == r
        if mask is not None:
            sel &= mask
        col = np.empty(self.n_cands)
        col[:] = fill
        col[self.cand[sel]] = values[sel]
        return col

    def sum(self, values: np.ndarray, mask: np.ndarray | None = None, weights=None):
        """Per candidate, the sum over runs, left to right in run order, of ``values``
        (times the run's weight) of its rows in ``mask`` (all rows when None): the
        order of ranx's sums, so the bits are the same. A loop over runs, not rows."""
        total = np.zeros(self.n_cands)
        values = np.asarray(values, dtype=np.float64)
        with np.errstate(over="ignore"):  # an overflow is refused by the caller
            for r in range(self.n_runs):
                sel = self.run == r
                if mask is not None:
                    sel &= mask
                v = values[sel] if weights is None else weights[r] * values[sel]
                total[self.cand[sel]] += v  # a run holds each candidate at most once
        return total

    def fold(self, ufunc, values: np.ndarray, init: float) -> np.ndarray:
        """Per candidate, ``ufunc`` (np.maximum, np.minimum) over its rows' values."""
        out = np.full(self.n_cands, init)
        for r in range(self.n_runs):
            sel = self.run == r
            c = self.cand[sel]
            out[c] = ufunc(out[c], values[sel])
        return out

    def count(self, mask: np.ndarray) -> np.ndarray:
        """Per candidate, the number of rows in ``mask``."""
        return np.bincount(self.cand[mask], minlength=self.n_cands).astype(np.int64)


def check_scores(run: Run) -> None:
    """A run's scores are finite numbers: NaN or an infinity has no rank and no
    normalised value."""
    s = run.table["score"]
    finite = pc.is_finite(s)
    if not pc.all(finite).as_py() and len(s):
        row = int(np.flatnonzero(~arrays.bools(arrays.as_array(finite)))[0])
        value = s[row].as_py() if hasattr(s, "__getitem__") else "?"
        raise InputError(
            f"row {row + 1}: score {value} is not a finite number: fusion needs finite scores",
            source=run.source or run.name,
        )


def build(runs: list[Run], topics: str = "same") -> Rows:
    """The coded rows of ``runs`` (see :class:`Rows`).

    ``topics``: ``"same"`` (default, as ranx) refuses runs whose query sets differ;
    ``"union"`` fuses over the union, a run without a query retrieving nothing there.
    """
    if topics not in TOPIC_POLICIES:
        from ..errors import ParameterError

        raise ParameterError("topics", "one of " + ", ".join(TOPIC_POLICIES), topics)
    for run in runs:
        check_scores(run)
    from .. import _engine

    (q_offsets, q_data, d_offsets, d_data, cand_query, cand_offsets, run_idx, query, cand,
     rank, length, score, counts) = _engine.fusion_rows_arrow(
        [arrays.engine_batches(run.table, "score") for run in runs]
    )  # fmt: skip
    query_ids = _strings(q_offsets, q_data)
    nq = len(query_ids)
    present = counts.reshape(len(runs), nq) > 0
    if topics == "same" and not present.all():
        r = int(np.flatnonzero(~present.all(axis=1))[0])
        q = int(np.flatnonzero(~present[r])[0])
        raise InputError(
            f"run {runs[r].name!r} has no documents for query {query_ids[q].as_py()!r}, "
            "which another run answers: the runs' query sets differ (fuse the union with "
            "topics='union' / --topics union)",
            source=runs[r].source or runs[r].name,
        )
    n = len(query)
    return Rows(
        n_runs=len(runs),
        query_ids=query_ids,
        doc_ids=_strings(d_offsets, d_data),
        cand_query=cand_query,
        cand_offsets=cand_offsets,
        run=run_idx,
        query=query,
        cand=cand,
        rank=rank,
        length=length,
        score=score,
        value=score.copy(),
        counts=np.ones(n, dtype=bool),
        ranked=np.ones(n, dtype=bool),
        present=present,
    )


def _strings(offsets: np.ndarray, data: np.ndarray) -> pa.Array:
    """A string array of the engine's Arrow layout (int64 offsets), as ``string`` when
    its bytes fit 32-bit offsets (as the readers give ids)."""
    large = pa.Array.from_buffers(
        pa.large_string(), len(offsets) - 1, [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    )
    return large.cast(pa.string()) if len(data) < 2**31 else large
