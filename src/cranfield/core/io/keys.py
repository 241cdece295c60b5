"""Integer keys for (query id, doc id) pairs, shared by the duplicate check and the join.

Run files list each query's documents in one contiguous block, so query ids are
handled per block (:func:`blocks`): a 7-million-line run has ~7,000 of them. Each pair
gets a 64-bit key mixing a hash of the doc id and a hash of the query id
(:func:`pair_keys`); equal pairs always get equal keys, and every key match is then
verified exactly on the strings, so hash collisions cost time, never correctness.

:class:`PairIndex` sorts the keys once with their row numbers packed into the low bits
(``key << row_bits | row``), which sorts at the speed of plain integers and serves both
the duplicate check (equal neighbours) and the label lookup of ``judge`` (binary search
of the qrels keys). Qrels and runs read from files keep their index, so ten runs
judged against one qrels build the qrels index once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [2**64 - 1], dtype=np.uint64)
_MUL = np.uint64(0x100000001B3)
_GOLD = np.uint64(0x9E3779B97F4A7C15)
_MIX = np.uint64(0xD6E8FEB86659FD93)


def as_array(col) -> pa.Array:
    return col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col


def ints(values: np.ndarray) -> pa.Array:
    """An int64 NumPy array as an Arrow array, zero-copy (``pa.array`` on a NumPy array
    imports pandas when it is installed, which costs a cold process 0.3 s)."""
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
    # Array.to_numpy() imports pandas when it is installed (0.3 s); read the buffer
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


def binary_buffers(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, bytes from the first value's start to the last value's end) of a
    string or binary array, as NumPy views."""
    offsets, data = _string_buffers(arr)
    return offsets, data[offsets[0] : offsets[-1]]


def _string_buffers(arr: pa.Array):
    n = len(arr)
    _, off_buf, data_buf = arr.buffers()
    offsets = np.frombuffer(off_buf, dtype=np.int32)[arr.offset : arr.offset + n + 1]
    data = (
        np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None else np.zeros(0, np.uint8)
    )
    return offsets, data


