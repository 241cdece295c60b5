"""Graded-relevance measures: DCG, nDCG and trec_eval's experimental gain measures.

Gains: by default a document's gain is its grade (0 for documents without a
judgment); ``gains`` maps grades to other values (trec_eval ``ndcg.1=3,2=9``), and
grades not listed keep their own value. Discount: log2(rank + 1). The ideal ranking
is built from every judged document of the query with a positive gain, retrieved or
not, sorted by gain; it is never truncated except by the cutoff. Negative gains can
lower DCG but never enter the ideal ranking. These measures ignore the relevance
level (trec_eval ``-l``).
"""

from __future__ import annotations

import math

from ..._lazy import lazy
from ...errors import MeasureError
from .. import libm, segments
from .common import level, safe_div
from .precision import JUDGED_ONLY, REL, TREC
from .registry import (
    MAX_MAGNITUDE,
    STANDARD_CUTOFFS,
    WEIGHT_ALLOWED,
    Param,
    TrecEval,
    measure,
    number_in,
    weight,
)

np = lazy("numpy", __name__, "np")

GAINS = Param(
    "gains",
    "gains",
    (),
    "gain of each grade as level=gain pairs, e.g. '1=1,2=3'; unlisted grades keep their own value",
    allowed="level=gain pairs such as '1=1,2=3' (integer grades, each once; "
    f"gains {WEIGHT_ALLOWED})",
    check=lambda v: all(weight(g) for _, g in v),
)
DCG_KIND = Param(
    "dcg",
    str,
    "log2",
    "DCG formulation: 'log2' gain/log2(rank+1) (trec_eval), 'exp-log2' "
    "(2^gain-1)/log2(rank+1) (Burges et al. 2005), 'jk' gain/max(1, log_b(rank)) "
    "(Järvelin & Kekäläinen 2002)",
    choices=("log2", "exp-log2", "jk"),
)
BASE = Param(
    "b",
    float,
    2.0,
    "logarithm base of the 'jk' discount: ranks below b are not discounted",
    **number_in(1, MAX_MAGNITUDE, open_lo=True),
)
# exp-log2 gains are exponentiated: 2^512 (~1e154) summed over any ranking stays finite
MAX_EXP_GAIN = 512
JK = "Järvelin & Kekäläinen, 'Cumulated gain-based evaluation of IR techniques', TOIS 2002"


def gain_of(labels: np.ndarray, gains=()) -> np.ndarray:
    """Gain of each label: the grade itself (0 if unjudged) unless ``gains`` says otherwise.

    Fractional grades (qrels read with ``fractional=True``) are their own gains; a
    ``gains`` map names whole grades, so it is refused with non-integer grades.
    """
    if gains and labels.dtype.kind == "f" and bool((labels != np.floor(labels)).any()):
        from ...errors import InputError

        raise InputError(
            "gains= maps whole grades to gains, and these qrels hold fractional values; "
            "put the gains in the qrels instead (e.g. cranfield aggregate --soft --gains)"
        )
    out = np.where(labels >= 0, labels, 0).astype(np.float64)
    for lvl, g in gains:
        out[labels == lvl] = g
    return out


def exp_gain(g) -> np.ndarray:
    """The exponential gain ``2^g - 1`` (Burges et al., ICML 2005), ``2^g`` by the C
    library's ``exp2`` as the engine computes it (:mod:`cranfield.core.libm`)."""
    return libm.exp2(g) - 1.0


def discounted(g: np.ndarray, rank: np.ndarray, dcg: str = "log2", b: float = 2.0):
    """DCG terms of gains ``g`` at 1-based ranks ``rank`` in one of three formulations.

    * ``log2``: g / log2(rank + 1) (trec_eval, libm log2 for bit-exactness);
    * ``exp-log2``: (2^g - 1) / log2(rank + 1) (Burges et al., ICML 2005; ir_measures);
    * ``jk``: g / max(1, log_b(rank)), ranks below b undiscounted (Järvelin &
      Kekäläinen, TOIS 2002; with b = 2: R_1 + sum_{i>=2} R_i / log2 i).
    """
    if dcg == "jk":
        disc = np.maximum(1.0, libm.log(rank) / math.log(b))
        return g / disc
    table = segments.log2_discounts(int(rank.max()) if len(rank) else 1)
    if dcg == "exp-log2":
        if len(g) and g.max() > MAX_EXP_GAIN:
            raise MeasureError(
                f"dcg='exp-log2': a gain of {g.max():g} is above {MAX_EXP_GAIN} (2^gain would "
                "overflow); give smaller gains with gains={grade: gain, ...}"
            )
        g = exp_gain(g)
    return g / table[rank - 1]


