"""Readers: SVMlight/LETOR lines, LightGBM's layout, tables, folds; normalisation."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from cranfield.errors import InputError
from cranfield.ltr.data import from_arrays, query_min_max
from cranfield.ltr.readers import fold_paths, read, read_svmlight, read_table

LETOR = (
    "2 qid:10 1:0.5 2:0.25 3:1 #docid = GX1 inc = 1 prob = 0.2\n"
    "0 qid:10 1:0.1 2:0.75 3:0 #docid = GX2 inc = 1 prob = 0.1\n"
    "1 qid:7 1:1e-3 2:-2 3:4 #docid = GX3 inc = 1 prob = 0.3\n"
)


def test_letor_lines_dense_path(tmp_path):
    p = tmp_path / "train.txt"
    p.write_text(LETOR)
    d = read(p)
    assert d.query_ids.tolist() == ["10", "7"]
    assert d.offsets.tolist() == [0, 2, 3]
    assert d.labels.tolist() == [2, 0, 1]
    assert d.doc_ids.tolist() == ["GX1", "GX2", "GX3"]
    assert np.array_equal(d.features, [[0.5, 0.25, 1], [0.1, 0.75, 0], [1e-3, -2, 4]])


def test_sparse_lines_equal_dense_lines(tmp_path):
    sparse = tmp_path / "s.txt"
    sparse.write_text(
        "2 qid:10 3:1 1:0.5 2:0.25 # docid = GX1\n0 qid:10 2:0.75 1:0.1 # docid = GX2\n"
        "1 qid:7 1:1e-3 2:-2 3:4   # docid = GX3\n"
    )
    dense = tmp_path / "d.txt"
    dense.write_text(LETOR)
    a, b = read(sparse), read(dense)
    assert np.array_equal(a.features, b.features)
    assert a.doc_ids.tolist() == b.doc_ids.tolist()


def test_dense_and_line_readers_agree_on_random_files(tmp_path):
    rng = np.random.default_rng(0)
    for k in range(5):
        n, f = 40, 7
        x = np.round(rng.normal(size=(n, f)), 6)
        lab = rng.integers(0, 3, n)
        q = np.sort(rng.integers(0, 6, n))
        lines = [
            f"{lab[i]} qid:{q[i]} "
            + " ".join(f"{j + 1}:{float(x[i, j])!r}" for j in range(f))
            + f" #docid = d{i}\n"
            for i in range(n)
        ]
        p = tmp_path / f"r{k}.txt"
        p.write_text("".join(lines))
        fast = read(p)
        reversed_pairs = [  # features in another order on each line: not the dense path
            f"{lab[i]} qid:{q[i]} "
            + " ".join(f"{j + 1}:{float(x[i, j])!r}" for j in range(f)[:: -1 if i % 2 else 1])
            + f" #docid = d{i}\n"
            for i in range(n)
        ]
        slow = read_svmlight("".join(reversed_pairs).encode(), source="x")
        assert np.array_equal(fast.features, x[np.argsort(q, kind="stable")])
        assert np.array_equal(fast.features, slow.features)


def test_lightgbm_layout(example):
    d = read(example / "rank.test")
    assert d.num_queries == 50 and d.num_docs == 768
    sizes = [int(s) for s in (example / "rank.test.query").read_text().split()]
    assert np.diff(d.offsets).tolist() == sizes
    assert d.query_ids[:3].tolist() == ["1", "2", "3"]


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("1 qid:1 1:0.5\nx qid:1 1:2\n", 2, "label"),
        ("1 qid:1 1:0.5\n1 1:2\n", 2, "qid"),
        ("1 qid:1 1:0.5\n1 qid:1 1:zz\n", 2, "INDEX:VALUE"),
        ("1 qid:1 0:0.5\n", 1, "outside"),
        ("1 qid:1 1:0.5 1:0.7\n", 1, "twice"),
        ("1 qid:1 1:nan\n", 1, "finite"),
        ("1.5 qid:1 1:1\n", 1, "whole"),
        ("-1 qid:1 1:1\n", 1, "negative"),
        ("# only a comment\n\n", None, "no documents"),
    ],
)
def test_bad_lines_name_file_and_line(tmp_path, text, line, message):
    p = tmp_path / "bad.txt"
    p.write_text(text)
    with pytest.raises(InputError, match=message) as exc:
        read(p)
    assert exc.value.source == str(p)
    assert exc.value.line == line


def test_group_sizes_must_cover_the_lines(tmp_path):
    p = tmp_path / "t.txt"
    p.write_text("1 1:0.5\n0 2:1\n")
    (tmp_path / "t.txt.query").write_text("3\n")
    with pytest.raises(InputError, match="add up to 3"):
        read(p)


def test_tables_and_parquet(tmp_path):
    df = pd.DataFrame(
        {
            "qid": ["b", "a", "b"],
            "doc": ["x", "y", "z"],
            "label": [1, 0, 2],
            "f1": [0.1, 0.2, 0.3],
            "f2": [1, 2, 3],
        }
    )
    d = read_table(df)
    assert d.query_ids.tolist() == ["b", "a"]
    assert d.doc_ids.tolist() == ["x", "z", "y"]
    assert np.array_equal(d.features, [[0.1, 1], [0.3, 3], [0.2, 2]])
    path = tmp_path / "t.parquet"
    df.to_parquet(path)
    e = read(path)
    assert np.array_equal(e.features, d.features) and e.labels.tolist() == [1, 2, 0]
    with pytest.raises(InputError, match="no label column"):
        read_table(df.drop(columns="label"))


def test_repeated_doc_ids_in_a_query_are_made_unique():
    d = from_arrays(np.zeros((3, 1)), [0, 1, 0], ["q", "q", "r"], ["a", "a", "a"])
    assert d.doc_ids.tolist() == ["a", "a~2", "a"]


def test_query_min_max_normalisation():
    x = np.array([[1.0, 5.0], [3.0, 5.0], [2.0, 5.0], [10.0, -1.0], [20.0, 1.0]])
    out = query_min_max(x, np.array([0, 3, 5]))
    assert np.array_equal(out, [[0, 0], [1, 0], [0.5, 0], [0, 0], [1, 1]])


def test_folds(tmp_path):
    for k in (2, 1, 10):
        d = tmp_path / f"Fold{k}"
        d.mkdir()
        for part in ("train", "vali", "test"):
            (d / f"{part}.txt").write_text(LETOR)
    folds = fold_paths(tmp_path)
    assert [f.name for f in folds] == ["Fold1", "Fold2", "Fold10"]
    (tmp_path / "Fold2" / "test.txt").unlink()
    with pytest.raises(InputError, match="missing test.txt"):
        fold_paths(tmp_path)


@pytest.mark.parametrize(
    ("text", "docs"),
    [
        # two docids in one comment, none in the other: no id is assigned to a wrong line
        (b"1 qid:1 1:0.5 # docid = a docid = b\n0 qid:1 1:0.2 # inc = 1\n", ["D0", "D1"]),
        (b"1 qid:1 1:0.5 #docid=a\r\n0 qid:1 1:0.2  #docid = b\r\n", ["a", "b"]),
        (b"# header\n1 qid:1 1:0.5 #docid = a\n\n0 qid:1 1:0.7 #docid = b\n", ["a", "b"]),
        (b"1 qid:1 1:0.5 #docid = a # docid = z\n0 qid:1 1:0.7 #docid = b\n", ["a", "b"]),
    ],
)
def test_doc_ids_come_from_each_lines_own_comment(text, docs):
    d = read_svmlight(text, source="x")
    assert d.doc_ids.tolist() == docs
    assert d.features.ravel().tolist() in ([0.5, 0.2], [0.5, 0.7])


def test_lightgbm_example_equals_scikit_learns_reader(example):
    """The example data as scikit-learn's SVMlight reader (an independent parser) reads it."""
    from sklearn.datasets import load_svmlight_file

    for name in ("rank.train", "rank.test"):
        d = read(example / name)
        x, y = load_svmlight_file(str(example / name), n_features=d.num_features)
        assert np.array_equal(d.features, x.toarray())  # LightGBM's layout keeps file order
        assert np.array_equal(d.labels, y.astype(np.int64))


