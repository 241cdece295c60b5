"""The same hostile inputs for every command that reads a table through the one table
reader (``cranfield.core.io.table``): each must end with one line on stderr naming the
input and a non-zero status, never a traceback or an output. A byte-order mark and CRLF
line ends are not hostile: they give the output of the plain file.

The cases are generated: every command (:data:`COMMANDS`) meets every input
(:data:`HOSTILE`), so a new table-reading command joins by one entry here.
"""

from __future__ import annotations

import gzip
import io
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from .harness import run_main

# command line with {} for the table; the table's file name; a good table (CSV text);
# the same table with a column of the wrong type; the same table without a column it needs
COMMANDS = {
    "classify": (
        ["classify", "{}"],
        "labels.csv",
        "truth,pred\na,a\nb,a\na,b\nb,b\na,a\n",
        None,  # labels are any text: no wrong type
        "truth\na\nb\na\n",
    ),
    "cluster": (
        ["cluster", "{}"],
        "labels.csv",
        "truth,pred\na,1\nb,1\na,2\nb,2\na,1\n",
        None,
        "truth\na\nb\na\n",
    ),
    "ab": (
        ["ab", "{}", "--variant-column", "v", "--metric", "x", "--replicates", "0"],
        "units.csv",
        "v,x\na,1\nb,2\na,3\nb,4\na,2\nb,5\n",
        "v,x\na,1\nb,high\na,3\nb,4\n",
        "v,y\na,1\nb,2\na,3\nb,4\n",
    ),
    "clicks": (
        ["clicks", "fit", "{}", "--model", "cascade"],
        "log.csv",
        "query,docs,clicks\nq1,a b,1 0\nq2,b c,0 1\nq1,a b,0 0\n",
        "query,docs,clicks\nq1,a b,1 0\nq2,b c,yes no\n",
        "query,docs\nq1,a b\nq2,b c\n",
    ),
    "agreement": (
        ["agreement", "--judgments", "{}"],
        "judgments.csv",
        "topic,document,assessor,label\n1,a,x,1\n1,a,y,1\n1,b,x,0\n1,b,y,1\n2,c,x,2\n2,c,y,2\n",
        "topic,document,assessor,label\n1,a,x,1\n1,a,y,high\n",
        "topic,document,label\n1,a,1\n1,b,0\n",
    ),
    "rec": (
        [
            "rec",
            "split",
            "{}",
            "--split",
            "loo-random",
            "--train-output",
            "{out}",
            "--test-output",
            "{out2}",
        ],
        "interactions.csv",
        "user,item,rating\nu1,i1,1\nu1,i2,3\nu2,i1,2\nu2,i3,5\n",
        "user,item,rating\nu1,i1,1\nu1,i2,high\n",
        "person,item\nu1,i1\nu2,i2\n",
    ),  # fmt: skip
    "rec eval": (
        ["rec", "eval", "{log}", "{}", "-m", "nDCG@2", "coverage@2"],
        "recs.parquet",  # (a Parquet file named by a path is streamed: read by batches)
        None,
        None,
        None,
    ),
    "rec eval csv": (
        ["rec", "eval", "{log}", "{}", "-m", "nDCG@2", "HR@1"],
        "recs.csv",  # (a CSV file named by a path is streamed too: a piece at a time)
        "user,item,score\nu1,i1,1\nu1,i2,0.5\nu2,i1,2\n",
        "user,item,score\nu1,i1,1\nu1,i2,high\n",
        "user,score\nu1,1\nu2,2\n",
    ),
    "ltr": (
        ["ltr", "train", "{}", "--method", "coordinate-ascent", "-o", "{out}"],
        "train.parquet",
        None,  # a Parquet table (written below)
        None,
        None,
    ),
}


def _parquet(table: pa.Table) -> bytes:
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


GOOD_PARQUET = _parquet(
    pa.table({"qid": ["1", "1", "2", "2"], "label": [1, 0, 0, 1], "f": [0.5, 0.1, 0.2, 0.9]})
)

