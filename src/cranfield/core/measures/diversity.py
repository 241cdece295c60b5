"""Diversity (intent-aware) measures exactly as ndeval computes them (ndeval.c 4.5, the
TREC Web track's evaluator, also wrapped by pyndeval and ir_measures).

They read subtopic qrels (:class:`~cranfield.core.subtopics.SubtopicQrels`): a run is
judged against them by :func:`~cranfield.core.subtopics.judge_intents` and the
compiled engine computes every value (``rust/eval/src/diversity.rs``); the family
kernels below hand the judged run to it. ndeval itself is their oracle
(tests/reference/test_ndeval.py), not a NumPy specification: ndeval's greedy ideal
ranking has no whole-array form.

Common definitions (ndeval's, docs/diversity.md): judgments are binary (grade > 0);
``S`` is the number of subtopics of the topic with a relevant document; the gain of
the document at rank ``i`` is ``g_i = sum_{s relevant} (1 - alpha)^{c_s(i)}``, with
``c_s(i)`` the number of documents above rank ``i`` relevant to ``s``. A topic without
a relevant subtopic scores 0 on every measure.
"""

from __future__ import annotations

from ...errors import MeasureError
from .registry import Param, measure, number_in

CLARKE_2008 = (
    "Clarke, Kolla, Cormack, Vechtomova, Ashkan, Büttcher & MacKinnon, 'Novelty and "
    "diversity in information retrieval evaluation', SIGIR 2008"
)
CLARKE_2009 = (
    "Clarke, Kolla & Vechtomova, 'An effectiveness measure for ambiguous and "
    "underspecified queries', ICTIR 2009"
)
CHAPELLE_2009 = (
    "Chapelle, Metzler, Zhang & Grinspan, 'Expected reciprocal rank for graded relevance', "
    "CIKM 2009; Chapelle, Ji, Liao, Velipasaoglu, Lai & Wu, 'Intent-based diversification "
    "of web search results: metrics and algorithms', Information Retrieval 14, 2011"
)
AGRAWAL = "Agrawal, Gollapudi, Halverson & Ieong, 'Diversifying search results', WSDM 2009"
ZHAI = (
    "Zhai, Cohen & Lafferty, 'Beyond independent relevance: methods and evaluation "
    "metrics for subtopic retrieval', SIGIR 2003"
)
SAKAI_SONG = (
    "Sakai & Song, 'Evaluating diversified search results using per-intent graded "
    "relevance', SIGIR 2011"
)
NTCIREVAL = (
    "NTCIREVAL (Sakai), whose conventions these follow: global gain from the intent "
    "probabilities (uniform when none are given), the ideal list by global gain"
)
NDEVAL = "ndeval.c 4.5 (TREC Web track, 2013), whose values these are, bit for bit"

ALPHA = Param(
    "alpha",
    float,
    0.5,
    "redundancy intolerance: a subtopic's gain is multiplied by 1 - alpha each time a "
    "document relevant to it is ranked",
    **number_in(0, 1),
)
BETA = Param(
    "beta", float, 0.5, "patience of NRBP: the rank discount beta^(i-1)", **number_in(0, 1)
)

GAMMA = Param(
    "gamma",
    float,
    0.5,
    "weight of I-rec@k in D#-nDCG@k (NTCIREVAL's default 0.5)",
    **number_in(0, 1),
)

#: the deepest rank cut computed (ndeval's is 20; each rank to the cut is computed)
MAX_DEPTH = 1_000_000

_EDGE = (
    "Topics without subtopic judgments, or whose subtopics have no relevant document, "
    "score 0 (ndeval prints nan for nNRBP there). Rank cutoffs up to 1,000,000 (ndeval "
    "reports 5, 10 and 20). Needs subtopic qrels (--subtopic-qrels)."
)


def _check(jr, cutoff, **_params) -> None:
    if cutoff is not None and cutoff > MAX_DEPTH:
        raise MeasureError(
            f"diversity measures are computed to rank {MAX_DEPTH} at most, not {cutoff}"
        )