def test_generated_sparse_files_hold_the_written_values(tmp_path):
    """Random sparse lines (any feature order, CRLF, comments, blank lines, signs and
    exponents) read back exactly as written, with scikit-learn's reader agreeing."""
    from sklearn.datasets import load_svmlight_file

    rng = np.random.default_rng(7)
    for k in range(4):
        n, f = 200, 12
        x = np.where(rng.random((n, f)) < 0.5, 0.0, rng.normal(size=(n, f)) * 10.0 ** (k - 2))
        lab = rng.integers(0, 5, n)
        q = np.sort(rng.integers(0, 15, n))
        end = "\r\n" if k % 2 else "\n"
        lines = []
        for i in range(n):
            cols = rng.permutation(np.flatnonzero(x[i])) if k >= 2 else np.flatnonzero(x[i])
            pairs = "\t".join(f"{j + 1}:{float(x[i, j])!r}" for j in cols)
            lines.append(f"{lab[i]} qid:{q[i]}  {pairs} # docid = d{i} inc = 1{end}")
            if i % 37 == 0:
                lines.append(f"# a comment line{end}{end}")
        p = tmp_path / f"g{k}.txt"
        p.write_bytes("".join(lines).encode())
        d = read(p)
        width = max(int(np.flatnonzero(x.any(axis=0)).max()) + 1, 1)
        assert np.array_equal(d.features, x[:, :width])
        assert d.labels.tolist() == lab.tolist()
        assert d.doc_ids.tolist() == [f"d{i}" for i in range(n)]
        assert np.diff(d.offsets).tolist() == np.bincount(q)[np.unique(q)].tolist()
        if k < 2:  # scikit-learn's reader wants indices in ascending order
            xs, _, qs = load_svmlight_file(str(p), n_features=width, query_id=True)
            assert np.array_equal(d.features, xs.toarray()) and qs.tolist() == q.tolist()


