"""Helpers shared by measure kernels."""

from __future__ import annotations

from ..._lazy import lazy
from .. import segments

np = lazy("numpy", __name__, "np")


def level(jr, rel) -> int:
    """The relevance threshold: the measure's ``rel`` parameter or the run's default."""
    return jr.rel_level if rel is None else int(rel)


def count_at(jr, mask, k) -> np.ndarray:
    """Number of True entries of ``mask`` (one flag per ranked document) among the top
    ``k`` (a number, or one per query) of every ranking."""
    limit = np.repeat(k, jr.num_ret) if np.ndim(k) else k  # k may differ per query
    return segments.int_sum(mask & (jr.rank <= limit), jr.offsets)


def in_top(jr, k: int | None) -> np.ndarray:
    """Mask of ranked documents at rank <= k (all when k is None)."""
    if k is None:
        return np.ones(len(jr.labels), dtype=bool)
    return jr.rank <= k


def safe_div(num, den) -> np.ndarray:
    """num / den where den != 0, else 0 (trec_eval's default for undefined values)."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.zeros(np.broadcast(num, den).shape, dtype=np.float64)
    np.divide(num, den, out=out, where=den != 0)
    return out


def discounts(jr) -> np.ndarray:
    """log2(rank + 1) for every ranked document."""
    return segments.log2_discounts(max(jr.max_len, 1))[jr.rank - 1]
