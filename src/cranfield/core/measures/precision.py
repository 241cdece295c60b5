"""Binary-relevance measures over rankings: precision, recall, AP and relatives.

A document is relevant when its grade is at least the relevance level (trec_eval
``-l``, default 1; the ``rel`` parameter overrides it per measure). R is the number
of relevant documents of the query in the qrels, retrieved or not. Unless stated
otherwise a query with R = 0 scores 0 (trec_eval's convention).
"""

from __future__ import annotations

from ..._lazy import lazy
from .. import libm, segments
from .common import count_at, in_top, level, safe_div
from .registry import (
    MAX_GRADE,
    MAX_POINTS,
    MIN_GRADE,
    OFFICIAL,
    STANDARD_CUTOFFS,
    Micro,
    Param,
    TrecEval,
    integer_in,
    measure,
)

np = lazy("numpy", __name__, "np")

REL = Param(
    "rel",
    int,
    None,
    "minimum grade of a relevant document (default: the run's relevance level)",
    **integer_in(MIN_GRADE, MAX_GRADE, "an integer grade"),
)
JUDGED_ONLY = Param(
    "judged_only",
    bool,
    False,
    "drop unjudged documents from the ranking before measuring (trec_eval -J)",
)
TREC = "trec_eval 10.0 (https://github.com/usnistgov/trec_eval)"


def _micro_hits(jr, cutoff, rel) -> tuple[float, float]:
    """Relevant documents in the top ``cutoff``, and R, summed over all queries."""
    lv = level(jr, rel)
    return float(np.sum(count_at(jr, jr.relevant(lv), cutoff))), float(np.sum(jr.num_rel(lv)))


def _micro_p(jr, cutoff, rel=None):
    relret, _ = _micro_hits(jr, cutoff, rel)
    return relret / (cutoff * jr.num_queries) if jr.num_queries else 0.0


def _micro_r(jr, cutoff, rel=None):
    relret, r = _micro_hits(jr, cutoff, rel)
    return relret / r if r else 0.0


@measure(
    name="P",
    aliases=("Precision",),
    trec=TrecEval("P", 11, OFFICIAL, cutoffs=STANDARD_CUTOFFS),
    summary="Precision at rank k: the fraction of the top k that is relevant.",
    formula="P@k = |relevant in top k| / k  (missing ranks count as non-relevant)",
    citation=f"{TREC}, m_P.c; Manning et al., Introduction to IR, 8.4",
    params=(REL, JUDGED_ONLY),
    cutoff="rank",
    cutoff_required=True,
    micro=Micro("precision", _micro_p),
)
def precision_at(jr, cutoff, rel=None):
    return count_at(jr, jr.relevant(level(jr, rel)), cutoff) / float(cutoff)


@measure(
    name="R",
    aliases=("Recall", "recall"),
    trec=TrecEval("recall", 13, cutoffs=STANDARD_CUTOFFS),
    summary="Recall at rank k: the fraction of the relevant documents in the top k.",
    formula="R@k = |relevant in top k| / R",
    citation=f"{TREC}, m_recall.c",
    params=(REL, JUDGED_ONLY),
    cutoff="rank",
    cutoff_required=True,
    edge_cases="0 when R = 0.",
    micro=Micro("recall", _micro_r),
)
def recall_at(jr, cutoff, rel=None):
    lv = level(jr, rel)
    return safe_div(count_at(jr, jr.relevant(lv), cutoff), jr.num_rel(lv))


@measure(
    name="Success",
    aliases=("success",),
    trec=TrecEval("success", 29, cutoffs="1,5,10"),
    summary="1 if a relevant document is in the top k, else 0.",
    formula="Success@k = [ |relevant in top k| > 0 ]",
    citation=f"{TREC}, m_success.c",
    params=(REL, JUDGED_ONLY),
    cutoff="rank",
    cutoff_required=True,
)
def success_at(jr, cutoff, rel=None):
    return (count_at(jr, jr.relevant(level(jr, rel)), cutoff) > 0).astype(np.float64)


