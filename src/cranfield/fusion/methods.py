"""The fusion method registry: each method is declared once (the one declaration shape,
:mod:`cranfield.core.declarations`) with its parameters, formula and source.

A method's ``behaviour(rows, weights, trained, **params)`` returns the fused score of
every candidate (every document any run retrieved for a query) from the coded rows of
the runs (:class:`~cranfield.fusion.rows.Rows`), by whole-array operations: sums run
left to right over the runs (a loop over runs, never over queries or documents), in the
order ranx sums, so the fused scores are ranx's to the last bit where the arithmetic is
the same. ``weights`` is one number per run (weighted methods), ``trained`` what the
method's ``train`` estimated from training qrels (trained methods), else None.

Notation: ``s_r(d)`` the (normalised) score of document ``d`` in run ``r``, ``r_r(d)``
its 1-based rank there (trec_eval's order: score descending, ties by document id
descending), ``n(d)`` the number of runs that retrieved ``d``, ``w_r`` run ``r``'s
weight; sums are over the runs that retrieved ``d`` unless said otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._lazy import lazy
from ..core.declarations import (
    Declaration,
    Param,
    Registry,
    integer_at_least,
    integer_in,
    number_in,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .rows import Rows

# bound on first use: `cranfield fuse --help` reads the declarations without NumPy
np = lazy("numpy", __name__, "np")
libm = lazy("cranfield.core.libm", __name__, "libm")
training = lazy("cranfield.fusion.train", __name__, "training")


def _trainer(name: str) -> Callable:
    """``fusion/train.py``'s ``name``, imported when a method is trained."""

    def train(*args, **kwargs):
        return getattr(training, name)(*args, **kwargs)

    train.__name__ = name
    return train


__all__ = ["FusionDef", "FUSION_METHODS", "lookup"]

_set = object.__setattr__


class FusionDef(Declaration):
    """Declaration of a fusion method (:class:`~cranfield.core.declarations.Declaration`).

    ``uses``: ``"scores"`` (the normalised scores) or ``"ranks"`` (ranks only: the
    normalisation and the treatment of missing documents do not apply); ``weighted``:
    takes one weight per run; ``train``: ``train(qrels, runs, **params) -> trained``
    for the methods estimated from training qrels (None for the others).
    """

    __slots__ = ("uses", "weighted", "train")
    _no_repr = ("behaviour", "train")
    uses: str
    weighted: bool
    train: Callable | None

    def __init__(
        self,
        *declared: Any,
        uses: str = "scores",
        weighted: bool = False,
        train: Callable | None = None,
        **named: Any,
    ) -> None:
        super().__init__(*declared, **named)
        _set(self, "uses", uses)
        _set(self, "weighted", weighted)
        _set(self, "train", train)


FUSION_METHODS: Registry = Registry("fusion method")
lookup = FUSION_METHODS.lookup

_RANX = "ranx (Bassani 2022), `ranx.fusion`"
_FOX = "Fox & Shaw, Combination of multiple searches, TREC-2 1993"
_MOURAO = "Mourão, Martins & Magalhães, Multimodal medical information retrieval with unsupervised rank fusion, CMIG 2015"
_WU = "Wu, Data fusion with estimated weights, CIKM 2002"
_LILLIS = "Lillis, Toolan, Collier & Dunnion, ProbFuse, SIGIR 2006"


def _register(name, behaviour, summary, formula, reference, params=(), aliases=(), **kw):
    FUSION_METHODS.register(
        FusionDef(name, behaviour, summary, formula, reference, tuple(params), tuple(aliases), **kw)
    )


# --- score-based -------------------------------------------------------------------------


def comb_sum(rows: Rows, weights, trained) -> np.ndarray:
    return rows.sum(rows.value)


def comb_mnz(rows: Rows, weights, trained) -> np.ndarray:
    return rows.sum(rows.value) * rows.count(rows.counts)


def comb_anz(rows: Rows, weights, trained) -> np.ndarray:
    return rows.sum(rows.value) / rows.count(rows.counts)


def comb_max(rows: Rows, weights, trained) -> np.ndarray:
    return rows.fold(np.maximum, rows.value, -np.inf)


def comb_min(rows: Rows, weights, trained) -> np.ndarray:
    return rows.fold(np.minimum, rows.value, np.inf)


