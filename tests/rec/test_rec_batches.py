"""Recommendation lists read a batch at a time: a Parquet file's user and item ids are
read dictionary-encoded, one chunk (and dictionary) per row group, and the evaluation
works on the indices. A file cut into tiny row groups -- users whose rows
straddle the groups, users interleaved or shuffled, users and items the logs never saw,
a user listing an item twice -- must give exactly what the same lists give as CSV (read
as plain strings, one batch), and the duplicate named must be the one a scan of the rows
in reading order finds first."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.csv as pv
import pyarrow.parquet as pq
import pytest

from cranfield.errors import InputError
from cranfield.rec import evaluate_recommendations, read_interactions, read_recommendations

MEASURES = ["HR@5", "nDCG@5", "MAP", "R@3", "coverage@5", "novelty@5", "ARP@5"]


def _lists(rng, n_users: int, n_items: int, duplicate: bool) -> pa.Table:
    rows = []
    for u in range(n_users + 3):  # (three users the logs never saw)
        for i in rng.permutation(n_items + 2)[: int(rng.integers(0, 12))]:
            rows.append((f"u{u}", f"i{i}", float(rng.integers(0, 4))))  # (ties)
    if duplicate and rows:
        u, i, _ = rows[int(rng.integers(0, len(rows)))]
        rows.insert(int(rng.integers(0, len(rows) + 1)), (u, i, 9.0))
    layout = rng.integers(0, 3)
    if layout == 1:
        rows = [rows[j] for j in rng.permutation(len(rows))]
    elif layout == 2:
        rows.sort(key=lambda r: r[2])  # (users interleaved)
    users, items, scores = zip(*rows, strict=True) if rows else ((), (), ())
    return pa.table({"user": list(users), "item": list(items), "score": list(scores)})


def _log(rng, n_users: int, n_items: int, per_user: int) -> pa.Table:
    users = [f"u{u}" for u in range(n_users) for _ in range(int(rng.integers(0, per_user)))]
    items = [f"i{int(rng.zipf(1.3)) % n_items}" for _ in users]
    return pa.table({"user": users + ["u0"], "item": items + ["i0"]})


def _first_repeat(table: pa.Table) -> int | None:
    seen = set()
    pairs = zip(table["user"].to_pylist(), table["item"].to_pylist(), strict=True)
    for row, pair in enumerate(pairs):
        if pair in seen:
            return row
        seen.add(pair)
    return None


def _read(path):
    try:
        return read_recommendations(path)
    except InputError as exc:
        return str(exc)


@pytest.mark.parametrize("seed", range(40))
def test_row_groups_equal_one_batch(seed, tmp_path):
    rng = np.random.default_rng(seed)
    n_users, n_items = int(rng.integers(3, 25)), int(rng.integers(5, 30))
    lists = _lists(rng, n_users, n_items, duplicate=seed % 5 == 4)
    train, test = _log(rng, n_users, n_items, 8), _log(rng, n_users, n_items, 3)
    for name, table in (("train", train), ("test", test), ("recs", lists)):
        pv.write_csv(table, tmp_path / f"{name}.csv")
    pq.write_table(lists, tmp_path / "whole.parquet")
    group = int(rng.integers(1, 8))
    pq.write_table(lists, tmp_path / "groups.parquet", row_group_size=group)
    whole, groups = _read(tmp_path / "whole.parquet"), _read(tmp_path / "groups.parquet")
    csv = _read(tmp_path / "recs.csv")
    repeat = _first_repeat(lists)
    if repeat is not None:
        pair = f"item {lists['item'][repeat].as_py()!r} is recommended to user "
        pair += f"{lists['user'][repeat].as_py()!r} twice"
        assert whole == f"{tmp_path / 'whole.parquet'}: row {repeat + 1}: {pair}"
        assert groups == f"{tmp_path / 'groups.parquet'}: row {repeat + 1}: {pair}"
        assert csv == f"{tmp_path / 'recs.csv'}:{repeat + 2}: {pair}"
        return
    assert groups.table["query_id"].num_chunks == max(1, -(-lists.num_rows // group))
    test_log = read_interactions(tmp_path / "test.csv")
    train_log = read_interactions(tmp_path / "train.csv")
    results = [
        evaluate_recommendations(test_log, recs, MEASURES, train=train_log, exclude_train=keep)
        for keep in (True, False)
        for recs in (csv, whole, groups)
    ]
    for done in results[1:3]:
        assert done.table() == results[0].table()
        assert done.notes == results[0].notes
    for done in results[4:]:
        assert done.table() == results[3].table()


def test_parquet_ids_stay_dictionary_encoded(tmp_path):
    """The run keeps int32 indices and a dictionary per chunk, not a string per row."""
    n = 3000
    table = pa.table(
        {
            "user": [f"user{r // 100}" for r in range(n)],
            "item": [f"item{r % 250}" for r in range(n)],
            "score": np.arange(n, 0, -1, dtype=np.float64),
        }
    )
    pq.write_table(table, tmp_path / "recs.parquet", row_group_size=128)
    recs = read_recommendations(tmp_path / "recs.parquet")
    for name in ("query_id", "doc_id"):
        column = recs.table[name]
        assert column.type == pa.dictionary(pa.int32(), pa.string())
        assert column.num_chunks == -(-n // 128)
    users = recs.table["query_id"].chunks  # (a chunk of 128 rows spans 2 or 3 users)
    assert sum(len(c.dictionary) for c in users) <= 3 * len(users)
    assert recs.table["query_id"].to_pylist() == table["user"].to_pylist()
    assert recs.table["doc_id"].to_pylist() == table["item"].to_pylist()


def test_pair_keys_do_not_overflow(tmp_path):
    """user index x items + item index past 2**31 (85,901 users, 50,000 items): in int32
    arithmetic (user 85900, item 35900) and (user 1, item 18604) would share a key and
    be taken for a duplicate."""
    users = [f"u{k}" for k in range(85_901)] + ["u1"]
    items = [f"i{k % 50_000}" for k in range(85_901)] + ["i18604"]
    table = pa.table({"user": users, "item": items, "score": np.ones(len(users))})
    pq.write_table(table, tmp_path / "recs.parquet")
    recs = read_recommendations(tmp_path / "recs.parquet")
    assert recs.table.num_rows == len(users)
    pq.write_table(pa.concat_tables([table, table.slice(5, 1)]), tmp_path / "twice.parquet")
    with pytest.raises(InputError, match=r"row 85903: item 'i5' is recommended to user 'u5'"):
        read_recommendations(tmp_path / "twice.parquet")


def test_dictionary_run_evaluates_as_strings(tmp_path):
    """The run read from Parquet (dictionary ids) goes to the general evaluation as the
    same run read from CSV does."""
    from cranfield import evaluate

    rng = np.random.default_rng(7)
    lists = _lists(rng, 12, 20, duplicate=False)
    pq.write_table(lists, tmp_path / "recs.parquet", row_group_size=5)
    pv.write_csv(lists, tmp_path / "recs.csv")
    qrels = {"u1": {"i3": 1}, "u2": {"i4": 1}, "u5": {"i0": 1, "i2": 1}}
    got = [
        evaluate(qrels, read_recommendations(tmp_path / name), ["ndcg", "P@5"])
        for name in ("recs.parquet", "recs.csv")
    ]
    assert got[0].per_query_table() == got[1].per_query_table()
    assert got[0].per_query_table()  # (users with a list and a judgment)


ODD = {
    "numeric ids": pa.table({"user": [1, 1, 2], "item": [5, 6, 5], "score": [1.0, 2.0, 3.0]}),
    "one column coded": pa.table({"user": ["a", "a", "b"], "item": [5, 6, 5], "rank": [1, 2, 1]}),
    "large strings, int scores": pa.table(
        {
            "user": pa.array(["a", "a", "b"], pa.large_string()),
            "item": pa.array(["x", "y", "x"], pa.large_string()),
            "score": pa.array([1, 2, 3], pa.int32()),
        }
    ),
    "numeric duplicate": pa.table({"user": [1, 1, 2], "item": [5, 5, 5], "score": [1.0, 2, 3]}),
    "infinite score": pa.table({"user": ["a", "b"], "item": ["x", "y"], "score": [1.0, np.inf]}),
}


@pytest.mark.parametrize("case", ODD)
def test_parquet_columns_of_other_types(case, tmp_path):
    """Ids that are numbers (never dictionary-read), one id column coded and one not,
    large strings, integer scores: the run and the errors are the CSV file's."""
    table = ODD[case]
    pq.write_table(table, tmp_path / "recs.parquet")
    pv.write_csv(table, tmp_path / "recs.csv")
    got, want = _read(tmp_path / "recs.parquet"), _read(tmp_path / "recs.csv")
    if isinstance(want, str):
        line = int(want.split(":")[1])  # (the CSV line; the header is line 1)
        tail = want.split(":", 2)[2]
        assert got == f"{tmp_path / 'recs.parquet'}: row {line - 1}:{tail}"
        return
    assert got.table.to_pydict() == want.table.to_pydict()
