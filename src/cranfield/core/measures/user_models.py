"""User-model measures: rank-biased precision (Moffat & Zobel 2008)."""

from __future__ import annotations

from ..._lazy import lazy
from .. import segments
from .gain import GAINS, gain_of
from .precision import TREC
from .registry import Param, TrecEval, measure, number_in

np = lazy("numpy", __name__, "np")

MZ = "Moffat & Zobel, 'Rank-biased precision for measurement of retrieval effectiveness', TOIS 2008"


def _normalised_gains(jr, gains):
    """trec_eval's rbp gains: min-max normalised per query when outside [0, 1].

    A query's gain list holds the custom gains and the grades 0..max grade of its
    judgments; when any lies outside [0, 1] all are mapped by (g - min) / (max - min).
    Ranked documents whose label is not in the list (unjudged, unless a custom gain
    names them) have gain 0. One gain per ranked document.
    """
    labels, q = jr.labels, jr.segment
    top = np.full(jr.num_queries, -1, dtype=np.int64)
    has = np.diff(jr.qrels_offsets) > 0
    top[has] = jr.qrels_grades[jr.qrels_offsets[:-1][has]]  # grades sorted descending
    custom = dict(gains)
    lo = np.full(jr.num_queries, np.inf)
    hi = np.full(jr.num_queries, -np.inf)
    if custom:
        lo[:] = min(custom.values())
        hi[:] = max(custom.values())
    smallest = 0
    while smallest in custom:
        smallest += 1
    lo = np.where(smallest <= top, np.minimum(lo, smallest), lo)
    largest = top.copy()
    for _ in range(len(custom) + 1):
        largest = np.where(np.isin(largest, list(custom)) & (largest >= 0), largest - 1, largest)
    hi = np.where(largest >= 0, np.maximum(hi, largest), hi)
    normalise = (lo < 0) | (hi > 1)

    raw = gain_of(labels, gains)
    in_list = ((labels >= 0) & (labels <= top[q])) | np.isin(labels, list(custom))
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = (raw - lo[q]) / (hi[q] - lo[q])
    out = np.where(normalise[q], scaled, raw)
    return np.where(in_list, out, 0.0)


PERSISTENCE = Param(
    "p",
    float,
    0.9,
    "persistence: probability of looking at the next document",
    **number_in(0, 1, open_lo=True, open_hi=True),
)


@measure(
    name="rbp",
    trec=TrecEval("rbp", 54, pairs=("p", "gains")),
    summary="trec_eval's rank-biased precision with graded gains normalised to [0, 1].",
    formula="rbp = (1 - p) sum_i gain_i p^(i-1)",
    citation=f"{TREC}, m_rbp.c; {MZ}",
    params=(PERSISTENCE, GAINS),
    edge_cases="Gains outside [0, 1] are min-max normalised per query (trec_eval reads "
    "uninitialised memory here; cranfield uses the true min and max).",
    family="user",
    fractional="refused",
)
def rbp(jr, cutoff, p=0.9, gains=()):
    g = _normalised_gains(jr, gains)
    weights = segments.powers(p, max(jr.max_len, 1))[jr.rank - 1]
    terms = np.where(g != 0, g * weights, 0.0)
    return (1.0 - p) * segments.sequential_sum(terms, jr.offsets)


@measure(
    name="rbp_resid",
    trec=TrecEval("rbp_resid", 55, pairs=("p",), reset_with_c=True),
    summary="Residual of rbp (p = 0.9 by default): the most unjudged documents could still add.",
    formula="resid = p^n + (1 - p) sum_{unjudged i} p^(i-1), 0 when every document is judged",
    citation=f"{TREC}, m_rbp_resid.c; {MZ}",
    params=(PERSISTENCE,),
    family="user",
    fractional="judged",
)
def rbp_resid(jr, cutoff, p=0.9):
    table = segments.powers(p, max(jr.max_len, 1) + 1)
    unjudged = jr.labels < 0
    terms = np.where(unjudged, table[jr.rank - 1], 0.0)
    total = segments.sequential_sum(terms, jr.offsets)
    any_unjudged = segments.int_sum(unjudged, jr.offsets) > 0
    value = table[jr.num_ret] + (1.0 - p) * total
    return np.where(any_unjudged & jr.in_run, value, 0.0)
