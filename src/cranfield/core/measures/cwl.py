"""C/W/L measures: user models as continuation, weight and last probabilities
(Moffat, Bailey, Scholer & Thomas 2017), as cwl_eval 1.0.12 computes them.

A model is its continuation vector C: C_i is the probability that a user who has
examined the item at rank i goes on to rank i + 1. On a ranking of exactly ``depth``
items (cut, or completed with unknown items), with prod_i = prod_{j<i} C_j,

    W_i = prod_i / sum_k prod_k          (the weight: attention to rank i)
    L_i = prod_i (1 - C_i)                (the probability of stopping at rank i)
    EU  = sum_i W_i g_i      ETU = sum_i L_i sum_{j<=i} g_j
    EC  = sum_i W_i c_i      ETC = sum_i L_i sum_{j<=i} c_j      ED = 1 / W_1

(expected utility per item and in total, expected cost per item and in total,
expected depth). TBG and U-measure define W directly, from the costs, and C as its
ratios. A document's gain is its grade divided by ``max_grade``; an unjudged or
missing document gains 0 in the worst case and 1 in the best, and every document
costs ``max_cost`` in the worst case and ``min_cost`` in the best (cwl_eval without a
cost file). ``residual=True`` gives best minus worst: how much the unjudged documents
leave open. ``cranfield cwl`` computes the same numbers with cwl_eval's inputs,
per-document costs and output.

Every sum here runs left to right (``cumsum``), as the engine's kernel
(``rust/eval/src/measures/cwl.rs``): bit for bit. cwl_eval sums with ``np.dot`` and
``np.sum`` (BLAS's and NumPy's pairwise orders): the last bits differ, its four
printed decimals do not.
"""

from __future__ import annotations

import math

from ..._lazy import lazy
from ...errors import MeasureError
from .. import libm
from .registry import Param, integer_in, measure, number_in

np = lazy("numpy", __name__, "np")

MOFFAT_2013 = (
    "Moffat, Thomas & Scholer, 'Users versus models: what observation tells us about "
    "effectiveness metrics', CIKM 2013"
)
MOFFAT_2017 = (
    "Moffat, Bailey, Scholer & Thomas, 'Incorporating user expectations and behavior into "
    "the measurement of search effectiveness', ACM TOIS 35(3) 2017"
)
CWL_EVAL = (
    "Azzopardi, Thomas & Moffat, 'cwl_eval: an evaluation tool for information retrieval', "
    "SIGIR 2019 (cwl_eval 1.0.12)"
)
FRAMEWORK = f"{MOFFAT_2013}; {MOFFAT_2017}; {CWL_EVAL}"

LARGE = 1e9  # the largest value of a model's real parameters

QUANTITIES = ("EU", "ETU", "EC", "ETC", "ED")

COMMON = (
    Param(
        "of",
        str,
        "EU",
        "the quantity: EU (expected utility per item), ETU (expected total utility), EC "
        "(expected cost per item), ETC (expected total cost), ED (expected depth)",
        choices=QUANTITIES,
    ),
    Param(
        "residual",
        bool,
        False,
        "give the residual instead: best case (unjudged gain 1, cost min_cost) minus "
        "worst case (gain 0, cost max_cost)",
    ),
    Param(
        "depth",
        int,
        1000,
        "rankings are cut or completed to this many items (cwl_eval's --max_depth)",
        **integer_in(1, 100_000),
    ),
    Param(
        "max_grade",
        float,
        None,
        "gains are grade / max_grade, at most 1 (default: the largest grade in the qrels, "
        "at least 1: binary and [0, 1] gains as they are, as cwl_eval reads them)",
        **number_in(0, LARGE, open_lo=True),
    ),
    Param(
        "min_cost",
        float,
        1.0,
        "every item's cost in the best case (cwl_eval's --min_cost)",
        **number_in(0, LARGE, open_lo=True),
    ),
    Param(
        "max_cost",
        float,
        1.0,
        "every item's cost in the worst case (cwl_eval's --max_cost)",
        **number_in(0, LARGE, open_lo=True),
    ),
)


def _k(default: int, doc: str) -> Param:
    return Param("k", int, default, doc, **integer_in(1, 1_000_000_000))