def comb_med(rows: Rows, weights, trained) -> np.ndarray:
    order = np.lexsort((rows.value, rows.cand))
    offsets = np.searchsorted(rows.cand[order], np.arange(rows.n_cands + 1))
    n = np.diff(offsets)
    lo = rows.value[order][offsets[:-1] + (n - 1) // 2]
    hi = rows.value[order][offsets[:-1] + n // 2]
    return np.where(n % 2 == 1, lo, (lo + hi) / 2)


def comb_gmnz(rows: Rows, weights, trained, gamma: float) -> np.ndarray:
    n = rows.count(rows.counts).astype(np.float64)
    return rows.sum(rows.value) * libm.power(n, np.full_like(n, gamma))


def wsum(rows: Rows, weights, trained) -> np.ndarray:
    return rows.sum(rows.value, weights=weights)


def wmnz(rows: Rows, weights, trained) -> np.ndarray:
    w = np.asarray(weights, dtype=np.float64)
    return rows.sum(rows.value) * rows.sum(w[rows.run], mask=rows.counts)


def mixed(rows: Rows, weights, trained) -> np.ndarray:
    n = rows.count(rows.counts).astype(np.float64)
    return rows.sum(rows.value, weights=weights) * np.sqrt(n)


_register(
    "combsum",
    comb_sum,
    "sum of the scores",
    "Σ_r s_r(d)",
    f"{_FOX}; {_RANX}",
    aliases=("sum", "comb_sum"),
)
_register(
    "combmnz",
    comb_mnz,
    "sum of the scores times the number of runs that retrieved the document",
    "n(d) · Σ_r s_r(d)",
    f"{_FOX}; {_RANX}",
    aliases=("mnz", "comb_mnz"),
)
_register(
    "combanz",
    comb_anz,
    "mean score over the runs that retrieved the document",
    "Σ_r s_r(d) / n(d)",
    f"{_FOX}; {_RANX}",
    aliases=("anz", "comb_anz"),
)
_register(
    "combmax",
    comb_max,
    "largest score",
    "max_r s_r(d)",
    f"{_FOX}; {_RANX}",
    aliases=("max", "comb_max"),
)
_register(
    "combmin",
    comb_min,
    "smallest score",
    "min_r s_r(d)",
    f"{_FOX}; {_RANX}",
    aliases=("min", "comb_min"),
)
_register(
    "combmed",
    comb_med,
    "median score",
    "median_r s_r(d) (the mean of the middle two for an even n(d))",
    f"{_FOX}; {_RANX}",
    aliases=("med", "comb_med"),
)
_register(
    "combgmnz",
    comb_gmnz,
    "CombMNZ with the multiplier raised to a power",
    "n(d)^γ · Σ_r s_r(d)",
    f"Lee, Analyses of multiple evidence combination, SIGIR 1997; {_RANX}",
    params=(Param("gamma", float, None, "exponent γ of n(d)", **number_in(0, 100)),),
    aliases=("gmnz", "comb_gmnz"),
)
_register(
    "wsum",
    wsum,
    "weighted sum of the scores",
    "Σ_r w_r · s_r(d)",
    f"Bartell, Cottrell & Belew, Automatic combination of multiple ranked retrieval systems, SIGIR 1994; {_RANX}",
    aliases=("weighted-sum", "weighted_sum"),
    weighted=True,
)
_register(
    "wmnz",
    wmnz,
    "sum of the scores times the sum of the weights of the runs that retrieved the document",
    "(Σ_r w_r) · Σ_r s_r(d)",
    f"{_WU}; {_RANX}",
    aliases=("weighted-mnz",),
    weighted=True,
)
_register(
    "mixed",
    mixed,
    "weighted sum times the square root of n(d)",
    "√n(d) · Σ_r w_r · s_r(d)",
    f"{_WU}; {_RANX}",
    weighted=True,
)


# --- rank-based --------------------------------------------------------------------------


def _ranked(rows: Rows):
    return rows.ranked, rows.rank.astype(np.float64)


def rrf(rows: Rows, weights, trained, k: int) -> np.ndarray:
    mask, r = _ranked(rows)
    return rows.sum(1.0 / (k + r), mask)


def _isr_terms(rows: Rows):
    mask, r = _ranked(rows)
    return rows.sum(1.0 / (r * r), mask), rows.count(mask).astype(np.float64)


def isr(rows: Rows, weights, trained) -> np.ndarray:
    total, n = _isr_terms(rows)
    return total * n


def log_isr(rows: Rows, weights, trained) -> np.ndarray:
    total, n = _isr_terms(rows)
    return total * libm.log(n)


def logn_isr(rows: Rows, weights, trained, sigma: float) -> np.ndarray:
    total, n = _isr_terms(rows)
    return total * libm.log(n + sigma)


def rbc(rows: Rows, weights, trained, phi: float) -> np.ndarray:
    mask, r = _ranked(rows)
    return rows.sum((1 - phi) * libm.power(np.full_like(r, phi), r - 1), mask)


def _borda_columns(rows: Rows):
    """Each run's Borda points of every candidate: ``C - (r - 1)`` for a retrieved
    document, ``(C - n + 1) / 2`` (the mean of the points left) for the others; ``C``
    the query's candidates, ``n`` the run's list length."""
    mask = rows.ranked
    c = rows.cands_per_query().astype(np.float64)
    lengths = np.zeros((rows.n_runs, rows.n_queries))
    lengths[rows.run[mask], rows.query[mask]] = rows.length[mask]
    cq = c[rows.cand_query]
    points = c[rows.query] - (rows.rank - 1)
    for r in range(rows.n_runs):
        yield rows.column(r, points, (cq - lengths[r][rows.cand_query] + 1) / 2, mask)


def borda(rows: Rows, weights, trained) -> np.ndarray:
    total = np.zeros(rows.n_cands)
    for col in _borda_columns(rows):
        total = total + col
    return total


def w_borda(rows: Rows, weights, trained) -> np.ndarray:
    total = np.zeros(rows.n_cands)
    for w, col in zip(weights, _borda_columns(rows), strict=True):
        total = total + w * col
    return total


def _condorcet(rows: Rows, weights) -> np.ndarray:
    """Copeland score of each candidate in its query's majority tournament: 1 + the
    candidates it beats + half those it ties with. A run prefers ``d`` to ``e`` when it
    ranks ``d`` above ``e`` (a retrieved document above one it did not retrieve; two it
    did not retrieve: no preference); ``d`` beats ``e`` when the (weighted) runs
    preferring ``d`` outnumber those preferring ``e``. Queries are processed in blocks
    of similar candidate counts (padded to a power of two), bounded in memory."""
    mask = rows.ranked
    ranks = np.full((rows.n_cands, rows.n_runs), np.inf)
    ranks[rows.cand[mask], rows.run[mask]] = rows.rank[mask]
    w = np.ones(rows.n_runs) if weights is None else np.asarray(weights, dtype=np.float64)
    out = np.zeros(rows.n_cands)
    sizes = rows.cands_per_query()
    widths = 2 ** np.ceil(np.log2(np.maximum(sizes, 1))).astype(np.int64)
    for width in np.unique(widths):  # a loop over length classes, not queries
        qs = np.flatnonzero(widths == width)
        step = max(1, (1 << 22) // int(width * width * rows.n_runs))
        for a in range(0, len(qs), step):
            q = qs[a : a + step]
            lens = sizes[q]
            valid = np.arange(width)[None, :] < lens[:, None]
            idx = np.where(valid, rows.cand_offsets[q][:, None] + np.arange(width), 0)
            p = ranks[idx]  # Qb x W x R
            p[~valid] = np.inf
            above = p[:, :, None, :] < p[:, None, :, :]  # Qb x W x W x R
            pro = above @ w
            con = np.swapaxes(pro, 1, 2)
            pair = valid[:, :, None] & valid[:, None, :]
            wins = ((pro > con) & pair).sum(axis=2)
            ties = ((pro == con) & pair).sum(axis=2) - 1  # not against itself
            score = 1.0 + wins + 0.5 * ties
            out[idx[valid]] = score[valid]
    return out


def condorcet(rows: Rows, weights, trained) -> np.ndarray:
    return _condorcet(rows, None)


def w_condorcet(rows: Rows, weights, trained) -> np.ndarray:
    return _condorcet(rows, weights)


_register(
    "rrf",
    rrf,
    "reciprocal rank fusion",
    "Σ_r 1 / (k + r_r(d))",
    f"Cormack, Clarke & Büttcher, Reciprocal rank fusion outperforms Condorcet and individual rank learning methods, SIGIR 2009; {_RANX}",
    params=(Param("k", int, 60, "rank offset k", **integer_in(0, 2**31)),),
    uses="ranks",
)
_register(
    "isr",
    isr,
    "inverse square rank",
    "n(d) · Σ_r 1 / r_r(d)²",
    f"{_MOURAO}; {_RANX}",
    uses="ranks",
)
_register(
    "log-isr",
    log_isr,
    "inverse square rank, multiplier log n(d)",
    "ln n(d) · Σ_r 1 / r_r(d)²",
    f"{_MOURAO}; {_RANX}",
    aliases=("log_isr",),
    uses="ranks",
)
_register(
    "logn-isr",
    logn_isr,
    "inverse square rank, multiplier log(n(d) + σ)",
    "ln(n(d) + σ) · Σ_r 1 / r_r(d)²",
    f"{_MOURAO}; {_RANX}",
    params=(Param("sigma", float, 0.01, "σ added to n(d)", **number_in(0, 1)),),
    aliases=("logn_isr",),
    uses="ranks",
)
_register(
    "rbc",
    rbc,
    "rank-biased centroid",
    "Σ_r (1 - φ) φ^(r_r(d) - 1)",
    f"Bailey, Moffat, Scholer & Thomas, Retrieval consistency in the presence of query variations, SIGIR 2017; {_RANX}",
    params=(
        Param("phi", float, None, "persistence φ", **number_in(0, 1, open_lo=True, open_hi=True)),
    ),
    uses="ranks",
)
_register(
    "borda",
    borda,
    "Borda count",
    "Σ over all runs of C - r_r(d) + 1, or (C - n_r + 1) / 2 where run r did not retrieve d "
    "(C the query's candidates, n_r the run's list length)",
    f"Aslam & Montague, Models for metasearch, SIGIR 2001; {_RANX}",
    aliases=("bordafuse",),
    uses="ranks",
)
_register(
    "w-borda",
    w_borda,
    "weighted Borda count",
    "Σ over all runs of w_r · (Borda points of d in r)",
    f"Aslam & Montague, Models for metasearch, SIGIR 2001; {_RANX}",
    aliases=("w_bordafuse", "weighted-borda"),
    uses="ranks",
    weighted=True,
)
_register(
    "condorcet",
    condorcet,
    "Condorcet fusion (majority tournament, Copeland score)",
    "1 + #{e: more runs rank d above e than e above d} + ½ #{e ≠ d: as many}",
    f"Montague & Aslam, Condorcet fusion for improved retrieval, CIKM 2002; {_RANX}",
    uses="ranks",
)
_register(
    "w-condorcet",
    w_condorcet,
    "weighted Condorcet fusion",
    "as condorcet, each run's vote counting w_r",
    f"Montague & Aslam, Condorcet fusion for improved retrieval, CIKM 2002; {_RANX}",
    aliases=("w_condorcet", "weighted-condorcet"),
    uses="ranks",
    weighted=True,
)


# --- trained from qrels ------------------------------------------------------------------


def _per_rank(rows: Rows, table_of_run) -> np.ndarray:
    """Sum over runs of ``table_of_run(r)[rank - 1]`` (0 beyond the table)."""
    mask = rows.ranked
    values = np.zeros(len(rows.rank))
    for r in range(rows.n_runs):
        sel = mask & (rows.run == r)
        table = np.asarray(table_of_run(r), dtype=np.float64)
        i = rows.rank[sel] - 1
        inside = i < len(table)
        values[np.flatnonzero(sel)[inside]] = table[i[inside]]
    return rows.sum(values, mask)


def probfuse(rows: Rows, weights, trained, n_segments: int) -> np.ndarray:
    mask = rows.ranked
    size = -(-rows.length // n_segments)  # ceil
    k = (rows.rank - 1) // np.maximum(size, 1)
    probs = np.asarray(trained, dtype=np.float64)  # runs x segments
    values = np.where(mask, probs[rows.run, np.minimum(k, n_segments - 1)] / (k + 1), 0.0)
    return rows.sum(values, mask)


def segfuse(rows: Rows, weights, trained) -> np.ndarray:
    mask = rows.ranked
    probs = np.asarray(trained, dtype=np.float64)
    k = np.searchsorted(training.SEGFUSE_BOUNDS, rows.rank - 1, side="right") - 1
    inside = k < probs.shape[1]
    p = np.where(inside, probs[rows.run, np.minimum(k, probs.shape[1] - 1)], 0.0)
    return rows.sum(p * (rows.value + 1), mask)


def slidefuse(rows: Rows, weights, trained, w: int) -> np.ndarray:
    mask = rows.ranked
    values = np.zeros(len(rows.rank))
    for r in range(rows.n_runs):
        sel = np.flatnonzero(mask & (rows.run == r))
        probs = np.asarray(trained[r], dtype=np.float64)
        cum = np.concatenate(([0.0], np.cumsum(probs)))
        p = rows.rank[sel] - 1
        a = np.maximum(p - w, 0)
        b = np.minimum(p + w, rows.length[sel] - 1)
        total = cum[np.minimum(b + 1, len(probs))] - cum[np.minimum(a, len(probs))]
        values[sel] = total / (b - a + 1)
    return rows.sum(values, mask)


def posfuse(rows: Rows, weights, trained) -> np.ndarray:
    return _per_rank(rows, lambda r: trained[r])


def mapfuse(rows: Rows, weights, trained) -> np.ndarray:
    mask = rows.ranked
    ap = np.asarray(trained, dtype=np.float64)
    return rows.sum(ap[rows.run] / rows.rank, mask)


def bayesfuse(rows: Rows, weights, trained) -> np.ndarray:
    mask = rows.ranked
    total = np.zeros(rows.n_cands)
    for r in range(rows.n_runs):
        odds = np.asarray(trained[r], dtype=np.float64)
        sel = mask & (rows.run == r)
        i = rows.rank[sel] - 1
        v = np.full(len(i), training.MIN_LOG_ODDS)
        inside = i < len(odds)
        v[inside] = odds[i[inside]]
        col = np.full(rows.n_cands, training.MIN_LOG_ODDS)
        col[rows.cand[sel]] = v
        total = total + col
    return total


_register(
    "probfuse",
    probfuse,
    "probability of relevance by segment of the ranking, estimated on training qrels",
    "Σ_r P_r(k) / k, k the segment of d (segments: the run's list cut into x equal parts), "
    "P_r(k) the mean fraction of relevant documents in segment k over the training queries",
    f"{_LILLIS}; {_RANX}",
    params=(Param("n_segments", int, None, "segments x", **integer_in(1, 100_000)),),
    uses="ranks",
    train=_trainer("probfuse"),
)
_register(
    "segfuse",
    segfuse,
    "probability of relevance by segment of growing size, times the score",
    "Σ_r P_r(k) · (s_r(d) + 1), segments [0,5) [5,15) [15,35) ... (sizes 10·2^(k-1) - 5 bounds)",
    f"Shokouhi, Segmentation of search engine results for effective data-fusion, ECIR 2007; {_RANX}",
    train=_trainer("segfuse"),
)
_register(
    "slidefuse",
    slidefuse,
    "probability of relevance around the rank, in a sliding window",
    "Σ_r mean of P_r(i) over i in [r_r(d) - w, r_r(d) + w] ∩ [1, n_r]",
    f"Lillis, Toolan, Collier & Dunnion, Extending probabilistic data fusion using sliding windows, ECIR 2008; {_RANX}",
    params=(Param("w", int, None, "window half-width w", **integer_at_least(0)),),
    uses="ranks",
    train=_trainer("position_probs"),
)
_register(
    "posfuse",
    posfuse,
    "probability of relevance at each rank",
    "Σ_r P_r(r_r(d))",
    f"Lillis, Zhang, Toolan, Collier, Leonard & Dunnion, Estimating probabilities for effective data fusion, SIGIR 2010; {_RANX}",
    uses="ranks",
    train=_trainer("position_probs"),
)
_register(
    "mapfuse",
    mapfuse,
    "each run's MAP on training qrels divided by the rank",
    "Σ_r MAP_r / r_r(d)",
    f"Lillis, Zhang, Toolan, Collier, Leonard & Dunnion, Estimating probabilities for effective data fusion, SIGIR 2010; {_RANX}",
    uses="ranks",
    train=_trainer("mapfuse"),
)
_register(
    "bayesfuse",
    bayesfuse,
    "sum of the log-odds of relevance at the rank, estimated on training qrels",
    "Σ over all runs of log(p/(1-p)), p the mean precision of the rank's band "
    "(bands at 5, 10, 15, 20, 30, 100, 200, 500, 1000); a document the run did not "
    "retrieve (or ranked below 1000) counts log(0.001/0.999)",
    f"Aslam & Montague, Models for metasearch, SIGIR 2001; {_RANX}",
    uses="ranks",
    train=_trainer("bayesfuse"),
)
