"""Users and items interned to dense integer codes once, and recommendation lists ranked
in those codes (whole arrays, no Python object per id).

An id column (Arrow strings, Arrow dictionary chunks, or a NumPy array of str) is
looked up in a sorted vocabulary with Arrow's hash lookup (``pyarrow.compute.index_in``:
one pass over the rows, a hash table of the vocabulary; dictionary-encoded chunks -- a
Parquet file's -- are looked up through their dictionaries). Every later join (training
pairs in a list, held-out pairs, item popularity) is then integer arithmetic:
``bincount``, ``searchsorted``, ``isin`` on ``user code * items + item code`` keys.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._lazy import lazy

np = lazy("numpy", __name__, "np")
pa = lazy("pyarrow", __name__, "pa")
pc = lazy("pyarrow.compute", __name__, "pc")


def arrow_ids(values) -> pa.Array | pa.ChunkedArray:
    """``values`` (ids) as an Arrow string or dictionary column."""
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        return values
    return pa.array(np.asarray(values, dtype=object), pa.string())


def vocabulary(*columns) -> pa.Array:
    """The distinct ids of ``columns``, sorted in byte order (as ``numpy.unique`` sorts
    Python strings: UTF-8 byte order is code point order)."""
    parts = []
    for column in columns:
        column = arrow_ids(column)
        chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
        for chunk in chunks:
            if pa.types.is_dictionary(chunk.type):
                chunk = chunk.dictionary.take(pc.unique(chunk.indices))
            parts.append(pc.unique(chunk.cast(pa.string())))
    if not parts:
        return pa.array([], pa.string())
    distinct = pc.unique(pa.chunked_array(parts, pa.string()))
    return distinct.take(pc.sort_indices(distinct))


def positions(values, vocab: pa.Array) -> np.ndarray:
    """Each id's position in ``vocab`` (int64; -1 when absent)."""
    values = arrow_ids(values)
    if not len(values):
        return np.zeros(0, np.int64)
    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    if any(pa.types.is_dictionary(c.type) for c in chunks):
        out = [
            positions(c.dictionary, vocab)[c.indices.to_numpy(zero_copy_only=False)]
            if pa.types.is_dictionary(c.type)
            else positions(c, vocab)
            for c in chunks
            if len(c)
        ]
        return np.concatenate(out).astype(np.int64, copy=False)
    if values.type != pa.string():
        values = values.cast(pa.string())
    found = pc.index_in(values, value_set=vocab)
    return (
        np.asarray(found.fill_null(-1), dtype=np.int64)
        if len(vocab)
        else np.full(len(values), -1, np.int64)
    )


def object_ids(column) -> np.ndarray:
    """An Arrow id column as a NumPy array of ``str``: one Python string per distinct id
    (a dictionary encoding), shared by the rows, instead of one per row."""
    encoded = pc.dictionary_encode(column.cast(pa.string()))
    chunks = encoded.chunks if isinstance(encoded, pa.ChunkedArray) else [encoded]
    parts = [
        c.dictionary.to_numpy(zero_copy_only=False)[c.indices.to_numpy(zero_copy_only=False)]
        for c in chunks
        if len(c)
    ]
    return np.concatenate(parts) if parts else np.array([], dtype=object)


def in_pairs(users: np.ndarray, items: np.ndarray, set_users, set_items, n_items: int):
    """Whether each (``users``, ``items``) code pair is one of the pairs
    (``set_users``, ``set_items``): int64 keys ``user * n_items + item``, looked up in
    the set's sorted distinct keys (negative codes: never)."""
    keys = np.unique(np.asarray(set_users, np.int64) * n_items + set_items)
    want = np.asarray(users, np.int64) * n_items + items
    if not len(keys):
        return np.zeros(len(want), bool)
    at = np.minimum(np.searchsorted(keys, want), len(keys) - 1)
    return (keys[at] == want) & (users >= 0) & (items >= 0)


@dataclass(frozen=True)
class Ranked:
    """Recommendation lists in codes: one row per recommended item of an evaluated
    user, grouped by ``user`` code (ascending) and in trec_eval's order within each
    list (score descending, ties by item id descending); ``item``: the item's code,
    ``position``: its 0-based rank in the list, ``row``: its row in the run's table."""

    user: np.ndarray
    item: np.ndarray
    position: np.ndarray
    row: np.ndarray


def rank(user, item, score, item_order, row) -> Ranked:
    """The rows (``user`` codes >= 0, ``item`` codes, ``score``, ``item_order``: each
    row's item's rank among the item ids in byte order, ``row``) as :class:`Ranked`. Lists already written in
    rank order (the usual case) take one stable sort by user code (a radix pass) and a
    check; others one Arrow sort by (user, score descending, item descending)."""
    order = np.argsort(user, kind="stable")
    u, s, d = user[order], score[order], item_order[order]
    same = u[1:] == u[:-1]
    ordered = ~same | (s[1:] < s[:-1]) | ((s[1:] == s[:-1]) & (d[1:] < d[:-1]))
    if not ordered.all():
        order = np.asarray(
            pc.sort_indices(
                pa.table({"u": user, "s": score, "d": item_order}),
                sort_keys=[("u", "ascending"), ("s", "descending"), ("d", "descending")],
            )
        )
        u = user[order]
    del s, d, same, ordered
    n = len(u)
    item, row = item[order], row[order]
    starts = np.flatnonzero(np.r_[True, u[1:] != u[:-1]]) if n else np.zeros(0, np.int64)
    counts = np.diff(np.r_[starts, n])
    position = np.arange(n) - np.repeat(starts, counts)
    return Ranked(u, item, position, row)
