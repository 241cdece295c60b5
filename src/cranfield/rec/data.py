"""Interaction logs and recommendation lists, read through the one table reader.

An interaction log is a table of ``user``, ``item`` and optionally ``rating`` (or
``weight``) and ``timestamp`` columns (the usual spellings accepted: ``user_id``,
``userId``, ``item_id``, ``itemId``, ``movieId``, ``time``, ``ts``...). A recommendation
list is a table of ``user``, ``item`` and ``score`` (higher first) or ``rank`` (1 first);
it becomes a :class:`~cranfield.core.run.Run` -- a user is a query, an item a document
-- so every measure of the measure language applies.
"""

from __future__ import annotations

from .._lazy import lazy
from .._record import Record, fill
from ..errors import InputError

np = lazy("numpy", __name__, "np")
pa = lazy("pyarrow", __name__, "pa")
pc = lazy("pyarrow.compute", __name__, "pc")


USER = ("user", "user_id", "userid", "uid", "customer_id")
ITEM = ("item", "item_id", "itemid", "movieid", "product_id", "iid")
RATING = ("rating", "weight", "value", "relevance")
TIMESTAMP = ("timestamp", "time", "ts", "datetime", "date")
SCORE = ("score", "prediction", "pred")
RANK = ("rank", "position")


def _find(columns: dict[str, str], names) -> str | None:
    return next((columns[n] for n in names if n in columns), None)


class Interactions(Record):
    """A user-item interaction log: ``users`` and ``items`` (strings), ``ratings``
    (float64 or None), ``timestamps`` (int64 or float64, or None), in reading order;
    ``source`` names it in messages; ``lines`` the source line of each row (None for
    binary formats); ``ids``: the users and items as Arrow columns when a reader has
    them (the evaluation interns them from there, not from the Python strings).

    A reader gives ``ids`` alone (``users`` and ``items`` None): the NumPy arrays of
    Python strings are built on first use (the splits use them, an evaluation does not:
    10M interactions spare some 200 MB)."""

    __slots__ = ("_users", "_items", "ratings", "timestamps", "source", "lines", "ids")
    _no_repr = _no_compare = ("ids",)
    _users: np.ndarray | None
    _items: np.ndarray | None
    ratings: np.ndarray | None
    timestamps: np.ndarray | None
    source: str
    lines: np.ndarray | None
    ids: tuple | None

    def __init__(self, users, items, ratings, timestamps, source, lines=None, ids=None):
        fill(self, (users, items, ratings, timestamps, source, lines, ids))

    def __len__(self) -> int:
        return len(self._users) if self._users is not None else len(self.ids[0])

    @property
    def users(self) -> np.ndarray:
        """The users (NumPy strings)."""
        return self._strings(0)

    @property
    def items(self) -> np.ndarray:
        """The items (NumPy strings)."""
        return self._strings(1)

    def _strings(self, which: int) -> np.ndarray:
        name = ("_users", "_items")[which]
        if getattr(self, name) is None:  # (built once: the log does not change)
            from .codes import object_ids

            object.__setattr__(self, name, object_ids(self.ids[which]))
        return getattr(self, name)

    def user_ids(self) -> pa.Array | pa.ChunkedArray:
        """The users as an Arrow column."""
        return self._ids()[0]

    def item_ids(self) -> pa.Array | pa.ChunkedArray:
        """The items as an Arrow column."""
        return self._ids()[1]

    def _ids(self) -> tuple:
        if self.ids is None:  # (built once: the log does not change)
            from .codes import arrow_ids

            object.__setattr__(self, "ids", (arrow_ids(self.users), arrow_ids(self.items)))
        return self.ids

    def take(self, rows: np.ndarray) -> Interactions:
        """The interactions at ``rows`` (an index or a boolean mask), in that order."""
        ids = None
        if self.ids is not None:
            index = np.flatnonzero(rows) if np.asarray(rows).dtype == bool else rows
            ids = tuple(c.take(pa.array(index, pa.int64())) for c in self.ids)
        return Interactions(
            None if self._users is None and ids else self.users[rows],
            None if self._items is None and ids else self.items[rows],
            None if self.ratings is None else self.ratings[rows],
            None if self.timestamps is None else self.timestamps[rows],
            self.source,
            None if self.lines is None else self.lines[rows],
            ids,
        )

    def to_arrow(self) -> pa.Table:
        columns = {
            "user": self.user_ids().cast(pa.string()),
            "item": self.item_ids().cast(pa.string()),
        }
        if self.ratings is not None:
            columns["rating"] = pa.array(self.ratings)
        if self.timestamps is not None:
            columns["timestamp"] = pa.array(self.timestamps)
        return pa.table(columns)

    def to_qrels(self, min_rating: float | None = None):
        """The (held-out) interactions as binary qrels: each (user, item) with a rating at
        least ``min_rating`` (every one, when None) is relevant; an item a user
        interacted with twice counts once."""
        from ..core.qrels import Qrels

        keep = np.ones(len(self), bool)
        if min_rating is not None:
            if self.ratings is None:
                raise InputError("--min-rating needs a rating column", self.source)
            keep = self.ratings >= min_rating
        rows = pa.array(np.flatnonzero(keep), pa.int64())
        table = pa.table(
            {
                "query_id": self.user_ids().take(rows),
                "doc_id": self.item_ids().take(rows),
                "relevance": pa.array(np.ones(len(rows), np.int64)),
            }
        )
        return Qrels(table, self.source, duplicates="first")


