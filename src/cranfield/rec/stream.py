"""Recommendation lists read, checked and cut to each user's top rows a record batch at a
time, so that an evaluation holds the rows it needs, not the file.

A Parquet file named by a path is streamed (its user and item columns dictionary-encoded,
as Parquet stores them), and so are a CSV or TSV file (a piece of text at a time,
:class:`~cranfield.core.io.text_stream.TextStream`, every check and message of the
whole-file reader kept; gzip decompressed piece by piece) and an Arrow IPC file; any
other input (standard input, JSON lines)
is read whole by :func:`~cranfield.rec.data.read_recommendations` and its table walked
a batch at a time the same way. The batches are regrouped into *chunks* holding every
row of their users (a user whose rows straddle two batches waits for the next one), so
that within a chunk:

- a user who lists an item twice is found by sorting int64 keys ``user * items + item``
  of the chunk's codes (the first repeated row, and the row it repeats, named as a scan
  in reading order finds them);
- each user's list is ranked in trec_eval's order (score descending, ties by item id
  descending) and only the first ``depth`` rows kept, after the user's training items
  are removed.

Users written in one block each (the usual layout) make every check exact chunk by
chunk. A user whose rows come back later in the file is found at the end (the users
starting each block, all distinct or not): the kept rows are then ranked again as a
whole (each chunk's top rows hold the user's top rows), and a duplicate is looked for
in the whole file's ids once more.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._lazy import lazy
from .codes import Lookup, PairSet, Ranked, after, positions, rank, vocabulary

np = lazy("numpy", __name__, "np")
pa = lazy("pyarrow", __name__, "pa")
pc = lazy("pyarrow.compute", __name__, "pc")

#: rows of a record batch read at a time (tests make it tiny)
BATCH_ROWS = 1 << 20


@dataclass(frozen=True)
class ListsSource:
    """Recommendation lists to evaluate: a run in memory (``run``) or a file not read
    yet (``stream``: a :class:`~cranfield.core.io.table.Stream`, Parquet or text, its
    ``user``, ``item`` and score or ``rank`` column ``value``); ``source`` and ``name``
    name them in messages and outputs."""

    source: str
    name: str
    run: object | None = None
    stream: object | None = None
    user: str = ""
    item: str = ""
    value: str = ""
    negate: bool = False

    @property
    def max_rows(self) -> int:
        """At most this many rows in the lists (a text file's lines)."""
        return self.run.table.num_rows if self.run is not None else self.stream.max_rows

    def batches(self, rows: int | None = None):
        """``(batch, first row)``: record batches of ``query_id``, ``doc_id`` (strings or
        dictionaries of strings) and ``score`` (float64; ``-rank`` for a rank column);
        a streamed file's nulls and non-finite values raise once every batch is read
        (in the order a whole-file read checks them)."""
        rows = rows or BATCH_ROWS
        if self.run is not None:
            at = 0
            for batch in self.run.table.select(["query_id", "doc_id", "score"]).to_batches(rows):
                yield batch, at
                at += batch.num_rows
            return
        from .data import _ids

        first = {}  # problem -> (row, message): the first of each kind
        at = 0
        names = (self.user, self.item, self.value)
        for batch in self.stream.batches(list(dict.fromkeys(names)), rows):
            columns = [batch.column(batch.schema.get_field_index(n)) for n in names]
            for name, column in zip(names, columns, strict=True):
                null = self.stream.first_null(column)
                if null is not None and name not in first:
                    first[name] = (at + null, f"missing value in column {name!r}")
            if first:
                at += batch.num_rows
                continue
            values = pc.cast(columns[2], pa.float64(), safe=False)  # (as read_recommendations)
            finite = pc.is_finite(values)
            if not pc.all(finite).as_py():
                row = int(np.flatnonzero(~finite.to_numpy(zero_copy_only=False))[0])
                what = "rank" if self.negate else "score"
                first["value"] = (at + row, f"{what} {values[row].as_py()} is not a finite number")
                at += batch.num_rows
                continue
            yield (
                pa.record_batch(
                    [
                        _ids(columns[0]),
                        _ids(columns[1]),
                        pc.negate(values) if self.negate else values,
                    ],
                    ["query_id", "doc_id", "score"],
                ),
                at,
            )
            at += batch.num_rows
        for kind in (*names, "value"):
            if kind in first:
                raise self.stream.error(*first[kind])

    def whole_ids(self) -> pa.Table:
        """Every row's ``query_id`` and ``doc_id`` (the duplicate check of lists whose
        users are not one block each)."""
        tables = [
            pa.Table.from_batches([b.select(["query_id", "doc_id"])]) for b, _ in self.batches()
        ]
        return pa.concat_tables(tables)


def lists_source(recs) -> ListsSource:
    """``recs`` (a :class:`ListsSource`, or a :class:`~cranfield.core.run.Run`) as a
    :class:`ListsSource`."""
    if isinstance(recs, ListsSource):
        return recs
    return ListsSource(getattr(recs, "source", None) or "<run>", recs.name, run=recs)


def open_recommendations(path_or_file, name: str | None = None) -> ListsSource:
    """Recommendation lists to evaluate (see :func:`~cranfield.rec.data.read_recommendations`
    for the columns): a Parquet, CSV, TSV or Arrow IPC input is checked now (columns and
    types; a text file's bytes too) and streamed when evaluated, a record batch at a
    time (gzip decompressed piece by piece; standard input, a pipe or a file object
    first copied to a temporary file as it arrives, :func:`~cranfield.core.io.table.
    read_table`); JSON lines and whitespace-separated columns are read now."""
    from ..core.io.table import Stream, read_table
    from ..core.run import default_run_name
    from .data import ITEM, USER, list_columns, run_of_lists

    ids = list(USER + ITEM)
    t = read_table(path_or_file, strings=ids, dictionary=ids, stream=True)
    if not isinstance(t, Stream):
        return lists_source(run_of_lists(t, name))
    user, item, score, rank_ = list_columns(t)
    return ListsSource(
        t.source,
        name or default_run_name(t.source),
        stream=t,
        user=user,
        item=item,
        value=score or rank_,
        negate=score is None,
    )


@dataclass
class _Chunk:
    """Rows ``[offset, offset + len(user))`` holding every row of their users: ``user``
    and ``item`` codes into the chunk's vocabularies ``users`` and ``items`` (distinct
    ids), ``item_order`` each item code's rank among ``items`` in byte order."""

    users: pa.Array
    user: np.ndarray
    items: pa.Array
    item: np.ndarray
    item_order: np.ndarray
    score: np.ndarray
    offset: int


def _coded(batch) -> _Chunk:
    """A batch (or table) as a :class:`_Chunk` of its own vocabularies."""
    users, user, _ = _codes(batch.column(0))
    items, item, order = _codes(batch.column(1))
    rank_of = np.empty(len(items), np.int32)
    rank_of[order] = np.arange(len(items), dtype=np.int32)
    score = batch.column(2).to_numpy()
    return _Chunk(users, user, items, item, rank_of, score, 0)


def _codes(column) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    """The distinct ids of an id column, each row's code among them (int32) and the
    codes in the ids' byte order: a dictionary array's own dictionary and indices when
    its values are distinct (as Parquet writes them; told from the sorted values), else
    the sorted distinct ids."""
    if isinstance(column, pa.DictionaryArray) and not column.dictionary.null_count:
        ids = column.dictionary
        order = np.asarray(pc.sort_indices(ids))
        ordered = ids.take(pa.array(order))
        if len(ids) < 2 or not pc.any(pc.equal(ordered[1:], ordered[:-1])).as_py():
            return ids, column.indices.to_numpy(zero_copy_only=False).astype(np.int32), order
    ids = vocabulary(column)
    return ids, positions(column, ids), np.arange(len(ids))


def chunks(source: ListsSource, rows: int | None = None):
    """The rows of ``source`` as :class:`_Chunk` s in reading order, each user's rows of
    a block in one chunk (a block straddling batches waits, as slices, for its end)."""
    pending, pending_at, pending_user = [], 0, None
    for batch, at in source.batches(rows):
        n = batch.num_rows
        if not n:
            continue
        c = _coded(batch)
        change = np.flatnonzero(c.user[1:] != c.user[:-1]) + 1
        head = int(change[0]) if len(change) else n
        start = 0
        if pending:
            if c.users[int(c.user[0])].as_py() == pending_user:
                pending.append(batch.slice(0, head))
                if head == n:
                    continue
                start = head
            yield _merged(pending, pending_at)
            pending = []
        last = max(int(change[-1]) if len(change) else 0, start)
        if last > start:
            yield _Chunk(
                c.users,
                c.user[start:last],
                c.items,
                c.item[start:last],
                c.item_order,
                c.score[start:last],
                at + start,
            )
        pending, pending_at = [batch.slice(last)], at + last
        pending_user = c.users[int(c.user[last])].as_py()
    if pending:
        yield _merged(pending, pending_at)


def _merged(slices: list, at: int) -> _Chunk:
    c = _coded(pa.Table.from_batches(slices))
    c.offset = at
    return c


def _first_repeat(c: _Chunk) -> tuple[int, int] | None:
    """The first row of ``c`` repeating an earlier row's (user, item) pair, as (the
    earlier row, the row), or None."""
    keys = c.user.astype(np.int64) * max(len(c.items), 1) + c.item
    ordered = np.sort(keys)
    again = ordered[1:][ordered[1:] == ordered[:-1]]
    if not len(again):
        return None
    rows = np.flatnonzero(np.isin(keys, again))
    _, first = np.unique(keys[rows], return_index=True)
    second = int(rows[np.setdiff1d(np.arange(len(rows)), first).min()])
    return c.offset + int(rows[keys[rows] == keys[second]][0]), c.offset + second


@dataclass(frozen=True)
class TopLists:
    """The kept rows of the evaluated users (:class:`Ranked` with scores; item codes
    into ``items``: the training items, then the other items of the kept rows and of
    the held-out log, each part sorted) and how many rows were training pairs."""

    ranked: Ranked
    items: pa.Array
    dropped: int


def top_lists(
    source: ListsSource,
    people: pa.Array,
    n_users: int,
    trained: pa.Array,
    pairs: PairSet | None,
    depth: int | None,
    held_items,
    rows: int | None = None,
) -> TopLists:
    """Each evaluated user's list (``people``: the evaluated users first, ``n_users`` of
    them, then the others known), without its training pairs (``pairs``, in people and
    ``trained`` item codes), ranked and cut to ``depth`` rows (None: every row), the
    lists read a chunk at a time (:func:`chunks`); a streamed file's user listing an
    item twice is refused, naming the row (a run in memory was checked when read)."""
    check = source.stream is not None
    blocks, dropped, repeat = [], 0, None
    person_of, trained_of = Lookup(people), Lookup(trained)
    kept = _Kept(len(trained), np.int32 if source.max_rows < 2**31 else np.int64)
    for c in chunks(source, rows):
        if check:
            found = _first_repeat(c)
            if found is not None and (repeat is None or found[1] < repeat[1]):
                repeat = found
            starts = np.r_[0, np.flatnonzero(c.user[1:] != c.user[:-1]) + 1]
            blocks.append(c.users.take(pa.array(c.user[starts])))
        if repeat is not None:
            continue  # (only looking for an earlier repeat now)
        person = person_of(c.users)[c.user]
        item_code = trained_of(c.items)  # (each chunk item's training code, or -1)
        keep = person >= 0
        if pairs is not None:
            drop = pairs.contains(person, item_code[c.item])
            dropped += int(np.count_nonzero(drop))
            keep &= ~drop
        keep &= person < n_users
        at = np.flatnonzero(keep).astype(kept.row_type)
        del keep
        r = rank(person[at], c.item[at], c.score[at], c.item_order, at, n_users)
        del at, person
        if depth is not None:
            r = r.take(r.position < depth)
        kept.add(c, r, item_code)
    if repeat is None and check and blocks:
        users = pa.chunked_array(blocks, pa.string())
        if len(pc.unique(users)) < len(users):  # a user in several blocks
            from .data import _repeated_codes

            repeat = _repeated_codes(source.whole_ids())
    if repeat is not None:
        row = repeat[1]
        user, item = _ids_at(source, row)
        raise source.stream.error(row, f"item {item!r} is recommended to user {user!r} twice")
    return kept.joined(trained, held_items, n_users, depth, dropped)


def _ids_at(source: ListsSource, row: int) -> tuple[str, str]:
    """The user and item ids of row ``row`` (read again: an error's message)."""
    for batch, at in source.batches():
        if at <= row < at + batch.num_rows:
            return batch.column(0)[row - at].as_py(), batch.column(1)[row - at].as_py()
    raise IndexError(row)


class _Kept:
    """The rows kept from the chunks so far, a list of arrays per column, their items
    as training codes (``n_trained`` of them) or, for an item the training log does not
    hold, ``n_trained + j`` for ``extra[j]`` (the ids in the order first kept): no
    chunk's vocabulary outlives the chunk."""

    def __init__(self, n_trained: int, row_type):
        self.n_trained, self.row_type = n_trained, row_type
        self.extra = pa.array([], pa.string())
        self.user, self.item, self.score, self.row = [], [], [], []

    def add(self, c: _Chunk, r: Ranked, item_code: np.ndarray) -> None:
        """Keep the rows ``r`` of chunk ``c`` (``item_code``: per chunk item, its
        training code or -1)."""
        code = item_code[r.item]
        outside = np.flatnonzero(code < 0)
        if len(outside):
            local = r.item[outside]
            asked = np.unique(local)
            ids = c.items.take(pa.array(asked))
            at = positions(ids, self.extra)
            new = np.flatnonzero(at < 0)
            at[new] = len(self.extra) + np.arange(len(new), dtype=np.int32)
            self.extra = pa.concat_arrays([self.extra, ids.take(pa.array(new))])
            code[outside] = self.n_trained + at[np.searchsorted(asked, local)]
        self.user.append(r.user)
        self.item.append(code)
        self.score.append(c.score[r.row])
        self.row.append(r.row + self.row_type(c.offset))

    def joined(self, trained, held_items, n_users: int, depth, dropped: int) -> TopLists:
        """The kept rows as one :class:`TopLists`, ranked again as a whole (a check
        only, when each user was one block: their rows are in order already); each
        column's parts are let go once joined."""
        columns = []
        for parts, empty in ((self.user, np.int32), (self.item, np.int32)):
            columns.append(np.concatenate(parts) if parts else np.zeros(0, empty))
            parts.clear()
        user, code = columns
        items = after(trained, vocabulary(self.extra, held_items))
        moved = code >= self.n_trained
        code[moved] = positions(self.extra, items)[code[moved] - self.n_trained]
        del moved
        order = np.empty(len(items), np.int32)
        order[np.asarray(pc.sort_indices(items))] = np.arange(len(items), dtype=np.int32)
        score = np.concatenate(self.score) if self.score else np.zeros(0)
        self.score.clear()
        row = np.concatenate(self.row) if self.row else np.zeros(0, self.row_type)
        self.row.clear()
        r = rank(user, code, [score], order, row, n_users, keep_score=True)
        if depth is not None and len(r.user) and r.position.max() >= depth:
            r = r.take(r.position < depth)
        return TopLists(r, items, dropped)