class Ideal:
    """Ideal rankings of all queries: positive gains sorted descending (CSR)."""

    def __init__(self, jr, gains=(), dcg="log2", b=2.0):
        g = gain_of(jr.qrels_grades, gains)
        seg = segments.segment_ids(jr.qrels_offsets)
        keep = g > 0
        g, seg = g[keep], seg[keep]
        order = np.lexsort((-g, seg))
        self.gains = g[order]
        self.offsets = np.searchsorted(seg[order], np.arange(jr.num_queries + 1)).astype(np.int64)
        self.length = np.diff(self.offsets)
        self.pos = segments.positions(self.offsets)
        if dcg == "log2":
            table = segments.log2_discounts(int(self.length.max()) + 1 if len(self.length) else 1)
            self.terms = self.gains / table[self.pos]
        else:
            self.terms = discounted(self.gains, self.pos + 1, dcg, b)

    def dcg(self, cutoff=None) -> np.ndarray:
        terms = self.terms if cutoff is None else np.where(self.pos < cutoff, self.terms, 0.0)
        return segments.sequential_sum(terms, self.offsets)

    def cumulative(self) -> np.ndarray:
        return segments.sequential_cumsum(self.terms, self.offsets)

    def total_gain(self) -> np.ndarray:
        return segments.sequential_sum(self.gains, self.offsets)


def dcg_terms(jr, gains=(), cutoff=None, dcg="log2", b=2.0) -> np.ndarray:
    """DCG term of every ranked document (0 past the cutoff), one per document."""
    g = gain_of(jr.labels, gains)
    if cutoff is not None:  # (before discounting: exp-log2 refuses large gains it uses)
        g = np.where(jr.rank <= cutoff, g, 0.0)
    if dcg == "log2":
        return g / segments.log2_discounts(max(jr.max_len, 1))[jr.rank - 1]
    return discounted(g, jr.rank, dcg, b)


def _dcg(jr, gains=(), cutoff=None, dcg="log2", b=2.0) -> np.ndarray:
    """DCG of every ranking: the left-to-right sum of its :func:`dcg_terms`.

    ``+ 0.0``: trec_eval's sum starts at +0.0, so it is +0.0 even when every term is
    -0.0 (a gain of -0.0); NumPy's cumulative sum starts at the first term.
    """
    return segments.sequential_sum(dcg_terms(jr, gains, cutoff, dcg, b), jr.offsets) + 0.0


def _running_dcg(jr, gains=()) -> np.ndarray:
    """DCG (log2) of every ranking up to each of its documents, one per document
    (never -0.0, as :func:`_dcg`)."""
    return segments.sequential_cumsum(dcg_terms(jr, gains), jr.offsets) + 0.0


@measure(
    name="nDCG",
    aliases=("ndcg", "ndcg_cut"),
    trec=(
        TrecEval("ndcg", 23, pairs=("gains",)),
        TrecEval("ndcg_cut", 26, cutoffs=STANDARD_CUTOFFS),
    ),
    summary="Normalised discounted cumulative gain: DCG over the DCG of the ideal ranking.",
    formula="nDCG@k = DCG@k / IDCG@k; DCG@k = sum_{i<=k} gain_i / log2(i + 1) (dcg='log2'), "
    "sum (2^gain_i - 1) / log2(i + 1) (dcg='exp-log2'), sum gain_i / max(1, log_b i) "
    "(dcg='jk'); IDCG from all judged documents sorted by gain",
    citation=f"{TREC}, m_ndcg.c and m_ndcg_cut.c; {JK}; Burges et al., ICML 2005",
    params=(GAINS, DCG_KIND, BASE, JUDGED_ONLY),
    cutoff="rank",
    edge_cases="0 when the ideal DCG is 0 (no judged document with positive gain).",
    family="graded",
)
def ndcg(jr, cutoff, gains=(), dcg="log2", b=2.0):
    return safe_div(_dcg(jr, gains, cutoff, dcg, b), Ideal(jr, gains, dcg, b).dcg(cutoff))