def read_interactions(path_or_file) -> Interactions:
    """Read an interaction log (see the module docstring); a missing user or item, a
    rating or timestamp that is not a number: one line naming the file and line."""
    from ..core.io.table import read_table

    t = read_table(path_or_file, strings=list(USER + ITEM))
    columns = {c.lower().strip(): c for c in t.table.column_names}
    user, item = _find(columns, USER), _find(columns, ITEM)
    if user is None:
        raise t.missing("user")
    if item is None:
        raise t.missing("item")
    rating, stamp = _find(columns, RATING), _find(columns, TIMESTAMP)
    t.require({user: "any", item: "any", **{c: "number" for c in (rating, stamp) if c}})
    ids = tuple(t.column(c).cast(pa.string()).combine_chunks() for c in (user, item))
    ratings = None if rating is None else t.column(rating).to_numpy().astype(np.float64)
    stamps = None if stamp is None else t.column(stamp).to_numpy()
    for name, values in ((rating, ratings), (stamp, stamps)):
        if values is not None and values.dtype.kind == "f" and not np.isfinite(values).all():
            row = int(np.flatnonzero(~np.isfinite(values))[0])
            raise t.error(row, f"column {name!r} holds {values[row]}, expected a finite number")
    return Interactions(None, None, ratings, stamps, t.source, t.lines, ids)


def read_recommendations(path_or_file, name: str | None = None):
    """Read recommendation lists as a :class:`~cranfield.core.run.Run` (users as
    queries, items as documents; a ``rank`` column becomes the score ``-rank``). A user
    listed with one item twice is an error naming the line.

    The user and item columns of a Parquet file are read dictionary-encoded, as Parquet
    stores them (one copy of each distinct id per row group, an int32 per row: 100M
    rows of string ids take 0.8 GB instead of 2.2 GB), and stay so in the run's table;
    the duplicate check then works on integer keys, a record batch at a time."""
    from ..core.io.table import read_table

    t = read_table(path_or_file, strings=list(USER + ITEM), dictionary=list(USER + ITEM))
    return run_of_lists(t, name)