def test_a_problem_past_the_first_chunk_names_its_line(tmp_path):
    """Inputs of several MiB are parsed in chunks on threads: line numbers still count
    every line of the file (comments and blank lines too)."""
    body = "".join(
        f"{i % 3} qid:{i // 20} 1:0.{i} 2:{i}.5 #docid = d{i}\n"
        + ("# c\n\n" if i % 999 == 0 else "")
        for i in range(60_000)
    )
    p = tmp_path / "big.txt"
    p.write_text(body + "1 qid:9 1:0.5 2:oops\n")
    lines = body.count("\n") + 1
    with pytest.raises(InputError, match="INDEX:VALUE, got '2:oops'") as exc:
        read(p)
    assert exc.value.line == lines
    p.write_text(body)
    d = read(p)
    assert d.num_docs == 60_000 and d.doc_ids[-1] == "d59999"
    assert d.features[-1].tolist() == [float("0.59999"), 59999.5]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1 qid:1 99999999999999999999999:1\n", "outside"),
        ("1 qid:1 -3:1\n", "feature index -3 is outside"),
        ("1 qid:1 1:1e999\n", "finite"),
        ("1 qid:1 :5\n", "INDEX:VALUE, got ':5'"),
        ("1 qid:1 7\n", "INDEX:VALUE, got '7'"),
        ("1 qid:1 1:2:3\n", "INDEX:VALUE"),
        ("1 qid:1 0:1 1:zz\n", "INDEX:VALUE, got '1:zz'"),  # malformed before range
        ("1 qid:\n", "qid"),
        ("\u00e9 qid:1 1:1\n", "label '\u00e9' is not a number"),
    ],
)
def test_more_bad_lines(tmp_path, text, message):
    p = tmp_path / "bad.txt"
    p.write_text(text)
    with pytest.raises(InputError, match=message) as exc:
        read(p)
    assert exc.value.line == 1


def test_a_qid_in_lightgbms_layout_is_refused(tmp_path):
    p = tmp_path / "t.txt"
    p.write_text("1 1:0.5\n0 qid:3 2:1\n")
    (tmp_path / "t.txt.query").write_text("2\n")
    with pytest.raises(InputError, match="queries come from a .query file") as exc:
        read(p)
    assert exc.value.line == 2


def _old_query_min_max(features, offsets):
    """The former normalisation (five full-size temporaries): the oracle."""
    starts, lengths = offsets[:-1], np.diff(offsets)
    lo = np.minimum.reduceat(features, starts, axis=0)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        span = np.maximum.reduceat(features, starts, axis=0) - lo
        out = (features - np.repeat(lo, lengths, axis=0)) / np.repeat(span, lengths, axis=0)
    out[np.repeat(span == 0, lengths, axis=0)] = 0.0
    return out


def test_in_place_query_min_max_equals_the_former_one_bit_for_bit():
    rng = np.random.default_rng(5)
    for _ in range(200):
        sizes = rng.integers(1, 6, int(rng.integers(1, 8)))
        offsets = np.concatenate([[0], np.cumsum(sizes)])
        x = rng.choice([0.0, 1.0, -2.5, 1e-300, 3.0], size=(offsets[-1], 4))  # ties, constants
        x[:, 3] = rng.normal(size=offsets[-1]) * rng.choice([1.0, 1e300])
        if rng.random() < 0.2:
            x[0, 2], x[-1, 2] = 1.7e308, -1.7e308  # a span that overflows
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no RuntimeWarning reaches the user
            new = query_min_max(x, offsets)
        old = _old_query_min_max(x, offsets)
        assert np.array_equal(new, old, equal_nan=True)
        assert np.array_equal(np.signbit(new), np.signbit(old))
