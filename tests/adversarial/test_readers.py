"""Hostile inputs for every reader, through ``cranfield eval`` and ``cranfield trec_eval``.

Readers: TREC runs and qrels (plain, gzip, standard input ``-``, named pipes), CSV, TSV
and Parquet. Inputs: special files (``/dev/zero``, ``/dev/urandom`` through a capped
pipe, a pipe with a writer, a directory, symbolic link loops and dangling links, an
unreadable file), empty files, binary garbage, NUL bytes, huge fields and lines, CRLF
line ends, truncated gzip, plain text named ``.gz``, Latin-1 ids, a byte-order mark,
duplicate CSV columns, grades beyond 64 bits, ids with tabs and newlines.

Every case runs the command line as a separate process under the harness's timeout and
address-space limit and asserts the status, exactly one stderr line naming the file
(and the line, where there is one), no traceback, and that the inputs are unchanged.
Successful cases compare with the same evaluation of a plain equivalent input, never
with numbers copied from our own output.
"""

from __future__ import annotations

import gzip
import os
import subprocess
import threading
from pathlib import Path

import pytest

from .harness import Unchanged, assert_clean_failure, assert_success, run_cli

QRELS = b"1 0 a 1\n1 0 b 0\n2 0 c 1\n2 0 d 2\n"
RUN = b"1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n2 Q0 d 1 3.0 t\n2 Q0 c 2 1.0 t\n"
CSV_QRELS = b"qid,docno,rel\n1,a,1\n1,b,0\n2,c,1\n2,d,2\n"
CSV_RUN = b"qid,docno,score\n1,a,2.0\n1,b,1.0\n2,d,3.0\n2,c,1.0\n"
COMMANDS = ("eval", "trec_eval")
SIDES = ("qrels", "run")
# every reader through both commands, each pairing once (the two readers share the
# code under test; all four pairings would double the suite's time for little)
PAIRS = pytest.mark.parametrize(
    "command, side", [("eval", "run"), ("trec_eval", "qrels"), ("eval", "qrels")]
)
PAIRS2 = pytest.mark.parametrize("command, side", [("eval", "run"), ("trec_eval", "qrels")])


def _args(command: str, qrels, run) -> list[str]:
    if command == "eval":
        return ["eval", str(qrels), str(run), "-m", "AP", "P@1", "nDCG@10"]
    return ["trec_eval", "-m", "map", "-m", "P.1", "-m", "ndcg", str(qrels), str(run)]


def _pair(tmp_path: Path, side: str, bad) -> tuple[Path, Path, Path]:
    """(qrels, run, the hostile one): the other side is a good file."""
    good_q, good_r = tmp_path / "good_qrels.txt", tmp_path / "good_run.txt"
    good_q.write_bytes(QRELS)
    good_r.write_bytes(RUN)
    return (bad, good_r, bad) if side == "qrels" else (good_q, bad, bad)


def _reference(tmp_path: Path, command: str, qrels: bytes = QRELS, run: bytes = RUN) -> bytes:
    """The output for plain inputs holding the same judgments and scores."""
    q, r = tmp_path / "ref_qrels.txt", tmp_path / "ref_run.txt"
    q.write_bytes(qrels)
    r.write_bytes(run)
    out = run_cli(*_args(command, q, r))
    assert_success(out, quiet=True)
    return out.stdout


def _fail(command, qrels, run, mention, *inputs, line=None, **kw):
    with Unchanged(*[p for p in inputs if Path(p).is_file()]):
        out = run_cli(*_args(command, qrels, run), **kw)
    where = f"{mention}:{line}:" if line is not None else str(mention)
    return assert_clean_failure(out, where)


# -- special files ---------------------------------------------------------------------------


@PAIRS
def test_dev_zero_stops_at_the_first_byte(tmp_path, command, side):
    qrels, run, bad = _pair(tmp_path, side, Path("/dev/zero"))
    err = _fail(command, qrels, run, "/dev/zero", qrels, run, line=1)
    assert "NUL byte" in err