def _hash_chunk(arr: pa.Array, out: np.ndarray | None = None) -> np.ndarray:
    # FNV-1a over little-endian 8-byte words, the bytes past a string's end being zero.
    # Only equality matters (every match is verified exactly), so no finaliser.
    # ``out``: where to write the hashes (a slice of a bigger array: no temporary).
    n = len(arr)
    if n == 0:
        return np.zeros(0, dtype=np.uint64) if out is None else out
    offsets, data = _string_buffers(arr)
    length = np.diff(offsets)
    lo, hi = int(length.min()), int(length.max())
    if hi > _LONG:
        return _hash_long(arr, offsets, data, length, out)
    body = data[offsets[0] : offsets[-1]]
    if lo == hi and lo > 0:  # fixed-width ids: one reshape, no gathers
        width = -(-lo // 8) * 8
        if width == lo:
            words = body.reshape(n, lo).view("<u8")
        else:
            padded = np.zeros((n, width), dtype=np.uint8)
            padded[:, :lo] = body.reshape(n, lo)
            words = padded.view("<u8")
        h = np.empty(n, dtype=np.uint64) if out is None else out
        h.fill(lo)
        for j in range(words.shape[1]):
            h ^= words[:, j]
            h *= _MUL
        return h
    padded = np.zeros(len(body) + 8, dtype=np.uint8)
    padded[:-8] = body
    # words[i] = the 8 bytes starting at byte i (overlapping, little-endian)
    words = np.ndarray(shape=(len(padded) - 7,), dtype="<u8", buffer=padded, strides=(1,))
    start = offsets[:-1] - offsets[0]
    h = length.astype(np.uint64)
    for k in range(0, hi, 8):
        if k + 8 > lo:  # some strings end before this word ends: mask their tail
            # (a string shorter than k may point past the end: clip, the mask zeroes it)
            w = words[np.minimum(start + k, len(words) - 1)]
            w &= _MASKS[np.clip(length - k, 0, 8)]
            # strings already finished keep their hash, whatever the longest string is
            h = np.where(length > k, (h ^ w) * _MUL, h)
        else:
            h ^= words[start + k]
            h *= _MUL
    if out is not None:
        out[...] = h
        return out
    return h


_LONG = 1 << 10
"""Strings longer than this (bytes) are hashed one by one: the word loop above costs
one pass over the chunk per 8 bytes of its longest string."""


def _hash_long(arr: pa.Array, offsets, data, length, out: np.ndarray | None) -> np.ndarray:
    """:func:`_hash_chunk` for a chunk holding strings over ``_LONG`` bytes: those are
    hashed with BLAKE2b (8 bytes), the others as usual. Still a function of each
    string alone, so equal strings get equal hashes in any chunk."""
    import hashlib

    h = np.empty(len(arr), dtype=np.uint64) if out is None else out
    long = length > _LONG
    short = np.flatnonzero(~long)
    if len(short):
        h[short] = _hash_chunk(arr.take(pa.array(short)))
    for i in np.flatnonzero(long):  # rare: one call per string of over a KiB
        digest = hashlib.blake2b(data[offsets[i] : offsets[i + 1]].tobytes(), digest_size=8)
        h[i] = int.from_bytes(digest.digest(), "little")
    return h


def hash_strings(col: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """64-bit hash of every string of ``col`` (a string column without nulls)."""
    chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
    parts = [_hash_chunk(c.cast(pa.string()) if c.type != pa.string() else c) for c in chunks]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint64)


@dataclass
class Blocks:
    """Runs of equal adjacent values: ``values[b]`` fills rows ``starts[b]:starts[b+1]``."""

    starts: np.ndarray  # int64, length num_blocks + 1 (last = num_rows)
    values: pa.Array

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.starts)

    def expand(self, per_block: np.ndarray) -> np.ndarray:
        return np.repeat(per_block, self.lengths)


def _changes(arr: pa.Array) -> np.ndarray:
    """Positions i where string i + 1 differs from string i."""
    if arr.type in (pa.string(), pa.binary()) and len(arr) > 1:
        offsets, data = binary_buffers(arr)
        width = int(offsets[1] - offsets[0])
        if width and len(data) == width * len(arr) and (np.diff(offsets) == width).all():
            # every value this wide: compare them as fixed-width rows
            values = data.view(f"V{width}") if width not in _UINTS else data.view(_UINTS[width])
            return np.flatnonzero(values[1:] != values[:-1])
    return np.flatnonzero(bools(pc.not_equal(arr[1:], arr[:-1])))


_UINTS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def blocks(col) -> Blocks:
    """Run-length encoding of a string column (compares adjacent strings only)."""
    chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
    chunks = [c for c in chunks if len(c)]
    n = sum(len(c) for c in chunks)
    if n == 0:
        return Blocks(np.zeros(1, dtype=np.int64), pa.array([], col.type))
    change = [np.zeros(1, dtype=np.int64)]
    pos = 0
    prev = None
    for c in chunks:  # adjacent comparisons chunk by chunk (no concatenated copy)
        if prev is not None and prev != c[0]:
            change.append(np.array([pos], dtype=np.int64))
        change.append(_changes(c) + 1 + pos)
        prev = c[len(c) - 1]
        pos += len(c)
    change.append(np.array([n], dtype=np.int64))
    starts = np.concatenate(change).astype(np.int64)
    return Blocks(starts, take(col, starts[:-1]))


