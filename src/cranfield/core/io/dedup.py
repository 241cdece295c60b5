"""Documents listed twice for one query: the duplicates policies of the readers.

The compiled engine finds the repeated (query id, doc id) pairs
(``_engine.repeated_pairs``: per query, a hash map of its documents, as the engine's
judge of TREC files does), reading the table's Arrow buffers; this module applies the
policy and words the error.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyarrow as pa

from ...errors import ParameterError
from . import arrays, problems

POLICIES = ("error", "first", "max")


def check_policy(duplicates: str) -> str:
    if duplicates not in POLICIES:
        raise ParameterError("duplicates", "one of 'error', 'first', 'max'", duplicates)
    return duplicates


def resolve(
    table: pa.Table,
    value: str,
    duplicates: str,
    source: str | None,
    line_of: Callable[[int], int] | None,
    unit: str = "line",
) -> pa.Table:
    """Apply a duplicates policy to a (query_id, doc_id, value) table, keeping row order.

    ``"error"`` raises :class:`InputError` naming the first repeated pair (the one whose
    second occurrence comes first; both line numbers); ``"first"`` keeps the first
    occurrence; ``"max"`` keeps the occurrence with the highest value (the first one
    among equal values). ``line_of(row)`` maps a 0-based row to the line number quoted
    in messages; when it is None, rows are quoted 1-based as ``row N``. ``value`` is
    ``"score"`` (float64) or ``"relevance"`` (int64 grades, float64 gains).
    """
    from ... import _engine

    check_policy(duplicates)
    kind = "run" if value == "score" else "qrels"
    found = _engine.repeated_pairs(arrays.engine_batches(table, value), kind, duplicates)
    if duplicates == "error":
        if found is None:
            return table
        first, second = found

        def where(r: int) -> int:
            return line_of(r) if line_of is not None else r + 1

        raise problems.duplicate(
            table["doc_id"][second].as_py(),
            table["query_id"][second].as_py(),
            (where(first), where(second)),
            source,
            line=where(second) if line_of is not None else None,
            unit=unit,
        )
    if not len(found):
        return table
    keep = np.ones(table.num_rows, dtype=bool)
    keep[found] = False
    return table.filter(pa.array(keep.tolist()))  # rare path (duplicates removed)
