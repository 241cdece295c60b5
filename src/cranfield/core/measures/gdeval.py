"""nDCG@k and ERR@k as gdeval.pl computes them: the official graded measures of the
TREC Web track 2010-2014 (Clarke, Craswell, Soboroff & Voorhees, 'Overview of the
TREC 2010 Web track'; the gain and ERR of Burges et al. 2005 and Chapelle et al. 2009).

gdeval.pl's conventions: the gain of grade g is 2^g - 1 (grades at most 4; negative
grades and unjudged documents gain 0); the discount is 1 / ln(rank + 1) (Perl's
natural ``log``: the ratio nDCG is that of log2, to the last bits); the ideal DCG
ranks the positive judgments by grade; ERR@k = sum_{i<=k} R_i prod_{j<i} (1 - R_j) / i
with R = (2^g - 1) / 16, the product multiplied out rank by rank; ties in score are
broken by document id, descending (trec_eval's order). gdeval.pl leaves a topic
without any positive judgment out of its table and mean; here it scores 0 (a
per-topic measure has a value for every evaluated topic), so a mean over such topics
differs: see docs/cwl.md.
"""

from __future__ import annotations

from ..._lazy import lazy
from ...errors import MeasureError
from .. import libm, segments
from .registry import measure

np = lazy("numpy", __name__, "np")

GDEVAL = (
    "gdeval.pl 1.2a/1.3 (TREC Web track); Clarke, Craswell, Soboroff & Voorhees, "
    "'Overview of the TREC 2010 Web track', TREC 2010"
)
BURGES = (
    "Burges, Shaked, Renshaw, Lazier, Deeds, Hamilton & Hullender, 'Learning to rank using "
    "gradient descent', ICML 2005"
)
CHAPELLE = (
    "Chapelle, Metzler, Zhang & Grinspan, 'Expected reciprocal rank for graded relevance', "
    "CIKM 2009"
)
MAX_JUDGMENT = 4


def _check(jr, cutoff, **_):
    if len(jr.qrels_grades) and jr.qrels_grades.max() > MAX_JUDGMENT:
        raise MeasureError(
            f"gdeval.pl's grades are at most {MAX_JUDGMENT}: these qrels hold grade "
            f"{int(jr.qrels_grades.max())}"
        )


def _gain(grades) -> np.ndarray:
    g = np.where(grades > 0, grades, 0).astype(np.float64)
    return np.ldexp(1.0, g.astype(np.int64)) - 1.0


def _dcg(gains, offsets, rank, cutoff) -> np.ndarray:
    terms = np.where(rank <= cutoff, gains / libm.log(rank + 1.0), 0.0)
    return segments.sequential_sum(terms, offsets)


def _has_relevant(jr) -> np.ndarray:
    return segments.int_sum(jr.qrels_grades > 0, jr.qrels_offsets) > 0


# what both measures declare alike: a required rank cutoff, whole grades, the check
COMMON = {
    "cutoff": "rank",
    "cutoff_required": True,
    "family": "graded",
    "fractional": "refused",
    "check": _check,
}
SKIPPED = "Grades above 4 are refused (gdeval.pl stops). A topic without a positive judgment scores 0 (gdeval.pl leaves it out)."


@measure(
    name="gdeval_nDCG",
    summary="nDCG@k as gdeval.pl computes it (the TREC Web track's official nDCG).",
    formula="DCG@k = sum_{i<=k} (2^g_i - 1) / ln(i + 1); nDCG@k = DCG@k / ideal DCG@k",
    citation=f"{GDEVAL}; {BURGES}",
    edge_cases=SKIPPED,
    **COMMON,
)
def gdeval_ndcg(jr, cutoff):
    dcg = _dcg(_gain(jr.labels), jr.offsets, jr.rank, cutoff)
    qrank = segments.positions(jr.qrels_offsets) + 1
    ideal = _dcg(_gain(jr.qrels_grades), jr.qrels_offsets, qrank, cutoff)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(_has_relevant(jr), dcg / ideal, 0.0)


@measure(
    name="gdeval_ERR",
    summary="ERR@k as gdeval.pl computes it (the TREC Web track's official ERR).",
    formula="ERR@k = sum_{i<=k} R_i prod_{j<i} (1 - R_j) / i, R = (2^g - 1) / 16",
    citation=f"{GDEVAL}; {CHAPELLE}",
    edge_cases=f"{SKIPPED} Unlike ERR, the product of (1 - R_j) is multiplied out, not "
    "summed in logarithms.",
    **COMMON,
)
def gdeval_err(jr, cutoff):
    width = int(min(cutoff, max(jr.max_len, 1)))
    r = np.zeros((jr.num_queries, width))
    keep = jr.rank <= width
    r[jr.segment[keep], jr.rank[keep] - 1] = _gain(jr.labels[keep]) / 2.0**MAX_JUDGMENT
    ones = np.ones((jr.num_queries, 1))
    decay = np.cumprod(np.concatenate([ones, 1.0 - r[:, :-1]], axis=1), axis=1)
    terms = r * decay / np.arange(1, width + 1, dtype=np.float64)
    value = np.cumsum(terms, axis=1)[:, -1]
    return np.where(_has_relevant(jr), value, 0.0)
