"""A judging order by minimal test collections for run files (``cranfield pool mtc``).

The runs' documents down to a depth, the judgments so far, and
:class:`~cranfield.pooling.mtc.MapJudging` (Carterette, Allan & Sitaraman 2006;
Carterette 2007): which run pairs are decided (sign-change probability of the mean
measure's difference below a threshold) and the (topic, document) pairs to judge next,
best first, while any pair is not. Every step is whole-array over the runs' rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import mtc
from .candidates import _plain, collect, pair_keys

__all__ = ["MtcOrder", "judging_order"]


@dataclass(frozen=True)
class MtcOrder:
    """The pairs to judge next and the state of every run pair.

    ``table``: ``query_id``, ``doc_id`` of the pairs to judge, best first, and their
    ``score`` (the sum over undecided run pairs of ``|w_i| / R_t``, the MTC weight);
    ``pairs``: ``(run_a, run_b)`` names; ``difference``, ``variance``, ``risk``: the
    expected mean-measure difference ``a - b``, its variance and the probability its
    sign changes; ``stop``: the threshold; ``unjudged``: pooled pairs not judged.
    """

    table: pa.Table
    pairs: list[tuple[str, str]]
    difference: np.ndarray
    variance: np.ndarray
    risk: np.ndarray
    stop: float
    unjudged: int

    @property
    def decided(self) -> np.ndarray:
        """Whether each run pair is decided: sign-change probability below ``stop``."""
        return self.risk < self.stop

    def to_bytes(self, format: str = "order") -> bytes:
        """``topic docno score`` lines (``order``), or as a pool is written (``pairs``:
        ``topic docno``; ``qrels``: ``topic 0 docno -1``), best first."""
        if format != "order":
            from .pool import Pool

            return Pool(self.table.select(["query_id", "doc_id"]), "mtc").to_bytes(format)
        return _lines(
            self.table,
            [self.table["query_id"], self.table["doc_id"], _shortest(self.table["score"])],
        )

    def decisions_bytes(self) -> bytes:
        """``run_a run_b difference sign_change_probability decided`` lines, one per run
        pair (decided: 1 or 0)."""
        names = pa.table(
            {
                "query_id": pa.array([a for a, _ in self.pairs], pa.string()),
                "doc_id": pa.array([b for _, b in self.pairs], pa.string()),
            }
        )
        cols = [
            names["query_id"],
            names["doc_id"],
            _shortest(self.difference),
            _shortest(self.risk),
            pa.array(self.decided.astype(np.int64).astype(str)),
        ]
        return _lines(names, cols, what="the run names")

    def summary(self) -> str:
        """One line: how many run pairs are decided and what is left to judge."""
        n, done = len(self.pairs), int(self.decided.sum())
        head = f"{done} of {n} run pairs decided (sign-change probability < {self.stop:g})"
        if done == n:
            return f"{head}: every run pair is decided, nothing left to judge"
        if self.unjudged == 0:
            return f"{head}; every pooled document is judged, {n - done} pair(s) stay undecided"
        return f"{head}; {len(self.table)} of {self.unjudged} unjudged pooled pairs to judge next"


def _shortest(values) -> pa.Array:
    """Floats as their shortest round-trip text (what the sampling frame writes)."""
    return pa.array(np.asarray(values, dtype=float), pa.float64()).cast(pa.string())


def _lines(table: pa.Table, cols: list, what: str = "the judging order") -> bytes:
    import io

    from ..core.io import trec

    trec.check_writable_ids(table, what)
    sink = io.BytesIO()
    if len(table):
        trec.write(table, sink, cols)
    return sink.getvalue()


def judging_order(
    runs,
    qrels=None,
    *,
    measure: str = "AP",
    depth: int = 100,
    batch: int = 100,
    stop: float = 0.05,
    prior: float | str = 0.5,
    rel_level: int = 1,
) -> MtcOrder:
    """The next ``batch`` (topic, document) pairs to judge to decide every run pair.

    Parameters
    ----------
    runs
        At least two runs (:class:`~cranfield.Run`, or what :func:`cranfield.evaluate`
        takes), ranked as trec_eval ranks them; each cut at ``depth``.
    qrels
        Judgments so far (:class:`~cranfield.Qrels`): a grade ``>= rel_level`` is
        relevant, a negative grade is pooled-unjudged; judged documents no run retrieved
        down to ``depth`` count, if relevant, in ``R_t`` (AP).
    measure
        ``AP`` (MAP), ``P@k`` or ``DCG@k`` (binary gains) averaged over the runs' topics.
    batch
        Pairs written: the ``batch`` unjudged pairs of largest MTC weight (the greedy
        batch in which the documents not yet judged keep their prior); none when every
        run pair is decided.
    stop
        A run pair is decided when its sign-change probability is below ``stop``.
    prior
        Probability of relevance of an unjudged document (0.5: the paper's), or
        ``"ranks"``: fitted to the judgments from the documents' ranks
        (:func:`~cranfield.pooling.mtc.rank_prior`).
    """
    from .pool import as_runs

    runs = as_runs(runs)
    state, cands, ukeys, first = build_state(
        runs, qrels, measure=measure, depth=depth, prior=prior, rel_level=rel_level
    )
    difference, variance = state.moments()
    risk = mtc.sign_change_probabilities(difference, variance)
    open_ = risk >= stop
    state.set_open(open_)
    unjudged = int((state.judged[:, :-1] < 0).sum())
    count = batch if open_.any() else 0
    t, d, score = state.next_judgments(count)
    key = ukeys[first[t] + d] if len(t) else np.zeros(0, dtype=np.int64)
    table = cands.decode(key).append_column("score", pa.array(score, pa.float64()))
    names = [r.name for r in runs]
    pairs = [(names[a], names[b]) for a, b in state.pairs]
    return MtcOrder(table, pairs, difference, variance, risk, stop, unjudged)


def build_state(
    runs, qrels=None, *, measure="AP", depth=100, prior: float | str = 0.5, rel_level=1
):
    """The :class:`~cranfield.pooling.mtc.MapJudging` state of ``runs`` (cut at
    ``depth``) and the judgments ``qrels``, with what maps its (topic, document) codes
    back to ids: ``(state, candidates, pooled pair keys, first key of each topic)``.
    ``prior="ranks"``: :func:`~cranfield.pooling.mtc.rank_prior` fitted to ``qrels``
    (0.5 until it has 10 relevant and 10 non-relevant judgments)."""
    from .pool import as_runs

    name, k = mtc.measure_spec(measure)
    runs = as_runs(runs)
    cands = collect(runs, max_rank=depth)
    ukeys, local = np.unique(cands.key, return_inverse=True)
    n_docs = np.int64(max(len(cands.docs), 1))
    topic_of_key = ukeys // n_docs
    topics, first, sizes = np.unique(topic_of_key, return_index=True, return_counts=True)
    topic_index = np.searchsorted(topics, topic_of_key)
    doc_local = np.arange(len(ukeys)) - first[topic_index]
    local = local.ravel()
    rows = (topic_index[local], cands.run, cands.rank, doc_local[local])
    judged, outside = _judged(cands, qrels, ukeys, topics, rel_level)
    cells = len(sizes) * len(runs) * (int(sizes.max(initial=0)) + 1)
    if cells > mtc.MAX_CELLS:
        from ..errors import ParameterError

        raise ParameterError(
            "--depth",
            f"a smaller depth or fewer runs: {len(sizes)} topics x {len(runs)} runs x "
            f"{int(sizes.max())} pooled documents (the largest topic) is more than MTC's "
            f"{mtc.MAX_CELLS:,} cells",
            depth,
        )
    state = mtc.MapJudging.from_rows(
        rows,
        len(runs),
        sizes,
        (topic_index[judged[0]], doc_local[judged[0]], judged[1]),
        measure=name,
        k=k,
        prior=0.5 if prior == "ranks" else prior,
        outside=outside,
    )
    if prior == "ranks":
        fitted = mtc.rank_prior(state.ranks, state.judged)
        if fitted is not None:
            state = state.with_prior(fitted)
    return state, cands, ukeys, first


def _judged(cands, qrels, ukeys, topics, rel_level):
    """``((positions in ukeys, relevance 0/1), relevant judged outside the pool per
    topic)`` from the judgments; pairs of topics no run answered are left out."""
    empty = np.zeros(0, dtype=np.int64)
    outside = np.zeros(len(topics))
    if qrels is None or len(qrels) == 0:
        return (empty, empty), outside
    t = qrels.table
    grade = np.asarray(t["relevance"].to_numpy(zero_copy_only=False), dtype=float)
    keys, known = pair_keys(cands, t["query_id"], t["doc_id"])
    grade_known = grade[known]
    position = np.searchsorted(ukeys, keys)
    inside = (position < len(ukeys)) & (ukeys[np.minimum(position, len(ukeys) - 1)] == keys)
    judged = inside & (grade_known >= 0)
    rel = (grade_known >= rel_level).astype(np.int64)
    # relevant documents outside the pool: their topic's code, if some run answered it
    qi = pc.index_in(_plain(t["query_id"]), value_set=cands.queries)
    qcode = np.asarray(qi.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)
    in_pool = np.zeros(len(grade), dtype=bool)
    in_pool[np.flatnonzero(known)[inside]] = True
    out = (~in_pool) & (grade >= rel_level) & (qcode >= 0)
    where = np.searchsorted(topics, qcode[out])
    hit = (where < len(topics)) & (topics[np.minimum(where, len(topics) - 1)] == qcode[out])
    np.add.at(outside, where[hit], 1.0)
    return (position[judged], rel[judged]), outside