def _kernel(family: str):
    def kernel(jr, cutoff, alpha=0.5, beta=0.5, gamma=0.5):
        from ..subtopics import diversity_values

        return diversity_values(jr, [(family, cutoff, alpha, beta, gamma)])[0]

    kernel.__name__ = kernel.__qualname__ = f"{family.lower()}_kernel"
    return kernel


def _declare(name: str, **spec) -> None:
    defaults = dict(family="diversity", fractional="refused", check=_check, edge_cases=_EDGE)
    measure(name=name, **{**defaults, **spec})(_kernel(name))


_declare(
    "alpha_nDCG",
    aliases=("alpha-nDCG", "a_nDCG"),
    summary="alpha-nDCG@k: novelty-discounted gain of the top k over that of ndeval's "
    "greedy ideal ranking.",
    formula="alpha-DCG@k = sum_{i<=k} g_i / log2(i + 1) / sum_{i<=k} S (1 - alpha)^(i-1) "
    "/ log2(i + 1); alpha-nDCG@k = alpha-DCG@k(run) / alpha-DCG@k(ideal), 0 when the "
    "run's is 0; the ideal is ndeval's greedy ranking of the judged documents (largest "
    "gain first, ties to the larger document id)",
    citation=f"{CLARKE_2008}; {NDEVAL}",
    params=(ALPHA,),
    cutoff="rank",
    cutoff_required=True,
)
_declare(
    "alpha_DCG",
    aliases=("alpha-DCG",),
    summary="alpha-DCG@k with ndeval's collection-independent normalisation: divided by "
    "the value of a ranking covering every subtopic at every rank.",
    formula="alpha-DCG@k = sum_{i<=k} g_i / log2(i + 1) / sum_{i<=k} S (1 - alpha)^(i-1) "
    "/ log2(i + 1) (k = 1: not divided, as ndeval)",
    citation=f"{CLARKE_2008}; {NDEVAL}",
    params=(ALPHA,),
    cutoff="rank",
    cutoff_required=True,
)
_declare(
    "ERR_IA",
    aliases=("ERR-IA",),
    summary="ERR-IA@k as ndeval computes it: novelty-discounted gain over rank, with "
    "ndeval's collection-independent normalisation.",
    formula="ERR-IA@k = sum_{i<=k} g_i / i / sum_{i<=k} S (1 - alpha)^(i-1) / i "
    "(k = 1: not divided, as ndeval)",
    citation=f"{CHAPELLE_2009}; {AGRAWAL}; {NDEVAL}",
    params=(ALPHA,),
    cutoff="rank",
    cutoff_required=True,
)
_declare(
    "nERR_IA",
    aliases=("nERR-IA",),
    summary="nERR-IA@k: ERR-IA@k over that of ndeval's greedy ideal ranking.",
    formula="nERR-IA@k = ERR-IA@k(run) / ERR-IA@k(ideal), 0 when alpha-DCG@k(run) is 0",
    citation=f"{CHAPELLE_2009}; {NDEVAL}",
    params=(ALPHA,),
    cutoff="rank",
    cutoff_required=True,
)
_declare(
    "NRBP",
    summary="Novelty- and rank-biased precision over the whole ranking.",
    formula="NRBP = (1 - (1 - alpha) beta) / S * sum_i g_i beta^(i-1)",
    citation=f"{CLARKE_2009}; {NDEVAL}",
    params=(ALPHA, BETA),
)
_declare(
    "nNRBP",
    summary="NRBP over the NRBP of ndeval's greedy ideal ranking.",
    formula="nNRBP = NRBP(run) / NRBP(ideal)",
    citation=f"{CLARKE_2009}; {NDEVAL}",
    params=(ALPHA, BETA),
)
_declare(
    "MAP_IA",
    aliases=("AP_IA", "MAP-IA"),
    summary="Intent-aware average precision: the mean over subtopics of each subtopic's "
    "average precision (whole ranking).",
    formula="MAP-IA = 1/S sum_s (1/R_s) sum_{i: d_i relevant to s} |{j <= i: d_j relevant "
    "to s}| / i; R_s the subtopic's relevant documents (every judgment line counted)",
    citation=f"{AGRAWAL}; {NDEVAL}",
)
_declare(
    "P_IA",
    aliases=("P-IA",),
    summary="Intent-aware precision@k: the mean over subtopics of precision@k.",
    formula="P-IA@k = sum_{i<=k} |{s: d_i relevant to s}| / (k S)",
    citation=f"{AGRAWAL}; {NDEVAL}",
    cutoff="rank",
    cutoff_required=True,
)
_declare(
    "StRecall",
    aliases=("strec", "S_recall"),
    summary="Subtopic recall@k: the fraction of the subtopics covered by the top k.",
    formula="S-recall@k = |{s: some d_i, i <= k, relevant to s}| / S",
    citation=f"{ZHAI}; {NDEVAL}",
    cutoff="rank",
    cutoff_required=True,
)