@pytest.mark.parametrize("command", COMMANDS)
def test_dev_zero_streamed(tmp_path, command):
    qrels, run, _ = _pair(tmp_path, "run", Path("/dev/zero"))
    with Unchanged(qrels):
        out = run_cli(*_args(command, qrels, run), "--stream")
    assert "NUL byte" in assert_clean_failure(out, "/dev/zero:1:")


class _Feeder:
    """A named pipe with a writer: either bytes from a thread or a command's output."""

    def __init__(self, fifo: Path, data: bytes | None = None, shell: str | None = None):
        os.mkfifo(fifo)
        self.fifo = fifo
        self.proc = None
        self.thread = None
        if shell is not None:
            self.proc = subprocess.Popen(
                ["sh", "-c", f"{shell} > '{fifo}'"], stderr=subprocess.DEVNULL
            )
        else:

            def feed():
                try:
                    with open(fifo, "wb") as fh:
                        fh.write(data)
                except (BrokenPipeError, OSError):
                    pass  # the reader stopped early: that is allowed

            self.thread = threading.Thread(target=feed, daemon=True)
            self.thread.start()

    def close(self) -> None:
        if self.proc is not None:
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                raise
        if self.thread is not None and self.thread.is_alive():
            # nobody opened the pipe: open it ourselves so the writer can finish
            fd = os.open(self.fifo, os.O_RDONLY | os.O_NONBLOCK)
            os.close(fd)
            self.thread.join(timeout=10)


@PAIRS2
def test_dev_urandom_through_a_capped_pipe(tmp_path, command, side):
    feeder = _Feeder(tmp_path / "random", shell="head -c 50000000 /dev/urandom")
    try:
        qrels, run, bad = _pair(tmp_path, side, feeder.fifo)
        with Unchanged(tmp_path / "good_qrels.txt", tmp_path / "good_run.txt"):
            out = run_cli(*_args(command, qrels, run))
        assert_clean_failure(out, str(feeder.fifo))
    finally:
        feeder.close()


@PAIRS
def test_named_pipe_with_a_writer_is_read_once(tmp_path, command, side):
    expected = _reference(tmp_path, command)
    feeder = _Feeder(tmp_path / "pipe", data=QRELS if side == "qrels" else RUN)
    try:
        qrels, run, _ = _pair(tmp_path, side, feeder.fifo)
        out = run_cli(*_args(command, qrels, run), timeout=30)
    finally:
        feeder.close()
    assert_success(out, quiet=True)
    assert out.stdout == expected


@pytest.mark.parametrize("command", COMMANDS)
def test_named_pipe_streamed(tmp_path, command):
    expected = _reference(tmp_path, command)
    feeder = _Feeder(tmp_path / "pipe", data=gzip.compress(RUN))
    try:
        qrels, run, _ = _pair(tmp_path, "run", feeder.fifo)
        out = run_cli(*_args(command, qrels, run), "--stream", timeout=30)
    finally:
        feeder.close()
    assert_success(out, quiet=True)
    assert out.stdout == expected


@PAIRS
def test_standard_input(tmp_path, command, side):
    expected = _reference(tmp_path, command)
    qrels, run, _ = _pair(tmp_path, side, "-")
    out = run_cli(*_args(command, qrels, run), stdin=QRELS if side == "qrels" else RUN)
    assert_success(out, quiet=True)
    assert out.stdout == expected


@PAIRS2
def test_dev_stdin_pipe(tmp_path, command, side):
    """/dev/stdin on a pipe (as ``<(...)`` gives /dev/fd/N): opened once, read once."""
    expected = _reference(tmp_path, command)
    qrels, run, _ = _pair(tmp_path, side, "/dev/stdin")
    out = run_cli(*_args(command, qrels, run), stdin=QRELS if side == "qrels" else RUN)
    assert_success(out, quiet=True)
    assert out.stdout == expected


