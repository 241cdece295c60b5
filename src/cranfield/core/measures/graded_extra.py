"""Graded measures beyond trec_eval: cumulated gain, ERR and ir_measures' RBP.

Gains: a ranked document's gain is its grade (documents without a judgment, or with
a negative grade, gain 0) unless ``gains`` maps grades to other values.
"""

from __future__ import annotations

import math

from ..._lazy import lazy
from ...errors import MeasureError
from .. import libm, segments
from .common import safe_div
from .gain import GAINS, JK, exp_gain, gain_of
from .registry import (
    MAX_GRADE,
    MAX_MAGNITUDE,
    MIN_GRADE,
    MIN_MAGNITUDE,
    Param,
    integer_in,
    measure,
    number_in,
)
from .user_models import MZ

np = lazy("numpy", __name__, "np")

CHAPELLE = "Chapelle, Metzler, Zhang & Grinspan, 'Expected reciprocal rank for graded relevance', CIKM 2009"
WEBER = "Weber, Multimedia Retrieval, lecture notes (Univ. Basel 2024), sec. 2.4"


def _cg(jr, cutoff, gains):
    g = gain_of(jr.labels, gains)
    if cutoff is not None:
        g = np.where(jr.rank <= cutoff, g, 0.0)
    return segments.sequential_sum(g, jr.offsets)


@measure(
    name="CG",
    summary="Cumulated gain: the sum of the gains of the top k.",
    formula="CG@k = sum_{i <= k} gain_i",
    citation=f"{JK}; {WEBER}",
    params=(GAINS,),
    cutoff="rank",
    edge_cases="0 for an empty ranking; queries without relevant documents score 0.",
    family="graded",
)
def cg(jr, cutoff, gains=()):
    return _cg(jr, cutoff, gains)


@measure(
    name="nCG",
    summary="Cumulated gain of the top k divided by k times the largest gain.",
    formula="nCG@k = CG@k / (k * rel_max); with binary grades nCG@k = P@k",
    citation=WEBER,
    params=(
        GAINS,
        Param(
            "max_gain",
            float,
            None,
            "rel_max, the largest gain of the grading scale (default: the largest gain in "
            "the qrels)",
            **number_in(MIN_MAGNITUDE, MAX_MAGNITUDE),
        ),
    ),
    cutoff="rank",
    cutoff_required=True,
    edge_cases="Missing ranks count as gain 0 (like P@k). 0 when the qrels hold no "
    "positive gain and max_gain is not given.",
    family="graded",
)
def ncg(jr, cutoff, gains=(), max_gain=None):
    if max_gain is None:
        all_gains = gain_of(jr.qrels_grades, gains)
        max_gain = float(all_gains.max()) if len(all_gains) else 0.0
    return safe_div(_cg(jr, cutoff, gains), cutoff * max(max_gain, 0.0))


def _exclusive_cumsum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """sum of the values ranked above each element of its segment (sequential)."""
    shifted = np.concatenate(([0.0], values[:-1])) if len(values) else values
    starts = offsets[:-1][np.diff(offsets) > 0]
    shifted[starts] = 0.0
    return segments.sequential_cumsum(shifted, offsets)


# ERR's largest max_grade: R = (2^g - 1) / 2^max_grade stays below 1 in a double (so
# that log(1 - R) is finite) for every grade g <= max_grade only while 2^g - 1 is exact.
MAX_ERR_GRADE = 53


def _grade_text(grade) -> str:
    """A grade as written in messages: whole grades as integers, fractions as %g."""
    return str(int(grade)) if float(grade).is_integer() else f"{float(grade):g}"


