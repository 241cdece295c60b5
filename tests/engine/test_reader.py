"""The compiled TREC reader (``cranfield._engine`` through ``io.trec``) against a plain
Python reading of the same text (``reference_reader.py``), on random and hostile inputs."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest
import reference_reader

from cranfield import _engine
from cranfield.core.io import trec
from cranfield.errors import InputError
from generators import rows_text, trec_rows

# pieces of lines: ids (non-ASCII, invalid UTF-8, a byte-order mark, control bytes, '#'),
# numbers in every form C and Arrow read or refuse, and every kind of whitespace
IDS = [
    b"1",
    b"2",
    b"q1",
    b"d",
    b"doc-1",
    b"\xe9",
    b"\xc3\xa9",
    b"#x",
    b"a#",
    BOM := b"\xef\xbb\xbf",
]
IDS += [b"\x01", b"\x1c", b"\xa0", b"Q0", b"0", b"\xff\xfe", b"\xed\xa0\x80", b"\xf4\x90\x80\x80"]
NUMBERS = [b"1", b"+1", b"-1", b"1.", b".5", b"-.5", b".", b"-", b"1e5", b"1E+5", b"1e", b"inf"]
NUMBERS += [b"-Infinity", b"nan", b"-nan", b"nan(1)", b"nan(", b"0x10", b"2.7", b"-0.5", b"007"]
NUMBERS += [b"1e3", b"9223372036854775808", b"-9223372036854775808", b"99999999999999999999"]
NUMBERS += [b"\xff", b"1\x01", b"+-1", b"0", b"1234567890.123456789", b"4.9e-324", b"1e-400"]
SEPARATORS = [b" ", b"  ", b"\t", b"\x0b", b"\x0c", b" \t "]
ENDS = [b"\n", b"\n", b"\n", b"\r\n", b"\r"]


def hostile_line(rng: np.random.Generator, kind: str) -> bytes:
    r = rng.random()
    if r < 0.05:
        return b""
    if r < 0.1:
        return [b"#", b"# comment", b"   ", b"\t", b"#1 Q0 a 1 1 t"][rng.integers(5)]
    want = 6 if kind == "run" else 4
    k = want if rng.random() < 0.85 else int(rng.integers(1, 9))
    value_at = want - 2 if kind == "run" else 3
    fields = []
    for j in range(k):
        if j == value_at and rng.random() < 0.9:
            pick = rng.random() < 0.3
            fields.append(
                NUMBERS[rng.integers(len(NUMBERS))] if pick else b"%d" % rng.integers(-5, 6)
            )
        elif rng.random() < 0.25:
            fields.append(IDS[rng.integers(len(IDS))])
        else:
            fields.append(
                b"%d" % rng.integers(1, 4) + (b"%d" % rng.integers(10) if j == 2 else b"")
            )
    seps = [
        SEPARATORS[rng.integers(len(SEPARATORS))] if rng.random() < 0.3 else b" " for _ in fields
    ]
    line = b"".join(f + s for f, s in zip(fields, seps, strict=True))[: -len(seps[-1])]
    if rng.random() < 0.1:
        line = SEPARATORS[rng.integers(len(SEPARATORS))] + line
    if rng.random() < 0.1:
        line += SEPARATORS[rng.integers(len(SEPARATORS))]
    if rng.random() < 0.01:
        line += b"\0"
    return line


def hostile_text(rng: np.random.Generator, kind: str) -> bytes:
    n = int(rng.integers(0, 9))
    parts = []
    for i in range(n):
        parts.append(hostile_line(rng, kind))
        if i < n - 1 or rng.random() < 0.7:
            parts.append(ENDS[rng.integers(len(ENDS))])
    text = b"".join(parts)
    return BOM + text if rng.random() < 0.05 else text


def engine_reading(data: bytes, kind: str, encoding: str):
    layout = trec.RUN if kind == "run" else trec.QRELS
    try:
        parsed = trec.parse(data, layout, "x", encoding=encoding)
    except InputError as exc:
        return ("error", exc.message, exc.line)
    t = parsed.table
    columns = (t["query_id"].to_pylist(), t["doc_id"].to_pylist(), t[layout.value].to_pylist())
    rows = list(zip(*columns, strict=True))
    return ("ok", rows, [parsed.line_of(i) for i in range(len(rows))], parsed.tag)


def same(a, b) -> bool:
    """Equal readings, NaN equal to NaN and -0.0 told from 0.0."""
    if a[0] != b[0] or a[0] == "error":
        return a == b
    key = lambda rows: [  # noqa: E731
        (q, d, repr(v) if isinstance(v, float) else v) for q, d, v in rows
    ]
    return key(a[1]) == key(b[1]) and a[2:] == b[2:]


@pytest.mark.parametrize("kind", ["run", "qrels"])
@pytest.mark.parametrize("encoding", ["utf-8", "latin-1"])
def test_hostile_text_reads_as_the_reference_reads_it(kind, encoding):
    rng = np.random.default_rng(21 if kind == "run" else 22)
    outcomes = set()
    for _ in range(400):
        data = hostile_text(rng, kind)
        want = reference_reader.read(data, kind, encoding)
        got = engine_reading(data, kind, encoding)
        if want == ("error", f"no {kind} lines found (empty file?)", None) or (
            want[0] == "ok" and not want[1]
        ):
            want = ("error", f"no {kind} lines found (empty file?)", None)
        assert same(got, want), (data, got, want)
        outcomes.add(got[0] if got[0] == "ok" else got[1].split(" ")[0])
    # the inputs reach accepted files and each kind of problem
    assert {"ok", "expected", "NUL"} <= outcomes
    assert ("score" if kind == "run" else "relevance") in outcomes


def test_numbers_read_as_before():
    """Every score token Arrow's converter reads, the engine reads to the same double;
    every token it refuses, the engine refuses (NaN is read, then refused)."""
    rng = np.random.default_rng(5)
    alphabet = np.frombuffer(b"0123456789..eE+-infatyINFATY()_x", dtype=np.uint8)
    tokens = {bytes(rng.choice(alphabet, size=int(rng.integers(1, 9)))) for _ in range(1500)}
    tokens |= set(NUMBERS) | {b"1.7976931348623158e308", b"2.2250738585072011e-308"}
    for token in sorted(tokens):
        want = reference_reader.arrow_double(token)
        try:
            got = trec.parse(b"1 Q0 a 1 " + token + b" t\n", trec.RUN, "x").table["score"][0]
            got = got.as_py()
        except InputError as exc:
            got = math.nan if exc.message == "score is NaN" else None
        if want is None or got is None:
            assert want is got, token
        else:
            assert repr(want) == repr(got), token


def test_pieces_read_in_parallel_give_the_reference_rows(tmp_path):
    """An input of several 8 MiB pieces: comments and blank lines in every piece,
    queries running across piece ends; read from a file (piece by piece) and from bytes."""
    rng = np.random.default_rng(3)
    rows = trec_rows(rng, "run", 40)
    block = rows_text(rows) + b"# a comment\n\n"
    data = block * (int(17.5 * (1 << 20)) // len(block) + 1)
    path = tmp_path / "run.txt"
    path.write_bytes(data)
    n = data.count(b"\n") - 2 * (data.count(block))
    from_file = trec.parse(path, trec.RUN, "x")
    from_bytes = trec.parse(data, trec.RUN, "x")
    assert from_file.table.num_rows == n and from_file.table["query_id"].num_chunks >= 3
    assert from_file.table.equals(from_bytes.table)
    assert np.array_equal(from_file.lines, from_bytes.lines)
    per_block = len(rows) + 2
    want_lines = [b * per_block + r + 1 for b in range(n // len(rows)) for r in range(len(rows))]
    assert from_file.lines.tolist() == want_lines
    # the first problem is the one of the earliest line, whatever piece a thread took
    bad = bytearray(data)
    nul = len(bad) - 10
    bad[nul] = 0  # a NUL byte near the end, in the last piece
    at = bad.index(b"\n", 9 << 20) + 1
    bad[at : at + 2] = b"x\n"  # a line of one field in the second piece
    with pytest.raises(InputError, match="expected 6 fields") as info:
        trec.parse(bytes(bad), trec.RUN, "x")
    assert info.value.line == bytes(bad[:at]).count(b"\n") + 1
    path.write_bytes(bad)  # from a file, the NUL byte is found while reading, first
    with pytest.raises(InputError, match="NUL byte") as info:
        trec.parse(path, trec.RUN, "x")
    assert info.value.line == bytes(bad[:nul]).count(b"\n") + 1


def test_engine_arguments_are_checked():
    with pytest.raises(ValueError, match="kind"):
        _engine.read_trec_bytes(b"1 0 a 1\n", "csv", False, 100)
    with pytest.raises(TypeError):
        _engine.read_trec_bytes("text", "run", False, 100)
    with pytest.raises(OSError):
        _engine.read_trec_file("/nonexistent/run.txt", "run", False, 100)


def test_columns_are_arrow_arrays_over_the_engine_buffers():
    parsed = trec.parse(b"1 Q0 a 1 2.5 t\n1 Q0 bb 2 1 t\n", trec.RUN, "x")
    chunk = parsed.table["doc_id"].chunk(0)
    offsets, data = chunk.buffers()[1:]
    assert np.frombuffer(offsets, dtype=np.int32).tolist() == [0, 1, 3]
    assert data.to_pybytes() == b"abb"
    assert parsed.table["score"].to_pylist() == [2.5, 1.0]


def test_streams_are_read_whole_then_parsed_like_files(tmp_path):
    text = b"1 Q0 a 1 2.5 t\n\n1 Q0 b 2 1 u\n"
    path = tmp_path / "run.txt"
    path.write_bytes(text)
    a = trec.parse(io.BytesIO(text), trec.RUN, "x")
    b = trec.parse(path, trec.RUN, "x")
    assert a.table.equals(b.table) and a.tag == b.tag == "u" and a.lines.tolist() == [1, 3]


def _gz(data: bytes) -> bytes:
    import gzip

    return gzip.compress(data, mtime=0)


def test_gzip_files_are_decompressed_by_the_engine_piece_by_piece(tmp_path, monkeypatch):
    """A gzip file (recognised by its magic, whatever its name) reads as the plain
    file: several members (one empty), zero padding after the last, pieces of 8 MiB."""
    rng = np.random.default_rng(5)
    rows = trec_rows(rng, "run", 60)
    block = rows_text(rows) + b"# c\n"
    data = block * (int(9.5 * (1 << 20)) // len(block) + 1)
    cut = len(data) // 3
    path = tmp_path / "run.data"
    path.write_bytes(_gz(data[:cut]) + _gz(b"") + _gz(data[cut:]) + b"\0" * 1000)
    plain = tmp_path / "run.txt"
    plain.write_bytes(data)
    read = []
    real = _engine.read_trec_file
    monkeypatch.setattr(_engine, "read_trec_file", lambda *a: read.append(a[0]) or real(*a))
    got = trec.parse(path, trec.RUN, "x")
    assert read == [str(path)]  # the engine read the compressed file itself
    want = trec.parse(plain, trec.RUN, "x")
    assert got.table.equals(want.table) and np.array_equal(got.lines, want.lines)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda z: z[: len(z) // 2], "truncated gzip data"),
        (lambda z: z[:-1], "truncated gzip data"),
        (lambda z: z + b"garbage", "corrupt gzip data: trailing bytes"),
        (lambda z: z[:3] + b"\xff" + z[4:], "corrupt gzip data"),
        (lambda z: z[:-8] + bytes([z[-8] ^ 1]) + z[-7:], "corrupt gzip data"),
    ],
)
def test_broken_gzip_files_fail_with_one_message(tmp_path, make, message):
    path = tmp_path / "run.gz"
    path.write_bytes(make(_gz(b"1 Q0 a 1 2.5 t\n" * 5000)))
    with pytest.raises(InputError, match=message):
        trec.parse(path, trec.RUN, "x")


def test_gzip_that_decompresses_beyond_the_memory_budget_is_refused(tmp_path, monkeypatch):
    """A small file that inflates beyond what may be read whole stops at the budget."""
    path = tmp_path / "bomb.gz"
    path.write_bytes(_gz(b"1 Q0 a 1 2.5 t\n" * 400_000))  # 6 MB from a few kB
    monkeypatch.setattr(trec, "input_budget", lambda: 1 << 20)
    with pytest.raises(InputError, match="more than 1 MiB"):
        trec.parse(path, trec.RUN, "x")
