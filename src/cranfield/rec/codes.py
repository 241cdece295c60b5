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


def after(first: pa.Array, rest: pa.Array) -> pa.Array:
    """``first``, then the ids of ``rest`` not in it (in their order)."""
    if len(first):
        rest = rest.filter(pc.invert(pc.is_in(rest, value_set=first)))
    return pa.concat_arrays([first, rest])


def distinct(keys: np.ndarray) -> np.ndarray:
    """The sorted distinct values of ``keys`` (a sort: predictable where NumPy's hashed
    ``unique`` is slow on millions of int64 keys)."""
    keys = np.sort(keys)
    return keys[np.r_[True, keys[1:] != keys[:-1]]] if len(keys) else keys


def positions(values, vocab: pa.Array) -> np.ndarray:
    """Each id's position in ``vocab`` (int32; -1 when absent)."""
    values = arrow_ids(values)
    if not len(values):
        return np.zeros(0, np.int32)
    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    if any(pa.types.is_dictionary(c.type) for c in chunks):
        out = np.empty(len(values), np.int32)
        at = 0
        for part in chunk_positions(pa.chunked_array(chunks), vocab):
            out[at : at + len(part)] = part
            at += len(part)
        return out
    if not len(vocab):
        return np.full(len(values), -1, np.int32)
    if values.type != pa.string():
        values = values.cast(pa.string())
    found = pc.index_in(values, value_set=vocab)  # (one hash table of the vocabulary)
    out = np.empty(len(values), np.int32)
    at = 0
    for chunk in found.chunks if isinstance(found, pa.ChunkedArray) else [found]:
        out[at : at + len(chunk)] = np.asarray(chunk.fill_null(-1))  # (a chunk at a time)
        at += len(chunk)
    return out


def chunk_positions(values: pa.ChunkedArray, vocab: pa.Array):
    """:func:`positions` of each chunk of ``values`` in turn (int32 arrays): every
    chunk's dictionary looked up in one pass (one hash table of the vocabulary, not one
    per chunk; a dictionary shared by chunks once)."""
    where, parts, size = {}, [], 0
    for c in values.chunks:
        if pa.types.is_dictionary(c.type) and _identity(c.dictionary) not in where:
            where[_identity(c.dictionary)] = size
            parts.append(c.dictionary.cast(pa.string()))
            size += len(c.dictionary)
    found = positions(pa.concat_arrays(parts), vocab) if parts else None
    for c in values.chunks:
        if pa.types.is_dictionary(c.type):
            start = where[_identity(c.dictionary)]
            looked = found[start : start + len(c.dictionary)]
            yield looked[c.indices.to_numpy(zero_copy_only=False)]
        else:
            yield positions(c, vocab)


class Lookup:
    """:func:`positions` in one vocabulary asked many times, a few ids at a time (a
    record batch's distinct users): the vocabulary sorted once as Python strings and
    each id found by binary search (``numpy.searchsorted``, ``log2(n)`` comparisons an
    id), where :func:`positions` builds a hash table of the whole vocabulary per call.
    Python orders ``str`` by code point, as Arrow orders UTF-8 by byte. Asked for many
    ids at once (a sixteenth of the vocabulary or more), it hashes as :func:`positions`
    does."""

    def __init__(self, vocab: pa.Array):
        self.vocab = vocab
        order = np.asarray(pc.sort_indices(vocab), np.int64)
        self.ids = vocab.take(pa.array(order)).to_numpy(zero_copy_only=False)
        self.code = order.astype(np.int32)

    def __call__(self, ids: pa.Array) -> np.ndarray:
        """Each of ``ids`` (strings) as its position in the vocabulary (int32; -1: absent)."""
        if len(ids) * 16 >= len(self.ids):
            return positions(ids, self.vocab)
        asked = ids.cast(pa.string()).to_numpy(zero_copy_only=False)
        if not len(self.ids) or not len(asked):
            return np.full(len(asked), -1, np.int32)
        at = np.minimum(np.searchsorted(self.ids, asked), len(self.ids) - 1)
        return np.where(self.ids[at] == asked, self.code[at], np.int32(-1))