@pytest.mark.parametrize(
    "command, data, problem",
    [
        ("eval", b"\0" * (8 << 20), "NUL byte"),
        ("trec_eval", b"x" * (70 << 20), "longer than 64 MiB"),
    ],
    ids=["zeros", "one-endless-line"],
)
def test_standard_input_garbage(tmp_path, command, data, problem):
    qrels, run, _ = _pair(tmp_path, "run", "-")
    out = run_cli(*_args(command, qrels, run), stdin=data)
    assert problem in assert_clean_failure(out, "<stdin>:1:")


@PAIRS2
def test_directory(tmp_path, command, side):
    qrels, run, bad = _pair(tmp_path, side, tmp_path)
    err = _fail(command, qrels, run, tmp_path, qrels, run)
    assert "is a directory" in err


@PAIRS2
def test_symlink_loop_is_named_a_loop(tmp_path, command, side):
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    qrels, run, bad = _pair(tmp_path, side, loop)
    err = _fail(command, qrels, run, loop, qrels, run)
    assert "symbolic link loop" in err and "no such file" not in err


@PAIRS2
def test_dangling_symlink(tmp_path, command, side):
    link = tmp_path / "dangling"
    link.symlink_to(tmp_path / "gone")
    qrels, run, bad = _pair(tmp_path, side, link)
    err = _fail(command, qrels, run, link, qrels, run)
    assert "dangling symbolic link" in err


@pytest.mark.parametrize("command", COMMANDS)
def test_unreadable_file(tmp_path, command):
    path = tmp_path / "secret.txt"
    path.write_bytes(RUN)
    path.chmod(0)
    try:
        if os.access(path, os.R_OK):
            pytest.skip("running as root: permission bits do not stop reading")
        qrels, run, _ = _pair(tmp_path, "run", path)
        assert "permission denied" in _fail(command, qrels, run, path, qrels)
    finally:
        path.chmod(0o644)


# -- content ---------------------------------------------------------------------------------


def _content_case(tmp_path, command, side, data: bytes, name: str = "bad.txt"):
    bad = tmp_path / name
    bad.write_bytes(data)
    return _pair(tmp_path, side, bad)


@PAIRS2
def test_empty_file(tmp_path, command, side):
    qrels, run, bad = _content_case(tmp_path, command, side, b"")
    err = _fail(command, qrels, run, bad, qrels, run)
    assert "no " in err and "lines found" in err


@PAIRS2
def test_binary_garbage(tmp_path, command, side):
    import random

    rnd = random.Random(7)
    data = bytes(rnd.randrange(1, 256) for _ in range(1 << 16))  # no NUL: other checks stop it
    qrels, run, bad = _content_case(tmp_path, command, side, data)
    _fail(command, qrels, run, bad, qrels, run, line=1)  # the first line stops it


@PAIRS
def test_nul_byte_inside_a_line(tmp_path, command, side):
    good = QRELS if side == "qrels" else RUN
    lines = good.splitlines(keepends=True)
    lines[2] = lines[2].replace(b" ", b"\0 ", 1)
    qrels, run, bad = _content_case(tmp_path, command, side, b"".join(lines))
    assert "NUL byte" in _fail(command, qrels, run, bad, qrels, run, line=3)


@pytest.mark.parametrize("command", COMMANDS)
def test_ten_mib_doc_id(tmp_path, command):
    """A 10 MiB document id in both files: the same numbers as with a short one."""
    huge = b"D" * (10 << 20)
    expected = _reference(tmp_path, command)
    q = tmp_path / "q.txt"
    r = tmp_path / "r.txt"
    q.write_bytes(QRELS.replace(b" d ", b" " + huge + b" "))
    r.write_bytes(RUN.replace(b" d ", b" " + huge + b" "))
    with Unchanged(q, r):
        out = run_cli(*_args(command, q, r))
    assert_success(out, quiet=True)
    assert out.stdout == expected


