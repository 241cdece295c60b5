"""Whole-array operations on ragged segments (one segment per query).

Rankings of all queries are stored back to back in flat arrays; ``offsets`` (length
``num_segments + 1``) says where each segment starts. These helpers replace per-query
Python loops with NumPy operations.

Floating-point sums are accumulated strictly left to right within each segment,
starting from 0.0, exactly as trec_eval's C loops do, so that printed values agree
to the last digit. NumPy's ``add.reduce``/``reduceat`` use pairwise summation and a
global ``cumsum`` minus segment starts loses low-order bits, so neither is used for
floats: :func:`sequential_sum` pads segments of similar length into 2-D blocks and
runs ``cumsum`` along rows (which is sequential), adding exact zeros as padding.
"""

from __future__ import annotations

import math

from .._lazy import lazy
from .._memo import memo

np = lazy("numpy", __name__, "np")


def segment_ids(offsets: np.ndarray) -> np.ndarray:
    """Segment index of every element: ``[0, 0, 1, 1, 1, ...]``."""
    lengths = np.diff(offsets)
    return np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)


def positions(offsets: np.ndarray) -> np.ndarray:
    """0-based position of every element within its segment."""
    n = int(offsets[-1])
    seg = segment_ids(offsets)
    return np.arange(n, dtype=np.int64) - offsets[:-1][seg]


def int_cumsum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Inclusive cumulative sum within segments (exact for integers)."""
    total = np.cumsum(values, dtype=np.int64)
    starts = offsets[:-1]
    before = np.where(starts > 0, total[np.maximum(starts - 1, 0)], 0) if len(total) else starts
    total -= np.repeat(before, np.diff(offsets))
    return total


def int_sum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Sum within segments (exact for integers); empty segments give 0."""
    values = np.asarray(values)
    if values.dtype == bool:  # counting: positions of the True entries suffice
        return np.diff(np.searchsorted(np.flatnonzero(values), offsets)).astype(np.int64)
    total = np.concatenate(([0], np.cumsum(np.asarray(values, dtype=np.int64))))
    return total[offsets[1:]] - total[offsets[:-1]]


def _blocks(lengths: np.ndarray):
    """Group segments into blocks of similar length (powers of two).

    Yields ``(segment_indices, width)``; padding wastes at most half of each block.
    The loop runs over at most ~40 length classes, never over segments.
    """
    nonempty = np.flatnonzero(lengths > 0)
    if len(nonempty) == 0:
        return
    klass = np.ceil(np.log2(lengths[nonempty])).astype(np.int64)
    order = np.argsort(klass, kind="stable")
    klass_sorted = klass[order]
    bounds = np.flatnonzero(np.diff(klass_sorted)) + 1
    for group in np.split(order, bounds):
        segs = nonempty[group]
        yield segs, int(lengths[segs].max())


def _padded(values: np.ndarray, offsets: np.ndarray, segs: np.ndarray, width: int):
    lengths = np.diff(offsets)[segs]
    cols = np.arange(width, dtype=np.int64)
    index = offsets[:-1][segs][:, None] + cols[None, :]
    valid = cols[None, :] < lengths[:, None]
    block = np.zeros((len(segs), width), dtype=np.float64)
    block[valid] = values[index[valid]]
    return block, lengths


def compress(mask: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Flat indices where ``mask`` holds, with their own segment offsets."""
    idx = np.flatnonzero(mask)
    return idx, np.searchsorted(idx, offsets).astype(np.int64)


def sequential_sum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Left-to-right float sum within each segment (bit-identical to a C loop).

    Zero terms are skipped when they are the majority: a running sum that starts at
    +0.0 is never -0.0, and ``x + 0.0 == x`` and ``x + -0.0 == x`` for every other x,
    so leaving them out changes no bit.
    """
    values = np.asarray(values, dtype=np.float64)
    nonzero = values != 0.0
    if len(values) > 4096 and np.count_nonzero(nonzero) * 2 < len(values):
        idx, offsets = compress(nonzero, offsets)
        values = values[idx]
    lengths = np.diff(offsets)
    out = np.zeros(len(lengths), dtype=np.float64)
    for segs, width in _blocks(lengths):
        block, seg_len = _padded(values, offsets, segs, width)
        out[segs] = np.cumsum(block, axis=1)[np.arange(len(segs)), seg_len - 1]
    return out


def sequential_cumsum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Left-to-right inclusive float cumulative sum within each segment.

    When most terms are zero, the sums are run over the non-zero terms only and
    carried forward over the zeros (which leave a running sum unchanged, see
    :func:`sequential_sum`).
    """
    values = np.asarray(values, dtype=np.float64)
    nonzero = values != 0.0
    n = len(values)
    if n > 4096 and np.count_nonzero(nonzero) * 2 < n:
        idx, sub = compress(nonzero, offsets)
        sums = sequential_cumsum(values[idx], sub)
        last = np.searchsorted(idx, np.arange(n, dtype=np.int64), side="right") - 1
        first_of_segment = np.repeat(sub[:-1], np.diff(offsets))
        out = np.zeros(n, dtype=np.float64)
        has = last >= first_of_segment  # a non-zero term earlier in the same segment
        out[has] = sums[last[has]]
        return out
    lengths = np.diff(offsets)
    out = np.zeros(len(values), dtype=np.float64)
    for segs, width in _blocks(lengths):
        block, seg_len = _padded(values, offsets, segs, width)
        sums = np.cumsum(block, axis=1)
        cols = np.arange(width, dtype=np.int64)
        valid = cols[None, :] < seg_len[:, None]
        index = offsets[:-1][segs][:, None] + cols[None, :]
        out[index[valid]] = sums[valid]
    return out


def reverse_cummax(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Running maximum from the end of each segment towards its start.

    ``out[i] = max(values[i:end_of_segment])``, e.g. interpolated precision. Exact:
    segments are padded into blocks and ``maximum.accumulate`` runs along rows.
    """
    values = np.asarray(values, dtype=np.float64)
    lengths = np.diff(offsets)
    out = np.empty_like(values)
    for segs, width in _blocks(lengths):
        seg_len = lengths[segs]
        cols = np.arange(width, dtype=np.int64)
        valid = cols[None, :] < seg_len[:, None]
        # reversed order within each row: column c holds element (len - 1 - c)
        rev_index = offsets[:-1][segs][:, None] + (seg_len[:, None] - 1 - cols[None, :])
        block = np.full((len(segs), width), -np.inf)
        block[valid] = values[rev_index[valid]]
        acc = np.maximum.accumulate(block, axis=1)
        out[rev_index[valid]] = acc[valid]
    return out


@memo(8)
def _log2_table(n: int) -> np.ndarray:
    return np.array([math.log2(i + 2.0) for i in range(n)], dtype=np.float64)


def log2_discounts(n: int) -> np.ndarray:
    """``log2(rank + 1)`` for ranks 1..n, computed with the C library's log2.

    Using libm (as trec_eval does) rather than NumPy's SIMD log2 keeps results
    bit-identical to trec_eval.
    """
    size = 1024
    while size < n:
        size *= 2
    return _log2_table(size)[:n]


@memo(32)
def _power_table(p: float, n: int) -> np.ndarray:
    steps = np.full(n, p, dtype=np.float64)
    steps[0] = 1.0
    return np.cumprod(steps)


def powers(p: float, n: int) -> np.ndarray:
    """``p**i`` for i = 0..n-1, by repeated multiplication (as trec_eval's rbp)."""
    size = 1024
    while size < n:
        size *= 2
    return _power_table(float(p), size)[:n]
