"""Ids written to a TREC file: the byte scan that lets most columns skip the per-row
check must never let an empty id or one with whitespace through (oracle: RE2's ``\\s``
and an empty-length test on every row, the check itself)."""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from cranfield.core.io import trec
from cranfield.errors import InputError

ALPHABET = ["a", "b", "7", "-", "é", "\u00a0", "\v", " ", "\t", "\n", "\r", "\f"]


def bad_by_regex(col) -> bool:
    col = pa.chunked_array([col]) if isinstance(col, pa.Array) else col
    return any(
        pc.any(pc.or_(pc.match_substring_regex(c, r"[\s]"), pc.equal(pc.utf8_length(c), 0))).as_py()
        for c in col.chunks
        if len(c)
    )


def random_column(rng, n: int, dirty: float):
    ids = []
    for _ in range(n):
        k = int(rng.integers(0 if rng.random() < dirty / 4 else 1, 6))
        pool = ALPHABET if rng.random() < dirty else ALPHABET[:6]
        ids.append("".join(rng.choice(pool, size=k)))
    kind = pa.large_string() if rng.random() < 0.5 else pa.string()
    arr = pa.array(ids, kind)
    if n > 2 and rng.random() < 0.5:  # a slice: offsets not starting at 0
        arr = arr.slice(1, n - 2)
    if len(arr) > 2 and rng.random() < 0.5:  # several chunks
        cut = int(rng.integers(1, len(arr)))
        return pa.chunked_array([arr.slice(0, cut), arr.slice(cut)])
    return arr


@pytest.mark.parametrize("seed", range(40))
def test_refused_exactly_when_an_id_is_empty_or_has_whitespace(seed):
    rng = np.random.default_rng(seed)
    col = random_column(rng, int(rng.integers(1, 30)), dirty=float(rng.choice([0.0, 0.05, 0.5])))
    table = pa.table({"query_id": pa.array(["q"] * len(col)), "doc_id": col})
    if bad_by_regex(col):
        with pytest.raises(InputError, match="cannot be written to a TREC file"):
            trec.check_writable_ids(table, "x")
    else:
        trec.check_writable_ids(table, "x")


def test_vertical_tab_and_no_break_space_are_written_as_the_regex_allows():
    table = pa.table({"query_id": ["q\v1", "q2"], "doc_id": ["d\u00a0", "d"]})
    trec.check_writable_ids(table, "x")
