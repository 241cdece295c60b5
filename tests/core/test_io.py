"""TREC parsing: the fast Arrow path and the exact path, error messages, duplicates."""

from __future__ import annotations

import gzip
import io
import math
import sys
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pytest

from cranfield.core.io import dedup, trec
from cranfield.core.qrels import Qrels
from cranfield.core.run import Run
from cranfield.errors import InputError, ParameterError
from fifo import fifo_with_writer
from generators import messy_text, rows_text, trec_rows


@pytest.mark.parametrize("kind", ["run", "qrels"])
@pytest.mark.parametrize("seed", range(12))
def test_clean_files_give_their_rows(kind, seed):
    rng = np.random.default_rng(seed)
    layout = trec.RUN if kind == "run" else trec.QRELS
    rows = trec_rows(rng, kind, int(rng.integers(1, 300)))
    parsed = trec.parse(rows_text(rows), layout, "x")
    assert parsed.lines is None  # row i is line i + 1
    # ids stay the exact text of the file, in file order; numbers read as C reads them
    assert parsed.table["query_id"].to_pylist() == [r[0] for r in rows]
    assert parsed.table["doc_id"].to_pylist() == [r[2] for r in rows]
    if kind == "run":
        assert parsed.table["score"].to_pylist() == [float(r[4]) for r in rows]
        assert parsed.tag == rows[-1][5]
    else:
        want = [math.trunc(Decimal(r[3])) for r in rows]
        assert parsed.table["relevance"].to_pylist() == want


@pytest.mark.parametrize("kind", ["run", "qrels"])
@pytest.mark.parametrize("seed", range(12))
def test_messy_whitespace_parses_like_clean(kind, seed):
    rng = np.random.default_rng(100 + seed)
    layout = trec.RUN if kind == "run" else trec.QRELS
    rows = trec_rows(rng, kind, int(rng.integers(1, 200)))
    clean = trec.parse(io.BytesIO(rows_text(rows)), layout, "x")
    data, where = messy_text(rng, rows)
    messy = trec.parse(io.BytesIO(data), layout, "x")
    assert messy.table.equals(clean.table)
    assert messy.tag == clean.tag
    assert [messy.line_of(i) for i in range(len(rows))] == where


def test_tab_separated_file_reads_like_space_separated():
    rows = trec_rows(np.random.default_rng(7), "run", 50)
    tabs = trec.parse(rows_text(rows, sep="\t"), trec.RUN, "x")
    assert tabs.table.equals(trec.parse(io.BytesIO(rows_text(rows)), trec.RUN, "x").table)


def test_crlf_line_endings():
    rows = trec_rows(np.random.default_rng(8), "run", 30)
    crlf = trec.parse(io.BytesIO(rows_text(rows, newline="\r\n")), trec.RUN, "x")
    assert crlf.table.equals(trec.parse(io.BytesIO(rows_text(rows)), trec.RUN, "x").table)
    assert crlf.tag == rows[-1][5]


def test_scores_are_doubles_and_grades_truncate_like_atol():
    run = Run.read(io.BytesIO(b"1 Q0 a 1 0.1 t\n1 Q0 b 2 1e-300 t\n1 Q0 c 3 -inf t\n"))
    assert run.table["score"].to_pylist() == [0.1, 1e-300, float("-inf")]
    assert run.table.schema.field("score").type == pa.float64()
    q = Qrels.read(
        io.BytesIO(b"1 0 a 2.7\n1 0 b -2.7\n1 0 c -0.5\n1 0 d +3\n1 0 e .9\n1 0 f 007\n")
    )
    assert q.table["relevance"].to_pylist() == [2, -2, 0, 3, 0, 7]


def test_string_ids_are_never_parsed_as_numbers():
    q = Qrels.read(io.BytesIO(b"007 0 1e3 1\n7 0 0x1F 0\n"))
    assert q.table["query_id"].to_pylist() == ["007", "7"]
    assert q.table["doc_id"].to_pylist() == ["1e3", "0x1F"]
    assert q.query_ids() == ["007", "7"]