_GRADED_EDGE = (
    "Grades are used as they are (gain = grade; ndeval's measures binarise them). The "
    "intents of a topic are its subtopics with a relevant document; intent "
    "probabilities (--intent-probabilities) weigh them, else 1/S each. Topics without "
    "subtopic judgments, or whose subtopics have no relevant document, score 0. Rank "
    "cutoffs up to 1,000,000. Needs subtopic qrels (--subtopic-qrels)."
)
_declare(
    "D_nDCG",
    aliases=("D-nDCG", "DnDCG"),
    summary="D-nDCG@k: nDCG@k of the global gains of per-intent graded relevance, over "
    "the ideal list by global gain.",
    formula="GG(d) = sum_i P(i|q) g_i(d) (g_i(d) the grade of d for intent i, P(i|q) the "
    "intent probability, 1/S when none is given); D-nDCG@k = sum_{r<=k} GG(d_r) / "
    "log2(r + 1) / sum_{r<=k} GG*(r) / log2(r + 1), GG* the judged documents' global "
    "gains sorted descending; 0 when the ideal's is 0",
    citation=f"{SAKAI_SONG}; {NTCIREVAL}",
    cutoff="rank",
    cutoff_required=True,
    edge_cases=_GRADED_EDGE,
)
_declare(
    "I_rec",
    aliases=("I-rec", "Irec"),
    summary="Intent recall@k: the fraction of the intents covered by the top k "
    "(unweighted, whatever the intent probabilities).",
    formula="I-rec@k = |{i: some d_r, r <= k, relevant to i}| / S",
    citation=f"{SAKAI_SONG}; {ZHAI}; {NTCIREVAL}",
    cutoff="rank",
    cutoff_required=True,
    edge_cases=_GRADED_EDGE,
)
_declare(
    "Dsharp_nDCG",
    aliases=("Dsharp-nDCG", "DsharpnDCG"),
    summary="D#-nDCG@k: a linear combination of I-rec@k (diversity) and D-nDCG@k "
    "(overall relevance).",
    formula="D#-nDCG@k = gamma I-rec@k + (1 - gamma) D-nDCG@k",
    citation=f"{SAKAI_SONG}; {NTCIREVAL}",
    params=(GAMMA,),
    cutoff="rank",
    cutoff_required=True,
    edge_cases=_GRADED_EDGE,
)
_declare(
    "nDCG_IA",
    aliases=("nDCG-IA",),
    summary="Intent-aware nDCG@k: trec_eval's nDCG@k against each intent's graded "
    "judgments, weighted by the intent probabilities.",
    formula="nDCG-IA@k = sum_i P(i|q) nDCG_i@k, nDCG_i@k = sum_{r<=k} g_i(d_r) / "
    "log2(r + 1) over the same sum for intent i's grades sorted descending (trec_eval's "
    "ndcg_cut.k on intent i's judgments); P(i|q) = 1/S when none is given",
    citation=f"{AGRAWAL}; Järvelin & Kekäläinen, 'Cumulated gain-based evaluation of IR "
    "techniques', ACM TOIS 20(4), 2002",
    cutoff="rank",
    cutoff_required=True,
    edge_cases=_GRADED_EDGE,
)


def is_diversity(definition) -> bool:
    """Whether a family is one of these (its values need subtopic qrels)."""
    return definition.family == "diversity"