def run_of_lists(t, name: str | None = None):
    """Recommendation lists read whole as table ``t``, checked, as a
    :class:`~cranfield.core.run.Run` (see :func:`read_recommendations`)."""
    from ..core.run import Run, default_run_name

    user, item, score, rank = list_columns(t)
    # (Arrow's: no copy of a float64; an integer beyond 2**53 rounds to the nearest, as
    # a text file's parsed as float64 does)
    values = pc.cast(t.column(score or rank), pa.float64(), safe=False)
    if not pc.all(pc.is_finite(values)).as_py():
        finite = pc.is_finite(values).to_numpy(zero_copy_only=False)
        row = int(np.flatnonzero(~finite)[0])
        bad = values[row].as_py()
        raise t.error(row, f"{'score' if score else 'rank'} {bad} is not a finite number")
    ids = pa.table({"query_id": _ids(t.column(user)), "doc_id": _ids(t.column(item))})
    score_column = values if score else pc.negate(values)
    del values
    if pa.types.is_dictionary(ids.schema.field("query_id").type) and pa.types.is_dictionary(
        ids.schema.field("doc_id").type
    ):
        found = _repeated_codes(ids)
    else:
        from .. import _engine
        from ..core.io import arrays

        ids = pa.table({"query_id": _plain(ids["query_id"]), "doc_id": _plain(ids["doc_id"])})
        scored = ids.append_column("score", score_column)
        found = _engine.repeated_pairs(arrays.engine_batches(scored, "score"), "run", "error")
    table = ids.append_column("score", score_column)
    if found is not None:  # (first row, the row repeating it)
        row = int(found[1])
        raise t.error(
            row,
            f"item {table['doc_id'][row].as_py()!r} is recommended to user "
            f"{table['query_id'][row].as_py()!r} twice",
        )
    return Run.of_table(table, t.source, name=name or default_run_name(t.source))


def list_columns(t) -> tuple[str, str, str | None, str | None]:
    """The ``user``, ``item``, ``score`` and ``rank`` columns of lists read as table
    ``t`` (one of the last two None), checked: present, ids any values, the score or
    rank numbers."""
    columns = {c.lower().strip(): c for c in t.table.column_names}
    user, item = _find(columns, USER), _find(columns, ITEM)
    score, rank = _find(columns, SCORE), _find(columns, RANK)
    if user is None or item is None:
        raise t.missing("user" if user is None else "item")
    if score is None and rank is None:
        raise t.missing("score or rank")
    t.require({user: "any", item: "any", (score or rank): "number"})
    return user, item, score, None if score else rank


def _ids(column) -> pa.ChunkedArray:
    """An id column as strings, or as a dictionary of strings when read as one."""
    if pa.types.is_dictionary(column.type):
        return pc.cast(column, pa.dictionary(pa.int32(), pa.string()))
    return pc.cast(column, pa.string())


def _plain(column) -> pa.ChunkedArray:
    """An id column as plain strings (a dictionary decoded)."""
    return pc.cast(column, pa.string()) if column.type != pa.string() else column


def _repeated_codes(ids: pa.Table) -> tuple[int, int] | None:
    """The first (user, item) pair of ``ids`` (dictionary columns, a dictionary per
    chunk) listed again, as (its first row, the row repeating it), or None: the pairs
    as int64 keys ``user * items + item`` of their positions among the sorted
    distinct ids, sorted (the error case alone looks for the rows)."""
    from .codes import vocabulary

    batches = [b for b in ids.to_batches() if b.num_rows]  # (the columns' chunks aligned)
    if not batches:
        return None
    vocabs = vocabulary(ids["query_id"]), vocabulary(ids["doc_id"])
    keys = _pair_keys(batches, *vocabs)
    keys.sort()  # (in place: the rows are needed only when a pair is there twice)
    again = keys[1:][keys[1:] == keys[:-1]]
    if not len(again):
        return None
    keys = _pair_keys(batches, *vocabs)
    rows = np.flatnonzero(np.isin(keys, again))
    _, first = np.unique(keys[rows], return_index=True)
    second = int(rows[np.setdiff1d(np.arange(len(rows)), first).min()])
    return int(rows[keys[rows] == keys[second]][0]), second


def _pair_keys(batches: list, users: pa.Array, items: pa.Array) -> np.ndarray:
    """``user * len(items) + item`` of each row of ``batches`` (int64), ``user`` and
    ``item`` the ids' positions in ``users`` and ``items``, a batch at a time."""
    from .codes import chunk_positions

    keys = np.empty(sum(b.num_rows for b in batches), np.int64)
    at = 0
    coded = (
        chunk_positions(pa.chunked_array([b.column(k) for b in batches]), vocab)
        for k, vocab in ((0, users), (1, items))
    )
    for user, item in zip(*coded, strict=True):
        part = keys[at : at + len(user)]
        np.multiply(user, np.int64(len(items)), out=part)
        part += item
        at += len(user)
    return keys
