"""What the trained fusion methods estimate from training qrels, for each run.

Every estimate starts from the run's hit lists: for each training query (each query
of the qrels), the run's ranking (trec_eval's order) as 1 where the document's grade
is at least 1 and 0 elsewhere (an unjudged document is not relevant), as ranx's
``get_hit_lists``. A training query the run does not answer has an empty hit list and
still counts in the averages (ranx requires the two query sets to be equal). The
hit lists come from :func:`cranfield.core.judged.judge` (``complete=True``), so the
ranking is the one the evaluation uses.
"""

from __future__ import annotations

from .._lazy import lazy
from ..core import segments
from ..core.judged import judge
from ..core.measures.names import parse as parse_measure

np = lazy("numpy", __name__, "np")


SEGFUSE_BOUNDS = np.array([0] + [10 * 2 ** (k - 1) - 5 for k in range(1, 11)])
BAYES_CUTOFFS = np.array([0, 5, 10, 15, 20, 30, 100, 200, 500, 1000])
MIN_LOG_ODDS = float(np.log(0.001 / 0.999))


def _hits(qrels, run):
    """(hits, CSR offsets per training query) of one run."""
    jr = judge(qrels, run, complete=True, doc_rows=False)
    return (jr.labels >= 1).astype(np.float64), np.asarray(jr.offsets, dtype=np.int64)


def _band_hits(qrels, run, bounds: np.ndarray) -> tuple[np.ndarray, int]:
    """``queries x bands`` relevant documents of one run in each band
    ``[bounds[k], bounds[k+1])`` of ranks (0-based), and the number of queries."""
    bands = len(bounds) - 1
    hits, offsets = _hits(qrels, run)
    nq = len(offsets) - 1
    k = np.searchsorted(bounds, segments.positions(offsets), side="right") - 1
    inside = k < bands
    seg = segments.segment_ids(offsets)
    per = np.bincount(seg[inside] * bands + k[inside], weights=hits[inside], minlength=nq * bands)
    return per.reshape(nq, bands), nq


def probfuse(qrels, runs, n_segments: int) -> np.ndarray:
    """``runs x n_segments``: the mean over training queries of the fraction of
    relevant documents in each of the ``n_segments`` segments of size
    ``ceil(n / n_segments)`` of the query's list (an empty segment adds 0)."""
    out = np.zeros((len(runs), n_segments))
    for r, run in enumerate(runs):
        hits, offsets = _hits(qrels, run)
        nq = len(offsets) - 1
        lengths = np.diff(offsets)
        size = np.maximum(-(-lengths // n_segments), 1)
        seg = segments.segment_ids(offsets)
        k = segments.positions(offsets) // size[seg]
        key = seg * n_segments + k
        total = np.bincount(key, weights=hits, minlength=nq * n_segments)
        count = np.bincount(key, minlength=nq * n_segments)
        frac = np.divide(total, count, out=np.zeros_like(total), where=count > 0)
        out[r] = frac.reshape(nq, n_segments).sum(axis=0) / max(nq, 1)
    return out


def segfuse(qrels, runs, **_) -> np.ndarray:
    """``runs x 10``: mean over training queries of (relevant documents in segment k)
    / (segment k's size), segments [0, 5), [5, 15), [15, 35), ..., [2555, 5115)."""
    nseg = len(SEGFUSE_BOUNDS) - 1
    sizes = np.diff(SEGFUSE_BOUNDS)
    out = np.zeros((len(runs), nseg))
    for r, run in enumerate(runs):
        per, nq = _band_hits(qrels, run, SEGFUSE_BOUNDS)
        out[r] = (per / sizes).sum(axis=0) / max(nq, 1)
    return out


def position_probs(qrels, runs, **_) -> list[np.ndarray]:
    """Per run, for each rank i: the fraction of relevant documents at rank i over the
    training queries whose lists reach rank i (ranx's ``estimate_probs``)."""
    out = []
    for run in runs:
        hits, offsets = _hits(qrels, run)
        pos = segments.positions(offsets)
        width = int(pos.max()) + 1 if len(pos) else 0
        num = np.bincount(pos, weights=hits, minlength=width)
        den = np.bincount(pos, minlength=width)
        out.append(num / np.maximum(den, 1))
    return out


def mapfuse(qrels, runs, **_) -> np.ndarray:
    """Per run, its MAP over the training queries (trec_eval's AP, relevance >= 1)."""
    ap = parse_measure("AP")
    out = []
    for run in runs:
        jr = judge(qrels, run, complete=True, doc_rows=False)
        values = np.asarray(ap.compute(jr), dtype=np.float64)
        out.append(float(values.sum() / len(values)) if len(values) else 0.0)
    return np.array(out)


def bayesfuse(qrels, runs, **_) -> list[np.ndarray]:
    """Per run, the log-odds of relevance at each rank up to 1000: in each band
    ``[c_i, c_i+1)`` of :data:`BAYES_CUTOFFS` the mean precision ``p`` over training
    queries (0 raised to 0.001, and 1 - p likewise), ``log(p / (1 - p))``."""
    bands = len(BAYES_CUTOFFS) - 1
    widths = np.diff(BAYES_CUTOFFS).astype(np.float64)
    out = []
    for run in runs:
        per, nq = _band_hits(qrels, run, BAYES_CUTOFFS)
        precision = per / widths / max(nq, 1)
        p = np.cumsum(precision, axis=0)[-1] if nq else np.zeros(bands)  # left to right
        p = np.where(p == 0, p + 0.001, p)
        neg = 1 - p
        neg = np.where(neg == 0, neg + 0.001, neg)
        odds = np.log(p / neg)
        out.append(np.repeat(odds, np.diff(BAYES_CUTOFFS)))
    return out
