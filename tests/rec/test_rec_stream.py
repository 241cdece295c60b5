"""Recommendation lists streamed a record batch at a time (``open_recommendations``,
``cranfield.rec.stream``): a Parquet file cut into tiny row groups and read in tiny
batches -- users whose rows straddle batches, users interleaved or shuffled, users and
items the logs never saw, non-ASCII ids -- gives the values of the per-user computation
of ``test_rec_scale`` and exactly what the same lists read whole give; a user listing an
item twice, a missing value or a score that is not a number gives the whole reader's one
line, naming the same row."""

from __future__ import annotations

import io
import sys

import numpy as np
import pyarrow as pa
import pyarrow.csv as pv
import pyarrow.parquet as pq
import pytest
from test_rec_scale import CANONICAL, LAYOUTS, NAMES, generated, per_user

from cranfield.errors import InputError
from cranfield.rec import (
    evaluate_recommendations,
    open_recommendations,
    read_interactions,
    read_recommendations,
)
from cranfield.rec import stream as stream_module
from cranfield.rec.codes import Lookup, positions


def _parquet(csv, path, group: int) -> None:
    strings = {"user": pa.string(), "item": pa.string()}
    table = pv.read_csv(csv, convert_options=pv.ConvertOptions(column_types=strings))
    pq.write_table(table, path, row_group_size=group)


@pytest.mark.parametrize("seed", range(24))
def test_streamed_lists_equal_the_per_user_computation(seed, tmp_path, monkeypatch):
    train_pairs, test_pairs, lists = generated(seed, tmp_path)
    expected, removed = per_user(train_pairs, test_pairs, lists)
    rng = np.random.default_rng(seed)
    _parquet(tmp_path / "recs.csv", tmp_path / "recs.parquet", int(rng.integers(1, 8)))
    test = read_interactions(tmp_path / "test.csv")
    train = read_interactions(tmp_path / "train.csv")
    names = [NAMES[m] for m in expected]
    whole = evaluate_recommendations(
        test, read_recommendations(tmp_path / "recs.csv"), names, train=train
    )
    monkeypatch.setattr(stream_module, "BATCH_ROWS", int(rng.integers(1, 10)))
    streamed = open_recommendations(tmp_path / "recs.parquet")
    assert streamed.stream is not None  # (not read yet)
    got = evaluate_recommendations(test, streamed, names, train=train)
    assert got.table() == whole.table()
    assert got.notes == whole.notes
    for other in _arrow_and_gzip(tmp_path / "recs.parquet", rng):  # (streamed as well)
        lists = open_recommendations(other)
        assert lists.stream is not None
        assert evaluate_recommendations(test, lists, names, train=train).table() == got.table()
    # a file object and standard input: copied to a temporary file as read, then streamed
    stdin = io.TextIOWrapper(open(tmp_path / "recs.csv", "rb"))  # noqa: SIM115
    monkeypatch.setattr(sys, "stdin", stdin)
    with open(tmp_path / "recs.parquet", "rb") as handle:
        for other in (handle, "-"):
            lists = open_recommendations(other)
            assert lists.stream is not None
            assert lists.source == ("<stdin>" if other == "-" else handle.name)
            assert evaluate_recommendations(test, lists, names, train=train).table() == (
                got.table()
            )
    stdin.close()
    for m, want in expected.items():
        name = CANONICAL.get(m, NAMES[m])
        assert got.table()[name] == pytest.approx(want, rel=1e-12, abs=1e-15), (
            m,
            LAYOUTS[seed % 3],
        )
    assert any(f"{removed} recommended" in n for n in got.notes) == bool(removed)
    kept = evaluate_recommendations(test, streamed, names, train=train, exclude_train=False)
    assert (
        kept.table()
        == evaluate_recommendations(
            test,
            read_recommendations(tmp_path / "recs.parquet"),
            names,
            train=train,
            exclude_train=False,
        ).table()
    )


def _arrow_and_gzip(parquet, rng) -> list:
    """The Parquet file's table as an Arrow IPC file (record batches of 1-7 rows) and
    the Parquet file gzip-compressed."""
    import gzip

    import pyarrow.ipc as ipc

    table = pq.read_table(parquet)
    arrow = parquet.with_suffix(".arrow")
    with ipc.new_file(str(arrow), table.schema) as out:
        out.write_table(table, max_chunksize=int(rng.integers(1, 8)))
    zipped = parquet.with_name(parquet.name + ".gz")
    zipped.write_bytes(gzip.compress(parquet.read_bytes(), mtime=0))
    return [arrow, zipped]


IDS = ["u", "ü", "日本", "🎵", "a b", "007", ""]