def _chunk_work(query_blocks: Blocks, doc_id, per_chunk, dest: np.ndarray | None = None):
    """Yield ``(first row, per_chunk(first row, doc hashes, block range))`` for every
    chunk of ``doc_id``, in order: small temporaries.

    The block range is ``(b0, bounds)``: the chunk's rows belong to blocks ``b0,
    b0 + 1, ...`` and ``np.diff(bounds)`` of them to each. With ``dest``, a chunk's
    hashes are written straight into its rows of ``dest`` (and ``per_chunk`` gets
    that view). Chunks are hashed two at a time in threads (NumPy releases the GIL in
    these whole-array operations).
    """
    starts = query_blocks.starts
    chunks = doc_id.chunks if isinstance(doc_id, pa.ChunkedArray) else [doc_id]
    work = []
    pos = 0
    for c in chunks:
        if len(c):
            work.append((pos, c))
            pos += len(c)

    def one(item):
        pos, c = item
        m = len(c)
        into = None if dest is None else dest[pos : pos + m]
        h = _hash_chunk(c.cast(pa.string()) if c.type != pa.string() else c, into)
        b0 = int(np.searchsorted(starts, pos, side="right")) - 1
        b1 = int(np.searchsorted(starts, pos + m - 1, side="right")) - 1
        bounds = np.clip(starts[b0 : b1 + 2], pos, pos + m)
        return pos, per_chunk(pos, h, b0, bounds)

    if len(work) < 4:
        yield from map(one, work)
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=2) as pool:
        pending = []
        for item in work:  # at most a few chunks in flight: bounded memory
            pending.append(pool.submit(one, item))
            if len(pending) > 3:
                yield pending.pop(0).result()
        for f in pending:
            yield f.result()


def _key_chunks(query_blocks: Blocks, doc_id):
    """Yield (first row, pair keys of the rows of one chunk of ``doc_id``)."""
    qh = hash_strings(query_blocks.values) * _GOLD

    def mix(pos, key, b0, bounds):
        key ^= np.repeat(qh[b0 : b0 + len(bounds) - 1], np.diff(bounds))
        key *= _MIX  # the high bits, which the index keeps, depend on every bit
        return key

    return _chunk_work(query_blocks, doc_id, mix)


def pair_keys(query_blocks: Blocks, doc_id) -> np.ndarray:
    """64-bit key of every (query id, doc id) row; equal pairs have equal keys."""
    out = np.empty(len(doc_id), dtype=np.uint64)
    for pos, key in _key_chunks(query_blocks, doc_id):
        out[pos : pos + len(key)] = key
    return out


