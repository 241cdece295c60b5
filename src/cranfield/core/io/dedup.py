"""Duplicate documents within a query, found without a Python loop per row.

Each (query id, doc id) pair is hashed to 64 bits with NumPy (``keys.pair_keys``), the
keys are sorted with their row numbers (``keys.build_index``), and only rows whose key
occurs twice are compared exactly. On a 7-million-row run this costs a few tenths of a
second where hashing the strings with Arrow's ``dictionary_encode`` or ``group_by``
takes well over a second; the sorted keys are kept for the join with the qrels.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...errors import ParameterError
from . import keys, problems
from .keys import hash_strings  # noqa: F401  (re-exported)

POLICIES = ("error", "first", "max")


def check_policy(duplicates: str) -> str:
    if duplicates not in POLICIES:
        raise ParameterError("duplicates", "one of 'error', 'first', 'max'", duplicates)
    return duplicates


def duplicate_candidates(query_id, doc_id) -> np.ndarray:
    """Row indices whose (query, doc) key is shared with another row (a superset of duplicates)."""
    table = pa.table({"query_id": query_id, "doc_id": doc_id})
    return keys.build_index(table).duplicate_candidates()


def resolve(
    table: pa.Table,
    value: str,
    duplicates: str,
    source: str | None,
    line_of: Callable[[int], int] | None,
    unit: str = "line",
    index_out: list | None = None,
    query_blocks: keys.Blocks | None = None,
) -> pa.Table:
    """Apply a duplicates policy to a (query_id, doc_id, value) table, keeping row order.

    ``"error"`` raises :class:`InputError` naming the first repeated pair (both line
    numbers); ``"first"`` keeps the first occurrence; ``"max"`` keeps the occurrence
    with the highest value (the first one among equal values).
    ``line_of(row)`` maps a 0-based row to the line number quoted in messages; when it
    is None, rows are quoted 1-based as ``row N``. When the table comes back unchanged
    and ``index_out`` is a list, the :class:`keys.PairIndex` built for the check is
    appended to it (for ``judge`` to reuse). ``query_blocks`` are the table's query
    id blocks (``keys.blocks``) when already known.
    """
    check_policy(duplicates)
    index = keys.build_index(table, query_blocks)
    cand = index.duplicate_candidates()
    if len(cand) == 0:
        if index_out is not None:
            index_out.append(index)
        return table
    # column by column: Table.take would first concatenate every chunk of a big table
    sub = pa.table(
        {
            "query_id": keys.take(table["query_id"], cand),
            "doc_id": keys.take(table["doc_id"], cand),
            value: keys.take(table[value], cand),
            "_row": keys.ints(cand),
        }
    )
    if duplicates == "max":
        sort_keys = [("query_id", "ascending"), ("doc_id", "ascending"), (value, "descending")]
    else:
        sort_keys = [("query_id", "ascending"), ("doc_id", "ascending")]
    sub = sub.sort_by([*sort_keys, ("_row", "ascending")])
    q, d = sub["query_id"].combine_chunks(), sub["doc_id"].combine_chunks()
    same = np.zeros(len(sub), dtype=bool)
    if len(sub) > 1:
        same[1:] = keys.bools(pc.and_(pc.equal(q[1:], q[:-1]), pc.equal(d[1:], d[:-1])))
    if not same.any():  # only hash collisions
        if index_out is not None:
            index_out.append(index)
        return table
    rows = keys.numbers(sub["_row"])
    if duplicates == "error":
        group_first = np.maximum.accumulate(np.where(~same, np.arange(len(sub)), 0))
        later = np.flatnonzero(same)
        i = later[np.argmin(rows[later])]
        first, second = int(rows[group_first[i]]), int(rows[i])

        def where(r: int) -> int:
            return line_of(r) if line_of is not None else r + 1

        raise problems.duplicate(
            d[i].as_py(),
            q[i].as_py(),
            (where(first), where(second)),
            source,
            line=where(second) if line_of is not None else None,
            unit=unit,
        )
    keep = np.ones(table.num_rows, dtype=bool)
    keep[rows[same]] = False
    return table.filter(pa.array(keep.tolist()))  # rare path (duplicates removed)