def test_run_name_is_tag_of_last_line_and_extra_fields_ignored():
    run = Run.read(io.BytesIO(b"1 Q0 a 1 2 first\n1 Q0 b 2 1 last extra fields\n"))
    assert run.name == "last"
    assert run.table["doc_id"].to_pylist() == ["a", "b"]
    assert Run.read(io.BytesIO(b"1 Q0 a 1 2 t\n"), name="given").name == "given"


def test_gzip_and_stdin(tmp_path, monkeypatch):
    rows = trec_rows(np.random.default_rng(9), "run", 40)
    plain = rows_text(rows)
    (tmp_path / "r.txt").write_bytes(plain)
    (tmp_path / "r.txt.gz").write_bytes(gzip.compress(plain))
    (tmp_path / "disguised").write_bytes(gzip.compress(plain))  # gzip without .gz suffix
    ref = Run.read(tmp_path / "r.txt")
    for p in ("r.txt.gz", "disguised"):
        assert Run.read(tmp_path / p).table.equals(ref.table)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(plain)))
    from_stdin = Run.read("-")
    assert from_stdin.table.equals(ref.table) and from_stdin.source == "<stdin>"
    monkeypatch.setattr(sys, "stdin", io.StringIO(plain.decode()))  # no .buffer
    assert Run.read("-").table.equals(ref.table)


def test_files_are_never_modified(tmp_path):
    p = tmp_path / "q.txt"
    content = b"# header\n1 0 a 1\n\n1 0 b 0\n"
    p.write_bytes(content)
    Qrels.read(p)
    assert p.read_bytes() == content


# -- errors: message and exact line ----------------------------------------------------------


def _error(data: bytes, cls=Run, **kw) -> InputError:
    with pytest.raises(InputError) as info:
        cls.read(io.BytesIO(data), **kw)
    return info.value


def test_qrels_passed_as_run():
    e = _error(b"# c\n\n1 0 a 1\n")
    assert e.line == 3
    assert "expected 6 fields (qid iter docno rank score tag), got 4" in e.message
    assert "is this a qrels file?" in e.message


def test_run_passed_as_qrels():
    e = _error(b"1 0 a 1\n1 Q0 a 1 2.5 tag\n", cls=Qrels)
    assert e.line == 2
    assert "expected 4 fields (qid iter docno rel), got 6" in e.message
    assert "is this a run file?" in e.message


def test_too_few_fields_reports_first_bad_line_after_comments_and_blanks():
    good = b"1 Q0 a 1 2 t\n"
    e = _error(b"#x\n" + good * 3 + b"\n   \n1 Q0 b 2 t\n" + good)
    assert (e.line, "got 5" in e.message) == (7, True)
    assert str(e) == "<file>:7: " + e.message


def test_non_numeric_score_located_on_exact_and_fast_paths():
    rows = [f"1 Q0 d{i} {i} {i}.5 t" for i in range(1000)]
    rows[637] = "1 Q0 d637 637 abc t"
    e = _error(("\n".join(rows) + "\n").encode())  # clean file: bisect after fast path fails
    assert (e.line, e.message) == (638, "score 'abc' is not a number")
    e = _error(("\t\n" + "\n".join(rows) + "\n").encode())  # messy file
    assert e.line == 639


def test_non_numeric_grade():
    e = _error(b"1 0 a 1\n1 0 b x\n", cls=Qrels)
    assert (e.line, "relevance grade 'x'" in e.message) == (2, True)
    e = _error(b"# c\n1 0 a 1\n1  0 b 1e3\n", cls=Qrels)  # exponents are not decimals
    assert e.line == 3


def test_nan_score():
    e = _error(b"1 Q0 a 1 2 t\n1 Q0 b 2 nan t\n")
    assert (e.line, e.message) == (2, "score is NaN")
    e = _error(b"\n1 Q0 a 1 2 t\n1  Q0 b 2 NaN t\n")
    assert e.line == 3