def _lists(rng, n_users: int, n_items: int) -> list[tuple]:
    rows = []
    for u in range(n_users):
        for i in rng.permutation(n_items)[: int(rng.integers(0, 9))]:
            rows.append(
                [f"{IDS[u % len(IDS)]}{u}", f"i{IDS[i % len(IDS)]}{i}", float(rng.integers(0, 4))]
            )
    layout = rng.integers(0, 3)
    if layout == 1:
        rows = [rows[j] for j in rng.permutation(len(rows))]
    elif layout == 2:
        rows.sort(key=lambda r: r[2])  # (users interleaved)
    return rows


def _spoil(rng, rows: list[list], kind: str) -> None:
    at = int(rng.integers(0, len(rows)))
    if kind == "duplicate":
        u, i, _ = rows[int(rng.integers(0, len(rows)))]
        rows.insert(int(rng.integers(0, len(rows) + 1)), [u, i, 9.0])
    elif kind == "duplicate far":  # (the user's rows then come back later: two blocks)
        rows.append([rows[at][0], rows[at][1], -1.0])
    elif kind in ("user", "item", "score"):
        rows[at][("user", "item", "score").index(kind)] = None
    elif kind == "nan":
        rows[at][2] = float(rng.choice([np.nan, np.inf, -np.inf]))


KINDS = ("duplicate", "duplicate far", "user", "item", "score", "nan")


def _read_error(function, *args) -> str | None:
    try:
        function(*args)
    except InputError as exc:
        return str(exc)
    return None


@pytest.mark.parametrize("seed", range(30))
def test_streamed_errors_name_the_whole_readers_row(seed, tmp_path, monkeypatch):
    rng = np.random.default_rng(seed)
    rows = _lists(rng, int(rng.integers(2, 12)), int(rng.integers(3, 20)))
    if len(rows) < 2:
        rows += [["x", "i1", 1.0], ["x", "i2", 0.0]]
    spoils = rng.choice(KINDS, size=int(rng.integers(1, 3)))
    for kind in spoils:
        _spoil(rng, rows, kind)
    user, item, score = (list(c) for c in zip(*rows, strict=True))
    path = tmp_path / "recs.parquet"
    table = pa.table({"user": pa.array(user, pa.string()), "item": item, "score": score})
    pq.write_table(table, path, row_group_size=int(rng.integers(1, 6)))
    pv.write_csv(pa.table({"user": ["x"], "item": ["i1"]}), tmp_path / "test.csv")
    want = _read_error(read_recommendations, path)
    monkeypatch.setattr(stream_module, "BATCH_ROWS", int(rng.integers(1, 8)))
    test = read_interactions(tmp_path / "test.csv")

    def streamed():
        evaluate_recommendations(test, open_recommendations(path), ["nDCG@3", "coverage@2"])

    got = _read_error(streamed)
    assert want is not None, spoils  # (every spoiled file is refused)
    assert got == want, spoils
    for other in _arrow_and_gzip(path, rng):
        want = _read_error(read_recommendations, other)
        assert want is not None, spoils
        got = _read_error(
            lambda o=other: evaluate_recommendations(
                test, open_recommendations(o), ["nDCG@3", "coverage@2"]
            )
        )
        assert got == want, (other.name, spoils)


def test_a_damaged_page_is_one_line(tmp_path, capsys):
    from cranfield.cli.main import main

    n = 5000
    table = pa.table(
        {
            "user": [f"u{r // 50}" for r in range(n)],
            "item": [f"i{(r * 7919) % 3001}" for r in range(n)],
            "score": np.linspace(1, 0, n),
        }
    )
    pq.write_table(table, tmp_path / "recs.parquet", row_group_size=1000, compression="snappy")
    data = bytearray((tmp_path / "recs.parquet").read_bytes())
    middle = len(data) // 2
    data[middle : middle + 64] = b"\xff" * 64  # (the footer intact: found while streaming)
    (tmp_path / "recs.parquet").write_bytes(bytes(data))
    pv.write_csv(pa.table({"user": ["u1"], "item": ["i1"]}), tmp_path / "test.csv")
    status = main(["rec", "eval", str(tmp_path / "test.csv"), str(tmp_path / "recs.parquet")])
    err = capsys.readouterr().err
    assert status != 0
    assert "Traceback" not in err and err.count("\n") == 1, err
    assert str(tmp_path / "recs.parquet") in err


@pytest.mark.parametrize("seed", range(6))
def test_lookup_finds_what_the_hash_lookup_finds(seed):
    """Binary search over ids sorted by Arrow (UTF-8 bytes) as Python strings (code
    points): the same order, astral characters and the empty id included."""
    rng = np.random.default_rng(seed)
    alphabet = ["a", "b", "z", "é", "ÿ", "Ā", "日", "\ue000", "🎵", "😀", " ", "0"]
    words = ["".join(rng.choice(alphabet, size=int(rng.integers(0, 5)))) for _ in range(300)]
    vocab = pa.array(sorted(set(words[:200]), key=lambda w: w.encode()))
    lookup = Lookup(vocab)
    for asked in (words[150:160], words[100:300], []):
        ids = pa.array(asked, pa.string())
        assert lookup(ids).tolist() == positions(ids, vocab).tolist()


