"""Ranked binary-relevance measures beyond trec_eval: summaries of the
precision-recall curve and ir_measures' Judged@k.

Every ranked document k of a query has a precision-recall point
``p_k = relret_k / k``, ``r_k = relret_k / R`` (the sawtooth curve; Manning, Raghavan &
Schütze 2008, sec. 8.4).
R-precision at a recall threshold, system efficiency and the area under the curve
summarise those points. A query with R = 0 has no curve and scores 0.
"""

from __future__ import annotations

import math

from ..._lazy import lazy
from .. import segments
from .common import count_at, in_top, level, safe_div
from .precision import JUDGED_ONLY, REL
from .registry import Param, measure

np = lazy("numpy", __name__, "np")

WEBER = "Weber, Multimedia Retrieval, lecture notes (Univ. Basel 2019 ch. 1.4, 2024 sec. 2.3)"


def pr_points(jr, lv, cutoff=None):
    """Precision, recall and a validity mask of every ranked document (ranks <= cutoff).

    Recall is NaN-free: where R = 0 it is 0 and the mask is False.
    """
    relevant = jr.relevant(lv)
    so_far = segments.int_cumsum(relevant, jr.offsets)
    num_rel = jr.num_rel(lv)[jr.segment]
    precision = so_far / jr.rank.astype(np.float64)
    recall = safe_div(so_far, num_rel)
    valid = in_top(jr, cutoff) & (num_rel > 0)
    return precision, recall, valid, relevant


@measure(
    name="PrecAtRecall",
    aliases=("RPrecAtRecall", "RP"),
    summary="R-precision at a recall threshold: the best precision once recall r_t is reached.",
    formula="RP@r_t = max_{k : r_k >= r_t} p_k (interpolated=True); "
    "p_k at the first k with r_k >= r_t (interpolated=False); 0 if "
    "recall never reaches r_t",
    citation=WEBER,
    params=(
        REL,
        Param(
            "interpolated",
            bool,
            True,
            "take the maximum precision at or after the threshold "
            "instead of the precision where it is first reached",
        ),
        JUDGED_ONLY,
    ),
    cutoff="recall",
    cutoff_required=True,
    edge_cases="0 when R = 0 or when the ranking never reaches recall r_t. Recall is "
    "compared exactly (relret/R >= r_t), unlike IPrec which rounds r_t*R as trec_eval.",
)
def prec_at_recall(jr, cutoff, rel=None, interpolated=True):
    precision, recall, valid, _ = pr_points(jr, level(jr, rel))
    reached = valid & (recall >= cutoff)
    out = np.zeros(jr.num_queries, dtype=np.float64)
    if interpolated:
        np.maximum.at(out, jr.segment[reached], precision[reached])
        return out
    big = np.iinfo(np.int64).max
    first = np.full(jr.num_queries, big, dtype=np.int64)
    idx = np.flatnonzero(reached)
    np.minimum.at(first, jr.segment[idx], idx)
    has = first < big
    out[has] = precision[first[has]]
    return out


@measure(
    name="Efficiency",
    aliases=("SystemEfficiency", "E_sys"),
    summary="System efficiency: 1 - (distance of the closest precision-recall point to (1, 1)) / sqrt 2.",
    formula="E = 1 - d / sqrt(2), d = min_{k <= cutoff} sqrt((1 - p_k)^2 + (1 - r_k)^2)",
    citation=WEBER,
    params=(REL, JUDGED_ONLY),
    cutoff="rank",
    edge_cases="0 when R = 0 or the ranking is empty (no point on the curve).",
)
def efficiency(jr, cutoff, rel=None):
    precision, recall, valid, _ = pr_points(jr, level(jr, rel), cutoff)
    dist = np.sqrt((1.0 - precision) ** 2 + (1.0 - recall) ** 2)
    best = np.full(jr.num_queries, np.inf)
    np.minimum.at(best, jr.segment[valid], dist[valid])
    return np.where(np.isfinite(best), 1.0 - best / math.sqrt(2.0), 0.0)


@measure(
    name="AUPRC",
    aliases=("AUC_PR", "PRAUC"),
    summary="Area under the precision-recall curve (interpolated step curve or trapezoids).",
    formula="method='interpolated': (1/R) sum_{relevant d_k, k <= cutoff} max_{j >= k} p_j; "
    "method='trapezoid': (1/R) sum_{relevant d_k} (p_{k-1} + p_k) / 2 with p_0 = 1 "
    "(linear interpolation between consecutive points, starting at (0, p_1))",
    citation=WEBER + "; Manning, Raghavan & Schütze 2008, sec. 8.4 (interpolated precision)",
    params=(
        REL,
        Param(
            "method",
            str,
            "interpolated",
            "curve whose area is taken: the interpolated step curve or the sawtooth "
            "joined by straight lines",
            choices=("interpolated", "trapezoid"),
        ),
        JUDGED_ONLY,
    ),
    cutoff="rank",
    edge_cases="0 when R = 0. Relevant documents not retrieved add no area (precision is "
    "0 beyond the last relevant document found).",
)
def auprc(jr, cutoff, rel=None, method="interpolated"):
    lv = level(jr, rel)
    precision, _, valid, relevant = pr_points(jr, lv, cutoff)
    hit = relevant & valid
    if method == "interpolated":
        capped = np.where(in_top(jr, cutoff), precision, -np.inf)
        height = segments.reverse_cummax(capped, jr.offsets)
    else:
        previous = np.concatenate(([1.0], precision[:-1]))
        previous = np.where(jr.rank == 1, 1.0, previous)
        height = (previous + precision) / 2.0
    total = segments.sequential_sum(np.where(hit, height, 0.0), jr.offsets)
    return safe_div(total, jr.num_rel(lv))


@measure(
    name="Judged",
    summary="Fraction of the top k that has a judgment (ir_measures' Judged@k).",
    formula="Judged@k = |documents of the top min(k, n) present in the qrels| / min(k, n), "
    "n = ranking length",
    citation="ir_measures 0.4 (MacAvaney et al., ECIR 2022), Judged; OpenNIR",
    cutoff="rank",
    edge_cases="The denominator is min(k, n), the documents actually retrieved, not k (as "
    "ir_measures, unlike P@k): a ranking of 3 documents, 2 of them judged, has Judged@10 = "
    "2/3, not 0.2. 0 for an empty ranking. A document with a negative qrels grade counts as "
    "judged (it is in the qrels), as in ir_measures. Without a cutoff the whole ranking.",
    fractional="judged",
)
def judged_at(jr, cutoff):
    from ..judged import NOT_POOLED  # (judged.py loads PyArrow: on first use)

    judged = jr.labels != NOT_POOLED
    if cutoff is None:
        return safe_div(segments.int_sum(judged, jr.offsets), jr.num_ret)
    return safe_div(count_at(jr, judged, cutoff), np.minimum(jr.num_ret, cutoff))