HOSTILE = {
    "wrong magic": lambda good: b"PAR2" + b"\x00garbage" * 8,
    "truncated parquet": lambda good: GOOD_PARQUET[: len(GOOD_PARQUET) // 2],
    "truncated gzip": lambda good: gzip.compress((good or "a,b\n1,2\n").encode())[:20],
    "bzip2": lambda good: b"BZh91AY&SY" + b"\x01" * 40,
    "empty file": lambda good: b"",
    "blank lines": lambda good: b"\n\n  \n",
    "header only": lambda good: (good or "a,b\n").split("\n", 1)[0].encode() + b"\n",
    "BOM and header only": lambda good: (
        b"\xef\xbb\xbf" + (good or "a,b\n").split("\n", 1)[0].encode()
    ),
    "NUL bytes": lambda good: (good or "a,b\n1,2\n").encode()[:12] + b"\x00\x00" + b"x\n",
    "huge line": lambda good: b"a," + b"x" * ((64 << 20) + 10) + b"\n",
    "short row": lambda good: (good or "a,b\n").split("\n", 1)[0].encode() + b"\nonly\n",
    "not UTF-8": lambda good: (good or "a,b\n").split("\n", 1)[0].encode() + b"\n\xff\xfe,\xff\n",
}
SPECIAL = ("directory", "/dev/null", "unreadable", "missing")


def _argv(command: str, path: Path | str, tmp_path: Path) -> list[str]:
    outs = {"out": tmp_path / "model.json", "out2": tmp_path / "second.csv"}
    outs["log"] = tmp_path / "held-out.csv"  # (the held-out interactions of rec eval)
    outs["log"].write_text("user,item\nu1,i1\n")
    return [a.format(path, **outs) for a in COMMANDS[command][0]]


def _fails(capsys, argv: list[str], *mentions: str) -> str:
    status, out, err = run_main(capsys, *argv)
    assert status != 0, (argv, out, err)
    assert "Traceback" not in err, err
    assert err.count("\n") == 1 and err.endswith("\n"), err
    for text in mentions:
        assert text in err, (text, err)
    return err


def _write(tmp_path: Path, command: str, data: bytes) -> Path:
    name = COMMANDS[command][1]
    path = tmp_path / name
    path.write_bytes(data)
    return path


# a 64 MiB line costs a second per command: one command shows it, the reader being shared
CONTENT = [(c, h) for c in COMMANDS for h in HOSTILE if h != "huge line" or c == "ab"]


@pytest.mark.parametrize("command, case", CONTENT)
def test_hostile_content_is_one_line(tmp_path, capsys, command, case):
    good = COMMANDS[command][2]
    path = _write(tmp_path, command, HOSTILE[case](good))
    _fails(capsys, _argv(command, path, tmp_path), str(path))


@pytest.mark.parametrize("case", SPECIAL)
@pytest.mark.parametrize("command", list(COMMANDS))
def test_special_files_are_one_line(tmp_path, capsys, command, case):
    if case == "directory":
        path = str(tmp_path)
    elif case == "/dev/null":
        path = "/dev/null"
    elif case == "missing":
        path = str(tmp_path / "nothing.csv")
    else:
        path = _write(tmp_path, command, (COMMANDS[command][2] or "a\n").encode())
        path.chmod(0)
        if os.access(path, os.R_OK):  # root: permission bits do not stop reading
            path = "/proc/self/mem"  # opens, but reading offset 0 fails (EIO)
        path = str(path)
    _fails(capsys, _argv(command, path, tmp_path), path)


# (label files take any text as a label: no column type is wrong for them)
COLUMNS = [
    (c, case, COMMANDS[c][i])
    for c in COMMANDS
    for i, case in ((3, "wrong column type"), (4, "missing column"))
    if COMMANDS[c][i] is not None
]


@pytest.mark.parametrize("command, case, text", COLUMNS)
def test_wrong_columns_are_one_line(tmp_path, capsys, command, case, text):
    path = _write(tmp_path, command, text.encode())
    _fails(capsys, _argv(command, path, tmp_path), str(path))


def test_ltr_table_columns(tmp_path, capsys):
    bad = _parquet(pa.table({"qid": ["1", "2"], "label": [1, 0], "f": ["x", "y"]}))
    path = _write(tmp_path, "ltr", bad)
    _fails(capsys, _argv("ltr", path, tmp_path), str(path))
    path.write_bytes(_parquet(pa.table({"query": ["1", "2"], "label": [1, 0], "f": [0.1, 0.2]})))
    _fails(capsys, _argv("ltr", path, tmp_path), str(path), "no query column 'qid'")


# standard input: a label file read from it is plain text (no extension tells delimited);
# recommendation lists are named after their file in the output
VARIANTS = [
    (c, v)
    for c in COMMANDS
    if COMMANDS[c][2] is not None
    for v in ("BOM", "CRLF", "BOM and CRLF", "gzip", "stdin")
    if v != "stdin" or c not in ("classify", "cluster", "rec eval csv")
]


@pytest.mark.parametrize("command, variant", VARIANTS)
def test_harmless_variants_read_as_the_plain_file(tmp_path, capsys, command, variant):
    good = COMMANDS[command][2].encode()
    plain = _write(tmp_path, command, good)
    status, expected, err = run_main(capsys, *_argv(command, plain, tmp_path))
    assert status == 0, err
    data = good
    if "CRLF" in variant:
        data = data.replace(b"\n", b"\r\n")
    if "BOM" in variant:
        data = b"\xef\xbb\xbf" + data
    if variant == "gzip":
        data = gzip.compress(data)
    if variant == "stdin":
        import sys

        old = sys.stdin
        sys.stdin = io.TextIOWrapper(io.BytesIO(data))
        try:
            status, out, err = run_main(capsys, *_argv(command, "-", tmp_path))
        finally:
            sys.stdin = old
    else:
        plain.write_bytes(data)
        status, out, err = run_main(capsys, *_argv(command, plain, tmp_path))
    assert status == 0, err
    assert out == expected
