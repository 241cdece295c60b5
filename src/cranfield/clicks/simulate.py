"""Simulated click logs: from a fitted click model, or from graded relevance (qrels).

Clicks are drawn rank by rank from the model's conditional click probabilities
``P(C_r = 1 | C_<r)`` (the chain rule), so a session has exactly the model's joint
distribution. Everything is drawn from ``numpy.random.default_rng(seed)``.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import ParameterError
from .fitted import FittedClickModel
from .log import MAX_RANKS, ClickLog
from .models import Matrices
from .registry import QRELS_MODELS, get


def simulate(model: FittedClickModel, template: ClickLog, seed: int | None = None) -> ClickLog:
    """``template``'s sessions (queries and result lists) with clicks drawn from ``model``.

    The clicks are drawn by the model's declaration (``draw``, :class:`~.registry.
    ClickModel`): cascade-family models draw the examination chain itself (a click needs
    an examined, attractive document; the user goes on with ``c_click`` or ``c_skip``);
    UBM draws rank by rank with ``gamma`` indexed by the last click drawn; the others
    draw every rank independently.
    """
    rng = np.random.default_rng(seed)
    index = model.index(template)
    blank = ClickLog(
        template.query,
        template.docs,
        np.zeros(template.docs.shape, dtype=bool),
        template.query_names,
        template.doc_names,
    )
    clicks = get(model.name).draw(Matrices(model.params, index, blank), rng)
    return ClickLog(
        template.query,
        template.docs,
        clicks,
        template.query_names,
        template.doc_names,
        None,
        template.user,
        "<simulated>",
    )


def shuffled_sessions(
    lists: dict[str, list[str]],
    n_sessions: int,
    depth: int,
    seed: int | None = None,
    weights=None,
) -> ClickLog:
    """``n_sessions`` sessions without clicks: a query drawn uniformly (or in proportion
    to ``weights``, one per query of ``lists``), its documents in a random order, the
    first ``depth`` shown (a template for :func:`simulate`)."""
    if isinstance(n_sessions, bool) or not isinstance(n_sessions, int) or n_sessions < 1:
        raise ParameterError("sessions", "an integer >= 1", n_sessions)
    if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= MAX_RANKS:
        raise ParameterError("depth", f"an integer in [1, {MAX_RANKS}]", depth)
    rng = np.random.default_rng(seed)
    queries = list(lists)
    if not queries or any(not v for v in lists.values()):
        raise ParameterError("lists", "at least one query, each with documents", len(queries))
    doc_names = sorted({d for docs in lists.values() for d in docs})
    code = {d: i for i, d in enumerate(doc_names)}
    width = max(len(v) for v in lists.values())
    table = np.full((len(queries), width), -1, dtype=np.int64)
    sizes = np.array([len(lists[q]) for q in queries])
    for i, q in enumerate(queries):  # one row per query, not per session
        table[i, : sizes[i]] = [code[d] for d in lists[q]]
    if weights is None:
        query = rng.integers(0, len(queries), n_sessions)
    else:
        w = np.asarray(weights, dtype=float)
        if w.shape != (len(queries),) or not (np.isfinite(w) & (w >= 0)).all() or w.sum() <= 0:
            raise ParameterError("weights", "one number >= 0 per query, not all 0", weights)
        query = rng.choice(len(queries), n_sessions, p=w / w.sum())
    keys = rng.random((n_sessions, width))
    keys[np.arange(width)[None, :] >= sizes[query][:, None]] = np.inf
    order = np.argsort(keys, axis=1)[:, :depth]
    docs = np.take_along_axis(table[query], order, axis=1)
    docs = np.where(np.arange(docs.shape[1])[None, :] < sizes[query][:, None], docs, -1)
    return ClickLog(
        query,
        docs,
        np.zeros(docs.shape, dtype=bool),
        np.asarray(queries, dtype=object),
        np.asarray(doc_names, dtype=object),
    )


def from_qrels(
    qrels: dict[str, dict[str, int]],
    model: str = "pbm",
    *,
    position_bias: float = 1.0,
    gamma: float = 0.9,
    max_rank: int = 10,
) -> FittedClickModel:
    """A click model whose parameters come from graded judgments.

    Attractiveness (and, for SDBN/DBN, satisfaction) of a document of grade ``g`` is
    ``(2^g - 1) / 2^g_max`` (Chapelle, Metzler, Zhang & Grinspan 2009, the ERR
    mapping); the model's declaration (``from_qrels``) builds the rest: PBM examines
    rank ``r`` with ``1 / r^position_bias`` (a power-law position bias, as in Craswell
    et al. 2008's experiments); DBN goes on with ``gamma``.
    """
    declared = get(model, QRELS_MODELS)
    if not (
        isinstance(position_bias, (int, float))
        and math.isfinite(position_bias)
        and 0 <= position_bias <= 10
    ):
        raise ParameterError("position_bias", "a number in [0, 10]", position_bias)
    if not (isinstance(gamma, (int, float)) and 0 <= gamma <= 1):
        raise ParameterError("gamma", "a number in [0, 1]", gamma)
    pq, pd, grades = [], [], []
    for q, docs in qrels.items():
        for d, g in docs.items():
            pq.append(str(q))
            pd.append(str(d))
            grades.append(max(int(g), 0))
    if not grades:
        raise ParameterError("qrels", "at least one judged document", 0)
    g = np.asarray(grades, dtype=float)
    gmax = max(g.max(), 1.0)
    alpha = (np.exp2(g) - 1) / np.exp2(gmax)
    params = declared.from_qrels(alpha, position_bias, gamma, max_rank)
    n = len(grades)
    return FittedClickModel(
        declared.name,
        params,
        np.asarray(pq, dtype=object),
        np.asarray(pd, dtype=object),
        np.zeros(n, dtype=np.int64),
        np.zeros(n, dtype=np.int64),
        frozenset(pq),
    )