@pytest.mark.parametrize(
    "command, size, newline",
    [
        ("eval", 8 << 10, False),
        ("eval", 10 << 20, True),
        ("trec_eval", 8 << 10, True),
        ("trec_eval", 10 << 20, False),
    ],
)
def test_long_last_line(tmp_path, command, size, newline):
    """The run tag comes from the last line, however long (here its last field)."""
    tag = b"T" * size
    run_text = RUN.replace(b" t\n", b" " + tag + b"\n")
    if not newline:
        run_text = run_text[:-1]
    r = tmp_path / "long.txt"
    r.write_bytes(run_text)
    q = tmp_path / "q.txt"
    q.write_bytes(QRELS)
    with Unchanged(q, r):
        out = run_cli(*_args(command, q, r), "-f", "json") if command == "eval" else None
        if command == "trec_eval":
            out = run_cli("trec_eval", "-m", "runid", "-m", "map", str(q), str(r))
    assert_success(out, quiet=True)
    assert tag.decode() in out.stdout.decode()


@PAIRS2
def test_line_over_the_limit(tmp_path, command, side):
    good = QRELS if side == "qrels" else RUN
    data = good + b"9 0 " + b"x" * ((64 << 20) + 10) + b" 1\n"
    qrels, run, bad = _content_case(tmp_path, command, side, data)
    err = _fail(command, qrels, run, bad, qrels, run, line=5)
    assert "longer than 64 MiB" in err


@PAIRS2
def test_crlf_line_ends(tmp_path, command, side):
    expected = _reference(tmp_path, command)
    good = QRELS if side == "qrels" else RUN
    qrels, run, bad = _content_case(tmp_path, command, side, good.replace(b"\n", b"\r\n"))
    with Unchanged(bad):
        out = run_cli(*_args(command, qrels, run))
    assert_success(out, quiet=True)
    assert out.stdout == expected


