"""Relevance from clicks: per (query, document) estimates with their support.

For a fitted model: ``attractiveness`` (``alpha_qd``, the click probability of an
examined document), ``satisfaction`` (``sigma_qd``, for SDBN and DBN) and
``relevance``: ``alpha_qd * sigma_qd`` where the model has satisfaction (DBN's
definition, Chapelle & Zhang 2009), else ``alpha_qd``. ``impressions`` and ``clicks``
are the training support. Grades: the number of ``thresholds`` the relevance reaches.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import ParameterError
from .fitted import FittedClickModel


def estimates(model: FittedClickModel) -> dict[str, np.ndarray]:
    """Columns ``query, doc, attractiveness, satisfaction, relevance, impressions,
    clicks`` (satisfaction NaN when the model has none), sorted by query then doc."""
    pair = model.params.pair
    n = len(model.pair_query)
    if "attractiveness" not in pair:
        raise ParameterError(
            "click model", "a model with per-document parameters (not gctr or rctr)", model.name
        )
    a = pair["attractiveness"]
    s = pair.get("satisfaction", np.full(n, np.nan))
    rel = a * s if "satisfaction" in pair else a.copy()
    order = np.lexsort((model.pair_doc.astype(str), model.pair_query.astype(str)))
    return {
        "query": model.pair_query[order],
        "doc": model.pair_doc[order],
        "attractiveness": a[order],
        "satisfaction": s[order],
        "relevance": rel[order],
        "impressions": model.impressions[order],
        "clicks": model.clicks[order],
    }


def grades(relevance: np.ndarray, thresholds: list[float]) -> np.ndarray:
    """Grade = how many of the (increasing) ``thresholds`` the value reaches."""
    t = np.asarray(thresholds, dtype=float)
    if t.ndim != 1 or t.size == 0 or not np.isfinite(t).all() or (np.diff(t) <= 0).any():
        raise ParameterError("thresholds", "increasing finite numbers", list(thresholds))
    return np.searchsorted(t, relevance, side="right").astype(np.int64)


def qrels_lines(est: dict, thresholds: list[float] | None, min_impressions: int = 1) -> str:
    """TREC qrels text ``query 0 doc grade`` (integer grades by ``thresholds``) or,
    without thresholds, ``query 0 doc value`` with the continuous relevance."""
    if (
        isinstance(min_impressions, bool)
        or not isinstance(min_impressions, int)
        or min_impressions < 1
    ):
        raise ParameterError("min_impressions", "an integer >= 1", min_impressions)
    keep = est["impressions"] >= min_impressions
    values = est["relevance"][keep]
    if thresholds is not None:
        cells = [str(g) for g in grades(values, thresholds)]
    else:
        cells = [_num(v) for v in values]
    return "".join(
        f"{q} 0 {d} {c}\n"
        for q, d, c in zip(est["query"][keep], est["doc"][keep], cells, strict=True)
    )


def _num(v: float) -> str:
    return "nan" if not math.isfinite(v) else f"{v:.6g}"
