"""Set-based (Boolean retrieval) measures: the retrieved list taken as an unordered set.

With ret = number retrieved, R = number relevant and relret = relevant retrieved:
precision relret/ret, recall relret/R, and their combinations. Values are 0 where a
denominator is 0 (trec_eval).
"""

from __future__ import annotations

from ..._lazy import lazy
from .. import segments
from .common import level, safe_div
from .precision import JUDGED_ONLY, REL, TREC
from .registry import MAX_MAGNITUDE, SET, Micro, Param, TrecEval, measure, number_in

np = lazy("numpy", __name__, "np")


def _counts(jr, rel):
    lv = level(jr, rel)
    relret = segments.int_sum(jr.relevant(lv), jr.offsets).astype(np.float64)
    return relret, jr.num_ret.astype(np.float64), jr.num_rel(lv).astype(np.float64)


def _pooled(jr, rel) -> tuple[float, float, float]:
    """relret, ret and R summed over all queries (for micro averages)."""
    lv = level(jr, rel)
    relret = float(np.sum(jr.relevant(lv)))
    return relret, float(np.sum(jr.num_ret)), float(np.sum(jr.num_rel(lv)))


def _micro_p(jr, cutoff, rel=None, relative=False):
    relret, ret, _ = _pooled(jr, rel)
    return relret / ret if ret else 0.0


def _micro_r(jr, cutoff, rel=None):
    relret, _, r = _pooled(jr, rel)
    return relret / r if r else 0.0


def _micro_f(jr, beta2: float, rel) -> float:
    relret, ret, r = _pooled(jr, rel)
    return float(f_measure(np.array([relret]), np.array([ret]), np.array([r]), beta2)[0])


@measure(
    name="SetP",
    aliases=("set_P",),
    trec=TrecEval("set_P", 30, SET),
    summary="Precision of the retrieved set.",
    formula="SetP = relret / ret  (relative=true: relret / min(ret, R), as SetRelP)",
    citation=f"{TREC}, m_set_P.c",
    params=(
        REL,
        Param(
            "relative",
            bool,
            False,
            "divide by the best possible number of relevant retrieved, min(ret, R) "
            "(ir_measures SetP(relative=true))",
        ),
        JUDGED_ONLY,
    ),
    family="set",
    micro=Micro("set_precision", _micro_p),
)
def set_p(jr, cutoff, rel=None, relative=False):
    relret, ret, r = _counts(jr, rel)
    return safe_div(relret, np.minimum(ret, r) if relative else ret)


@measure(
    name="SetR",
    aliases=("set_recall",),
    trec=TrecEval("set_recall", 32, SET),
    summary="Recall of the retrieved set.",
    formula="SetR = relret / R",
    citation=f"{TREC}, m_set_recall.c",
    params=(REL,),
    family="set",
    micro=Micro("set_recall", _micro_r),
)
def set_r(jr, cutoff, rel=None):
    relret, _, r = _counts(jr, rel)
    return safe_div(relret, r)


@measure(
    name="SetRelP",
    aliases=("set_relative_P",),
    trec=TrecEval("set_relative_P", 31, SET),
    summary="Precision of the retrieved set relative to the best possible.",
    formula="SetRelP = relret / min(ret, R)",
    citation=f"{TREC}, m_set_rel_P.c",
    params=(REL,),
    family="set",
)
def set_rel_p(jr, cutoff, rel=None):
    relret, ret, r = _counts(jr, rel)
    return safe_div(relret, np.minimum(ret, r))


@measure(
    name="SetAP",
    aliases=("set_map",),
    trec=TrecEval("set_map", 33, SET),
    summary="Set 'average precision': precision times recall of the retrieved set.",
    formula="SetAP = relret^2 / (ret * R)",
    citation=f"{TREC}, m_set_map.c",
    params=(REL, JUDGED_ONLY),
    family="set",
)
def set_ap(jr, cutoff, rel=None):
    relret, ret, r = _counts(jr, rel)
    return safe_div(relret * relret, ret * r)


def f_measure(relret, ret, r, beta2: float) -> np.ndarray:
    """(beta^2 + 1) P R / (beta^2 P + R); 0 when nothing relevant was retrieved."""
    p = safe_div(relret, ret)
    rec = safe_div(relret, r)
    den = beta2 * p + rec
    return np.where(relret > 0, safe_div((beta2 + 1.0) * p * rec, den), 0.0)


@measure(
    name="set_F",
    trec=TrecEval("set_F", 34, SET, values=("x",)),
    summary="trec_eval's set F measure; its parameter x is beta squared.",
    formula="set_F.x = (x + 1) P R / (x P + R)",
    citation=f"{TREC}, m_set_F.c; van Rijsbergen (1979)",
    params=(
        Param(
            "x",
            float,
            1.0,
            "relative importance of recall (beta squared)",
            **number_in(0, MAX_MAGNITUDE),
        ),
        REL,
    ),
    family="set",
    micro=Micro("set_f", lambda jr, cutoff, x=1.0, rel=None: _micro_f(jr, x, rel)),
)
def set_f_trec(jr, cutoff, x=1.0, rel=None):
    relret, ret, r = _counts(jr, rel)
    return f_measure(relret, ret, r, x)


@measure(
    name="SetF",
    summary="F-beta of the retrieved set: the weighted harmonic mean of precision and recall.",
    formula="SetF(beta) = (1 + beta^2) P R / (beta^2 P + R)  (= trec_eval set_F with x = beta^2)",
    citation="van Rijsbergen, Information Retrieval (1979), ch. 7; Manning, Raghavan & Schütze 2008, sec. 8.3",
    params=(
        Param(
            "beta",
            float,
            1.0,
            "recall is beta times as important as precision",
            **number_in(0, 1e50),
        ),
        REL,
        JUDGED_ONLY,
    ),
    family="set",
    micro=Micro("set_f_beta", lambda jr, cutoff, beta=1.0, rel=None: _micro_f(jr, beta**2, rel)),
)
def set_f(jr, cutoff, beta=1.0, rel=None):
    relret, ret, r = _counts(jr, rel)
    return f_measure(relret, ret, r, beta * beta)
