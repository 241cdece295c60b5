"""The one table reader (``cranfield.core.io.table``): formats told from the content, the
source line of every row, the same table from a path, standard input, gzip and bytes.

Oracles: Python's :mod:`csv` module (RFC 4180 records, and the line each starts on:
``csv.reader`` yields ``[]`` for a blank line and counts lines in ``line_num``), and
Arrow's own writers for Parquet and Arrow IPC.
"""

from __future__ import annotations

import csv
import gzip
import io
import random
import sys

import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.parquet as pq
import pytest

from cranfield.core.io.formats import sniff
from cranfield.core.io.table import read_table, record_lines
from cranfield.errors import InputError


def _oracle(text: str) -> tuple[list[list[str]], list[int]]:
    """Records and the 1-based line each starts on, by Python's csv module."""
    reader = csv.reader(io.StringIO(text, newline=""))
    rows, lines, last = [], [], 0
    for record in reader:
        if record:  # csv yields [] for an empty line; Arrow skips those lines too
            rows.append(record)
            lines.append(last + 1)
        last = reader.line_num
    return rows, lines


def _random_csv(rng: random.Random) -> str:
    width = rng.randint(1, 4)
    out = [",".join(f"c{i}" for i in range(width))]
    for _ in range(rng.randint(1, 30)):
        if rng.random() < 0.15:
            out.append("")  # a blank line
        cells = []
        for _ in range(width):
            kind = rng.random()
            if kind < 0.2:
                cells.append('"' + rng.choice(["a\nb", 'say ""hi""', "x,y", "\n\n"]) + '"')
            else:
                cells.append(rng.choice(["1", "x", "2.5", "id 7", "é"]))
        out.append(",".join(cells))
    end = rng.choice(["\n", "\r\n"])
    return end.join(out) + (end if rng.random() < 0.7 else "")


@pytest.mark.parametrize("seed", range(200))
def test_rows_and_lines_match_the_csv_module(tmp_path, seed):
    rng = random.Random(seed)
    text = _random_csv(rng)
    rows, lines = _oracle(text)
    path = tmp_path / "t.csv"
    path.write_bytes(text.encode())
    got = read_table(path, strings=True, rows=False)
    assert got.format == "csv"
    assert got.table.num_rows == len(rows) - 1
    header, *data = rows
    assert got.table.column_names == header
    as_rows = [
        [got.table.column(i)[r].as_py() for i in range(len(header))] for r in range(len(data))
    ]
    assert as_rows == data
    assert got.lines.tolist() == lines[1:]
    assert record_lines(text.encode()).tolist() == lines


@pytest.mark.parametrize(
    "head, hint, expected",
    [
        (b"PAR1\x15\x04", "csv", "parquet"),
        (b"ARROW1\x00\x00", None, "arrow"),
        (b"\xff\xff\xff\xff\x10\x00", None, "arrow"),
        (b'\xef\xbb\xbf{"a": 1}\n', "csv", "jsonl"),
        (b"a\tb,c\n", None, "tsv"),
        (b"a\tb,c\n", "csv", "csv"),  # both present: the name decides
        (b"a,b\n", "tsv", "csv"),  # the content contradicts the name: content wins
        (b"\n\n a  b \n", None, "whitespace"),
        (b"label\n1\n", "tsv", "tsv"),  # one column: the name decides
        (b"label\n1\n", None, "csv"),
    ],
)
def test_sniff(head, hint, expected):
    assert sniff(head, hint) == expected


TABLE = pa.table({"q": ["1", "2", "2"], "x": [1.5, 2.0, -3.0], "n": [1, 2, 3]})


def _as_csv(table: pa.Table, sep: str = ",") -> bytes:
    cols = table.column_names
    lines = [sep.join(cols)] + [
        sep.join(str(table.column(c)[r].as_py()) for c in cols) for r in range(table.num_rows)
    ]
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize("name", ["t.parquet", "t.csv", "t.tsv", "t", "t.txt", "t.arrow"])
@pytest.mark.parametrize("fmt", ["parquet", "arrow", "csv", "tsv", "whitespace", "jsonl"])
def test_every_format_under_every_name_gives_the_same_table(tmp_path, fmt, name):
    path = tmp_path / name
    if fmt == "parquet":
        pq.write_table(TABLE, path)
    elif fmt == "arrow":
        feather.write_feather(TABLE, path)
    elif fmt == "jsonl":
        import json

        path.write_text("".join(json.dumps(r) + "\n" for r in TABLE.to_pylist()))
    else:
        path.write_bytes(_as_csv(TABLE, {"csv": ",", "tsv": "\t", "whitespace": "   "}[fmt]))
    binary_name = name.endswith((".parquet", ".arrow"))
    if binary_name and fmt not in ("parquet", "arrow"):
        with pytest.raises(InputError, match="not a (Parquet|Arrow IPC) file"):
            read_table(path)
        return
    got = read_table(path, strings=["q"])
    assert got.format == fmt
    assert got.table.to_pydict() == TABLE.to_pydict()
    assert (got.lines is None) == (fmt in ("parquet", "arrow"))
    if got.lines is not None:
        assert got.lines.tolist() == ([1, 2, 3] if fmt == "jsonl" else [2, 3, 4])