@measure(
    name="relative_P",
    trec=TrecEval("relative_P", 28, cutoffs=STANDARD_CUTOFFS),
    summary="Precision at k relative to the best possible: relevant in top k / min(k, R).",
    formula="relative_P@k = |relevant in top k| / min(k, R)",
    citation=f"{TREC}, m_rel_P.c",
    params=(REL,),
    cutoff="rank",
    cutoff_required=True,
    edge_cases="0 when R = 0.",
)
def relative_precision_at(jr, cutoff, rel=None):
    lv = level(jr, rel)
    num_rel = jr.num_rel(lv)
    return safe_div(count_at(jr, jr.relevant(lv), cutoff), np.minimum(num_rel, cutoff))


def _precision_at_relevant(jr, lv, cutoff=None):
    """Precision at the rank of each relevant document (0 elsewhere), and the mask."""
    relevant = jr.relevant(lv) & in_top(jr, cutoff)
    so_far = segments.int_cumsum(relevant, jr.offsets)
    prec = np.where(relevant, so_far / jr.rank.astype(np.float64), 0.0)
    return prec, relevant


def average_precision(jr, lv, cutoff=None) -> np.ndarray:
    """AP = (1/R) * sum over relevant retrieved d of P@rank(d), ranks <= cutoff."""
    prec, _ = _precision_at_relevant(jr, lv, cutoff)
    return safe_div(segments.sequential_sum(prec, jr.offsets), jr.num_rel(lv))


@measure(
    name="AP",
    aliases=("MAP", "map"),
    trec=(
        TrecEval("map", 5, OFFICIAL),
        TrecEval("map_cut", 27, cutoffs=STANDARD_CUTOFFS),
    ),
    summary="Average precision: mean of the precision at each relevant document's rank.",
    formula="AP@k = (1/N) * sum_{i <= k, d_i relevant} P@i with N = R (normalise='R', "
    "trec_eval map_cut), min(R, k) (normalise='min(R,k)') or the number of relevant "
    "documents in the top k (normalise='relret@k')",
    citation=f"{TREC}, m_map.c and m_map_cut.c; Buckley & Voorhees (2000)",
    params=(
        REL,
        Param(
            "normalise",
            str,
            "R",
            "denominator of the sum: all relevant (R), min(R, k), or relevant retrieved in "
            "the top k",
            choices=("R", "min(R,k)", "relret@k"),
        ),
        JUDGED_ONLY,
    ),
    cutoff="rank",
    edge_cases="0 when the denominator is 0 (R = 0, or no relevant document retrieved "
    "for relret@k). Without a cutoff min(R,k) is R and relret@k counts the whole ranking.",
)
def ap(jr, cutoff, rel=None, normalise="R"):
    lv = level(jr, rel)
    if normalise == "R":
        return average_precision(jr, lv, cutoff)
    prec, relevant = _precision_at_relevant(jr, lv, cutoff)
    total = segments.sequential_sum(prec, jr.offsets)
    if normalise == "min(R,k)":
        num_rel = jr.num_rel(lv)
        den = num_rel if cutoff is None else np.minimum(num_rel, cutoff)
    else:
        den = segments.int_sum(relevant, jr.offsets)
    return safe_div(total, den)


@measure(
    name="GMAP",
    aliases=("gm_map",),
    trec=TrecEval("gm_map", 6, OFFICIAL),
    summary="AP averaged over queries by the geometric mean (floor 1e-5).",
    formula="GMAP = exp(mean_q log(max(AP_q, 1e-5)))",
    citation=f"{TREC}, m_gm_map.c; Robertson (2006)",
    params=(REL,),
    aggregate="gmean",
)
def gmap(jr, cutoff, rel=None):
    return average_precision(jr, level(jr, rel))