@dataclass
class PairIndex:
    """Keys of a (query_id, doc_id) table sorted once, with row numbers in the low bits.

    Two layouts of the 64 bits:

    * general: ``pair key | row`` (``block_bits == 0``), the pair key mixing the hashes
      of the query id and the doc id;
    * blocked, when every query id fills one block of rows: ``block | doc hash | row
      within the block``. The block number is exact, so only doc hashes can collide,
      and rows sort block by block; a table whose blocks have one length (a run with
      1,000 documents for every query) is sorted as a matrix, one row per block,
      which takes half the time of one long sort.

    Either way, equal pairs share the bits above ``row_bits``.
    """

    packed: np.ndarray  # sorted uint64
    row_bits: int
    query_blocks: Blocks
    block_bits: int = 0
    shared: np.ndarray | None = None  # positions in packed of keys found twice, once known

    def row_of(self, packed: np.ndarray) -> np.ndarray:
        """The table rows of some packed values."""
        low = (packed & np.uint64((1 << self.row_bits) - 1)).astype(np.int64)
        if not self.block_bits:
            return low
        block = (packed >> np.uint64(64 - self.block_bits)).astype(np.int64)
        return self.query_blocks.starts[block] + low

    @property
    def rows(self) -> np.ndarray:
        return self.row_of(self.packed)

    def needles(self, doc_hashes: np.ndarray, blocks_of: np.ndarray) -> np.ndarray:
        """Search keys (row bits zero) of a blocked index for doc ids with these
        hashes (:func:`hash_strings`) in these blocks."""
        return _to_blocked(doc_hashes.copy(), blocks_of, self.block_bits, self.row_bits)

    def duplicate_candidates(self) -> np.ndarray:
        """Rows whose key is shared with another row (a superset of the duplicate pairs)."""
        if self.shared is None:
            self.shared = _equal_neighbours(self.packed, self.row_bits)
        return np.sort(self.row_of(self.packed[self.shared]))

    def find_sorted(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`find` for ascending ``keys``, as (index into keys, row) sorted by row.

        One binary search per key: a key shared by two rows of the index (a hash
        collision, the duplicate check having passed) sends the call to :meth:`find`.
        """
        n = len(self.packed)
        if n == 0 or len(keys) == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        shift = np.uint64(self.row_bits)
        high = keys >> shift
        lo = np.searchsorted(self.packed, high << shift, side="left")
        hit = (self.packed[np.minimum(lo, n - 1)] >> shift) == high
        after = self.packed[np.minimum(lo + 1, n - 1)] >> shift
        if (hit & (lo + 1 < n) & (after == high)).any():
            which, rows = self.find(keys)
        else:
            which = np.flatnonzero(hit)
            rows = self.row_of(self.packed[lo[which]])
        # sort the pairs by row: one integer sort of (row, which) packed together
        which_bits = max(1, int(len(keys)).bit_length())
        row_bits = max(1, int(self.query_blocks.starts[-1]).bit_length())
        if row_bits + which_bits <= 64:
            packed = np.sort(
                (rows.astype(np.uint64) << np.uint64(which_bits)) | which.astype(np.uint64)
            )
            which = (packed & np.uint64((1 << which_bits) - 1)).astype(np.int64)
            rows = (packed >> np.uint64(which_bits)).astype(np.int64)
            return which, rows
        by_row = np.lexsort((which, rows))
        return which[by_row], rows[by_row]

    def find(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Candidate matches of ``keys`` (full 64-bit keys): (index into keys, row)."""
        shift = np.uint64(self.row_bits)
        # sorted needles make the binary searches cache-friendly (~10x faster)
        order = np.argsort(keys)
        low = (keys[order] >> shift) << shift
        high = low | np.uint64((1 << self.row_bits) - 1)
        lo = np.searchsorted(self.packed, low, side="left")
        hi = np.searchsorted(self.packed, high, side="right")
        count = hi - lo
        which = np.repeat(order, count)
        first = np.repeat(lo - np.concatenate(([0], np.cumsum(count)[:-1])), count)
        pos = first + np.arange(len(which), dtype=np.int64)
        return which, self.row_of(self.packed[pos])


def _to_blocked(h: np.ndarray, block_ids, block_bits: int, row_bits: int) -> np.ndarray:
    """Turn doc hashes into blocked keys in place, ``block | top hash bits | 0`` (the row
    bits left zero); ``block_ids`` broadcasts against ``h``."""
    h >>= np.uint64(block_bits + row_bits)
    h <<= np.uint64(row_bits)
    h |= np.asarray(block_ids, dtype=np.uint64) << np.uint64(64 - block_bits)
    return h


def _equal_neighbours(packed: np.ndarray, row_bits: int) -> np.ndarray:
    """Positions of the sorted ``packed`` values whose bits above ``row_bits`` equal
    those of a neighbour, ascending."""
    limit = np.uint64(1 << row_bits)
    n = len(packed)
    found = []
    step = 1 << 20  # in slices, through two reused buffers: no 8-byte temporary per row
    xor = np.empty(min(step, max(n - 1, 0)), dtype=np.uint64)
    below = np.empty(len(xor), dtype=bool)
    for a in range(0, max(n - 1, 0), step):
        part = packed[a : a + step + 1]
        m = len(part) - 1
        # equal above the row bits <=> their XOR is below 2**row_bits
        np.bitwise_xor(part[1:], part[:-1], out=xor[:m])
        np.less(xor[:m], limit, out=below[:m])
        same = np.flatnonzero(below[:m]) + a
        if len(same):
            found.append(np.concatenate((same, same + 1)))
    if not found:
        return np.zeros(0, dtype=np.int64)
    return np.unique(np.concatenate(found))


_MIN_HASH_BITS = 32  # fewer would make collisions (verified, so only slow) common


def _blocked_bits(qb: Blocks) -> tuple[int, int] | None:
    """(block bits, row bits) of the blocked layout, or None when it does not apply:
    a query id in several blocks, or too few bits left for the doc hash."""
    nb = len(qb.values)
    if nb == 0:
        return None
    block_bits = max(1, (nb - 1).bit_length())
    row_bits = max(1, int(qb.lengths.max() - 1).bit_length())
    if 64 - block_bits - row_bits < _MIN_HASH_BITS:
        return None
    if nb > 1 and len(pc.unique(qb.values)) != nb:
        return None
    return block_bits, row_bits


def _compose_and_sort_rows(matrix: np.ndarray, block_bits: int, row_bits: int) -> np.ndarray:
    """Turn a matrix of doc hashes, one row per block, into blocked keys, sort each
    row, and return :func:`_equal_neighbours` of the flattened result (rows never
    share a key: their block bits differ). The two halves go to two threads."""
    half = len(matrix) // 2
    within = np.arange(matrix.shape[1], dtype=np.uint64)

    def one(first: int, part: np.ndarray) -> np.ndarray:
        # block and position broadcast along the rows: no temporary of the matrix's size
        _to_blocked(part, np.arange(first, first + len(part))[:, None], block_bits, row_bits)
        part |= within
        part.sort(axis=1)
        return _equal_neighbours(part.reshape(-1), row_bits)

    if half < 64:
        return one(0, matrix)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=2) as pool:
        first, second = pool.map(one, (0, half), (matrix[:half], matrix[half:]))
    return np.concatenate((first, second + half * matrix.shape[1]))