@measure(
    name="ERR",
    summary="Expected reciprocal rank: 1/rank where a cascade user stops, in expectation.",
    formula="ERR@k = sum_{i <= k} (1/i) R_i prod_{j < i} (1 - R_j), "
    "R_i = (2^g_i - 1) / 2^g_max (g_max = max_grade)",
    citation=f"{CHAPELLE}; gdeval.pl (ir_measures ERR)",
    params=(
        Param(
            "max_grade",
            int,
            4,
            "g_max, the top grade of the scale (4 as gdeval.pl and ir_measures)",
            **integer_in(0, MAX_ERR_GRADE),
        ),
    ),
    cutoff="rank",
    edge_cases="A retrieved grade above max_grade raises an error (R_i would exceed 1). "
    "Unjudged documents have R = 0. Queries without relevant documents score 0.",
    family="graded",
)
def err(jr, cutoff, max_grade=4):
    labels = jr.labels
    if cutoff is not None:
        labels = np.where(jr.rank <= cutoff, labels, 0)
    if len(labels) and labels.max() > max_grade:
        raise MeasureError(
            f"ERR: grade {_grade_text(labels.max())} exceeds max_grade={max_grade}; "
            f"use ERR(max_grade={math.ceil(labels.max())})"
        )
    stop = err_stop(labels, max_grade)
    # P(reaching rank i) = prod_{j<i} (1 - R_j) = exp(sum log(1 - R_j)); R_j < 1 always
    reach = libm.exp(_exclusive_cumsum(libm.log1p(-stop), jr.offsets))
    return segments.sequential_sum(stop * reach / jr.rank, jr.offsets)


def err_stop(labels: np.ndarray, max_grade: int) -> np.ndarray:
    """ERR's stop probability of each label, R = (2^g - 1) / 2^g_max (g = max(label, 0)),
    ``2^g`` by the C library's ``exp2`` as the engine computes it."""
    g = np.where(labels > 0, labels, 0).astype(np.float64)
    return exp_gain(g) / 2.0**max_grade


RBP_P = Param(
    "p",
    float,
    0.8,
    "persistence: probability of looking at the next document",
    **number_in(0, 1, open_lo=True, open_hi=True),
)
RBP_REL = Param(
    "rel",
    int,
    None,
    "binary gains: 1 when grade >= rel; default None uses graded gains (the grades)",
    **integer_in(MIN_GRADE, MAX_GRADE, "an integer grade"),
)


def _rbp_gains(jr, rel):
    if rel is None:
        return np.where(jr.labels > 0, jr.labels, 0).astype(np.float64)
    return (jr.labels >= int(rel)).astype(np.float64)


def _depth(jr, cutoff):
    return jr.num_ret if cutoff is None else np.minimum(jr.num_ret, cutoff)


@measure(
    name="RBP",
    summary="Rank-biased precision (ir_measures): expected gain per document of a user who "
    "continues with probability p.",
    formula="RBP@k = (1 - p) sum_{i <= k} gain_i p^(i-1); gain = [grade >= rel] with rel, "
    "else the grade",
    citation=f"{MZ}; ir_measures RBP",
    params=(RBP_P, RBP_REL),
    cutoff="rank",
    edge_cases="Graded gains are not rescaled: with grades above 1 the value can exceed 1 "
    "(use rel=1 for binary RBP). trec_eval's rbp (p = 0.9, gains min-max normalised) is a "
    "different family. Unjudged documents gain 0; see RBPResidual.",
    family="user",
    fractional="gain",
)
def rbp_ir(jr, cutoff, p=0.8, rel=None):
    g = _rbp_gains(jr, rel)
    if cutoff is not None:
        g = np.where(jr.rank <= cutoff, g, 0.0)
    weights = segments.powers(p, max(jr.max_len, 1))[jr.rank - 1]
    return (1.0 - p) * segments.sequential_sum(g * weights, jr.offsets)


@measure(
    name="RBPResidual",
    aliases=("RBP_residual",),
    summary="Residual of RBP: the most that unjudged and unretrieved documents could add.",
    formula="resid@k = g_max [ p^d + (1 - p) sum_{unjudged i <= d} p^(i-1) ], d = min(k, n), "
    "g_max = 1 with rel, else the largest grade in the qrels",
    citation=f"{MZ} (section 5, residuals)",
    params=(RBP_P, RBP_REL),
    cutoff="rank",
    edge_cases="RBP + RBPResidual bounds the RBP of any completion of the judgments and "
    "of the ranking. An empty ranking has residual g_max.",
    family="user",
    fractional="gain",
)
def rbp_residual(jr, cutoff, p=0.8, rel=None):
    depth = _depth(jr, cutoff)
    table = segments.powers(p, max(jr.max_len, 1) + 1)
    unjudged = (jr.labels < 0) & (jr.rank <= depth[jr.segment])
    terms = np.where(unjudged, table[jr.rank - 1], 0.0)
    value = table[depth] + (1.0 - p) * segments.sequential_sum(terms, jr.offsets)
    if rel is None:
        top = float(jr.qrels_grades.max()) if len(jr.qrels_grades) else 1.0
        value = value * max(top, 1.0)
    return value