def _t(doc: str) -> Param:
    return Param("T", float, 1.0, doc, **number_in(0, LARGE, open_lo=True))


# -- the NumPy specification ---------------------------------------------------------------


def _ranks(n: int) -> np.ndarray:
    return np.arange(1, n + 1, dtype=np.float64)


def _rows(values: np.ndarray, shape) -> np.ndarray:
    return np.broadcast_to(values, shape).astype(np.float64)


def _insq(r: np.ndarray, t: float) -> np.ndarray:
    q = (r + 2.0 * t - 1.0) / (r + 2.0 * t)
    return q * q


def _first(mask: np.ndarray) -> np.ndarray:
    """Per row, the index of the first True (the row's length without one)."""
    n = mask.shape[1]
    return np.where(mask.any(axis=1), mask.argmax(axis=1), n)


def _before(stop: np.ndarray, n: int) -> np.ndarray:
    return (np.arange(n)[None, :] < stop[:, None]).astype(np.float64)


def _bpm(g, c, t, k, dynamic=None):
    n = g.shape[1]
    target = np.full(g.shape, float(t))
    if dynamic is not None:
        hb, med = dynamic
        steps = np.concatenate([np.full((len(g), 1), float(t)), hb * (g[:, :-1] - med)], axis=1)
        target = np.cumsum(steps, axis=1)
    gain_stop = _first(np.cumsum(g, axis=1) >= target)
    cost_stop = _first(np.cumsum(c, axis=1) >= k)
    return _before(np.minimum(gain_stop, cost_stop), n)


def _ratios(w: np.ndarray) -> np.ndarray:
    n = w.shape[1]
    nxt = np.concatenate([w[:, 1:], np.zeros((len(w), 1))], axis=1)
    last = np.arange(n)[None, :] == n - 1
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(~last & (w > 0.0), nxt / w, 0.0)


