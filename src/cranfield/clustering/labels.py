"""Label arrays encoded as integer codes: the one encoder of clustering and splits.

:func:`factorize` turns a sequence of hashable labels (numbers, strings, tuples, Arrow
arrays, ...) into ``(uniques, codes)`` with whole-array NumPy or Arrow work where the
labels allow it; only arbitrary Python objects are hashed one by one.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from .._lazy import lazy
from ..errors import InputError

np = lazy("numpy", __name__, "np")

__all__ = ["factorize"]


def factorize(values: Any, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Encode labels as integer codes 0..m-1.

    Returns ``(uniques, codes)`` with ``uniques[codes] == values``. Uniques are sorted
    when the labels are mutually orderable, else in order of first appearance.
    Missing labels (None, NaN, nulls) are rejected: a missing label is not a class.
    """
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise InputError(f"expected a sequence of labels, got {type(values).__name__}", name)
    if isinstance(values, np.ndarray) and values.dtype != object:
        if values.ndim != 1:
            raise InputError(f"expected a 1-D array of labels, got shape {values.shape}", name)
        if values.dtype.kind in "fc" and np.isnan(values).any():
            pos = int(np.flatnonzero(np.isnan(values))[0])
            raise InputError(f"label at position {pos} is missing (NaN)", name)
        uniques, codes = np.unique(values, return_inverse=True)
        return uniques, codes.reshape(-1).astype(np.intp, copy=False)

    arrow = _try_arrow(values)
    if arrow is not None:
        return _factorize_arrow(arrow, name)

    # Arbitrary Python objects (tuples, mixed types, pandas/object arrays) can only be
    # told apart by hashing them, one by one; numeric and Arrow input never gets here.
    items = values.tolist() if isinstance(values, np.ndarray) else list(values)
    table: dict[Any, int] = {}
    try:
        codes = np.fromiter(
            (table.setdefault(v, len(table)) for v in items), dtype=np.intp, count=len(items)
        )
    except TypeError as exc:
        raise InputError(f"labels must be hashable: {exc}", name) from None
    keys = list(table)
    for pos_key in keys:
        if pos_key is None or (isinstance(pos_key, float) and math.isnan(pos_key)):
            pos = items.index(pos_key) if pos_key is None else _first_nan(items)
            raise InputError(f"label at position {pos} is missing ({pos_key})", name)
    try:
        order = sorted(range(len(keys)), key=keys.__getitem__)
    except TypeError:  # unorderable mix (e.g. 1 and "a"): keep first-appearance order
        order = list(range(len(keys)))
    rank = np.empty(len(keys), dtype=np.intp)
    rank[order] = np.arange(len(keys))
    uniques = np.empty(len(keys), dtype=object)
    for i, k in enumerate(order):  # element-wise: tuples must stay scalars
        uniques[i] = keys[k]
    return uniques, rank[codes]


def _first_nan(items: list) -> int:
    return next(i for i, v in enumerate(items) if isinstance(v, float) and math.isnan(v))


def _try_arrow(values: Any):
    """Return a pyarrow Array for Arrow input (Array or ChunkedArray), else None."""
    import pyarrow as pa

    if isinstance(values, pa.ChunkedArray):
        return values.combine_chunks()
    if isinstance(values, pa.Array):
        return values
    return None


def _factorize_arrow(arr, name: str) -> tuple[np.ndarray, np.ndarray]:
    import pyarrow as pa
    import pyarrow.compute as pc

    if arr.null_count:
        pos = int(pc.index(pc.is_null(arr), True).as_py())
        raise InputError(f"label at position {pos} is missing (null)", name)
    if pa.types.is_floating(arr.type) and pc.any(pc.is_nan(arr)).as_py():
        pos = int(pc.index(pc.is_nan(arr), True).as_py())
        raise InputError(f"label at position {pos} is missing (NaN)", name)
    if pa.types.is_dictionary(arr.type):
        arr = arr.cast(arr.type.value_type)
    encoded = arr.dictionary_encode()
    dictionary = encoded.dictionary
    order = pc.array_sort_indices(dictionary).to_numpy()
    rank = np.empty(len(dictionary), dtype=np.intp)
    rank[order] = np.arange(len(dictionary))
    codes = rank[encoded.indices.to_numpy(zero_copy_only=False).astype(np.intp)]
    uniques = dictionary.take(pa.array(order)).to_numpy(zero_copy_only=False)
    return uniques, codes
