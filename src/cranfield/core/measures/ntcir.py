"""Sakai's graded measures as NTCIREVAL computes them: Q-measure and nERR
(NTCIREVAL, Sakai; checked against pyNTCIREVAL, its Python port).

A grade's gain is the grade itself unless ``gains`` maps it (NTCIREVAL's ``-g``
gain values per relevance level; ``gains='1=1,2=2,3=3'`` is ``-g 1:2:3``); a document
is relevant when its grade is positive; unjudged documents gain 0.

Q-measure (Sakai 2004; Sakai & Song 2011): the blended ratio at each relevant rank r,
BR(r) = (C(r) + beta cg(r)) / (r + beta cg*(r)), where C(r) counts the relevant
documents in the top r, cg(r) their cumulated gain and cg*(r) that of the ideal
ranking (the relevant judgments by gain), averaged over min(R, k) for R relevant
judgments. nERR@k (Sakai & Song 2011): ERR with the stop probability
r = g / (g_max + 1), g_max the gain of the top level (the largest gain in the qrels),
over the ERR of the ideal ranking (every judgment by gain) at the same depth.
"""

from __future__ import annotations

from ..._lazy import lazy
from .. import segments
from .gain import GAINS, gain_of
from .registry import Param, measure, number_in

np = lazy("numpy", __name__, "np")

SAKAI_Q = (
    "Sakai, 'New performance metrics based on multigrade relevance: their application to "
    "question answering', NTCIR-4 2004; Sakai & Song, 'Evaluating diversified search "
    "results using per-intent graded relevance', SIGIR 2011; NTCIREVAL (pyNTCIREVAL 0.0.3)"
)
SAKAI_NERR = (
    "Chapelle, Metzler, Zhang & Grinspan, CIKM 2009; Sakai & Song, 'Evaluating "
    "diversified search results using per-intent graded relevance', SIGIR 2011; NTCIREVAL "
    "(pyNTCIREVAL 0.0.3)"
)


def _ideal(jr, gains, relevant_only: bool):
    """The judged gains of each query, largest first, and their offsets."""
    grades = jr.qrels_grades
    keep = grades > 0 if relevant_only else np.ones(len(grades), dtype=bool)
    seg = segments.segment_ids(jr.qrels_offsets)[keep]
    g = gain_of(grades, gains)[keep]
    order = np.lexsort((-g, seg))
    counts = np.bincount(seg, minlength=jr.num_queries)
    return g[order], np.concatenate(([0], np.cumsum(counts))).astype(np.int64)


@measure(
    name="Q_measure",
    summary="Sakai's Q-measure: the blended ratio of precision and cumulated gain at each "
    "relevant rank, averaged over the relevant documents.",
    formula="Q@k = (1 / min(R, k)) sum_{relevant r <= k} (C(r) + beta cg(r)) / (r + beta cg*(r))",
    citation=SAKAI_Q,
    params=(
        GAINS,
        Param("beta", float, 1.0, "the weight of cumulated gain", **number_in(0, 1e6)),
    ),
    cutoff="rank",
    edge_cases="0 for a query without a relevant judgment. With beta = 0 it is AP.",
    family="graded",
)
def q_measure(jr, cutoff, gains=(), beta=1.0):
    g = gain_of(jr.labels, gains)
    relevant = jr.labels > 0
    cg = segments.sequential_cumsum(g, jr.offsets)
    relnum = segments.int_cumsum(relevant, jr.offsets).astype(np.float64)
    best, starts = _ideal(jr, gains, True)
    r_count = np.diff(starts)
    icum = segments.sequential_cumsum(best, starts)
    upto = np.minimum(jr.rank, r_count[jr.segment])
    icg = np.where(upto > 0, icum[np.maximum(starts[jr.segment] + upto - 1, 0)], 0.0)
    denom = r_count if cutoff is None else np.minimum(r_count, cutoff)
    top = relevant if cutoff is None else relevant & (jr.rank <= cutoff)
    with np.errstate(divide="ignore", invalid="ignore"):
        blended = (relnum + beta * cg) / (jr.rank + beta * icg)
        terms = np.where(top, blended * (1.0 / denom[jr.segment]), 0.0)
    return np.where(r_count > 0, segments.sequential_sum(terms, jr.offsets), 0.0)


def _err(g: np.ndarray, max_gain: float) -> np.ndarray:
    """ERR of each row of gains (queries x ranks, 0 past the end)."""
    r = g / (max_gain + 1.0)
    n = r.shape[1]
    ones = np.ones((len(r), 1))
    decay = np.cumprod(np.concatenate([ones, 1.0 - r[:, : n - 1]], axis=1), axis=1)
    terms = r * (1.0 / np.arange(1, n + 1, dtype=np.float64) * decay)
    return np.cumsum(terms, axis=1)[:, -1] if n else np.zeros(len(r))


def _rows(values, offsets, width: int, num_queries: int) -> np.ndarray:
    pos = segments.positions(offsets)
    keep = pos < width
    out = np.zeros((num_queries, width))
    out[segments.segment_ids(offsets)[keep], pos[keep]] = values[keep]
    return out


@measure(
    name="nERR",
    summary="Normalised ERR (NTCIREVAL): ERR with stop probability g / (g_max + 1) over "
    "the ERR of the ideal ranking.",
    formula="nERR@k = ERR@k / ideal ERR@k, ERR@k = sum_{i<=k} r_i (1/i) prod_{j<i} "
    "(1 - r_j), r = g / (g_max + 1)",
    citation=SAKAI_NERR,
    params=(GAINS,),
    cutoff="rank",
    cutoff_required=True,
    edge_cases="g_max is the largest gain in the qrels (NTCIREVAL: the gain of the top "
    "level of -g). 0 for a query whose ideal ERR is 0.",
    family="graded",
)
def nerr(jr, cutoff, gains=()):
    all_gains = gain_of(jr.qrels_grades, gains)
    max_gain = float(all_gains.max()) if len(all_gains) else 1.0
    width = int(min(cutoff, max(jr.max_len, 1)))
    actual = _err(_rows(gain_of(jr.labels, gains), jr.offsets, width, jr.num_queries), max_gain)
    best, starts = _ideal(jr, gains, False)
    iwidth = int(min(cutoff, max(int(np.diff(starts).max(initial=0)), 1)))
    top = _err(_rows(best, starts, iwidth, jr.num_queries), max_gain)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(top > 0.0, actual / top, 0.0)
