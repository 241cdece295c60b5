"""The one label-file reader of `classify` and `cluster`: header rows told, never guessed."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cranfield.cli.main import main
from cranfield.errors import InputError
from cranfield.label_files import read_label_pair, read_table


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def counts(capsys, *argv):
    code, out, err = run(capsys, "classify", *argv, "--format", "json")
    assert code == 0, err
    c = json.loads(out)["counts"]
    return c["TP"], c["FP"], c["FN"], c["TN"]


# 20 TP, 5 FP, 3 FN, 12 TN, the first item a true positive
TRUTH = [1] * 20 + [0] * 5 + [1] * 3 + [0] * 12
PRED = [1] * 20 + [1] * 5 + [0] * 3 + [0] * 12


def test_plain_one_column_files_keep_their_first_row(tmp_path, capsys):
    """Issue 12 item 1: a file without header lost its first row (20 TP became 19)."""
    (tmp_path / "truth.txt").write_text("".join(f"{v}\n" for v in TRUTH))
    (tmp_path / "pred.txt").write_text("".join(f"{v}\n" for v in PRED))
    assert counts(capsys, str(tmp_path / "truth.txt"), str(tmp_path / "pred.txt")) == (20, 5, 3, 12)


def test_csv_without_header_keeps_its_first_row(tmp_path, capsys):
    rows = "".join(f"{t},{p}\n" for t, p in zip(TRUTH, PRED, strict=True))
    (tmp_path / "both.csv").write_text(rows)
    assert counts(capsys, str(tmp_path / "both.csv")) == (20, 5, 3, 12)
    (tmp_path / "with.csv").write_text("y_true,y_pred\n" + rows)
    assert counts(capsys, str(tmp_path / "with.csv")) == (20, 5, 3, 12)


def test_np_savetxt_default_format_and_cut_output(tmp_path, capsys):
    np.savetxt(tmp_path / "truth.txt", np.array(TRUTH, dtype=float))  # 1.000000000000000000e+00
    np.savetxt(tmp_path / "pred.txt", np.array(PRED), fmt="%d")
    assert counts(capsys, str(tmp_path / "truth.txt"), str(tmp_path / "pred.txt")) == (20, 5, 3, 12)
    # `cut -f2 data.tsv` keeps the header line: told from the data
    (tmp_path / "cut.txt").write_text("label\n" + "".join(f"{v}\n" for v in PRED))
    assert counts(capsys, str(tmp_path / "truth.txt"), str(tmp_path / "cut.txt")) == (20, 5, 3, 12)


def test_scores_file_without_header(tmp_path, capsys):
    scores = np.where(np.array(PRED) == 1, 0.9, 0.1)
    np.savetxt(tmp_path / "proba.txt", scores)
    (tmp_path / "truth.txt").write_text("".join(f"{v}\n" for v in TRUTH))
    argv = [str(tmp_path / "truth.txt"), str(tmp_path / "proba.txt"), "--scores"]
    assert counts(capsys, *argv) == (20, 5, 3, 12)


def test_explicit_header_flags_override_detection(tmp_path, capsys):
    (tmp_path / "t.txt").write_text("".join(f"{v}\n" for v in TRUTH))
    (tmp_path / "p.txt").write_text("".join(f"{v}\n" for v in PRED))
    argv = [str(tmp_path / "t.txt"), str(tmp_path / "p.txt")]
    assert counts(capsys, *argv, "--no-header") == (20, 5, 3, 12)
    assert counts(capsys, *argv, "--header") == (19, 5, 3, 12)  # the user said so


def test_undecidable_header_is_an_error_not_a_guess(tmp_path, capsys):
    # every value occurs once: the first line may be a header or a cluster of its own
    (tmp_path / "t.txt").write_text("c1\nc2\nc3\n")
    (tmp_path / "p.txt").write_text("k1\nk2\nk3\n")
    code, out, err = run(capsys, "cluster", str(tmp_path / "t.txt"), str(tmp_path / "p.txt"))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "t.txt" in err and "--header or --no-header" in err
    code, out, _ = run(
        capsys,
        "cluster",
        str(tmp_path / "t.txt"),
        str(tmp_path / "p.txt"),
        "--no-header",
        "--format",
        "json",
    )
    assert code == 0 and json.loads(out)["n_items"] == 3


def test_conflicting_cells_are_an_error(tmp_path):
    # pandas' Series.to_csv: an empty index header and a numeric column name
    (tmp_path / "s.csv").write_text(",0\n0,1\n1,0\n2,1\n")
    with pytest.raises(InputError, match="--header or --no-header"):
        read_table(tmp_path / "s.csv")
    assert read_table(tmp_path / "s.csv", header=True).names == ["", "0"]


def test_cluster_csv_without_header_keeps_first_row(tmp_path):
    rng = np.random.default_rng(3)
    t = rng.integers(0, 3, 40)
    p = rng.integers(0, 4, 40)
    (tmp_path / "x.csv").write_text("".join(f"{a},{b}\n" for a, b in zip(t, p, strict=True)))
    truth, assignment = read_label_pair(tmp_path / "x.csv")
    assert len(truth) == 40 and truth.tolist() == [str(v) for v in t]
    (tmp_path / "h.csv").write_text(
        "class,cluster\n" + "".join(f"c{a},k{b}\n" for a, b in zip(t, p, strict=True))
    )
    truth, assignment = read_label_pair(tmp_path / "h.csv")
    assert assignment.tolist() == [f"k{v}" for v in p]


def test_named_column_in_first_line_makes_it_a_header(tmp_path):
    (tmp_path / "u.csv").write_text("id,gold\na,x\nb,y\n")
    table = read_table(tmp_path / "u.csv", names=("gold",))
    assert table.header and table.names == ["id", "gold"] and table.num_rows == 2


@pytest.mark.parametrize("command", ["classify", "cluster"])
def test_duplicated_header_column_is_one_clear_line(tmp_path, capsys, command):
    """Issue 13 item 12: a duplicated column name gave a KeyError."""
    path = tmp_path / "dup.csv"
    path.write_text("y,y\n1,0\n0,1\n1,1\n")
    code, out, err = run(capsys, command, str(path), "--header")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and f"{path}:1: column 'y' appears twice" in err
    code, _, err = run(capsys, command, str(path))  # detected header, same error
    assert code == 2 and "column 'y' appears twice" in err


def test_duplicated_parquet_column(tmp_path, capsys):
    table = pa.Table.from_arrays([pa.array([1, 0]), pa.array([0, 1])], names=["y", "y"])
    pq.write_table(table, tmp_path / "dup.parquet")
    code, _, err = run(capsys, "classify", str(tmp_path / "dup.parquet"))
    assert code == 2 and "column 'y' appears twice" in err and "Traceback" not in err


def test_column_number_does_not_mark_a_header(tmp_path):
    (tmp_path / "n.csv").write_text("1,2\n0,2\n1,1\n0,1\n")
    table = read_table(tmp_path / "n.csv", names=("2",))
    assert not table.header and table.num_rows == 4
    assert table.labels(table.pick("2", 0, "pred")).tolist() == ["2", "2", "1", "1"]


def test_gzip_by_content_and_corrupt_gzip(tmp_path):
    import gzip

    data = "y,p\n" + "".join(f"{t},{p}\n" for t, p in zip(TRUTH, PRED, strict=True))
    (tmp_path / "z.csv.gz").write_bytes(gzip.compress(data.encode()))
    table = read_table(tmp_path / "z.csv.gz")
    assert table.header and table.num_rows == len(TRUTH)
    packed = gzip.compress(data.encode())
    (tmp_path / "bad.csv.gz").write_bytes(packed[: len(packed) // 2])
    with pytest.raises(InputError, match="(truncated|corrupt) gzip data"):
        read_table(tmp_path / "bad.csv.gz")


def test_a_nan_or_empty_first_line_is_not_taken_for_a_header(tmp_path, capsys):
    (tmp_path / "t.txt").write_text("1\n0\n1\n")
    (tmp_path / "p.txt").write_text("nan\n0.3\n0.5\n")
    code, out, err = run(
        capsys, "classify", str(tmp_path / "t.txt"), str(tmp_path / "p.txt"), "--scores"
    )
    assert code == 2 and "p.txt:1" in err and "'nan'" in err
    (tmp_path / "e.txt").write_text("\n1\n0\n")
    with pytest.raises(InputError, match="e.txt:1: the first line is empty"):
        read_table(tmp_path / "e.txt")


# --------------------------------------------------------------- properties


_numbers = st.one_of(
    st.integers(-5, 5).map(str),
    st.floats(0, 1, allow_nan=False).map(lambda x: f"{x:.18e}"),
    st.floats(-1e6, 1e6, allow_nan=False).map(repr),
)
_names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_ ]{0,12}", fullmatch=True).filter(
    lambda s: s.strip() != "" and s.strip().lower() not in ("nan", "inf", "infinity")
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    columns=st.lists(st.lists(_numbers, min_size=1, max_size=20), min_size=1, max_size=3),
    names=st.lists(_names, min_size=3, max_size=3, unique_by=lambda s: s.strip()),
    with_header=st.booleans(),
)
def test_numeric_data_is_never_taken_for_a_header(tmp_path, columns, names, with_header):
    rows = min(len(c) for c in columns)
    columns = [c[:rows] for c in columns]
    lines = [",".join(cells) for cells in zip(*columns, strict=True)]
    if with_header:
        lines.insert(0, ",".join(n.strip() for n in names[: len(columns)]))
    path = tmp_path / "n.csv"
    path.write_text("\n".join(lines) + "\n")
    table = read_table(path)
    assert table.header == with_header
    assert table.num_rows == rows
    for i, column in enumerate(columns):
        assert table.labels(table.names[i]).tolist() == column


@pytest.mark.parametrize("command", ["classify", "cluster"])
def test_files_one_row_apart_name_the_header_decision(tmp_path, capsys, command):
    # a class seen once, on the first line, above classes seen twice: read as a header
    (tmp_path / "t.txt").write_text("z\na\na\nb\nb\n")
    (tmp_path / "p.txt").write_text("1\n1\n1\n0\n0\n")
    code, _, err = run(capsys, command, str(tmp_path / "t.txt"), str(tmp_path / "p.txt"))
    assert code == 2 and err.count("\n") == 1
    assert f"the first line of {tmp_path / 't.txt'} was read as a header" in err
    code, _, _ = run(
        capsys, command, str(tmp_path / "t.txt"), str(tmp_path / "p.txt"), "--no-header"
    )
    assert code == 0