def _identity(array: pa.Array) -> tuple:
    """The buffers holding ``array`` (two arrays with the same ones hold the same
    values): a dictionary shared by chunks is recognised without comparing it."""
    return (array.offset, len(array), *(b.address if b else 0 for b in array.buffers()))


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
    (``set_users``, ``set_items``); negative codes: never (:class:`PairSet`)."""
    return PairSet(set_users, set_items, n_items).contains(users, items)


class PairSet:
    """A set of (user, item) code pairs, looked up whole-array.

    The pairs become int64 keys ``user * n_items + item``, looked up in the set's sorted
    distinct keys; only the rows that pass a one-hash Bloom filter are looked up: per
    user a 64-bit signature with bit ``item % 64`` set for each of the user's pairs (a
    pair whose bit is clear is not in the set), which leaves about ``n_u / 64`` of a
    user's rows to look up when the user has ``n_u`` pairs. Built once, asked a record
    batch of lists at a time.
    """

    def __init__(self, set_users, set_items, n_items: int):
        set_users = np.asarray(set_users, np.int64)
        self.n_items = n_items
        self.keys = keys = distinct(set_users * n_items + set_items)
        self.signature = np.zeros(0, np.uint64)
        if len(keys):
            owner = keys // n_items
            starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
            bits = np.left_shift(np.uint64(1), (keys % n_items % 64).astype(np.uint64))
            self.signature = np.zeros(int(owner[-1]) + 1, np.uint64)
            self.signature[owner[starts]] = np.bitwise_or.reduceat(bits, starts)

    def contains(self, users: np.ndarray, items: np.ndarray) -> np.ndarray:
        """Whether each (``users``, ``items``) pair is in the set (negative codes: never)."""
        keys, signature, n_items = self.keys, self.signature, self.n_items
        out = np.zeros(len(users), bool)
        if not len(keys) or not len(users):
            return out
        last = len(signature) - 1
        for a in range(0, len(users), BLOCK):  # (temporaries of a block, not of every row)
            u, i = users[a : a + BLOCK], items[a : a + BLOCK]
            valid = (u >= 0) & (i >= 0) & (u <= last)
            word = signature[np.where(valid, u, 0)]
            word >>= (i & 63).astype(np.uint64)
            rows = np.flatnonzero(valid & (word & np.uint64(1)).astype(bool))
            want = u[rows].astype(np.int64) * n_items + i[rows]
            at = np.minimum(np.searchsorted(keys, want), len(keys) - 1)
            out[a + rows] = keys[at] == want
        return out


#: rows handled at a time by :func:`in_pairs`
BLOCK = 1 << 20


@dataclass(frozen=True)
class Ranked:
    """Recommendation lists in codes: one row per recommended item of an evaluated
    user, each user's rows together and in trec_eval's order within the list (score
    descending, ties by item id descending); ``user`` and ``item``: codes,
    ``position``: the 0-based rank in the list, ``row``: the row in the run's table,
    ``score``: the row's score (when kept)."""

    user: np.ndarray
    item: np.ndarray
    position: np.ndarray
    row: np.ndarray
    score: np.ndarray | None = None

    def take(self, rows: np.ndarray) -> Ranked:
        """The rows at ``rows`` (an index or a mask)."""
        kept = None if self.score is None else self.score[rows]
        return Ranked(self.user[rows], self.item[rows], self.position[rows], self.row[rows], kept)


def _in_rank_order(user, score, item, item_order, order) -> bool:
    """Whether the rows (taken in ``order``, or as they are when None), each user's
    together, are in trec_eval's order within each user (the item ids' order is read
    only where two scores tie)."""
    if order is not None:
        user, score, item = user[order], score[order], item[order]
    ok = score[1:] < score[:-1]
    ok |= user[1:] != user[:-1]
    ties = np.flatnonzero(~ok)
    ties = ties[score[ties + 1] == score[ties]]
    ok[ties] = item_order[item[ties + 1]] < item_order[item[ties]]
    return bool(ok.all())


def rank(user, item, score, item_order, row, n_users: int, keep_score: bool = False) -> Ranked:
    """The rows (``user`` codes in ``[0, n_users)``, ``item`` codes, ``score``, ``row``;
    ``item_order``: per item code, its rank among the item ids in byte order) as
    :class:`Ranked`. Lists written in rank order, one block of rows per user (the usual
    case), are taken as they are after a whole-array check; lists in rank order but
    interleaved take one stable sort by user code; others the one Arrow sort of
    :func:`cranfield.core.run.trec_order` on the codes. ``score`` may come in a list of
    one array, which is then emptied: the scores are dropped once the order is known
    (kept in the order of the rows with ``keep_score``)."""
    if isinstance(score, list):
        score = score.pop()
    n = len(user)
    if n:
        order = None
        starts = np.flatnonzero(user[1:] != user[:-1]) + 1
        if np.bincount(user[np.r_[0, starts]], minlength=n_users).max() > 1:
            order = np.argsort(user, kind="stable")  # a user's rows in several blocks
        del starts
        if not _in_rank_order(user, score, item, item_order, order):
            from ..core.run import trec_order

            order = np.asarray(trec_order(user, score, item_order[item]))
        if not keep_score:
            score = None
        if order is not None:
            user, item, row = user[order], item[order], row[order]
            score = None if score is None else score[order]
            del order
    changes = np.flatnonzero(user[1:] != user[:-1]) + 1 if n else np.zeros(0, np.int64)
    # each row's place in its list: a running sum of ones that drops back to 0 at each
    # user's first row (one array of the rows, no per-row temporary)
    position = np.ones(n, dtype=row.dtype)
    if n:
        position[0] = 0
        position[changes] = 1 - np.diff(np.r_[0, changes])
        np.cumsum(position, out=position)
    return Ranked(user, item, position, row, score if keep_score else None)
