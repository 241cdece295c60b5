"""Precision-recall curves as data (Manning, Raghavan & Schütze 2008, sec. 8.4).

* :func:`pr_points` — the sawtooth: precision and recall at every rank of every query,
  ``p_k = relret_k / k`` and ``r_k = relret_k / R``.
* :func:`interpolated_precision` — ``P_interp(r) = max {p_k : r_k >= r}`` at any grid
  of recall levels (the standard 11 points by default), 0 where recall r is never
  reached. Two conventions: ``"textbook"`` compares recall exactly (the textbook
  definition); ``"trec_eval"`` is trec_eval's ``iprec_at_recall``, which rounds
  ``r * R`` to a number of documents.
* :func:`average_at_ranks` — the first averaging: mean precision and mean recall
  over queries at rank cut-offs 5, 10, 15, ...
* :func:`average_interpolated` — the second averaging: mean interpolated
  precision over queries at fixed recall levels ("vertical" averaging).

Every function takes qrels and a run (anything :func:`cranfield.evaluate` accepts for
one run) and returns a dict of NumPy arrays (columns of equal length), or a pandas
DataFrame with ``as_frame=True``. Queries without relevant documents have no curve:
they are left out of the points and contribute precision and recall 0 to the averages
unless ``skip_no_relevant=True``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core import segments
from ..core.judged import JudgedRun, judge
from ..core.measures.common import safe_div
from ..errors import ParameterError

ELEVEN_POINTS = tuple(i / 10 for i in range(11))
DEFAULT_RANKS = tuple(range(5, 105, 5))

__all__ = [
    "CONVENTIONS",
    "ELEVEN_POINTS",
    "average_at_ranks",
    "average_interpolated",
    "interpolated_precision",
    "pr_points",
]


def _judged(qrels, run, rel_level, depth, judged_only) -> JudgedRun:
    if isinstance(qrels, JudgedRun):
        return qrels
    from ..core.qrels import Qrels
    from ..core.run import Run

    qrels = qrels if isinstance(qrels, Qrels) else Qrels.coerce(qrels)
    run = run if isinstance(run, Run) else Run.coerce(run)
    return judge(qrels, run, rel_level=rel_level, depth=depth, judged_only=judged_only)


def _select(jr: JudgedRun, query) -> np.ndarray:
    """Boolean mask of the queries to report."""
    if query is None:
        return np.ones(jr.num_queries, dtype=bool)
    mask = jr.query_ids == str(query)
    if not mask.any():
        raise ParameterError("query", "a query id evaluated in the run and the qrels", query)
    return mask


def _output(columns: dict, as_frame: bool):
    if not as_frame:
        return columns
    from ..errors import require

    pd = require("pandas", "pandas")
    return pd.DataFrame(columns)


def _levels(recall: Sequence[float] | float) -> np.ndarray:
    levels = np.atleast_1d(np.asarray(recall, dtype=np.float64))
    if levels.ndim != 1 or not len(levels) or not np.all((levels >= 0) & (levels <= 1)):
        raise ParameterError("recall", "recall levels in [0, 1]", recall)
    return levels


def pr_points(
    qrels,
    run=None,
    *,
    query: str | None = None,
    rel_level: int = 1,
    depth: int | None = None,
    judged_only: bool = False,
    as_frame: bool = False,
):
    """Precision and recall at every rank (the sawtooth curve).

    Parameters
    ----------
    qrels, run
        Judgments and one run (objects, paths or dicts), or a
        :class:`~cranfield.core.judged.JudgedRun` as ``qrels`` and no run.
    query
        Report only this query.
    rel_level, depth, judged_only
        As in :func:`cranfield.evaluate`.
    as_frame
        Return a pandas DataFrame instead of a dict of arrays.

    Returns
    -------
    Columns ``query_id``, ``rank``, ``relevant`` (bool), ``precision``, ``recall``;
    one row per ranked document of every query with at least one relevant document.
    """
    jr = _judged(qrels, run, rel_level, depth, judged_only)
    keep_q = _select(jr, query) & (jr.num_rel() > 0)
    relevant = jr.relevant()
    so_far = segments.int_cumsum(relevant, jr.offsets)
    rows = keep_q[jr.segment]
    num_rel = jr.num_rel()[jr.segment]
    columns = {
        "query_id": jr.query_ids[jr.segment][rows],
        "rank": jr.rank[rows],
        "relevant": relevant[rows],
        "precision": (so_far / jr.rank.astype(np.float64))[rows],
        "recall": safe_div(so_far, num_rel)[rows],
    }
    return _output(columns, as_frame)


# interpolation conventions, with the words figure captions use for them
CONVENTIONS = {
    "textbook": "textbook interpolation at exact recall levels "
    "(Manning, Raghavan & Schütze 2008, sec. 8.4)",
    "trec_eval": "trec_eval's iprec_at_recall (r·R rounded to whole relevant documents)",
}


def check_convention(convention: str) -> str:
    """``convention`` if it is one of :data:`CONVENTIONS`, else a ParameterError."""
    if not isinstance(convention, str) or convention not in CONVENTIONS:
        raise ParameterError("convention", "'textbook' or 'trec_eval'", convention)
    return convention


def _interpolated(jr: JudgedRun, levels: np.ndarray, convention: str) -> np.ndarray:
    """Interpolated precision (queries x levels) in either convention: trec_eval's is
    the ``IPrec`` measure at each level, computed by the engine."""
    if convention == "trec_eval":
        columns = _engine_columns(jr, [("IPrec", float(r)) for r in levels])
        return np.column_stack(columns) if columns else np.zeros((jr.num_queries, 0))
    return _textbook(jr, levels)


def _engine_columns(jr: JudgedRun, measures: list[tuple[str, float]]) -> list[np.ndarray]:
    """Per-query values of ``(family, cutoff)`` measures on ``jr``, by the engine
    (:func:`cranfield.core.measures.engine.compute_many`)."""
    from ..core.measures.engine import compute_many
    from ..core.measures.registry import Measure

    return compute_many([Measure.of(name, cutoff=cutoff) for name, cutoff in measures], jr)


def _textbook(jr: JudgedRun, levels: np.ndarray) -> np.ndarray:
    """Interpolated precision at exact recall levels: max {p_k : relret_k / R >= r}."""
    relevant = jr.relevant()
    so_far = segments.int_cumsum(relevant, jr.offsets)
    interp = segments.reverse_cummax(so_far / jr.rank.astype(np.float64), jr.offsets)
    num_rel = jr.num_rel().astype(np.float64)
    found = segments.int_sum(relevant, jr.offsets)
    # c = fewest relevant documents with c / R >= r, checked with the same division
    # that computes recall so that 3/5 >= 0.6 holds exactly
    r = num_rel[:, None]
    c = np.ceil(levels[None, :] * r)
    lower = c - 1
    c = np.where((lower >= 0) & (safe_div(lower, r) >= levels[None, :]), lower, c)
    c = np.where(safe_div(c, r) < levels[None, :], c + 1, c).astype(np.int64)
    ok = (r > 0) & (c <= found[:, None]) & (jr.num_ret[:, None] > 0)
    # rank position of the c-th relevant document (c = 0: the first rank)
    rel_pos = np.flatnonzero(relevant)
    rel_start = np.concatenate(([0], np.cumsum(found)))
    out = np.zeros((jr.num_queries, len(levels)), dtype=np.float64)
    q_idx, l_idx = np.nonzero(ok)
    cc = c[q_idx, l_idx]
    pos = np.where(
        cc > 0,
        rel_pos[np.minimum(rel_start[q_idx] + cc - 1, max(len(rel_pos) - 1, 0))]
        if len(rel_pos)
        else 0,
        jr.offsets[:-1][q_idx],
    )
    out[q_idx, l_idx] = interp[pos]
    return out


def interpolated_precision(
    qrels,
    run=None,
    recall: Sequence[float] | float = ELEVEN_POINTS,
    *,
    query: str | None = None,
    rel_level: int = 1,
    depth: int | None = None,
    judged_only: bool = False,
    convention: str = "textbook",
    as_frame: bool = False,
):
    """Interpolated precision of every query at recall levels.

    ``convention="textbook"`` (default): ``P_interp(r) = max {p_k : r_k >= r}`` over
    the ranks k of the query, recall compared exactly (Manning, Raghavan & Schütze 2008,
    sec. 8.4; zero once no more relevant documents are found).

    ``convention="trec_eval"``: trec_eval's ``iprec_at_recall`` (the ``IPrec``
    measure, one implementation): the level r asks for ``c = round(r * R)`` relevant
    documents (half away from zero) and takes the maximum precision from the rank of
    the c-th one on, 0 when fewer than c were retrieved. The two differ when ``r * R``
    is not a whole number of documents.

    Returns
    -------
    Columns ``query_id``, ``recall``, ``precision``: one row per query (with at least
    one relevant document) and recall level.
    """
    levels, convention = _levels(recall), check_convention(convention)
    jr = _judged(qrels, run, rel_level, depth, judged_only)
    keep_q = _select(jr, query) & (jr.num_rel() > 0)
    values = _interpolated(jr, levels, convention)[keep_q]
    n = int(keep_q.sum())
    columns = {
        "query_id": np.repeat(jr.query_ids[keep_q], len(levels)),
        "recall": np.tile(levels, n),
        "precision": values.reshape(-1),
    }
    return _output(columns, as_frame)


def _keep(jr: JudgedRun, skip_no_relevant: bool) -> np.ndarray:
    return jr.num_rel() > 0 if skip_no_relevant else np.ones(jr.num_queries, dtype=bool)


def average_at_ranks(
    qrels,
    run=None,
    ranks: Sequence[int] = DEFAULT_RANKS,
    *,
    rel_level: int = 1,
    depth: int | None = None,
    judged_only: bool = False,
    skip_no_relevant: bool = False,
    as_frame: bool = False,
):
    """Mean precision and mean recall over queries at rank cut-offs.

    ``P(k) = mean_q P_q@k`` and ``R(k) = mean_q R_q@k`` (missing ranks count as
    non-relevant, as P@k). Simple but sensitive to outliers.

    Returns
    -------
    Columns ``rank``, ``precision``, ``recall``.
    """
    ks = np.asarray(ranks)
    if ks.ndim != 1 or not len(ks) or not np.all((ks >= 1) & (ks == np.floor(ks))):
        raise ParameterError("ranks", "positive integer ranks", ranks)
    jr = _judged(qrels, run, rel_level, depth, judged_only)
    keep = _keep(jr, skip_no_relevant)
    ks = ks.astype(np.int64)
    # P@k and R@k of every query, by the engine (its P@k is hits / k: the hits are
    # whole numbers, recovered exactly by rounding)
    columns = _engine_columns(jr, [(name, int(k)) for k in ks for name in ("P", "R")])
    precision, recall = [], []
    for k, p_at, r_at in zip(ks, columns[::2], columns[1::2], strict=True):
        hits = np.rint(p_at[keep] * k)
        precision.append(hits.sum() / (k * keep.sum()) if keep.any() else 0.0)
        recall.append(r_at[keep].mean() if keep.any() else 0.0)
    columns = {
        "rank": ks.astype(np.int64),
        "precision": np.asarray(precision, dtype=np.float64),
        "recall": np.asarray(recall, dtype=np.float64),
    }
    return _output(columns, as_frame)


def average_interpolated(
    qrels,
    run=None,
    recall: Sequence[float] | float = ELEVEN_POINTS,
    *,
    rel_level: int = 1,
    depth: int | None = None,
    judged_only: bool = False,
    skip_no_relevant: bool = False,
    convention: str = "textbook",
    as_frame: bool = False,
):
    """Mean interpolated precision over queries at fixed recall levels.

    The "vertical" average: at each recall level, the mean of the queries'
    interpolated precisions. More robust to outliers than :func:`average_at_ranks`.
    ``convention`` as in :func:`interpolated_precision` (``"trec_eval"``: the mean of
    ``iprec_at_recall``).

    Returns
    -------
    Columns ``recall``, ``precision``.
    """
    levels, convention = _levels(recall), check_convention(convention)
    jr = _judged(qrels, run, rel_level, depth, judged_only)
    keep = _keep(jr, skip_no_relevant)
    values = _interpolated(jr, levels, convention)[keep]
    mean = values.mean(axis=0) if len(values) else np.zeros(len(levels))
    return _output({"recall": levels, "precision": mean}, as_frame)