@pytest.mark.parametrize(
    "command, side, stream",
    [
        ("eval", "run", False),
        ("trec_eval", "qrels", False),
        ("eval", "run", True),
        ("trec_eval", "run", True),
    ],
)
def test_truncated_gzip(tmp_path, command, side, stream):
    good = QRELS if side == "qrels" else RUN
    data = gzip.compress(good * 50)
    qrels, run, bad = _content_case(tmp_path, command, side, data[: len(data) // 2], "cut.gz")
    with Unchanged(bad):
        out = run_cli(*_args(command, qrels, run), *(["--stream"] if stream else []))
    assert "gzip" in assert_clean_failure(out, str(bad))


@pytest.mark.parametrize(
    "command, side, stream",
    [
        ("eval", "run", False),
        ("trec_eval", "qrels", False),
        ("eval", "run", True),
        ("trec_eval", "run", True),
    ],
)
def test_plain_text_named_gz(tmp_path, command, side, stream):
    """gzip is recognised by its first bytes, never by the name."""
    expected = _reference(tmp_path, command)
    good = QRELS if side == "qrels" else RUN
    qrels, run, bad = _content_case(tmp_path, command, side, good, "plain.gz")
    with Unchanged(bad):
        out = run_cli(*_args(command, qrels, run), *(["--stream"] if stream else []))
    assert_success(out, quiet=True)
    assert out.stdout == expected


def test_latin1_ids_in_trec_eval_are_bytes(tmp_path):
    """cranfield trec_eval reads ids as bytes and prints them as they came."""
    q, r = tmp_path / "q.txt", tmp_path / "r.txt"
    q.write_bytes(QRELS.replace(b"2 0", b"\xe92 0").replace(b" a ", b" caf\xe9 "))
    r.write_bytes(RUN.replace(b"2 Q0", b"\xe92 Q0").replace(b" a ", b" caf\xe9 "))
    with Unchanged(q, r):
        out = run_cli("trec_eval", "-q", "-m", "map", "-m", "P.1", str(q), str(r))
    assert_success(out, quiet=True)
    ref_q, ref_r = tmp_path / "rq.txt", tmp_path / "rr.txt"
    ref_q.write_bytes(QRELS.replace(b"2 0", b"x2 0"))
    ref_r.write_bytes(RUN.replace(b"2 Q0", b"x2 Q0"))
    ref = run_cli("trec_eval", "-q", "-m", "map", "-m", "P.1", str(ref_q), str(ref_r))
    assert_success(ref, quiet=True)
    assert b"\t\xe92\t" in out.stdout
    assert out.stdout == ref.stdout.replace(b"\tx2\t", b"\t\xe92\t")


@pytest.mark.parametrize("side", SIDES)
def test_latin1_ids_in_eval_are_refused_with_the_line(tmp_path, side):
    good = QRELS if side == "qrels" else RUN
    line = 1 + good.split(b"\n").index(next(x for x in good.split(b"\n") if b" c " in x))
    qrels, run, bad = _content_case(tmp_path, "eval", side, good.replace(b" c ", b" \xe9 "))
    err = _fail("eval", qrels, run, bad, qrels, run, line=line)
    assert "not valid UTF-8" in err


@pytest.mark.parametrize("path", ["fast", "exact"])
def test_bom_is_part_of_the_first_query_id_in_trec_eval(tmp_path, path):
    """As trec_eval: a byte-order mark stays in the first query id (on both parsers)."""
    sep = b" " if path == "fast" else b"  "
    q, r = tmp_path / "q.txt", tmp_path / "r.txt"
    q.write_bytes(b"\xef\xbb\xbf" + QRELS)
    r.write_bytes(b"\xef\xbb\xbf" + RUN.replace(b" ", sep))
    with Unchanged(q, r):
        out = run_cli("trec_eval", "-q", "-m", "map", str(q), str(r))
    assert_success(out, quiet=True)
    assert b"\t\xef\xbb\xbf1\t" in out.stdout  # its bytes, as they came
    # the BOM query is a different query from "1": a run without it has no results there
    r.write_bytes(RUN)
    out = run_cli("trec_eval", "-q", "-m", "map", str(q), str(r))
    assert b"\t\xef\xbb\xbf1\t" not in out.stdout


def test_bom_is_dropped_by_eval(tmp_path):
    expected = _reference(tmp_path, "eval")
    q, r = tmp_path / "q.txt", tmp_path / "r.txt"
    q.write_bytes(b"\xef\xbb\xbf" + QRELS)
    r.write_bytes(RUN)
    out = run_cli(*_args("eval", q, r))
    assert_success(out, quiet=True)
    assert out.stdout == expected


# -- CSV, TSV, Parquet (cranfield eval) -------------------------------------------------------


def _tabular(tmp_path: Path, fmt: str, text: bytes, name: str = "bad") -> Path:
    """Write CSV text as CSV, TSV or Parquet."""
    path = tmp_path / f"{name}.{fmt}"
    if fmt == "csv":
        path.write_bytes(text)
    elif fmt == "tsv":
        path.write_bytes(text.replace(b",", b"\t"))
    else:
        import pyarrow as pa
        import pyarrow.csv as pacsv
        import pyarrow.parquet as pq

        table = pacsv.read_csv(
            pa.BufferReader(text),
            read_options=pacsv.ReadOptions(block_size=1 << 26),
            convert_options=pacsv.ConvertOptions(
                column_types={"qid": pa.string(), "docno": pa.string()}
            ),
        )
        pq.write_table(table, path)
    return path


TABULAR = ("csv", "tsv", "parquet")


@pytest.mark.parametrize("fmt", TABULAR)
@pytest.mark.parametrize("side", SIDES)
def test_tabular_reads_and_agrees(tmp_path, fmt, side):
    _reference(tmp_path, "eval")  # writes ref_qrels.txt and ref_run.txt
    bad = _tabular(tmp_path, fmt, CSV_QRELS if side == "qrels" else CSV_RUN, "good")
    qrels, run, _ = _pair(tmp_path, side, bad)
    with Unchanged(bad):
        out = run_cli(*_args("eval", qrels, run), "-f", "csv")
    ref = run_cli(*_args("eval", tmp_path / "ref_qrels.txt", tmp_path / "ref_run.txt"), "-f", "csv")
    assert_success(out, quiet=True)
    # run names differ (a TREC tag against a file name): compare the numbers
    assert _numbers(out.stdout, b",") == _numbers(ref.stdout, b",")


def _numbers(table: bytes, sep: bytes | None = None) -> list[bytes]:
    """The values of the first result row (without the run name)."""
    return table.split(b"\n")[1].split(sep)[1:]


@pytest.mark.parametrize("fmt", TABULAR)
def test_tabular_from_a_named_pipe(tmp_path, fmt):
    src = _tabular(tmp_path, fmt, CSV_RUN, "src")
    feeder = _Feeder(tmp_path / f"pipe.{fmt}", data=src.read_bytes())
    try:
        q = tmp_path / "q.txt"
        q.write_bytes(QRELS)
        out = run_cli(*_args("eval", q, feeder.fifo), timeout=30)
    finally:
        feeder.close()
    assert_success(out, quiet=True)
    direct = run_cli(*_args("eval", q, src))
    assert _numbers(out.stdout) == _numbers(direct.stdout)


@pytest.mark.parametrize("fmt", ("csv", "parquet"))
@pytest.mark.parametrize(
    "special", ["dev-zero", "directory", "loop", "dangling", "empty", "garbage"]
)
def test_tabular_special_inputs(tmp_path, fmt, special):
    if special == "dev-zero":
        bad = tmp_path / f"zero.{fmt}"
        bad.symlink_to("/dev/zero")
    elif special == "directory":
        bad = tmp_path / f"dir.{fmt}"
        bad.mkdir()
    elif special == "loop":
        bad = tmp_path / f"loop.{fmt}"
        bad.symlink_to(bad)
    elif special == "dangling":
        bad = tmp_path / f"dangling.{fmt}"
        bad.symlink_to(tmp_path / "gone")
    elif special == "empty":
        bad = tmp_path / f"empty.{fmt}"
        bad.write_bytes(b"")
    else:
        import random

        rnd = random.Random(3)
        bad = tmp_path / f"garbage.{fmt}"
        bad.write_bytes(bytes(rnd.randrange(0, 256) for _ in range(1 << 16)))
    qrels, run, _ = _pair(tmp_path, "run", bad)
    _fail("eval", qrels, run, bad, qrels, bad)


@pytest.mark.parametrize("fmt", TABULAR)
def test_tabular_ten_mib_id(tmp_path, fmt):
    huge = b"D" * (10 << 20)
    q = tmp_path / "q.txt"
    q.write_bytes(QRELS.replace(b" d ", b" " + huge + b" "))
    bad = _tabular(tmp_path, fmt, CSV_RUN.replace(b",d,", b"," + huge + b","))
    expected = _tabular(tmp_path, fmt, CSV_RUN, "plain")
    ref_q = tmp_path / "rq.txt"
    ref_q.write_bytes(QRELS)
    out = run_cli(*_args("eval", q, bad))
    ref = run_cli(*_args("eval", ref_q, expected))
    assert_success(out, quiet=True)
    assert _numbers(out.stdout) == _numbers(ref.stdout)


@pytest.mark.parametrize("fmt", ("csv", "tsv"))
def test_duplicate_header_column(tmp_path, fmt):
    bad = _tabular(tmp_path, fmt, b"qid,qid,docno,rel\n1,1,a,1\n")
    qrels, run, _ = _pair(tmp_path, "qrels", bad)
    assert "appears twice" in _fail("eval", qrels, run, bad, bad)


@pytest.mark.parametrize("fmt", TABULAR)
@pytest.mark.parametrize("grade", [b"99999999999999999999", b"-1e30"])
def test_grade_outside_int64(tmp_path, fmt, grade):
    text = CSV_QRELS + b"2,e," + grade + b"\n"
    bad = _tabular(tmp_path, fmt, text)
    qrels, run, _ = _pair(tmp_path, "qrels", bad)
    err = _fail("eval", qrels, run, bad, bad)
    assert "64-bit integer range" in err and ("line 6" in err or "row 5" in err)


# a tab inside a TSV field would end the field: (tsv, tab) is not a case
WHITESPACE_CASES = [
    pytest.param(fmt, char, id=f"{fmt}-{name}")
    for fmt in TABULAR
    for char, name in ((b"\t", "tab"), (b"\n", "newline"))
    if not (fmt == "tsv" and char == b"\t")
]


@pytest.mark.parametrize(("fmt", "char"), WHITESPACE_CASES)
def test_ids_with_whitespace_are_refused(tmp_path, fmt, char):
    bad = _tabular(tmp_path, fmt, CSV_RUN.replace(b",c,", b',"c' + char + b'x",'))
    qrels, run, _ = _pair(tmp_path, "run", bad)
    with Unchanged(bad):
        out = run_cli(*_args("eval", qrels, run), "-f", "trec")
    err = assert_clean_failure(out, str(bad))
    assert "whitespace" in err
    assert out.stdout == b""


@pytest.mark.parametrize("fmt", ("csv", "tsv"))
def test_csv_nan_is_named_nan(tmp_path, fmt):
    bad = _tabular(tmp_path, fmt, CSV_RUN.replace(b"3.0", b"nan"))
    qrels, run, _ = _pair(tmp_path, "run", bad)
    err = _fail("eval", qrels, run, bad, bad)
    assert "NaN" in err and "line 4" in err and "null" not in err


@pytest.mark.parametrize("fmt", ("csv", "tsv"))
def test_csv_latin1_names_the_file(tmp_path, fmt):
    bad = _tabular(tmp_path, fmt, CSV_RUN.replace(b",c,", b",\xe9,"))
    qrels, run, _ = _pair(tmp_path, "run", bad)
    assert "UTF-8" in _fail("eval", qrels, run, bad, bad)


@pytest.mark.parametrize("fmt", ("csv", "tsv"))
def test_csv_nul_bytes(tmp_path, fmt):
    bad = _tabular(tmp_path, fmt, CSV_RUN.replace(b",c,", b",c\0,"))
    qrels, run, _ = _pair(tmp_path, "run", bad)
    assert "NUL byte" in _fail("eval", qrels, run, bad, bad, line=5)


def test_a_dict_grade_from_numpy_is_shown_as_a_number():
    """evaluate() on a qrels dict whose grades are NumPy values: the message shows the
    grade as a number, not NumPy 2's repr (np.float64(0.5))."""
    import numpy as np

    import cranfield
    from cranfield.errors import InputError

    with pytest.raises(InputError, match=r"relevance grade 0\.5 is not an integer") as caught:
        cranfield.evaluate({"q": {"d": np.float64(0.5)}}, {"r": {"q": {"d": 1.0}}}, ["AP"])
    assert "np." not in str(caught.value)


@pytest.mark.parametrize(
    "grade", ["99999999999999999999", "-9223372036854775809", "1e99999999999.5"]
)
def test_a_whole_grade_beyond_64_bits_is_out_of_range(tmp_path, grade):
    """A grade that is a whole number too large for the reader is out of range (with the
    range), not 'not an integer'; a malformed one still is not an integer."""
    qrels = tmp_path / "q.txt"
    qrels.write_text(f"1 0 a {grade}\n")
    run = tmp_path / "r.txt"
    run.write_text("1 Q0 a 1 1.0 r\n")
    malformed = "e" in grade
    expected = "is not an integer" if malformed else "is out of range (a grade is a 64-bit"
    for command in (["eval", qrels, run, "-m", "P@1"], ["trec_eval", qrels, run]):
        err = assert_clean_failure(run_cli(*command), f"q.txt:1: relevance grade '{grade}'")
        assert expected in err and ("2^63-1" in err) != malformed, err
