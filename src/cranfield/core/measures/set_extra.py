"""Boolean-retrieval measures that need the collection size: fallout and generality.

Weber (Multimedia Retrieval, lecture notes, Univ. Basel 2019, ch. 1.3), with A the
collection, R_Q the relevant documents of query Q and F_Q the retrieved set:

    p = |F ∩ R| / |F|,  r = |F ∩ R| / |R|,  f = |F \\ R| / |A \\ R|,  g = |R| / |A|

and the identity f·p·(1-g) = r·g·(1-p). Queries are independent, so |A| (the
``collection_size`` parameter, trec_eval's ``-N``) is the same for all of them.
"""

from __future__ import annotations

from ..._lazy import lazy
from ...errors import MeasureError
from .. import segments
from .common import count_at, level, safe_div
from .precision import JUDGED_ONLY, REL
from .registry import MAX_COUNT, Micro, Param, integer_in, measure

np = lazy("numpy", __name__, "np")

WEBER = "Weber, Multimedia Retrieval, lecture notes (Univ. Basel 2019 ch. 1.3, 2024 sec. 2.2)"

COLLECTION_SIZE = Param(
    "collection_size",
    int,
    None,
    "number of documents in the collection, |A| (required)",
    **integer_in(1, MAX_COUNT),
)


def _collection_size(name: str, collection_size) -> float:
    if collection_size is None:
        raise MeasureError(
            f"{name} needs the collection size: write {name}(collection_size=N), "
            "N = number of documents in the collection"
        )
    return float(collection_size)


def _check_fits(name: str, n: float, ret: np.ndarray, num_rel: np.ndarray) -> None:
    if len(num_rel) and (num_rel.max() > n or ret.max(initial=0) > n):
        raise MeasureError(
            f"{name}: collection_size={int(n)} is smaller than the number of relevant or "
            "retrieved documents of a query"
        )


def _fallout_check(jr, cutoff, collection_size=None, rel=None) -> float:
    """|A| as a float; MeasureError when it is missing or smaller than a query's
    retrieved (up to the cutoff) or relevant documents."""
    n = _collection_size("Fallout", collection_size)
    ret = jr.num_ret if cutoff is None else np.minimum(jr.num_ret, cutoff)
    _check_fits("Fallout", n, ret, jr.num_rel(level(jr, rel)))
    return n


def _generality_check(jr, cutoff, collection_size=None, rel=None) -> float:
    """|A| as a float; MeasureError when it is missing or smaller than a query's R."""
    n = _collection_size("Generality", collection_size)
    _check_fits("Generality", n, np.zeros(0), jr.num_rel(level(jr, rel)))
    return n


def _fallout_counts(jr, cutoff, rel):
    lv = level(jr, rel)
    if cutoff is None:
        relret = segments.int_sum(jr.relevant(lv), jr.offsets)
        ret = jr.num_ret
    else:
        relret = count_at(jr, jr.relevant(lv), cutoff)
        ret = np.minimum(jr.num_ret, cutoff)
    return relret.astype(np.float64), ret.astype(np.float64), jr.num_rel(lv).astype(np.float64)


def _fallout_micro(jr, cutoff, collection_size=None, rel=None):
    n = _collection_size("Fallout", collection_size)
    relret, ret, r = _fallout_counts(jr, cutoff, rel)
    return float(safe_div(np.sum(ret - relret), jr.num_queries * n - np.sum(r)))


@measure(
    name="Fallout",
    aliases=("fallout", "FPR"),
    summary="Fallout: the fraction of the non-relevant documents of the collection retrieved.",
    formula="f = |F \\ R| / |A \\ R| = (ret - relret) / (collection_size - R)",
    citation=WEBER,
    params=(COLLECTION_SIZE, REL, JUDGED_ONLY),
    cutoff="rank",
    edge_cases="Needs collection_size (MeasureError otherwise). 0 when every document of "
    "the collection is relevant. Documents retrieved but not judged count as non-relevant.",
    family="set",
    micro=Micro("fallout", _fallout_micro),
    check=_fallout_check,
)
def fallout(jr, cutoff, collection_size=None, rel=None):
    n = _fallout_check(jr, cutoff, collection_size, rel)
    relret, ret, r = _fallout_counts(jr, cutoff, rel)
    return safe_div(ret - relret, n - r)


def _generality_micro(jr, cutoff, collection_size=None, rel=None):
    n = _collection_size("Generality", collection_size)
    r = jr.num_rel(level(jr, rel))
    return float(safe_div(np.sum(r), jr.num_queries * n))


@measure(
    name="Generality",
    aliases=("generality",),
    summary="Generality: the fraction of the collection relevant to the query.",
    formula="g = |R| / |A| = R / collection_size",
    citation=WEBER + " (called 'total recall' there)",
    params=(COLLECTION_SIZE, REL),
    edge_cases="Needs collection_size (MeasureError otherwise). Independent of the run.",
    family="set",
    micro=Micro("generality", _generality_micro),
    check=_generality_check,
)
def generality(jr, cutoff, collection_size=None, rel=None):
    n = _generality_check(jr, cutoff, collection_size, rel)
    return jr.num_rel(level(jr, rel)).astype(np.float64) / n