def test_explicit_format_wins(tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes(b"a b,c\n1 2,3\n")
    assert read_table(path).table.column_names == ["a b", "c"]
    assert read_table(path, format="whitespace").table.column_names == ["a", "b,c"]


def test_stdin_gzip_and_bytes_read_as_the_file(tmp_path, monkeypatch):
    data = _as_csv(TABLE)
    path = tmp_path / "t.csv"
    path.write_bytes(data)
    expected = read_table(path)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(gzip.compress(data))))
    from_stdin = read_table("-")
    assert from_stdin.source == "<stdin>"
    for got in (from_stdin, read_table(gzip.compress(data)), read_table(io.BytesIO(data))):
        assert got.table.equals(expected.table)
        assert got.lines.tolist() == expected.lines.tolist()


@pytest.mark.parametrize(
    "data, message, line",
    [
        (b"", "empty file", None),
        (b"a,b\n", "no data rows after the header", None),
        (b"a,b\n1,2\n\n1,2,3\n", "expected 2 fields (as in the header), got 3", 4),
        (b"a,a\n1,2\n", "column 'a' appears twice in the header", 1),
        (b"a,b\n1,2\n\xff,3\n", "not valid UTF-8 text", 3),
        (b"a,b\n1,\x002\n", "NUL byte", 2),
        (b"BZh91AY&SY", "bzip2-compressed data", None),
        (b"\xfd7zXZ\x00\x00", "xz-compressed data", None),
        (b"\x28\xb5\x2f\xfd\x00", "zstd-compressed data", None),
        (b"PAR1\x00\x00\x00", "cannot read Parquet", None),
    ],
)
def test_errors_are_worded_once(tmp_path, data, message, line):
    path = tmp_path / "bad.csv"
    path.write_bytes(data)
    with pytest.raises(InputError) as info:
        read_table(path)
    assert message in info.value.message
    assert info.value.source == str(path) and info.value.line == line


def test_row_errors_name_the_line_or_the_row(tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes(b"a,b\n\n1,\n2,3\n")
    got = read_table(path)
    with pytest.raises(InputError, match=r"t\.csv:3: missing value in column 'b'"):
        got.require({"a": "number", "b": "number"})
    with pytest.raises(InputError, match="column 'a' holds int64, expected text"):
        got.require({"a": "string"})
    with pytest.raises(InputError, match=r"no column 'c' \(columns: a, b\)"):
        got.column("c")
    pq.write_table(pa.table({"a": [1, None]}), tmp_path / "t.parquet")
    with pytest.raises(InputError, match=r"t\.parquet: row 2: missing value in column 'a'"):
        read_table(tmp_path / "t.parquet").require({"a": "number"})


def test_directory_listing_finds_parquet_by_its_magic_bytes(tmp_path):
    """A partitioned dataset whose files have no extension (Spark's ``part-00000``)."""
    from cranfield.distributed.partitions import paths

    pq.write_table(TABLE, tmp_path / "part-00000")
    pq.write_table(TABLE, tmp_path / "part-00001.parquet")
    (tmp_path / "README.txt").write_text("not data\n")
    assert paths(tmp_path) == [str(tmp_path / "part-00000"), str(tmp_path / "part-00001.parquet")]


@pytest.mark.parametrize(
    "data, quoted, blanks, expected",
    [
        (b"", True, False, []),
        (b"\n", True, False, []),
        (b"\r\n", True, False, []),
        (b"x", True, False, [1]),
        (b"a\n\nb", True, False, [1, 3]),
        (b"a\r\n\r\nb\r", True, False, [1, 3]),
        (b"\n\nab\n\r\n", True, False, [3]),
        (b' \n"a\n\nb"\n', True, False, [1, 2]),  # a line of one blank is a record for CSV
        (b' \n"a\n\nb"\n', False, True, [2, 4]),  # whitespace/JSON: no quoting, blanks skip
    ],
)
def test_record_lines_by_hand(data, quoted, blanks, expected):
    assert record_lines(data, quoted, blanks).tolist() == expected