def _weights(model: str, c: np.ndarray, p: dict) -> np.ndarray:
    """W of TBG (Smucker & Clarke 2012) and U-measure (Sakai & Dou 2013), from the
    cost spent before each item."""
    q, n = c.shape
    zero = np.zeros((q, 1))
    before = np.concatenate([zero, np.cumsum(c, axis=1)[:, : n - 1]], axis=1)
    if model == "TBG":
        h = p["halflife"]
        ln2 = math.log(2.0) / math.log(math.e)  # cwl_eval's math.log(2.0, math.e)
        raw = h * libm.exp2(-before / h) / ln2  # (cwl_eval: 2.0 ** x, pow)
        norm = np.cumsum(raw, axis=1)[:, -1]
    else:  # U-measure: the first n - 1 items, the last weighs 0
        y = 1.0 - before[:, : n - 1] / p["L"]
        head = np.where(y > 0.0, y, 0.0)
        norm = np.cumsum(head, axis=1)[:, -1] if n > 1 else np.zeros(q)
        raw = np.concatenate([head, zero], axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return raw / norm[:, None]


def continuation(model: str, g: np.ndarray, c: np.ndarray, p: dict) -> np.ndarray:
    """C of every row of gains ``g`` and costs ``c`` (queries x depth)."""
    shape = g.shape
    n = shape[1]
    r = _ranks(n)
    if model == "cwl_P":
        return _rows(np.arange(n) < p["k"] - 1, shape)
    if model == "cwl_RR":
        return _before(_first(g > 0.0), n)
    if model == "cwl_AP":
        rii = g / r
        suffix = np.cumsum(rii[:, ::-1], axis=1)[:, ::-1]
        after = np.concatenate([suffix[:, 1:], np.zeros((len(g), 1))], axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where((after > 0.0) & (r < n), after / suffix, 0.0)
    if model == "SDCG":
        ln2 = math.log(2.0)
        value = libm.log(r + 1.0) / ln2 / (libm.log(r + 2.0) / ln2)
        return _rows(np.where(r < p["k"], value, 0.0), shape)
    if model == "cwl_RBP":
        return np.full(shape, p["theta"])
    if model == "INST":
        t = p["T"]
        ti = t - np.cumsum(g, axis=1)
        q = (r + t + ti - 1.0) / (r + t + ti)
        return q * q
    if model == "INSQ":
        return _rows(_insq(r, p["T"]), shape)
    if model == "cwl_NPV":
        return np.full(shape, 1.0 / (1.0 + p["rate"]))
    if model == "cwl_SET":
        beta = p["beta"]

        def w(i):
            return libm.power(i + 1.0, beta) - libm.power(i, beta)

        with np.errstate(divide="ignore", invalid="ignore"):
            return _rows(np.where(r < p["k"], w(r + 1.0) / w(r), 0.0), shape)
    if model == "BPM":
        return _bpm(g, c, p["T"], p["K"])
    if model == "BPM_dynamic":
        return _bpm(g, c, p["T"], p["K"], (p["hb"], p["gain_med"]))
    if model in ("TBG", "U_measure"):
        return _ratios(_weights(model, c, p))
    if model == "NERR_eq8":
        return np.where(r - 1 < p["k"] - 1, 1.0 - g, 0.0)
    if model == "NERR_eq9":
        return np.where(r - 1 < p["k"] - 1, r / (r + 1.0) * (1.0 - g), 0.0)
    if model == "NERR_eq10":
        return p["phi"] * (1.0 - g)
    if model == "NERR_eq11":
        return _insq(r, p["T"]) * (1.0 - g)
    raise ValueError(f"no C/W/L model is called {model!r}")


def scores(model: str, g: np.ndarray, c: np.ndarray, p: dict) -> np.ndarray:
    """EU, ETU, EC, ETC, ED (5 x queries) of complete rows of gains and costs."""
    cont = continuation(model, g, c, p)
    ones = np.ones((len(g), 1))
    prod = np.cumprod(np.concatenate([ones, cont[:, :-1]], axis=1), axis=1)
    if model in ("TBG", "U_measure"):
        w = _weights(model, c, p)
    else:
        w1 = 1.0 / np.cumsum(prod, axis=1)[:, -1]
        w = prod * w1[:, None]
        w[:, 0] = w1
    stop = prod * (1.0 - cont)

    def total(x):
        return np.cumsum(x, axis=1)[:, -1]

    with np.errstate(divide="ignore", invalid="ignore"):
        return np.stack(
            [
                total(w * g),
                total(stop * np.cumsum(g, axis=1)),
                total(w * c),
                total(stop * np.cumsum(c, axis=1)),
                1.0 / w[:, 0],
            ]
        )


def _gain_matrix(jr, depth: int, max_grade: float) -> np.ndarray:
    """Gains (grade / max_grade) of the top ``depth`` of each ranking; NaN: unknown."""
    g = np.full((jr.num_queries, depth), np.nan)
    keep = jr.rank <= depth
    labels = jr.labels[keep]
    g[jr.segment[keep], jr.rank[keep] - 1] = np.where(labels >= 0, labels / max_grade, np.nan)
    return g


def _scale(jr, max_grade) -> float:
    """max_grade, by default the largest grade in the qrels (at least 1)."""
    if max_grade is not None:
        return max_grade
    grades = jr.qrels_grades
    return max(1.0, float(grades.max())) if len(grades) else 1.0


def _check(jr, cutoff, depth=1000, max_grade=None, **_):
    if max_grade is None:
        return
    keep = (jr.rank <= depth) & (jr.labels >= 0)
    if keep.any() and jr.labels[keep].max() > max_grade:
        top = jr.labels[keep].max()
        raise MeasureError(
            f"a C/W/L gain is grade / max_grade, at most 1: grade {float(top):g} exceeds "
            f"max_grade={max_grade:g} (set max_grade={math.ceil(float(top))})"
        )


def _kernel(model: str):
    def kernel(
        jr,
        cutoff,
        of="EU",
        residual=False,
        depth=1000,
        max_grade=None,
        min_cost=1.0,
        max_cost=1.0,
        **p,
    ):
        g = _gain_matrix(jr, depth, _scale(jr, max_grade))
        unknown = np.isnan(g)
        worst = scores(model, np.where(unknown, 0.0, g), np.full(g.shape, max_cost), p)
        which = QUANTITIES.index(of)
        if not residual:
            return worst[which]
        best = scores(model, np.where(unknown, 1.0, g), np.full(g.shape, min_cost), p)
        return best[which] - worst[which]

    kernel.__name__ = f"cwl_{model}"
    return kernel


def _declare(name, summary, formula, reference, params=(), edge=""):
    measure(
        name=name,
        summary=summary,
        formula=formula + "; EU, ETU, EC, ETC or ED of C by the C/W/L framework",
        citation=f"{reference}; {FRAMEWORK}",
        params=(*params, *COMMON),
        edge_cases=(edge + " " if edge else "")
        + "Rankings are cut or completed to `depth` items; unjudged and missing items "
        "gain 0 (1 in the best case of a residual).",
        family="user",
        fractional="gain",
        check=_check,
    )(_kernel(name))


RIJSBERGEN = "van Rijsbergen, Information Retrieval, Butterworths 1979"
KANTOR = "Kantor & Voorhees, 'The TREC-5 confusion track', Information Retrieval 2(2-3) 2000"
HARMAN = "Harman, 'Evaluation issues in information retrieval', IP&M 28(4) 1992"
JK = "Järvelin & Kekäläinen, 'Cumulated gain-based evaluation of IR techniques', TOIS 2002"
MZ = "Moffat & Zobel, 'Rank-biased precision for measurement of retrieval effectiveness', TOIS 2008"
INST_REF = "Moffat, Bailey, Scholer & Thomas, 'INST: an adaptive metric for information retrieval evaluation', ADCS 2015"
INSQ_REF = (
    "Moffat, Scholer & Thomas, 'Models and metrics: IR evaluation as a user process', ADCS 2012"
)
ECON = "Azzopardi, 'Modelling interaction with economic models of search', SIGIR 2014"
BPM_REF = "Zhang, Liu, Li, Zhang, Xu & Ma, 'Evaluating web search with a bejeweled player model', SIGIR 2017"
TBG_REF = "Smucker & Clarke, 'Time-based calibration of effectiveness measures', SIGIR 2012"
U_REF = "Sakai & Dou, 'Summaries, ranked retrieval and sessions: a unified framework for information access evaluation', SIGIR 2013"
NERR_REF = "Azzopardi, Mackenzie & Moffat, 'ERR is not C/W/L: exploring the relationship between expected reciprocal rank and other metrics', ICTIR 2021"

THETA = Param("theta", float, 0.9, "persistence: probability of going on", **number_in(0, 1))
BPM_T = _t("E_b, the total gain wanted")
BPM_K = Param("K", float, 10.0, "E_c, the total cost the user will spend", **number_in(0, LARGE))

_declare(
    "cwl_P",
    "Precision at k as a C/W/L measure (cwl_eval's P@k): EU is P@k, ETU is CG@k.",
    "C_i = 1 for i < k, else 0",
    RIJSBERGEN,
    (_k(10, "the rank the user stops at"),),
    "k beyond depth + 1 is cut to depth (cwl_eval fails there).",
)
_declare(
    "cwl_RR",
    "Reciprocal rank as a C/W/L measure: the user stops at the first item with a gain.",
    "C_i = 1 before the first item with g > 0, else 0",
    KANTOR,
)
_declare(
    "cwl_AP",
    "Average precision as a C/W/L measure (cwl_eval's AP).",
    "C_i = sum_{j>i} (g_j/j) / sum_{j>=i} (g_j/j), 0 when the numerator is 0",
    HARMAN,
)
_declare(
    "SDCG",
    "Scaled DCG@k (cwl_eval's NDCG-k@): DCG's discount as a distribution over the top k.",
    "C_i = log(i+1) / log(i+2) for i < k, else 0",
    JK,
    (_k(10, "the rank cutoff"),),
)
_declare(
    "cwl_RBP",
    "Rank-biased precision as a C/W/L measure (cwl_eval's RBP@theta).",
    "C_i = theta",
    MZ,
    (THETA,),
)
_declare(
    "INST",
    "INST: an adaptive model whose user wants T units of gain.",
    "C_i = ((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T - sum_{j<=i} g_j",
    INST_REF,
    (_t("T, the gain the user wants"),),
    "Gains must lie in [0, 1].",
)
_declare(
    "INSQ",
    "INSQ: INST's predecessor, whose continuation does not depend on the gains.",
    "C_i = ((i + 2T - 1) / (i + 2T))^2",
    INSQ_REF,
    (_t("T, the gain the user wants"),),
)
_declare(
    "cwl_NPV",
    "Net present value: RBP with theta = 1 / (1 + rate).",
    "C_i = 1 / (1 + rate)",
    CWL_EVAL,
    (Param("rate", float, 0.1, "the discount rate of future gain", **number_in(0, LARGE)),),
)
_declare(
    "cwl_SET",
    "Search economic theory's measure: total gain i^beta over the top k.",
    "C_i = w(i+1) / w(i) for i < k, else 0; w(i) = (i+1)^beta - i^beta",
    ECON,
    (
        Param("beta", float, 0.5, "diminishing returns", **number_in(0, 1, open_lo=True)),
        _k(10, "the rank the user stops at"),
    ),
)
_declare(
    "BPM",
    "Bejeweled player model (static): the user stops when the gain so far reaches T or "
    "the cost so far reaches K.",
    "C_i = 1 while sum_{j<=i} g_j < T and sum_{j<=i} c_j < K, from the top; else 0",
    BPM_REF,
    (BPM_T, BPM_K),
)
_declare(
    "BPM_dynamic",
    "Bejeweled player model (dynamic): T moves with each item's gain.",
    "as BPM, T <- T + hb (g_i - gain_med) after each item; K fixed",
    BPM_REF,
    (
        BPM_T,
        BPM_K,
        Param("hb", float, 1.0, "how T moves with gain", **number_in(-LARGE, LARGE)),
        Param(
            "hc",
            float,
            1.0,
            "how K moves with gain (cwl_eval 1.0.12 never applies it: K stays fixed)",
            **number_in(-LARGE, LARGE),
        ),
        Param("gain_med", float, 0.5, "rel_med, the median gain", **number_in(0, 1)),
    ),
    "cwl_eval's cost loop updates T instead of K, which then has no effect: so here.",
)
_declare(
    "TBG",
    "Time-biased gain: attention decays with the time (cost) spent before an item.",
    "W_i proportional to h 2^(-t_i / h) / ln 2, t_i the cost before item i; C_i = W_{i+1}/W_i",
    TBG_REF,
    (
        Param(
            "halflife",
            float,
            224.0,
            "h, the half-life of attention",
            **number_in(0, LARGE, open_lo=True),
        ),
    ),
)
_declare(
    "U_measure",
    "U-measure: attention falls linearly with the text read before an item.",
    "W_i proportional to max(0, 1 - t_i / L), t_i the cost before item i, W_depth = 0",
    U_REF,
    (
        Param(
            "L",
            float,
            1000.0,
            "the patience: cost at which attention reaches 0",
            **number_in(0, LARGE, open_lo=True),
        ),
    ),
)
_declare(
    "NERR_eq8",
    "Not (but nearly) ERR, equation 8: ERR's cascade cut at k.",
    "C_i = 1 - g_i for i < k, else 0",
    NERR_REF,
    (_k(10, "the rank cutoff"),),
    "Gains must lie in [0, 1].",
)
_declare(
    "NERR_eq9",
    "Not (but nearly) ERR, equation 9: ERR's cascade with RR's decay, cut at k.",
    "C_i = i / (i + 1) (1 - g_i) for i < k, else 0",
    NERR_REF,
    (_k(10, "the rank cutoff"),),
    "Gains must lie in [0, 1].",
)
_declare(
    "NERR_eq10",
    "Not (but nearly) ERR, equation 10: ERR's cascade with RBP's persistence.",
    "C_i = phi (1 - g_i)",
    NERR_REF,
    (Param("phi", float, 0.9, "persistence", **number_in(0, 1)),),
    "Gains must lie in [0, 1].",
)
_declare(
    "NERR_eq11",
    "Not (but nearly) ERR, equation 11: ERR's cascade with INSQ's continuation.",
    "C_i = ((i + 2T - 1) / (i + 2T))^2 (1 - g_i)",
    NERR_REF,
    (_t("T, the gain the user wants"),),
    "Gains must lie in [0, 1].",
)