@measure(
    name="Rprec",
    aliases=("R-prec", "Rprec"),
    trec=TrecEval("Rprec", 7, OFFICIAL),
    summary="Precision after R documents, R being the number of relevant documents.",
    formula="Rprec = |relevant in top R| / R",
    citation=f"{TREC}, m_Rprec.c",
    params=(REL, JUDGED_ONLY),
    edge_cases="0 when R = 0; a ranking shorter than R counts its missing ranks as non-relevant.",
)
def rprec(jr, cutoff, rel=None):
    lv = level(jr, rel)
    num_rel = jr.num_rel(lv)
    return safe_div(count_at(jr, jr.relevant(lv), num_rel), num_rel)


@measure(
    name="RR",
    aliases=("recip_rank", "MRR"),
    trec=TrecEval("recip_rank", 9, OFFICIAL),
    summary="Reciprocal rank of the first relevant document.",
    formula="RR@k = 1 / rank of the first relevant document within the top k (0 if none)",
    citation=f"{TREC}, m_recip_rank.c; Voorhees (1999)",
    params=(REL, JUDGED_ONLY),
    cutoff="rank",
)
def reciprocal_rank(jr, cutoff, rel=None):
    relevant = jr.relevant(level(jr, rel)) & in_top(jr, cutoff)
    first = np.full(jr.num_queries, jr.max_len + 1, dtype=np.int64)  # past every ranking
    np.minimum.at(first, jr.segment[relevant], jr.rank[relevant])
    return np.where(first <= jr.max_len, 1.0 / first, 0.0)


def _bpref(jr, lv):
    """bpref over the judged documents (unjudged ones add no term and no count)."""
    judged = jr.labels >= 0
    nonrel = judged & (jr.labels < lv)
    relevant = judged & (jr.labels >= lv)
    nonrel_so_far = segments.int_cumsum(nonrel, jr.offsets)
    num_rel = jr.num_rel(lv)
    r = num_rel[jr.segment]
    denom = np.minimum(jr.num_judged_nonrel(lv), num_rel)[jr.segment].astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = 1.0 - np.minimum(nonrel_so_far, r) / denom
    term = np.where(relevant, np.where(nonrel_so_far > 0, term, 1.0), 0.0)
    return safe_div(segments.sequential_sum(term, jr.offsets), num_rel)


@measure(
    name="Bpref",
    aliases=("bpref",),
    trec=TrecEval("bpref", 8, OFFICIAL),
    summary="Binary preference: how often judged relevant documents precede judged non-relevant ones.",
    formula="bpref = (1/R) * sum_{relevant retrieved r} (1 - min(n_r, R) / min(N, R)), "
    "n_r = judged non-relevant ranked above r, N = judged non-relevant of the query",
    citation=f"{TREC}, m_bpref.c; Buckley & Voorhees, SIGIR 2004",
    params=(REL,),
    edge_cases="Unjudged documents are skipped. 0 when R = 0.",
)
def bpref(jr, cutoff, rel=None):
    return _bpref(jr, level(jr, rel))


@measure(
    name="GMBpref",
    aliases=("gm_bpref",),
    trec=TrecEval("gm_bpref", 15),
    summary="Bpref averaged over queries by the geometric mean (floor 1e-5).",
    formula="exp(mean_q log(max(bpref_q, 1e-5)))",
    citation=f"{TREC}, m_gm_bpref.c",
    params=(REL,),
    aggregate="gmean",
)
def gm_bpref(jr, cutoff, rel=None):
    return _bpref(jr, level(jr, rel))


INFAP_EPSILON = 1e-5


