"""Adaptive pooling: move-to-front (Cormack, Palmer & Clarke 1998).

Judging effort goes to the runs that keep finding relevant documents. Per topic, every
run has a priority, all equal at the start. The next document to judge is the first
not-yet-judged document of the run with the highest priority (ties: the run given
first). When it is judged relevant, that run keeps its priority and supplies the next
document too; when it is judged not relevant, the run's priority drops by one, so the
other runs come first. A run with nothing left to judge drops out; a topic is done
when all its runs have.

:class:`MoveToFront` holds this state for all topics at once (NumPy arrays over
topics x runs): :meth:`MoveToFront.next_batch` gives one (topic, document) pair per
topic that is not done, :meth:`MoveToFront.judge` takes the judgments as they arrive.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..errors import InputError, ParameterError
from .candidates import collect
from .pool import as_runs, check_depth


class MoveToFront:
    """Move-to-front pooling over ``runs``, all topics at once.

    Parameters
    ----------
    runs
        The runs (list of :class:`~cranfield.Run`, paths, or a dict); their order
        breaks ties between runs of equal priority.
    depth
        Consider only each run's top ``depth`` documents (default: all).
    qrels
        Judgments made before: those documents are never asked for (their grades do
        not change any priority).
    rel_level
        Minimum grade of a relevant document.

    Examples
    --------
    >>> from cranfield import Run
    >>> mtf = MoveToFront([Run.from_dict({"1": {"a": 2.0, "b": 1.0}}, name="r")])
    >>> mtf.next_batch()
    [('1', 'a')]
    >>> mtf.judge({("1", "a"): 0})
    >>> mtf.next_batch()
    [('1', 'b')]
    """

    def __init__(self, runs, *, depth: int | None = None, qrels=None, rel_level: int = 1):
        run_list = as_runs(runs)
        cands = collect(run_list, None if depth is None else check_depth(depth))
        self.rel_level = _check_rel_level(rel_level)
        self._queries = cands.queries
        self._docs = cands.docs
        n_t, n_r = len(cands.queries), len(run_list)
        order = np.lexsort((cands.rank, cands.run, cands.q))
        keys = cands.key[order]
        self._pairs, self._pair_of_row = np.unique(keys, return_inverse=True)
        self._pair_of_row = self._pair_of_row.ravel()
        cell = cands.q[order] * n_r + cands.run[order]
        counts = np.bincount(cell, minlength=n_t * n_r)
        self._start = (np.cumsum(counts) - counts).reshape(n_t, n_r)
        self._length = counts.reshape(n_t, n_r)
        self._ptr = np.zeros((n_t, n_r), dtype=np.int64)
        self._priority = np.zeros((n_t, n_r), dtype=np.float64)
        self._judged = np.zeros(len(self._pairs), dtype=bool)
        self._grade = np.full(len(self._pairs), -1, dtype=np.int64)
        self._pending = np.full(n_t, -1, dtype=np.int64)  # run asked, per topic
        self._pending_pair = np.full(n_t, -1, dtype=np.int64)
        if qrels is not None:
            from ..core.qrels import Qrels
            from .candidates import pair_keys

            qrels = qrels if isinstance(qrels, Qrels) else Qrels.coerce(qrels)
            known_keys, known = pair_keys(cands, qrels.table["query_id"], qrels.table["doc_id"])
            grades = np.asarray(qrels.table["relevance"].to_numpy(), dtype=np.int64)[known]
            self._record(known_keys, grades)

    # -- state -----------------------------------------------------------------------------

    def _record(self, keys: np.ndarray, grades: np.ndarray) -> np.ndarray:
        """Mark pairs judged; returns their pair indices (-1 for pairs no run has)."""
        idx = np.searchsorted(self._pairs, keys)
        ok = idx < len(self._pairs)
        ok[ok] = self._pairs[idx[ok]] == keys[ok]
        self._judged[idx[ok]] = True
        self._grade[idx[ok]] = grades[ok]
        return np.where(ok, idx, -1)

    def _advance(self) -> None:
        """Move every run's pointer past the documents already judged."""
        last = len(self._pair_of_row) - 1
        if last < 0:
            return
        while True:  # iterations: the longest stretch of judged documents, not topics
            live = self._ptr < self._length
            pos = np.minimum(self._start + self._ptr, last)
            at_judged = live & self._judged[self._pair_of_row[pos]]
            if not at_judged.any():
                return
            self._ptr[at_judged] += 1

    @property
    def judged(self) -> dict[tuple[str, str], int]:
        """Every judged (topic, document) pair that some run retrieved, with its grade."""
        idx = np.flatnonzero(self._judged)
        n_docs = np.int64(max(len(self._docs), 1))
        q = self._queries.take(self._pairs[idx] // n_docs).to_pylist()
        d = self._docs.take(self._pairs[idx] % n_docs).to_pylist()
        return dict(zip(zip(q, d, strict=True), self._grade[idx].tolist(), strict=True))

    # -- the protocol ------------------------------------------------------------------------

    def next_batch(self) -> list[tuple[str, str]]:
        """The next document to judge for every topic that is not done (topics in
        trec_eval order); empty when everything the runs retrieved is judged. A pair
        asked for and not yet judged is asked for again."""
        self._advance()
        live = self._ptr < self._length
        prio = np.where(live, self._priority, -np.inf)
        run = np.argmax(prio, axis=1)  # the first run among equals
        topics = np.flatnonzero(np.isfinite(prio[np.arange(len(run)), run]))
        run = run[topics]
        rows = self._start[topics, run] + self._ptr[topics, run]
        pairs = self._pair_of_row[rows]
        self._pending[:] = -1
        self._pending_pair[:] = -1
        self._pending[topics] = run
        self._pending_pair[topics] = pairs
        n_docs = np.int64(max(len(self._docs), 1))
        q = self._queries.take(self._pairs[pairs] // n_docs).to_pylist()
        d = self._docs.take(self._pairs[pairs] % n_docs).to_pylist()
        return list(zip(q, d, strict=True))

    def judge(self, judgments: Mapping[tuple[str, str], int]) -> None:
        """Record grades ``{(topic, doc): grade}``. A non-relevant judgment of the
        document a run was asked for lowers that run's priority for the topic."""
        import pyarrow as pa

        from .candidates import Candidates, pair_keys

        if not judgments:
            return
        items = list(judgments.items())
        try:
            qs = [str(q) for (q, _), _ in items]
            ds = [str(d) for (_, d), _ in items]
            grades = np.array([int(g) for _, g in items], dtype=np.int64)
        except (TypeError, ValueError):
            raise InputError(
                "judgments must map (topic, document) pairs to integer grades"
            ) from None
        view = Candidates(self._queries, self._docs, *(np.zeros(0, np.int64),) * 4, [])
        keys, known = pair_keys(view, pa.array(qs, pa.string()), pa.array(ds, pa.string()))
        idx = self._record(keys, grades[known])
        hit = idx >= 0
        just = np.zeros(len(self._pairs), dtype=bool)
        grade = np.zeros(len(self._pairs), dtype=np.int64)
        just[idx[hit]] = True
        grade[idx[hit]] = grades[known][hit]
        # topics whose asked-for pair was just judged: a non-relevant one demotes the run
        asked = np.flatnonzero(self._pending_pair >= 0)
        t = asked[just[self._pending_pair[asked]]]
        nonrel = t[grade[self._pending_pair[t]] < self.rel_level]
        self._priority[nonrel, self._pending[nonrel]] -= 1.0
        self._pending[t] = -1
        self._pending_pair[t] = -1

    def done(self) -> bool:
        """True when every document the runs retrieved (to ``depth``) is judged."""
        self._advance()
        return not bool((self._ptr < self._length).any())


def _check_rel_level(rel_level) -> int:
    if isinstance(rel_level, bool) or not isinstance(rel_level, (int, np.integer)):
        raise ParameterError("rel_level", "an integer", rel_level)
    return int(rel_level)