def test_each_users_kept_rows_stop_at_the_deepest_cutoff(tmp_path):
    from cranfield.rec.evaluate import encode

    train_pairs, test_pairs, lists = generated(0, tmp_path)
    test = read_interactions(tmp_path / "test.csv")
    coded = encode(read_recommendations(tmp_path / "recs.csv"), test, None, False, 3)
    assert np.bincount(coded.ranked.user).max() <= 3
    assert coded.ranked.position.max() == 2


OTHER = {
    "numeric ids": pa.table({"user": [1, 1, 2], "item": [5, 6, 5], "score": [1.0, 2.0, 3.0]}),
    "a rank column": pa.table({"user": ["a", "a", "b"], "item": [5, 6, 5], "rank": [1, 2, 1]}),
    "large strings, int scores": pa.table(
        {
            "user": pa.array(["a", "a", "b"], pa.large_string()),
            "item": pa.array(["x", "y", "x"], pa.large_string()),
            "score": pa.array([1, 2, 3], pa.int32()),
        }
    ),
    "no score": pa.table({"user": ["a"], "item": ["x"]}),
    "text scores": pa.table({"user": ["a"], "item": ["x"], "score": ["high"]}),
    "no item": pa.table({"user": ["a"], "score": [1.0]}),
    "no rows": pa.table({"user": pa.array([], pa.string()), "item": [], "score": []}),
}


@pytest.mark.parametrize("case", OTHER)
def test_other_column_types_as_the_whole_reader(case, tmp_path, monkeypatch):
    pq.write_table(OTHER[case], tmp_path / "recs.parquet")
    pv.write_csv(pa.table({"user": ["a", "1"], "item": ["x", "5"]}), tmp_path / "test.csv")
    test = read_interactions(tmp_path / "test.csv")
    monkeypatch.setattr(stream_module, "BATCH_ROWS", 1)
    names = ["nDCG@2", "P@1"]

    def both(read):
        try:
            return evaluate_recommendations(test, read(tmp_path / "recs.parquet"), names).table()
        except InputError as exc:
            return str(exc)

    assert both(open_recommendations) == both(read_recommendations)


def test_a_dictionary_repeating_an_id_is_read_by_value(tmp_path):
    """A run in memory whose dictionary holds an id twice (Parquet's never do): rows
    with either index are the same user, the same item."""
    from cranfield.core.run import Run

    users = pa.DictionaryArray.from_arrays(pa.array([0, 1, 2, 2], pa.int32()), ["a", "a", "b"])
    items = pa.DictionaryArray.from_arrays(pa.array([0, 2, 1, 3], pa.int32()), ["x", "z", "y", "x"])
    scores = pa.array([3.0, 2.0, 1.0, 1.0])
    coded = Run.of_table(
        pa.table({"query_id": users, "doc_id": items, "score": scores}), "r", name="r"
    )
    plain = Run.of_table(
        pa.table(
            {
                "query_id": users.cast(pa.string()),
                "doc_id": items.cast(pa.string()),
                "score": scores,
            }
        ),
        "r",
        name="r",
    )
    pv.write_csv(pa.table({"user": ["a", "b"], "item": ["y", "x"]}), tmp_path / "test.csv")
    test = read_interactions(tmp_path / "test.csv")
    names = ["nDCG@2", "P@1", "R@2"]
    assert (
        evaluate_recommendations(test, coded, names).table()
        == evaluate_recommendations(test, plain, names).table()
    )
    # a: x (3), y (2); b: z, x (tied at 1: item id descending) -- each held-out item second
    values = evaluate_recommendations(test, plain, names).table()
    assert (values["P@1"], values["R@2"]) == (0.0, 1.0)


def test_a_log_read_from_a_file_makes_python_strings_only_when_asked(tmp_path):
    (tmp_path / "log.csv").write_text("user,item\nu1,007\nu2,i\nu1,i\n")
    log = read_interactions(tmp_path / "log.csv")
    assert log._users is None and log._items is None  # (an evaluation reads the Arrow ids)
    part = log.take(np.array([2, 0]))
    assert part._users is None
    assert part.users.tolist() == ["u1", "u1"] and part.items.tolist() == ["i", "007"]
    assert log.users.tolist() == ["u1", "u2", "u1"] and log.items.tolist() == ["007", "i", "i"]
    assert len(log) == 3 and log.to_arrow()["item"].to_pylist() == ["007", "i", "i"]
