"""Duplicate documents within a query, found without a Python loop per row.

Each (query id, doc id) pair is hashed to 64 bits with NumPy (eight bytes of the id at
a time, read through an overlapping strided view of Arrow's string data), the hashes
are sorted, and only rows whose hash occurs twice are compared exactly. On a
7-million-row run this costs a few tenths of a second where hashing the strings with
Arrow's ``dictionary_encode`` or ``group_by`` takes well over a second.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import InputError, ParameterError

POLICIES = ("error", "first", "max")

_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [2**64 - 1], dtype=np.uint64)
_MUL = np.uint64(0x100000001B3)
_GOLD = np.uint64(0x9E3779B97F4A7C15)


def check_policy(duplicates: str) -> str:
    if duplicates not in POLICIES:
        raise ParameterError("duplicates", "one of 'error', 'first', 'max'", duplicates)
    return duplicates


def _hash_chunk(arr: pa.Array) -> np.ndarray:
    # FNV-1a over 8-byte words. Only equality matters (every hash match is verified
    # exactly afterwards), so no finaliser is needed.
    n = len(arr)
    if n == 0:
        return np.zeros(0, dtype=np.uint64)
    _, off_buf, data_buf = arr.buffers()
    offsets = np.frombuffer(off_buf, dtype=np.int32)[arr.offset : arr.offset + n + 1]
    data = (
        np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None else np.zeros(0, np.uint8)
    )
    padded = np.zeros(int(offsets[-1] - offsets[0]) + 8, dtype=np.uint8)
    padded[:-8] = data[offsets[0] : offsets[-1]]
    # words[i] = the 8 bytes starting at byte i (overlapping, little-endian)
    words = np.ndarray(shape=(len(padded) - 7,), dtype="<u8", buffer=padded, strides=(1,))
    start = offsets[:-1] - offsets[0]
    length = np.diff(offsets)
    h = length.astype(np.uint64)
    shortest = int(length.min())
    for k in range(0, int(length.max()), 8):
        if k + 8 > shortest:  # some strings end before this word ends: mask their tail
            # (a string shorter than k may point past the end: clip, the mask zeroes it)
            w = words[np.minimum(start + k, len(words) - 1)]
            w &= _MASKS[np.clip(length - k, 0, 8)]
            # strings already finished keep their hash, whatever the longest string is
            h = np.where(length > k, (h ^ w) * _MUL, h)
        else:
            h ^= words[start + k]
            h *= _MUL
    return h


def hash_strings(col: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """64-bit hash of every string of ``col`` (a string column without nulls)."""
    chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
    parts = [_hash_chunk(c.cast(pa.string()) if c.type != pa.string() else c) for c in chunks]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint64)


def _codes(col: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """Small integer code per distinct value (query ids repeat: Arrow's hash table is quick)."""
    enc = pc.dictionary_encode(col)
    chunks = enc.chunks if isinstance(enc, pa.ChunkedArray) else [enc]
    if not chunks:
        return np.zeros(0, dtype=np.uint64)
    # chunks of a ChunkedArray are encoded against one shared dictionary
    return np.concatenate([c.indices.to_numpy() for c in chunks]).astype(np.uint64)


def duplicate_candidates(query_id, doc_id) -> np.ndarray:
    """Row indices whose (query, doc) hash is shared with another row (a superset of duplicates)."""
    key = hash_strings(doc_id)
    key *= _GOLD
    key += _codes(query_id)
    skey = np.sort(key)
    dup_keys = skey[1:][skey[1:] == skey[:-1]]
    if len(dup_keys) == 0:
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(np.isin(key, dup_keys))


def resolve(
    table: pa.Table,
    value: str,
    duplicates: str,
    source: str | None,
    line_of: Callable[[int], int] | None,
    unit: str = "line",
) -> pa.Table:
    """Apply a duplicates policy to a (query_id, doc_id, value) table, keeping row order.

    ``"error"`` raises :class:`InputError` naming the first repeated pair (both line
    numbers); ``"first"`` keeps the first occurrence; ``"max"`` keeps the occurrence
    with the highest value (the first one among equal values).
    ``line_of(row)`` maps a 0-based row to the line number quoted in messages; when it
    is None, rows are quoted 1-based as ``row N``.
    """
    check_policy(duplicates)
    cand = duplicate_candidates(table["query_id"], table["doc_id"])
    if len(cand) == 0:
        return table
    sub = table.take(pa.array(cand)).select(["query_id", "doc_id", value])
    sub = sub.append_column("_row", pa.array(cand))
    if duplicates == "max":
        keys = [("query_id", "ascending"), ("doc_id", "ascending"), (value, "descending")]
    else:
        keys = [("query_id", "ascending"), ("doc_id", "ascending")]
    sub = sub.sort_by([*keys, ("_row", "ascending")])
    q, d = sub["query_id"].combine_chunks(), sub["doc_id"].combine_chunks()
    same = np.zeros(len(sub), dtype=bool)
    if len(sub) > 1:
        same[1:] = np.asarray(pc.and_(pc.equal(q[1:], q[:-1]), pc.equal(d[1:], d[:-1])))
    if not same.any():  # only hash collisions
        return table
    rows = sub["_row"].to_numpy()
    if duplicates == "error":
        group_first = np.maximum.accumulate(np.where(~same, np.arange(len(sub)), 0))
        later = np.flatnonzero(same)
        i = later[np.argmin(rows[later])]
        first, second = int(rows[group_first[i]]), int(rows[i])

        def where(r: int) -> int:
            return line_of(r) if line_of is not None else r + 1

        word = unit + "s"
        raise InputError(
            f"document {d[i].as_py()!r} appears twice for query {q[i].as_py()!r} "
            f"({word} {where(first)} and {where(second)}); "
            "to keep one, use duplicates='first' or 'max' (cranfield eval --duplicates)",
            source=source,
            line=where(second) if line_of is not None else None,
        )
    keep = np.ones(table.num_rows, dtype=bool)
    keep[rows[same]] = False
    return table.filter(pa.array(keep))
