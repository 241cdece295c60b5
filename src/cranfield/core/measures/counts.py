"""Counts and other per-query quantities: num_ret, num_rel, utility, relstring."""

from __future__ import annotations

from ..._lazy import lazy
from .. import segments
from .common import in_top, level
from .precision import REL, TREC
from .registry import (
    MAX_COUNT,
    MAX_GRADE,
    MIN_GRADE,
    OFFICIAL_AND_SET,
    SET,
    TREC_NICKNAMES,
    Param,
    TrecEval,
    integer_in,
    measure,
    weights,
)

np = lazy("numpy", __name__, "np")


@measure(
    name="NumQ",
    aliases=("num_q",),
    trec=TrecEval("num_q", 1, TREC_NICKNAMES, kind="query_count"),
    summary="Number of queries evaluated.",
    formula="1 per evaluated query; summed",
    citation=TREC,
    aggregate="sum",
    kind="int",
    family="count",
    fractional="judged",
)
def num_q(jr, cutoff):
    return np.ones(jr.num_queries, dtype=np.float64)


@measure(
    name="NumRet",
    aliases=("num_ret",),
    trec=TrecEval("num_ret", 2, OFFICIAL_AND_SET, reset_with_c=True),
    summary="Number of documents retrieved (after depth and judged-only filtering).",
    formula="|ranking|; with rel: |{retrieved d : grade(d) >= rel}| (ir_measures NumRet(rel=))",
    citation=TREC,
    params=(
        Param(
            "rel",
            int,
            None,
            "count only retrieved documents with at least this grade (default: all)",
            **integer_in(MIN_GRADE, MAX_GRADE, "an integer grade"),
        ),
    ),
    aggregate="sum",
    kind="int",
    cutoff="rank",
    family="count",
)
def num_ret(jr, cutoff, rel=None):
    if rel is not None:
        return num_rel_ret(jr, cutoff, rel)
    n = jr.num_ret if cutoff is None else np.minimum(jr.num_ret, cutoff)
    return n.astype(np.float64)


@measure(
    name="NumRel",
    aliases=("num_rel",),
    trec=TrecEval("num_rel", 3, OFFICIAL_AND_SET, recount_with_c=True),
    summary="Number of relevant documents in the qrels.",
    formula="R = |{d : grade(d) >= rel}|",
    citation=TREC,
    params=(REL,),
    aggregate="sum",
    kind="int",
    family="count",
)
def num_rel(jr, cutoff, rel=None):
    return jr.num_rel(level(jr, rel)).astype(np.float64)


@measure(
    name="NumRelRet",
    aliases=("num_rel_ret",),
    trec=TrecEval("num_rel_ret", 4, OFFICIAL_AND_SET),
    summary="Number of relevant documents retrieved.",
    formula="|relevant in ranking|",
    citation=TREC,
    params=(REL,),
    aggregate="sum",
    kind="int",
    cutoff="rank",
    family="count",
)
def num_rel_ret(jr, cutoff, rel=None):
    hits = jr.relevant(level(jr, rel)) & in_top(jr, cutoff)
    return segments.int_sum(hits, jr.offsets).astype(np.float64)


@measure(
    name="NumNonRelJudgedRet",
    aliases=("num_nonrel_judged_ret",),
    trec=TrecEval("num_nonrel_judged_ret", 35),
    summary="Number of judged non-relevant documents retrieved.",
    formula="|{retrieved d : 0 <= grade(d) < rel}|",
    citation=TREC,
    params=(REL,),
    aggregate="sum",
    kind="int",
    family="count",
)
def num_nonrel_judged_ret(jr, cutoff, rel=None):
    judged_nonrel = (jr.labels >= 0) & (jr.labels < level(jr, rel))
    return segments.int_sum(judged_nonrel, jr.offsets).astype(np.float64)


@measure(
    name="utility",
    trec=TrecEval("utility", 17, SET, values=("a", "b", "c", "d"), reset_with_c=True),
    summary="Set utility: a weighted sum of the contingency table of the retrieved set.",
    formula="utility = a*relret + b*(ret - relret) + c*(R - relret) + d*(N + relret - ret - R)",
    citation=f"{TREC}, m_utility.c",
    params=(
        Param("a", float, 1.0, "worth of a relevant retrieved document", **weights()),
        Param("b", float, -1.0, "worth of a non-relevant retrieved document", **weights()),
        Param("c", float, 0.0, "worth of a relevant document not retrieved", **weights()),
        Param("d", float, 0.0, "worth of a non-relevant document not retrieved", **weights()),
        Param(
            "collection_size",
            int,
            0,
            "documents in the collection (trec_eval -N)",
            **integer_in(0, MAX_COUNT),
        ),
        REL,
    ),
    family="set",
)
def utility(jr, cutoff, a=1.0, b=-1.0, c=0.0, d=0.0, collection_size=0, rel=None):
    lv = level(jr, rel)
    relret = segments.int_sum(jr.relevant(lv), jr.offsets).astype(np.float64)
    ret = jr.num_ret.astype(np.float64)
    r = jr.num_rel(lv).astype(np.float64)
    value = (
        a * relret
        + b * (ret - relret)
        + c * (r - relret)
        + d * (float(collection_size) + relret - ret - r)
    )
    # trec_eval scores topics missing from the run (under -c) as 0
    return np.where(jr.in_run, value, 0.0)


def relstring_values(jr, n: int) -> np.ndarray:
    """One character per top-n document: grade 0-9, '>' above 9, '-' not pooled, '.' unjudged."""
    depth = np.minimum(jr.num_ret, int(n))  # only the top n are read
    bounds = np.concatenate(([0], np.cumsum(depth))).astype(np.int64)
    labels = jr.labels[np.repeat(jr.offsets[:-1], depth) + segments.positions(bounds)]
    chars = np.full(len(labels), "<", dtype="<U1")
    digits = (labels >= 0) & (labels <= 9)
    chars[digits] = np.array(list("0123456789"))[labels[digits].astype(np.int64)]
    chars[labels > 9] = ">"
    chars[labels == -1] = "-"
    chars[labels == -2] = "."
    joined = "".join(chars.tolist())
    return np.array(
        [joined[bounds[q] : bounds[q + 1]] for q in range(jr.num_queries)], dtype=object
    )


@measure(
    name="relstring",
    aliases=("RelString",),
    trec=TrecEval("relstring", 12, values=("cutoff",), reset_with_c=True),
    summary="The relevance labels of the top n documents as a string (per query only).",
    formula="grade 0-9 as a digit, '>' above 9, '-' not in the pool, '.' pooled but unjudged",
    citation=f"{TREC}, m_relstring.c",
    cutoff="rank",
    aggregate="none",
    kind="str",
    family="count",
    fractional="refused",
)
def relstring(jr, cutoff):
    return relstring_values(jr, 10 if cutoff is None else cutoff)