def build_index(table: pa.Table, query_blocks: Blocks | None = None) -> PairIndex:
    """Sort the pair keys of a table with ``query_id`` and ``doc_id`` columns.

    ``query_blocks`` is ``blocks(table["query_id"])`` when the caller has it already.
    """
    n = table.num_rows
    qb = blocks(table["query_id"]) if query_blocks is None else query_blocks
    packed = np.empty(n, dtype=np.uint64)
    bits = _blocked_bits(qb)
    if bits is None:
        row_bits = max(1, int(n).bit_length())
        shift = np.uint64(row_bits)
        for pos, key in _key_chunks(qb, table["doc_id"]):
            key >>= shift
            key <<= shift
            key |= np.arange(pos, pos + len(key), dtype=np.uint64)
            packed[pos : pos + len(key)] = key
        packed.sort()
        return PairIndex(packed, row_bits, qb)

    block_bits, row_bits = bits
    lengths = qb.lengths
    if len(lengths) and (lengths == lengths[0]).all():  # blocks of one length: a matrix
        for _ in _chunk_work(qb, table["doc_id"], lambda *args: None, dest=packed):
            pass
        matrix = packed.reshape(len(lengths), int(lengths[0]))
        shared = _compose_and_sort_rows(matrix, block_bits, row_bits)
        return PairIndex(packed, row_bits, qb, block_bits, shared)

    starts = qb.starts

    def compose(pos, h, b0, bounds):  # in a worker thread: h is its own rows of packed
        lengths = np.diff(bounds)
        _to_blocked(h, np.repeat(np.arange(b0, b0 + len(lengths)), lengths), block_bits, row_bits)
        rel = np.arange(pos, pos + len(h), dtype=np.int64)
        rel -= np.repeat(starts[b0 : b0 + len(lengths)], lengths)
        h |= rel.astype(np.uint64)

    for _ in _chunk_work(qb, table["doc_id"], compose, dest=packed):
        pass
    packed.sort()
    return PairIndex(packed, row_bits, qb, block_bits)