def test_invalid_utf8_id():
    e = _error(b"1 Q0 a 1 2 t\n1 Q0 \xff\xfe 2 1 t\n")
    assert e.line == 2 and "UTF-8" in e.message


@pytest.mark.parametrize("data", [b"", b"\n\n", b"# only a comment\n", b"   \n\t\n"])
@pytest.mark.parametrize("cls", [Run, Qrels])
def test_empty_file(data, cls):
    e = _error(data, cls=cls)
    assert "empty file" in e.message and e.line is None


def test_missing_and_unreadable_files(tmp_path):
    with pytest.raises(InputError, match="no such file") as info:
        Run.read(tmp_path / "nope.txt")
    assert info.value.source == str(tmp_path / "nope.txt")
    with pytest.raises(InputError, match="is a directory"):
        Qrels.read(tmp_path)


# -- duplicates ------------------------------------------------------------------------------


DUP_RUN = b"1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n2 Q0 a 1 5 t\n#\n1 Q0 a 3 9 t\n1 Q0 b 4 1 t\n"


def test_duplicate_is_an_error_naming_both_lines():
    e = _error(DUP_RUN)
    assert e.line == 5
    assert "document 'a' appears twice for query '1' (lines 1 and 5)" in e.message


def test_duplicates_first_and_max():
    first = Run.read(io.BytesIO(DUP_RUN), duplicates="first").table.to_pydict()
    assert first == {"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "a"], "score": [3, 2, 5]}
    best = Run.read(io.BytesIO(DUP_RUN), duplicates="max").table.to_pydict()
    assert best == {"query_id": ["1", "2", "1"], "doc_id": ["b", "a", "a"], "score": [2, 5, 9]}
    q = Qrels.read(io.BytesIO(b"1 0 a 1\n1 0 a 3\n1 0 a 2\n"), duplicates="max")
    assert q.table["relevance"].to_pylist() == [3]


def test_bad_duplicates_policy():
    with pytest.raises(ParameterError, match="duplicates"):
        Run.read(io.BytesIO(b"1 Q0 a 1 3 t\n"), duplicates="last")


@pytest.mark.parametrize("seed", range(6))
def test_vectorised_duplicate_detection_matches_python(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    qids = rng.integers(0, 5, n).astype(str)
    # ids of many lengths, sharing prefixes, so 8-byte words and masks are exercised
    docs = np.array(
        [
            "doc-" * int(k) + str(v)
            for k, v in zip(rng.integers(0, 5, n), rng.integers(0, 400, n), strict=True)
        ]
    )
    scores = rng.integers(0, 4, n).astype(float)
    table = pa.table({"query_id": qids, "doc_id": docs, "score": scores})
    seen, keep_first, best = set(), [], {}
    for i, (q, d, s) in enumerate(zip(qids, docs, scores, strict=True)):
        if (q, d) not in seen:
            keep_first.append(i)
            seen.add((q, d))
        if (q, d) not in best or s > scores[best[(q, d)]]:
            best[(q, d)] = i
    got = dedup.resolve(table, "score", "first", None, None)
    assert got.equals(table.take(keep_first))
    got = dedup.resolve(table, "score", "max", None, None)
    assert got.equals(table.take(sorted(best.values())))
    if len(keep_first) < n:
        with pytest.raises(InputError, match="appears twice"):
            dedup.resolve(table, "score", "error", None, None)


# -- hostile input: bounded reading, special files, encodings (issue 13) ----------------------

RUN_TEXT = b"1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n2 Q0 c 1 1.0 t\n"


def _bounded(fn, timeout: float = 20.0):
    """``fn()`` in a thread: a reader that blocks (reopening a pipe) fails the test
    instead of hanging the suite."""
    import threading

    result: list = []
    thread = threading.Thread(target=lambda: result.append(fn()), daemon=True)
    thread.start()
    thread.join(timeout)
    assert result, "the reader blocked (or failed)"
    return result[0]


@pytest.mark.parametrize("gz", [False, True])
def test_named_pipe_is_read_once(tmp_path, gz):
    """A pipe cannot be opened twice: the reader opens it once and reads it whole."""
    data = gzip.compress(RUN_TEXT) if gz else RUN_TEXT
    fifo, thread = fifo_with_writer(tmp_path / "pipe", data)
    run = _bounded(lambda: Run.read(fifo))
    thread.join(timeout=5)
    plain = tmp_path / "plain.txt"
    plain.write_bytes(RUN_TEXT)
    assert run.table.equals(Run.read(plain).table) and run.name == "t"


class _Zeros(io.RawIOBase):
    """An endless stream of zero bytes, like /dev/zero, that fails the test once more
    than ``limit`` bytes were read (in-process tests must stay bounded even when the
    reader regresses; tests/adversarial runs the real /dev/zero under a memory limit)."""

    def __init__(self, limit: int = 16 << 20):
        self.left = limit

    def readable(self):
        return True

    def readinto(self, buf):
        assert self.left > 0, "the reader did not stop at the first NUL byte"
        n = min(len(buf), self.left)
        buf[:n] = bytes(n)
        self.left -= n
        return n


def test_endless_zeros_stop_at_the_first_nul_byte():
    with pytest.raises(InputError, match="NUL byte") as info:
        Run.read(io.BufferedReader(_Zeros()))
    assert info.value.line == 1


@pytest.mark.parametrize("exact", [False, True])
def test_nul_byte_inside_a_line_names_the_line(tmp_path, exact):
    text = RUN_TEXT.replace(b"2 Q0 c", b"2 Q0 c\0x")
    if exact:
        text = text.replace(b"1 Q0 a", b"1  Q0 a")  # two spaces: the exact path
    path = tmp_path / "run.txt"
    path.write_bytes(text)
    with pytest.raises(InputError, match="NUL byte") as info:
        Run.read(path)
    assert info.value.line == 3


def test_line_longer_than_the_limit(tmp_path, monkeypatch):
    from cranfield.core.io import source

    monkeypatch.setattr(source, "MAX_LINE", 100)
    monkeypatch.setattr(trec, "MAX_LINE", 100)
    path = tmp_path / "run.txt"
    # (in a regular file only lines the fast path refuses reach the check: those over
    # Arrow's 4 MiB blocks; two spaces send this one to the exact path)
    path.write_bytes(RUN_TEXT + b"3  Q0 " + b"d" * 200 + b" 1 1.0 t\n")
    with pytest.raises(InputError, match="longer than") as info:
        Run.read(path)
    assert info.value.line == 4
    # the same through a pipe, where the limit bounds the memory read
    with pytest.raises(InputError, match="longer than") as info:
        source.read_bytes(io.BytesIO(b"x" * 1000), "<pipe>")
    assert info.value.line == 1


def test_pipe_starting_with_invalid_lines_stops_before_the_rest(monkeypatch):
    """Only the first MiB is read when its lines cannot be a run."""
    read = []

    class Endless(io.RawIOBase):
        def readable(self):
            return True

        def readinto(self, buf):
            read.append(len(buf))
            chunk = (b"not a run line\n" * (len(buf) // 15 + 1))[: len(buf)]
            buf[: len(chunk)] = chunk
            return len(chunk)

    with pytest.raises(InputError, match="expected 6 fields") as info:
        Run.read(io.BufferedReader(Endless()))
    assert info.value.line == 1 and sum(read) < 4 << 20


@pytest.mark.parametrize("size", [5000, 9 << 20])
@pytest.mark.parametrize("newline", [True, False])
def test_long_last_line_gives_the_tag(tmp_path, size, newline):
    """The tag comes from the last line even when it is longer than the scan's tail
    (4 KiB) or than Arrow's blocks (lines of 8 MiB were 'score is not a number')."""
    tag = "T" * size
    text = RUN_TEXT.replace(b" t\n", f" {tag}\n".encode())
    path = tmp_path / "run.txt"
    path.write_bytes(text if newline else text[:-1])
    run = Run.read(path)
    assert run.name == tag
    assert run.table.to_pydict()["doc_id"] == ["a", "b", "c"]


def test_huge_field_in_the_exact_path(tmp_path):
    doc = "D" * (9 << 20)
    path = tmp_path / "run.txt"
    path.write_bytes(f"1  Q0 {doc} 1 2.0 t\n1 Q0 b 2 1.0 t\n".encode())  # two spaces: exact
    assert Run.read(path).table["doc_id"].to_pylist() == [doc, "b"]


def test_plain_text_named_gz_is_read_as_text(tmp_path):
    path = tmp_path / "run.gz"
    path.write_bytes(RUN_TEXT)
    assert Run.read(path).table.num_rows == 3


def test_truncated_and_corrupt_gzip(tmp_path):
    data = gzip.compress(RUN_TEXT * 100)
    path = tmp_path / "run.txt"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match="truncated gzip") as info:
        Run.read(path)
    assert info.value.source == str(path)
    path.write_bytes(data[:20] + b"\xff" * 40 + data[60:])
    with pytest.raises(InputError, match="gzip"):
        Run.read(path)


def test_concatenated_gzip_members(tmp_path):
    path = tmp_path / "run.gz"
    path.write_bytes(gzip.compress(RUN_TEXT[:15]) + gzip.compress(RUN_TEXT[15:]))
    assert Run.read(path).table.num_rows == 3


def test_symlink_loop_and_dangling_link_messages(tmp_path):
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(InputError, match="symbolic link loop"):
        Run.read(loop)
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "gone")
    with pytest.raises(InputError, match="dangling symbolic link"):
        Run.read(dangling)
    with pytest.raises(InputError, match="is a directory"):
        Run.read(tmp_path)


@pytest.mark.parametrize("exact", [False, True])
def test_latin1_ids_are_bytes(tmp_path, exact):
    """encoding='latin-1' (cranfield trec_eval) accepts any bytes; each byte is one
    character, so encoding the ids as Latin-1 gives back the file's bytes."""
    raw = b"\xe92 Q0 caf\xe9 1 2.0 t\xff\n\xe92 Q0 b\xc3\xa9 2 1.0 t\xff\n1 Q0 a 1 1.0 t\xff\n"
    if exact:
        raw = raw.replace(b"1 Q0 a", b"1\tQ0 a")
    path = tmp_path / "run.txt"
    path.write_bytes(raw)
    run = Run.read(path, encoding="latin-1")
    t = run.table.to_pydict()
    assert [q.encode("latin-1") for q in t["query_id"]] == [b"\xe92", b"\xe92", b"1"]
    assert [d.encode("latin-1") for d in t["doc_id"]] == [b"caf\xe9", b"b\xc3\xa9", b"a"]
    assert run.name.encode("latin-1") == b"t\xff"
    with pytest.raises(InputError, match="not valid UTF-8") as info:
        Run.read(path)  # the default: UTF-8, checked
    assert info.value.line == 1
    with pytest.raises(ParameterError, match="encoding"):
        Run.read(path, encoding="cp1252")


def test_latin1_query_ids_join_as_the_converted_strings(tmp_path):
    """Latin-1 query ids are judged as the strings of the column (raw bytes in the join
    with the qrels once matched nothing)."""
    from cranfield import evaluate

    q, r = tmp_path / "q.txt", tmp_path / "r.txt"
    q.write_bytes(b"\xe92 0 c 1\n1 0 a 1\n")
    r.write_bytes(b"1 Q0 a 1 2.0 t\n\xe92 Q0 c 1 1.0 t\n")
    res = evaluate(Qrels.read(q, encoding="latin-1"), Run.read(r, encoding="latin-1"), ["AP"])
    assert res.per_query("t", "AP") == {"1": 1.0, "\xe92": 1.0}


@pytest.mark.parametrize("exact", [False, True])
def test_bom_kept_in_latin1_and_dropped_in_utf8(tmp_path, exact):
    sep = b"  " if exact else b" "
    path = tmp_path / "qrels.txt"
    path.write_bytes(b"\xef\xbb\xbf1" + sep + b"0 a 1\n1 0 b 0\n")
    kept = Qrels.read(path, encoding="latin-1").table["query_id"].to_pylist()
    assert [k.encode("latin-1") for k in kept] == [b"\xef\xbb\xbf1", b"1"]
    assert Qrels.read(path).table["query_id"].to_pylist() == ["1", "1"]
    path.write_bytes(b"\xef\xbb\xbf# a comment\n1 0 a 1\n")  # the mark before a comment
    assert Qrels.read(path).table["query_id"].to_pylist() == ["1"]


# -- CSV, TSV, Parquet (issue 13) ----------------------------------------------------------------


def test_csv_duplicate_header_column(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text("qid,QID,docno,rel\n1,1,a,1\n")
    with pytest.raises(InputError, match="column 'QID' appears twice"):
        Qrels.read(path)
    path.write_text("qid,docno,rel,note,note\n1,a,1,x,y\n")  # ignored columns may repeat
    assert Qrels.read(path).table.num_rows == 1


@pytest.mark.parametrize("grade", ["99999999999999999999", "-1e30", "9223372036854775808"])
def test_csv_grade_outside_int64(tmp_path, grade):
    path = tmp_path / "q.csv"
    path.write_text(f"qid,docno,rel\n1,a,1\n1,b,{grade}\n")
    with pytest.raises(InputError, match="64-bit integer range in line 3"):
        Qrels.read(path)


def test_parquet_uint64_grade_outside_int64(tmp_path):
    import pyarrow.parquet as pq

    path = tmp_path / "q.parquet"
    table = pa.table({"qid": ["1"], "docno": ["a"], "rel": pa.array([2**64 - 1], pa.uint64())})
    pq.write_table(table, path)
    with pytest.raises(InputError, match="64-bit integer range in row 1"):
        Qrels.read(path)


@pytest.mark.parametrize("doc", ['"a\tb"', '"a\nb"', '"a b"', '"a\x01"'])
def test_csv_ids_with_whitespace_or_control_characters(tmp_path, doc):
    path = tmp_path / "r.csv"
    path.write_text(f"qid,docno,score\n1,x,1\n1,{doc},2\n")
    with pytest.raises(InputError, match="in line 3 contains whitespace"):
        Run.read(path)


def test_csv_nan_and_non_numbers(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("qid,docno,score\n1,a,1\n1,b,nan\n")
    with pytest.raises(InputError, match="score is NaN in line 3"):
        Run.read(path)
    path.write_text("qid,docno,score\n1,a,1\n1,b,NA\n")
    with pytest.raises(InputError, match="score 'NA' is not a number in line 3"):
        Run.read(path)
    path.write_text("qid,docno,score\n1,a,1\n1,b,\n")
    with pytest.raises(InputError, match="missing"):
        Run.read(path)


def test_csv_not_utf8_names_the_file(tmp_path):
    path = tmp_path / "r.csv"
    path.write_bytes(b"qid,docno,score\n1,caf\xe9,1\n")
    with pytest.raises(InputError, match="UTF-8") as info:
        Run.read(path)
    assert info.value.source == str(path)
    path.write_bytes(b"q\xe9id,docno,score\n1,a,1\n")  # was a UnicodeDecodeError, no file
    with pytest.raises(InputError, match="header is not valid UTF-8") as info:
        Run.read(path)
    assert info.value.source == str(path) and info.value.line == 1


def test_csv_long_line(tmp_path):
    doc = "D" * (3 << 20)  # longer than Arrow's default block
    path = tmp_path / "r.csv"
    path.write_text(f"qid,docno,score\n1,{doc},1\n1,b,2\n")
    assert Run.read(path).table["doc_id"].to_pylist() == [doc, "b"]


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_tabular_from_a_named_pipe(tmp_path, fmt):
    src = tmp_path / f"src.{fmt}"
    if fmt == "parquet":
        Run.from_dict({"1": {"a": 2.0, "b": 1.0}}).to_parquet(src)
    else:
        src.write_text("qid,docno,score\n1,a,2\n1,b,1\n")
    fifo, thread = fifo_with_writer(tmp_path / "pipe", src.read_bytes())
    run = _bounded(lambda: Run.read(fifo, format=fmt))
    thread.join(timeout=5)
    assert run.to_dict() == {"1": {"a": 2.0, "b": 1.0}}


def test_parquet_stream_of_zeros_stops_at_the_first_mib():
    from cranfield.core.io import tabular

    with pytest.raises(InputError, match="not a Parquet file"):
        tabular.read_parquet(io.BufferedReader(_Zeros()), "score")


def test_stream_larger_than_the_memory_budget(monkeypatch):
    """Input that is not a regular file is read into memory only up to what fits."""
    from cranfield.core import memory

    monkeypatch.setattr(memory, "input_budget", lambda: 3 << 20)
    with pytest.raises(InputError, match="more than 3 MiB"):
        Run.read(io.BytesIO(RUN_TEXT * (1 << 17)))  # 5.5 MB
    assert Run.read(io.BytesIO(RUN_TEXT)).table.num_rows == 3
    monkeypatch.undo()
    budget = memory.input_budget()
    assert budget is None or budget >= 1 << 20


def test_pieces_as_read_join_to_what_load_reads(tmp_path):
    """read_pieces (a reader that never holds the whole input) hands on exactly what
    read_bytes reads, for a path, a gzip file, bytes and a file object; a NUL byte
    past the first piece is refused with its line in both."""
    import gzip
    import io

    from cranfield.core.io.source import read_bytes, read_pieces
    from cranfield.errors import InputError

    data = b"".join(b"line %d\r\n" % i if i % 3 else b"l%d\n" % i for i in range(300_000))
    plain, zipped = tmp_path / "a.txt", tmp_path / "a.txt.gz"
    plain.write_bytes(data)
    zipped.write_bytes(gzip.compress(data))
    for given in (plain, zipped, data, io.BytesIO(data)):
        pieces = list(read_pieces(given, "x"))
        assert b"".join(pieces) == data
        assert all(0 < len(p) <= 1 << 20 for p in pieces)
    bad = data[:2_500_000] + b"\0" + data[2_500_000:]
    for read in (lambda: read_bytes(bad, "x"), lambda: b"".join(read_pieces(bad, "x"))):
        with pytest.raises(InputError) as e:
            read()
        assert e.value.line == bad[:2_500_000].count(b"\n") + 1


def test_piece_file_reads_as_a_bytes_file():
    """``source.PieceFile`` over random pieces reads what ``io.BytesIO`` of the joined
    bytes reads, for random read sizes (``-1``: the rest); ``spool`` copies a stream to a
    temporary file deleted on close."""
    import io
    import os

    import numpy as np

    from cranfield.core.io.source import PieceFile, spool

    rng = np.random.default_rng(39)
    for _ in range(200):
        data = bytes(rng.integers(0, 256, int(rng.integers(0, 300)), dtype=np.uint8))
        cuts = np.sort(rng.integers(0, len(data) + 1, int(rng.integers(0, 6))))
        pieces = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]
        closed = []
        got, want = PieceFile(pieces, lambda closed=closed: closed.append(1)), io.BytesIO(data)
        while True:
            size = int(rng.choice([-1, 0, 1, 2, 7, 64, 500]))
            if rng.random() < 0.3:
                buf, ref = bytearray(max(size, 0)), bytearray(max(size, 0))
                assert got.readinto(buf) == want.readinto(ref) and buf == ref
            else:
                assert got.read(size) == want.read(size)
            if want.tell() == len(data) and size != 0:
                assert got.read() == b""
                break
        got.close()
        got.close()
        assert closed == [1]
    copy = spool(io.BytesIO(data), "<test>")
    with open(copy.name, "rb") as fh:
        assert fh.read() == data
    copy.close()
    assert not os.path.exists(copy.name)
