"""JSONL and PyClick logs read in chunks as they arrive, on one thread or two: the
same arrays, ids in the same order of first appearance, and the same one-line errors
(line numbers included) as the whole-text reader, whatever the chunk size, with lines,
CRLF line ends and errors straddling chunk boundaries."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from cranfield.clicks.log import _read, read_text
from cranfield.errors import InputError

from .test_click_log_engine import _independent, _sessions, _write

# chunk sizes down to one byte (every line and CRLF split), and one thread or two from
# the smallest piece (the halves' ids merged) or from 64 KiB (the default)
SETTINGS = [(1, None), (3, 1), (7, 2), (64, 1), (64, None), (1 << 20, 1), (1 << 24, 65536)]


def _logs(tmp_path, fmt, seed, cases, most):
    """``cases`` generated logs written in ``fmt``: (case, path, sessions)."""
    rng = np.random.default_rng(seed)
    for case in range(cases):
        sessions = _sessions(rng, int(rng.integers(2, most)))
        path = tmp_path / f"{case}.{fmt}"
        _write(path, fmt, sessions, rng)
        yield case, path, sessions


def _same(got, want):
    assert got.query_names.tolist() == want.query_names.tolist()
    assert got.doc_names.tolist() == want.doc_names.tolist()
    for name in ("query", "docs", "clicks"):
        assert np.array_equal(getattr(got, name), getattr(want, name)), name


@pytest.mark.parametrize("fmt", ["jsonl", "pyclick"])
def test_chunked_reads_equal_the_whole_text_reader(tmp_path, fmt):
    for _, path, sessions in _logs(tmp_path, fmt, 3939, 40, 40):
        want = _independent(sessions)
        _same(read_text(path.read_bytes(), str(path), fmt), want)
        for chunk, parallel_from in SETTINGS:
            _same(_read(path, fmt, chunk, parallel_from), want)


def test_a_large_log_on_two_threads_equals_one_thread(tmp_path):
    rng = np.random.default_rng(5)
    sessions = _sessions(rng, 20000)
    path = tmp_path / "big.jsonl"
    _write(path, "jsonl", sessions, rng)
    one = _read(path, "jsonl", 1 << 16, None)
    _same(one, _independent(sessions))
    _same(_read(path, "jsonl", 1 << 16, 1 << 10), one)
    _same(_read(path, "jsonl", 100_003, 1), one)


def test_gzip_and_a_byte_order_mark(tmp_path):
    rng = np.random.default_rng(8)
    sessions = _sessions(rng, 50)
    path = tmp_path / "log.jsonl"
    _write(path, "jsonl", sessions, rng)
    data = b"\xef\xbb\xbf" + path.read_bytes()
    zipped = tmp_path / "log.jsonl.gz"
    zipped.write_bytes(gzip.compress(data))
    for chunk, parallel_from in SETTINGS:
        _same(_read(zipped, "jsonl", chunk, parallel_from), _independent(sessions))


BAD_LINES = {
    "jsonl": [
        b'{"query": "q", "docs": ["a"], "clicks": [2]}',  # a record's refusal
        b'{"query": "q", "docs": ["a"], "clicks": [0]',  # not JSON
        b'{"query": "q", "docs": ["a"], "clicks": [0], }',  # not JSON (Python's words)
        b"[1, 2]",  # not an object
        b'{"query": "\xff", "docs": ["a"], "clicks": [0]}',  # not UTF-8
        b'{"query": "q", "docs": ["a\xc3"], "clicks": [0]}',  # a character cut short
    ],
    "pyclick": [
        b"q\ta,b : c;",  # clicked but not shown is fine; next ones are refused
        b"q\ta,b",
        b"q\ta : b : c;",
        b"q\t : ;",
        b"q\ta,b : a,,b;",
        b"q\t\xe6\x97\xa5\xff : ;",
    ],
}


def _error(read) -> str | None:
    try:
        read()
    except InputError as exc:
        return str(exc)
    return None


@pytest.mark.parametrize("fmt", ["jsonl", "pyclick"])
def test_errors_name_the_same_line_across_chunk_boundaries(tmp_path, fmt):
    rng = np.random.default_rng(390)
    for case, path, _ in _logs(tmp_path, fmt, 391, 24, 30):
        end = b"\r\n" if b"\r\n" in path.read_bytes() else b"\n"
        lines = path.read_bytes().split(end)
        at = int(rng.integers(0, len(lines)))
        bad = BAD_LINES[fmt][case % len(BAD_LINES[fmt])]
        path.write_bytes(end.join([*lines[:at], bad, *lines[at:]]))
        want = _error(lambda p=path: read_text(p.read_bytes(), str(p), fmt))
        for chunk, parallel_from in SETTINGS:
            got = _error(lambda p=path, c=chunk, n=parallel_from: _read(p, fmt, c, n))
            assert got == want, (case, chunk, parallel_from)
        if b"\xff" in bad or bad.endswith(b'\xc3"], "clicks": [0]}'):
            assert "UTF-8" in want
        elif fmt == "jsonl" or bad != BAD_LINES[fmt][0]:
            assert f":{at + 1}:" in want, want


def test_times_of_some_sessions_only(tmp_path):
    """Times held from the first session that has them on (NaN before, in sessions
    without and after a shorter list), whichever chunk or half it falls in."""
    import json

    rng = np.random.default_rng(77)
    for case in range(30):
        n = int(rng.integers(1, 30))
        with_times = rng.random(n) < (0.0 if case % 5 == 0 else 0.2)
        lines, want = [], np.full((n, 4), np.nan)
        for i in range(n):
            k = int(rng.integers(1, 5))
            rec = {"query": f"q{i % 3}", "docs": [f"d{j}" for j in range(k)], "clicks": [0] * k}
            if with_times[i]:
                rec["times"] = [round(float(x), 3) for x in rng.random(k) * 10]
                want[i, :k] = rec["times"]
            lines.append(json.dumps(rec))
        path = tmp_path / f"{case}.jsonl"
        path.write_text("\n".join(lines) + "\n")
        width = max(len(json.loads(x)["docs"]) for x in lines)
        for chunk, parallel_from in SETTINGS:
            got = _read(path, "jsonl", chunk, parallel_from)
            if not with_times.any():
                assert got.times is None
            else:
                assert np.array_equal(got.times, want[:, :width], equal_nan=True)


def test_a_chunk_ending_in_a_run_of_carriage_returns(tmp_path):
    """Lines ended by CR alone, a long run of them at the end of a chunk (each is a
    complete blank line but the last, which a LF may follow)."""
    path = tmp_path / "log.pyclick"
    path.write_bytes(b"q1\ta,b : a;" + b"\r" * 3_000_000 + b"q2\tb : ;\r\nq3\tb : x : y;\r")
    for chunk, parallel_from in [(1 << 20, None), (1 << 20, 1), (1 << 24, 1)]:
        with pytest.raises(InputError, match=r":3000002: .*':'"):
            _read(path, "pyclick", chunk, parallel_from)


@pytest.mark.parametrize("fmt", ["jsonl", "pyclick"])
def test_bad_utf8_after_lines_ended_by_cr_alone_names_its_line(tmp_path, fmt):
    """The line of a byte that is not UTF-8 counts lines ended by CR alone, as every
    other message does (the whole-text reader counted only LF)."""
    good = b'{"query": "q", "docs": ["a"], "clicks": [0]}' if fmt == "jsonl" else b"q\ta : ;"
    bad = good.replace(b"q", b"q\xff", 1)
    data = good + b"\r" + good + b"\r\r" + bad + b"\r" + good + b"\r"
    path = tmp_path / f"log.{fmt}"
    path.write_bytes(data)
    with pytest.raises(InputError, match=":4: not valid UTF-8"):
        read_text(data, str(path), fmt)
    for chunk, parallel_from in SETTINGS:
        with pytest.raises(InputError, match=":4: not valid UTF-8"):
            _read(path, fmt, chunk, parallel_from)