@measure(
    name="DCG",
    aliases=("dcg",),
    trec=TrecEval("dcg", 21, (), pairs=("gains",)),
    summary="Discounted cumulative gain (log2, exp-log2 or Järvelin-Kekäläinen form).",
    formula="DCG@k = sum_{i<=k} gain_i / log2(i + 1) (dcg='log2'); (2^gain_i - 1) / "
    "log2(i + 1) (dcg='exp-log2'); gain_i / max(1, log_b i) (dcg='jk')",
    citation=f"{TREC}, m_ndcg.c; {JK}; Burges et al., ICML 2005",
    params=(GAINS, DCG_KIND, BASE),
    cutoff="rank",
    family="graded",
)
def dcg(jr, cutoff, gains=(), dcg="log2", b=2.0):
    return _dcg(jr, gains, cutoff, dcg, b)


@measure(
    name="IDCG",
    aliases=("ideal_dcg",),
    trec=TrecEval("ideal_dcg", 22, (), pairs=("gains",)),
    summary="DCG of the ideal ranking of the query's judged documents.",
    formula="IDCG@k = DCG@k of gain* (all judged gains sorted descending), same dcg forms",
    citation=f"{TREC}, m_ndcg.c; {JK}",
    params=(GAINS, DCG_KIND, BASE),
    cutoff="rank",
    family="graded",
)
def ideal_dcg(jr, cutoff, gains=(), dcg="log2", b=2.0):
    return Ideal(jr, gains, dcg, b).dcg(cutoff)


@measure(
    name="ndcg_rel",
    trec=TrecEval("ndcg_rel", 24, pairs=("gains",)),
    summary="nDCG averaged over the ranks of the relevant documents (experimental).",
    formula="(1/L) [sum_{retrieved d, gain>0} nDCG at rank(d) + (L - found) * nDCG at the end], "
    "L = number of documents with positive gain",
    citation=f"{TREC}, m_ndcg_rel.c",
    params=(GAINS,),
    family="graded",
)
def ndcg_rel(jr, cutoff, gains=()):
    best = Ideal(jr, gains)
    g = gain_of(jr.labels, gains)
    dcg_cum = _running_dcg(jr, gains)
    icum = best.cumulative()
    length = best.length
    has = length > 0
    # ideal DCG at min(rank, L) for every ranked document
    q = jr.segment
    idx = best.offsets[:-1][q] + np.minimum(jr.rank - 1, np.maximum(length[q] - 1, 0))
    ideal_here = np.where(
        has[q], icum[np.minimum(idx, max(len(icum) - 1, 0))] if len(icum) else 0.0, 0.0
    )
    positive = (g > 0) & has[q]
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(positive, dcg_cum / np.where(positive, ideal_here, 1.0), 0.0)
    total = segments.sequential_sum(terms, jr.offsets)
    found = segments.int_sum(positive, jr.offsets).astype(np.float64)
    # DCG of the whole ranking: the running DCG at its last document (0.0 if empty)
    last = np.maximum(jr.offsets[1:] - 1, 0)
    dcg_all = np.where(jr.num_ret > 0, dcg_cum[last] if len(dcg_cum) else 0.0, 0.0)
    idcg_all = np.where(has, icum[np.maximum(best.offsets[1:] - 1, 0)] if len(icum) else 0.0, 0.0)
    total = total + safe_div((length - found) * dcg_all, idcg_all)
    return np.where(has & (total > 0), safe_div(total, length), 0.0)


