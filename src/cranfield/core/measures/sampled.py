"""Estimators of AP, nDCG and precision from a sample of judgments, exactly as
``cranfield sample_eval`` (TREC's sample_eval.pl, and cranfield's statAP) computes them
per topic, as measures of ``eval``, ``compare`` and ``report``.

They read sampled qrels (``--sampled-qrels FILE``; five columns ``topic iteration
docno stratum relevance``, a sixth with the inclusion probability for statAP and
statPC): each run is estimated against them by
:class:`~cranfield.core.sampled_run.SampledRun`, the kernels below read its
columns. Their names are not trec_eval's ``infAP`` (which reads ``-1`` judgments from
ordinary qrels, Yilmaz & Aslam 2006's estimator for a uniform sample) nor sample_eval's
own ``infAP`` label (its xinfAP): ``xinfAP`` names the stratified estimator of Yilmaz,
Kanoulas & Aslam 2008 as they do, so no name reads two ways.
"""

from __future__ import annotations

from .registry import measure

YILMAZ_2008 = (
    "Yilmaz, Kanoulas & Aslam, 'A simple and efficient sampling method for estimating "
    "AP and NDCG', SIGIR 2008; sample_eval.pl (TREC), whose values these are, bit for bit"
)
ASLAM_2006 = (
    "Aslam, Pavlu & Yilmaz, 'A statistical method for system evaluation using incomplete "
    "judgments', SIGIR 2006; Pavlu & Aslam, 'A practical sampling strategy for efficient "
    "retrieval evaluation', 2007"
)

_EDGE = (
    "Needs sampled qrels (--sampled-qrels). The run is read as sample_eval reads it: "
    "score descending, docno descending, the first 1000 documents of a topic (-M and -J "
    "do not apply). A query the sampled qrels lack scores 0; one the run lacks (-c) is "
    "an empty ranking: 0. Topic ids match with leading zeros removed."
)
_NO_ENGINE = "estimated topic by topic from sampled qrels (cranfield.core.sampled_run)"


def _kernel(family: str):
    def kernel(jr, cutoff=None):
        from ..sampled_run import sampled_of

        return sampled_of(jr, family).columns(family, cutoff, jr.query_ids)[0]

    kernel.__name__ = kernel.__qualname__ = f"{family.lower()}_kernel"
    return kernel


def _declare(name: str, **spec) -> None:
    defaults = dict(
        family="sampled", fractional="refused", edge_cases=_EDGE, no_engine_kernel=_NO_ENGINE
    )
    measure(name=name, **{**defaults, **spec})(_kernel(name))


_declare(
    "xinfAP",
    summary="Extended inferred AP: AP estimated from a stratified random sample of the "
    "pool (sample_eval's 'infAP').",
    formula="R_s = r_s D_s / n_s per stratum s (D_s pooled, n_s sampled, r_s sampled "
    "relevant), R = sum_s R_s; at a sampled relevant document at rank k with d pooled "
    "documents above, d_s of them in s (m_s sampled, v_s relevant): P_k = 1/k + (d/k) "
    "sum_s (d_s/d) (v_s + 1e-5)/(m_s + 3e-5); xinfAP = sum_s (R_s/R) (1/r_s) "
    "sum_{k in s} P_k",
    citation=YILMAZ_2008,
)
_declare(
    "infNDCG",
    summary="Inferred nDCG: nDCG estimated from a stratified random sample of the pool.",
    formula="DCG = d sum_s (d_s/d) (1/m_s) sum_{k in s, sampled} g_k / log2(k + 1) "
    "(d pooled documents retrieved, d_s in stratum s, m_s of them sampled); the ideal "
    "DCG of round(sum_s g-count_s D_s / n_s) documents of each grade g; infNDCG = DCG / "
    "ideal DCG (0 when the ideal is 0)",
    citation=YILMAZ_2008,
)
_declare(
    "statAP",
    summary="statAP: AP estimated from a sample drawn with known inclusion probabilities "
    "(Horvitz-Thompson weights).",
    formula="x_k = [d_k sampled relevant] / pi_{d_k}; R = sum_{d sampled relevant} 1/pi_d; "
    "statAP = (1/R) sum_k (x_k/k)(1 + sum_{j<k} x_j)",
    citation=ASLAM_2006,
)
_declare(
    "statPC",
    summary="statPC@k: precision at k estimated from a sample drawn with known inclusion "
    "probabilities.",
    formula="statPC@k = (1/k) sum_{j<=k} x_j, x_j = [d_j sampled relevant] / pi_{d_j}",
    citation=ASLAM_2006,
    cutoff="rank",
    cutoff_required=True,
)