@measure(
    name="infAP",
    trec=TrecEval("infAP", 14),
    summary="Inferred AP: AP estimated from a random sample of judged pool documents.",
    formula="infAP = (1/R) sum_{relevant at rank k} [1/k + (k-1)/k * (|d100|/(k-1)) * "
    "((rel+eps)/(rel+nonrel+2eps))] with counts over ranks < k; documents outside the "
    "pool are skipped, pooled-unjudged (negative qrels) count in |d100|",
    citation=f"{TREC}, m_infap.c; Yilmaz & Aslam, CIKM 2006",
    params=(REL,),
)
def inf_ap(jr, cutoff, rel=None):
    lv = level(jr, rel)
    # only pooled documents (judged or pooled-unjudged) count or add a term
    labels = jr.labels
    pooled_unjudged = labels == -2
    nonrel = (labels >= 0) & (labels < lv)
    relevant = (labels >= lv) & (labels >= 0)
    rel_so_far = segments.int_cumsum(relevant, jr.offsets)  # includes this one
    nonrel_before = segments.int_cumsum(nonrel, jr.offsets) - nonrel
    unj_before = segments.int_cumsum(pooled_unjudged, jr.offsets) - pooled_unjudged
    j = (jr.rank - 1).astype(np.float64)
    r1 = (rel_so_far - 1).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((r1 + nonrel_before + unj_before) / j) * (
            (r1 + INFAP_EPSILON) / (r1 + nonrel_before + 2 * INFAP_EPSILON)
        )
    term = np.where(j == 0, 1.0, term)
    term = np.where(relevant, term, 0.0)
    return safe_div(segments.sequential_sum(term, jr.offsets), jr.num_rel(lv))


def _recall_counts(jr, points: np.ndarray, num_rel: np.ndarray) -> np.ndarray:
    """Recall points as numbers of relevant documents (queries x points)."""
    product = points[None, :] * num_rel[:, None].astype(np.float64)
    if jr.compat == 9:
        return np.floor(product + 0.9).astype(np.int64)  # (long)(r*R + 0.9)
    return np.where(product >= 0, np.floor(product + 0.5), np.ceil(product - 0.5)).astype(
        np.int64
    )  # lround: half away from zero


def interpolated_precision(jr, points, lv) -> np.ndarray:
    """Interpolated precision at recall points (queries x points), trec_eval semantics.

    At a point asking for c relevant documents: the maximum precision at any rank at
    or after the rank of the c-th relevant document; 0 when fewer than c relevant
    documents were retrieved; c = 0 takes the maximum from the first relevant one.
    """
    points = np.asarray(points, dtype=np.float64)
    relevant = jr.relevant(lv)
    precision = segments.int_cumsum(relevant, jr.offsets) / jr.rank.astype(np.float64)
    interp = segments.reverse_cummax(precision, jr.offsets)  # max over this rank and below
    num_rel_ret = segments.int_sum(relevant, jr.offsets)
    counts = _recall_counts(jr, points, jr.num_rel(lv))
    # flat index of the c-th relevant document of each query (c = 0: the first one)
    rel_pos = np.flatnonzero(relevant)
    rel_start = np.concatenate(([0], np.cumsum(num_rel_ret)))
    c = np.maximum(counts, 1)
    ok = (counts <= num_rel_ret[:, None]) & (num_rel_ret[:, None] > 0)
    q_idx, p_idx = np.nonzero(ok)
    out = np.zeros((jr.num_queries, len(points)), dtype=np.float64)
    out[q_idx, p_idx] = interp[rel_pos[rel_start[q_idx] + c[q_idx, p_idx] - 1]]
    return out


@measure(
    name="IPrec",
    aliases=("iprec_at_recall",),
    trec=TrecEval(
        "iprec_at_recall",
        10,
        OFFICIAL,
        cutoffs="0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0",
    ),
    summary="Interpolated precision at a recall level.",
    formula="IPrec@r = max_{k >= k_r} P@k, k_r the rank where round(r*R) relevant "
    "documents have been seen",
    citation=f"{TREC}, m_iprec_at_recall.c; Manning et al., IIR 8.4",
    params=(REL, JUDGED_ONLY),
    cutoff="recall",
    cutoff_required=True,
    edge_cases="trec_eval 10.0 rounds r*R half away from zero; 9.x used (long)(r*R+0.9).",
)
def iprec(jr, cutoff, rel=None):
    return interpolated_precision(jr, [cutoff], level(jr, rel))[:, 0]


ELEVEN_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