@measure(
    name="Rndcg",
    trec=TrecEval("Rndcg", 25, pairs=("gains",)),
    summary="nDCG averaged at the R-levels: where the ideal gain changes (experimental).",
    formula="mean of nDCG at each rank where the ideal gain level changes, plus at the end "
    "of a ranking longer than the ideal one",
    citation=f"{TREC}, m_Rndcg.c",
    params=(GAINS, REL),
    family="graded",
)
def rndcg(jr, cutoff, gains=(), rel=None):
    best = Ideal(jr, gains)
    dcg_cum = _running_dcg(jr, gains)
    icum = best.cumulative()
    length = best.length
    nq = jr.num_queries
    # boundaries b in 1..L: the ideal gain at b differs from the one at b - 1 (0 past L)
    iq = segments.segment_ids(best.offsets)
    change = (best.pos >= 1) & np.concatenate(([False], best.gains[1:] != best.gains[:-1]))
    b_inner, q_inner = best.pos[change], iq[change]
    q_end = np.flatnonzero(length > 0)
    b_end = length[q_end]
    q_extra = np.flatnonzero((length > 0) & (jr.num_ret > length + 1))
    b_extra = length[q_extra] + 1  # ordering key only; value uses the full ranking
    qs = np.concatenate((q_inner, q_end, q_extra))
    bs = np.concatenate((b_inner, b_end, b_extra))
    extra = np.concatenate((np.zeros(len(q_inner) + len(q_end), bool), np.ones(len(q_extra), bool)))
    order = np.lexsort((bs, qs))
    qs, bs, extra = qs[order], bs[order], extra[order]
    depth = np.where(extra, jr.num_ret[qs], np.minimum(bs, jr.num_ret[qs]))
    # running DCG at rank `depth` (0.0 at depth 0)
    found = depth > 0
    dcg_before = np.zeros(len(qs))
    dcg_before[found] = dcg_cum[jr.offsets[:-1][qs][found] + depth[found] - 1]
    ib = np.where(extra, length[qs], bs)
    idcg_before = icum[best.offsets[:-1][qs] + ib - 1] if len(qs) else np.zeros(0)
    values = dcg_before / idcg_before
    off = np.concatenate(([0], np.cumsum(np.bincount(qs, minlength=nq)))).astype(np.int64)
    total = segments.sequential_sum(values, off)
    count = np.diff(off)
    out = safe_div(total, count)
    return np.where(jr.num_rel(level(jr, rel)) > 0, out, 0.0)


@measure(
    name="G",
    trec=TrecEval("G", 20, pairs=("gains",)),
    summary="Normalised gain G, between MAP and nDCG (experimental).",
    formula="G = (1/sum gain*) sum_i gain_i / log2(2 + cost_i - gain_so_far_i), "
    "cost_i = sum_{j<=i} max(gain*_j, 1)",
    citation=f"{TREC}, m_G.c (experimental measure, 2008)",
    params=(GAINS,),
    family="graded",
)
def g_measure(jr, cutoff, gains=()):
    """G over every ranked document: cost_i = sum_{j <= i} max(gain*_j, 1), gain*_j = 0
    past the ideal length, and a term only where the gain is non-zero."""
    best = Ideal(jr, gains)
    g = gain_of(jr.labels, gains)
    q = jr.segment
    pos = jr.rank - 1
    within = pos < best.length[q]
    ideal_here = np.zeros(len(g))
    if len(best.gains):
        ideal_here[within] = best.gains[best.offsets[:-1][q[within]] + pos[within]]
    cost = segments.sequential_cumsum(np.where(ideal_here >= 1.0, ideal_here, 1.0), jr.offsets)
    got = segments.sequential_cumsum(g, jr.offsets)
    nonzero = g != 0
    terms = np.zeros(len(g))
    terms[nonzero] = g[nonzero] / libm.log2((2.0 + cost[nonzero]) - got[nonzero])
    # + 0.0: trec_eval's sum starts at +0.0, so a lone -0.0 term (a gain over
    # log2(0) = -inf) sums to +0.0
    total = segments.sequential_sum(terms, jr.offsets) + 0.0
    return safe_div(total, best.total_gain())
