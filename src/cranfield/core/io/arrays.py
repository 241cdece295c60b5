"""Arrow columns as NumPy arrays and back, without copies where the layout allows.

``pa.array`` on a NumPy array and ``Array.to_numpy()`` import pandas when it is
installed (0.3 s for a cold process), so these read and wrap Arrow buffers directly.
:func:`engine_batches` hands a table to the compiled engine (``cranfield._engine``'s
``judge_arrow_runs`` and ``repeated_pairs``) as views of its buffers.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


def as_array(col) -> pa.Array:
    return col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col


def ints(values: np.ndarray) -> pa.Array:
    """An int64 NumPy array as an Arrow array, zero-copy."""
    values = np.ascontiguousarray(values, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), len(values), [None, pa.py_buffer(values)])


def take(col, rows: np.ndarray) -> pa.Array:
    """``col[rows]`` as one array, without concatenating the chunks of a big column first
    (Arrow's memory pool would keep the freed copy). Rows in ascending order (the usual
    case) are taken chunk by chunk in one pass; others are grouped by chunk first."""
    rows = np.asarray(rows, dtype=np.int64)
    if not isinstance(col, pa.ChunkedArray):
        return col.take(ints(rows))
    if col.num_chunks == 1:
        return col.chunk(0).take(ints(rows))
    lengths = np.array([len(c) for c in col.chunks], dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(lengths)))
    ascending = len(rows) < 2 or bool((rows[1:] >= rows[:-1]).all())
    if ascending:
        order, ordered = None, rows
    else:
        order = np.argsort(rows, kind="stable")
        ordered = rows[order]
    bounds = np.searchsorted(ordered, starts)
    parts = [
        col.chunk(int(i)).take(ints(ordered[bounds[i] : bounds[i + 1]] - starts[i]))
        for i in np.flatnonzero(np.diff(bounds))
    ]
    if not parts:
        return pa.array([], col.type)
    gathered = pa.concat_arrays(parts)
    if order is None:
        return gathered
    inverse = np.empty_like(order)
    inverse[order] = np.arange(len(order))
    return gathered.take(ints(inverse))


_DTYPES = {
    pa.int8(): np.int8,
    pa.int16(): np.int16,
    pa.int32(): np.int32,
    pa.int64(): np.int64,
    pa.uint8(): np.uint8,
    pa.uint32(): np.uint32,
    pa.uint64(): np.uint64,
    pa.float32(): np.float32,
    pa.float64(): np.float64,
}


def _view(arr: pa.Array) -> np.ndarray:
    dtype = _DTYPES.get(arr.type)
    if dtype is None or arr.null_count:
        return np.asarray(arr.to_numpy(zero_copy_only=False))
    buf = arr.buffers()[1]
    if buf is None:
        return np.zeros(0, dtype=dtype)
    return np.frombuffer(buf, dtype=dtype)[arr.offset : arr.offset + len(arr)]


def codes_or_minus_one(arr) -> np.ndarray:
    """An integer array with nulls (e.g. from ``index_in``) as int64, nulls as -1."""
    arr = as_array(arr)
    n = len(arr)
    validity, data = arr.buffers()[0], arr.buffers()[1]
    if data is None:
        return np.full(n, -1, dtype=np.int64)
    values = np.frombuffer(data, dtype=_DTYPES[arr.type])[arr.offset : arr.offset + n]
    values = values.astype(np.int64)
    if arr.null_count:
        bits = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")
        values[~bits[arr.offset : arr.offset + n].astype(bool)] = -1
    return values


def numbers(col) -> np.ndarray:
    """A numeric column without nulls as one NumPy array (copies only chunked columns)."""
    if isinstance(col, pa.ChunkedArray):
        if col.num_chunks == 1:
            return _view(col.chunk(0))
        if col.num_chunks == 0:
            return np.zeros(0, dtype=_DTYPES.get(col.type, np.float64))
        return np.concatenate([_view(c) for c in col.chunks])
    return _view(col)


def bools(arr) -> np.ndarray:
    """A boolean Arrow array (no nulls) as NumPy, without pyarrow's pandas machinery."""
    return numbers(pc.cast(arr, pa.uint8())).view(bool)


_NO_BYTES = np.zeros(0, dtype=np.uint8)


def _string_buffers(arr: pa.Array, name: str) -> tuple[np.ndarray, np.ndarray]:
    """(offsets of the array's rows, the data buffer) of a string or large_string array
    without nulls, as NumPy views (``offsets[i]:offsets[i + 1]`` are row i's bytes)."""
    if arr.null_count:
        raise ValueError(f"{name} column has nulls")
    if pa.types.is_string(arr.type):
        dtype = np.int32
    elif pa.types.is_large_string(arr.type):
        dtype = np.int64
    else:
        raise ValueError(f"{name} column has type {arr.type}; expected strings")
    _, off_buf, data_buf = arr.buffers()
    offsets = np.frombuffer(off_buf, dtype=dtype)[arr.offset : arr.offset + len(arr) + 1]
    data = np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None else _NO_BYTES
    return _aligned(offsets), data


def _aligned(values: np.ndarray) -> np.ndarray:
    """``values``, copied when its buffer is not aligned to its item size (Arrow aligns
    what it allocates, but a table unpickled from a Dask worker's message may not be)."""
    return values if values.flags.aligned else values.copy()


def engine_batches(table: pa.Table, value: str) -> list[tuple]:
    """The ``(query_id, doc_id, value)`` columns of a Run's or Qrels' table as the
    engine takes them: per record batch (rows aligned across columns; chunks of
    different lengths are sliced, not copied), ``(query id offsets, query id data, doc
    id offsets, doc id data, values)``, views of the Arrow buffers. Ids are string or
    large_string (a dictionary of strings -- a recommendation list's -- is decoded a
    batch at a time) and the values float64 or int64, without nulls (ValueError otherwise).
    """
    out = []
    for batch in table.select(["query_id", "doc_id", value]).to_batches():
        if not batch.num_rows:
            continue
        q, d, v = (
            c.cast(pa.string()) if pa.types.is_dictionary(c.type) else c for c in batch.columns
        )
        if v.null_count or v.type not in (pa.float64(), pa.int64()):
            raise ValueError(f"{value} column must be float64 or int64 without nulls")
        values = _aligned(_view(v))
        out.append((*_string_buffers(q, "query_id"), *_string_buffers(d, "doc_id"), values))
    return out


def text_buffers(arr: pa.Array) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(offsets as int64, data, validity or None) of a string or large_string array
    that may hold nulls (a null's offsets delimit no bytes), as NumPy views where the
    layout allows."""
    valid = bools(pc.is_valid(arr)) if arr.null_count else None
    if arr.null_count:
        arr = pc.fill_null(arr, "")
    offsets, data = _string_buffers(arr, "text")
    return np.ascontiguousarray(offsets, dtype=np.int64), data, valid