@measure(
    name="11pt_avg",
    aliases=("IPrec11",),
    trec=TrecEval("11pt_avg", 18, values=("points",)),
    summary="Interpolated precision averaged over recall levels (11 points by default).",
    formula="11pt_avg = mean_{r in points} IPrec@r",
    citation=f"{TREC}, m_11pt_avg.c; Salton & McGill (1983)",
    params=(
        REL,
        Param(
            "points",
            "floats",
            ELEVEN_POINTS,
            "recall levels",
            allowed=f"1 to {MAX_POINTS} numbers in [0, 1]",
            check=lambda v: 0 < len(v) <= MAX_POINTS and all(0 <= x <= 1 for x in v),
        ),
    ),
)
def eleven_point(jr, cutoff, rel=None, points=ELEVEN_POINTS):
    values = interpolated_precision(jr, np.asarray(points), level(jr, rel))
    # trec_eval sums from the last point to the first
    total = np.cumsum(values[:, ::-1], axis=1)[:, -1] if values.shape[1] else 0.0
    return total / float(len(points))


@measure(
    name="Rprec_mult",
    trec=TrecEval("Rprec_mult", 16, cutoffs="0.2,0.4,0.6,0.8,1.0,1.2,1.4,1.6,1.8,2.0"),
    summary="Precision at a multiple x of R (R-precision at 0.2R, 2R, ...).",
    formula="Rprec_mult@x = |relevant in top c| / c with c = (long)(x*R + 0.9)",
    citation=f"{TREC}, m_Rprec_mult.c",
    params=(REL,),
    cutoff="positive",
    cutoff_required=True,
    edge_cases="0 when c = 0; a ranking shorter than c counts missing ranks as non-relevant.",
)
def rprec_mult(jr, cutoff, rel=None):
    lv = level(jr, rel)
    c = np.floor(cutoff * jr.num_rel(lv).astype(np.float64) + 0.9).astype(np.int64)
    return safe_div(count_at(jr, jr.relevant(lv), c), c)


@measure(
    name="yaap",
    trec=TrecEval("yaap", 53, ()),
    summary="Yet Another AP: a smoothed, log-odds version of AP that averages well.",
    formula="yaap = log((1 + S) / (1 + R - S)), S = sum over relevant retrieved of P@rank",
    citation=f"{TREC}, m_yaap.c; Robertson, 'On smoothing average precision', ECIR 2012",
    params=(REL,),
)
def yaap(jr, cutoff, rel=None):
    lv = level(jr, rel)
    prec, _ = _precision_at_relevant(jr, lv)
    s = segments.sequential_sum(prec, jr.offsets)
    return libm.log((1.0 + s) / (1.0 + jr.num_rel(lv).astype(np.float64) - s))


@measure(
    name="binG",
    trec=TrecEval("binG", 19),
    summary="Binary G: each relevant document earns 1/log2(2 + non-relevant ranked above it).",
    formula="binG = (1/R) sum_{relevant retrieved d} 1 / log2(2 + nonrel_above(d))",
    citation=f"{TREC}, m_binG.c (experimental measure)",
    params=(REL,),
)
def bin_g(jr, cutoff, rel=None):
    lv = level(jr, rel)
    relevant = jr.relevant(lv)
    nonrel_above = jr.rank - segments.int_cumsum(relevant, jr.offsets)
    table = segments.log2_discounts(max(jr.max_len, 1) + 1)
    term = np.where(relevant, 1.0 / table[nonrel_above], 0.0)
    total = segments.sequential_sum(term, jr.offsets)
    return safe_div(total, jr.num_rel(lv)) * (segments.int_sum(relevant, jr.offsets) > 0)


@measure(
    name="Unjudged",
    aliases=("unj",),
    trec=TrecEval("unj", 56, cutoffs="5,10,20", reset_with_c=True),
    summary="Fraction of the top k without a judgment (a red flag for poor pool coverage).",
    formula="unj@k = |unjudged in top k| / k (missing ranks count as judged)",
    citation=f"{TREC}, m_unjudged.c",
    cutoff="rank",
    cutoff_required=True,
    fractional="judged",
)
def unjudged_at(jr, cutoff):
    return count_at(jr, jr.labels < 0, cutoff) / float(cutoff)
