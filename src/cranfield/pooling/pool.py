"""Building a judgment pool from runs: :func:`build_pool` and the :class:`Pool` it returns."""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from ..errors import InputError, ParameterError
from . import strategies
from .candidates import collect, contributions, pair_keys

FORMATS = ("pairs", "qrels")


@dataclass(frozen=True)
class Pool:
    """The (topic, document) pairs to judge.

    ``table`` has columns ``query_id`` and ``doc_id``, sorted by topic (byte order of
    the ids, as trec_eval orders topics) and then by document id (byte order).
    ``strategy`` is the canonical strategy, e.g. ``"depth(k=100)"``; ``runs`` names
    the runs pooled.
    """

    table: pa.Table
    strategy: str
    runs: tuple[str, ...] = ()

    def __len__(self) -> int:
        return self.table.num_rows

    def sizes(self) -> dict[str, int]:
        """``{topic: number of pooled documents}``, topics in order."""
        counts = self.table.group_by("query_id", use_threads=False).aggregate([("doc_id", "count")])
        counts = counts.sort_by("query_id")
        return dict(
            zip(counts["query_id"].to_pylist(), counts["doc_id_count"].to_pylist(), strict=True)
        )

    def pairs(self) -> list[tuple[str, str]]:
        return list(
            zip(self.table["query_id"].to_pylist(), self.table["doc_id"].to_pylist(), strict=True)
        )

    def to_bytes(self, format: str = "pairs") -> bytes:
        """``qid docid`` lines, or ``qid 0 docid -1`` lines (``format="qrels"``: pooled,
        not yet judged; trec_eval and cranfield read a negative grade that way)."""
        from ..core.io import trec

        if format not in FORMATS:
            raise ParameterError("format", "one of " + ", ".join(FORMATS), format)
        trec.check_writable_ids(self.table, "the pool")
        t = self.table
        cols = [t["query_id"], t["doc_id"]]
        if format == "qrels":
            cols = [t["query_id"], "0", t["doc_id"], "-1"]
        sink = io.BytesIO()
        if len(t):
            trec.write(t, sink, cols)
        return sink.getvalue()


def as_runs(runs) -> list:
    """Runs coerced as :func:`cranfield.evaluate` does; names must be distinct."""
    from ..core.evaluation import as_runs as coerce

    out = coerce(runs)
    names = [r.name for r in out]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise InputError(f"two runs are named {dup!r}; give each run a distinct name")
    return out


def build_pool(
    runs,
    strategy: str = "depth",
    *,
    qrels=None,
    per_group: int | None = None,
    groups=None,
    priority=None,
    allow_empty: bool = False,
    **params: Any,
) -> Pool:
    """Pool the documents of ``runs`` for judging, all topics at once.

    Parameters
    ----------
    runs
        A :class:`~cranfield.Run`, a path, a list of them or a ``{name: run}`` dict.
    strategy
        A registered strategy (see :data:`~cranfield.pooling.strategies.STRATEGIES`),
        written ``name`` or ``name(param=value, ...)``: ``depth(k=100)``,
        ``budget(n=500, order=rrf)``.
    qrels
        Incremental pooling: documents already in these judgments (any grade,
        including negative "pooled, unjudged" ones) are left out before the strategy
        chooses; budgets then count new documents only.
    per_group
        Pool at most this many runs of each group (participant), chosen by
        ``priority`` (``{run: int}``, smaller first), then in the order given.
    groups
        The group of each run: ``{run: group}``, or a separator (the group is the run
        name up to it, e.g. ``"-"``); needed with ``per_group``.
    priority
        ``{run: int}``, the participants' stated priorities (smaller first).
    allow_empty
        Return an empty pool instead of raising :class:`InputError`.
    **params
        Strategy parameters, overriding those of ``strategy`` (e.g. ``k=50``).

    Returns
    -------
    Pool

    Examples
    --------
    >>> from cranfield import sample
    >>> qrels, runs = sample.load()
    >>> pool = build_pool(list(runs.values()), "depth", k=10)
    >>> pool.strategy, len(pool.sizes())
    ('depth(k=10)', 40)
    """
    definition, resolved = strategies.parse(strategy, **params)
    run_list = as_runs(runs)
    if per_group is not None:
        from .groups import limit_runs

        if groups is None:
            raise ParameterError("groups", "a {run: group} mapping or a separator", None)
        run_list = limit_runs(run_list, per_group, groups, priority)
    cands = collect(run_list, definition.max_rank(resolved))
    if qrels is not None:
        from ..core.qrels import Qrels

        qrels = qrels if isinstance(qrels, Qrels) else Qrels.coerce(qrels)
        judged, _ = pair_keys(cands, qrels.table["query_id"], qrels.table["doc_id"])
        cands = cands.take(~np.isin(cands.key, judged))
    keys = strategies.select(definition, resolved, cands)
    table = cands.decode(keys)
    if table.num_rows == 0 and not allow_empty:
        why = (
            "every document the runs retrieved is already in the qrels"
            if qrels is not None
            else "the runs retrieved no documents"
        )
        raise InputError(f"the pool is empty: {why}")
    return Pool(table, strategies.canonical(definition, resolved), tuple(r.name for r in run_list))


def contributors(runs, k: int) -> tuple[pa.Table, list[str], np.ndarray]:
    """The depth-k pool with, for every pair, which runs put it in their top k.

    Returns ``(table, run names, matrix)``: ``table`` as :attr:`Pool.table`, and a
    boolean ``pairs x runs`` matrix (``matrix[i, j]``: run ``j`` ranked pair ``i`` at
    ``k`` or better).
    """
    check_depth(k)
    cands = collect(as_runs(runs), int(k))
    ukeys, matrix = contributions(cands)
    return cands.decode(ukeys), cands.names, matrix


def check_depth(k) -> int:
    """A pool depth: an integer >= 1, else :class:`ParameterError`."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ParameterError("depth", "an integer >= 1", k)
    return int(k)
