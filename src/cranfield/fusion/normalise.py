"""The score normalisation registry: each normalisation is declared once (the one
declaration shape, :mod:`cranfield.core.declarations`), with its formula and source.

A normalisation maps the scores of each run's documents for one query (a "list")
onto a common scale before the scores are combined. Every kernel works on all lists
of all runs at once (:class:`~cranfield.fusion.rows.Rows`, rows grouped by run and
query, in rank order), by segment reductions: no loop over queries or documents.

The constants follow ranx (Bassani 2022), the reference implementation: a
denominator below ``1e-9`` is replaced by ``1e-9`` (a list whose scores are all equal
normalises to 0 rather than dividing by zero).
"""

from __future__ import annotations

from .._lazy import lazy
from ..core.declarations import Declaration, Registry

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .rows import Rows

# bound on first use: `cranfield fuse --help` reads the declarations without NumPy
np = lazy("numpy", __name__, "np")
segments = lazy("cranfield.core.segments", __name__, "segments")


__all__ = ["NORMALISATIONS", "normalise", "default_minimum"]

NORMALISATIONS: Registry = Registry("normalisation")

EPSILON = 1e-9  # the smallest denominator (ranx's)

_RANX = "ranx (Bassani 2022), `ranx.normalization`"


def _lists(rows: Rows) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(scores of the ranked rows, CSR offsets of the lists, list index of each row)."""
    offsets = rows.group_offsets()
    n = int(offsets[-1])
    return rows.score[:n], offsets, segments.segment_ids(offsets)


def _set(rows: Rows, values: np.ndarray) -> None:
    rows.value[: len(values)] = values


def _reduce(f, s: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    if len(s) == 0:
        return np.zeros(0)
    return f.reduceat(s, offsets[:-1])


def none(rows: Rows) -> None:
    """The scores as they are."""


def min_max(rows: Rows) -> None:
    s, offsets, seg = _lists(rows)
    lo = _reduce(np.minimum, s, offsets)
    hi = _reduce(np.maximum, s, offsets)
    _set(rows, (s - lo[seg]) / np.maximum(hi - lo, EPSILON)[seg])


def max_norm(rows: Rows) -> None:
    s, offsets, seg = _lists(rows)
    hi = _reduce(np.maximum, s, offsets)
    _set(rows, s / np.maximum(hi, EPSILON)[seg])


def sum_norm(rows: Rows) -> None:
    s, offsets, seg = _lists(rows)
    lo = _reduce(np.minimum, s, offsets)
    total = segments.sequential_sum(s, offsets)
    n = np.diff(offsets)
    _set(rows, (s - lo[seg]) / np.maximum(total - lo * n, EPSILON)[seg])


def zmuv(rows: Rows) -> None:
    s, offsets, seg = _lists(rows)
    n = np.diff(offsets)
    mean = segments.sequential_sum(s, offsets) / np.maximum(n, 1)
    dev = s - mean[seg]
    std = np.sqrt(segments.sequential_sum(dev * dev, offsets) / np.maximum(n, 1))
    _set(rows, dev / np.maximum(std, EPSILON)[seg])


def rank_norm(rows: Rows) -> None:
    n = int(rows.ranked.sum())
    _set(rows, 1.0 - (rows.rank[:n] - 1) / rows.length[:n])


def borda(rows: Rows) -> None:
    n = int(rows.ranked.sum())
    c = rows.cands_per_query().astype(np.float64)
    _set(rows, 1.0 - (rows.rank[:n] - 1) / c[rows.query[:n]])
    run, cand = rows.missing()
    q = rows.cand_query[cand]
    lengths = np.zeros((rows.n_runs, rows.n_queries), dtype=np.int64)
    lengths[rows.run[:n], rows.query[:n]] = rows.length[:n]
    value = 0.5 - (lengths[run, q] - 1) / (2 * c[q])
    rows.append(run, q, cand, value, counts=True)


def default_minimum(rows: Rows) -> None:
    """Give every candidate a run did not retrieve that run's smallest normalised value
    for the query (0 when the run retrieved nothing for it); these rows do not count as
    retrieved (CombMNZ's multiplier counts the runs that retrieved the document)."""
    n = int(rows.ranked.sum())
    offsets = rows.group_offsets()
    lo = _reduce(np.minimum, rows.value[:n], offsets)
    least = np.zeros((rows.n_runs, rows.n_queries))
    if n:
        first = offsets[:-1]
        least[rows.run[first], rows.query[first]] = lo
    run, cand = rows.missing()
    q = rows.cand_query[cand]
    rows.append(run, q, cand, least[run, q], counts=False)


def _register(name, behaviour, summary, formula, reference=_RANX, aliases=()):
    NORMALISATIONS.register(
        Declaration(name, behaviour, summary, formula, reference, (), tuple(aliases))
    )


_register("none", none, "the scores as read", "s")
_register(
    "min-max",
    min_max,
    "scaled to [0, 1] per list (the default, as ranx)",
    "(s - min) / max(max - min, 1e-9)",
    "Lee, Analyses of multiple evidence combination, SIGIR 1997; " + _RANX,
    aliases=("min_max", "minmax"),
)
_register(
    "max",
    max_norm,
    "divided by the list's largest score",
    "s / max(max, 1e-9) (a list of negative scores is divided by 1e-9, as in ranx)",
    "Fox & Shaw, Combination of multiple searches, TREC-2 1993; " + _RANX,
)
_register(
    "sum",
    sum_norm,
    "shifted to start at 0 and scaled to sum to 1",
    "(s - min) / max(sum(s) - n * min, 1e-9), n the list's length",
    "Montague & Aslam, Relevance score normalization for metasearch, CIKM 2001; " + _RANX,
)
_register(
    "zmuv",
    zmuv,
    "zero mean, unit variance per list",
    "(s - mean) / max(std, 1e-9), std the population standard deviation",
    "Montague & Aslam, Relevance score normalization for metasearch, CIKM 2001; " + _RANX,
    aliases=("z-score", "zscore"),
)
_register(
    "rank",
    rank_norm,
    "the rank instead of the score",
    "1 - (r - 1) / n, r the 1-based rank, n the list's length",
    "Renda & Straccia, Web metasearch: rank vs. score based rank aggregation methods, "
    "SAC 2003; " + _RANX,
)
_register(
    "borda",
    borda,
    "Borda points scaled by the query's candidates; every candidate gets a value",
    "retrieved: 1 - (r - 1) / C; not retrieved by the run: 0.5 - (n - 1) / (2C), C the "
    "candidates of the query (documents retrieved by any run), n the run's list length",
    "Renda & Straccia, SAC 2003; " + _RANX,
)

normalise = NORMALISATIONS.lookup
