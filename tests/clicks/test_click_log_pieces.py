"""Every click-log format read in pieces equals the log read whole.

The Yandex log handed to the engine a few bytes to MiBs at a time (its clicks refer to
pages any number of lines, and pieces, before) against a plain parse written here; CSV,
TSV, Parquet and Arrow tables handed over a record batch (or a slice of rows) at a time,
Arrow's CSV blocks made tiny so that records straddle them, against the generated
sessions and the table read whole; gzip and standard input; the same one-line errors on
the same lines whatever the pieces.
"""

from __future__ import annotations

import gzip
import io
import sys

import numpy as np
import pytest

from cranfield.clicks.log import _read, read_log, read_table, read_text
from cranfield.core.io import text_stream

from .test_click_log_engine import IDS, _independent, _sessions
from .test_click_log_stream import _error

# (bytes a piece, two threads from) as test_click_log_stream.py: one byte up to 16 MiB
SETTINGS = [(1, None), (3, 1), (7, 2), (64, 1), (1 << 20, None), (1 << 24, 65536)]


def _same(got, want, times=False):
    assert got.query_names.tolist() == want.query_names.tolist()
    assert got.doc_names.tolist() == want.doc_names.tolist()
    for name in ("query", "docs", "clicks"):
        assert np.array_equal(getattr(got, name), getattr(want, name)), name
    if times:
        assert (got.times is None) == (want.times is None)
        if want.times is not None:
            assert np.array_equal(got.times, want.times, equal_nan=True)


# -- Yandex -------------------------------------------------------------------------------


def _yandex_lines(rng, n_pages: int, big: bool) -> list[str]:
    """A Yandex log: sessions interleaved, several pages each (``big``: some sessions
    showing over 64 documents), a URL repeated on a page, clicks on the latest page,
    on earlier pages, on URLs the session never showed and on URLs nobody showed."""
    lines: list[str] = []
    shown: dict[str, list[str]] = {}
    for _ in range(n_pages):
        session = str(rng.integers(0, 3 if big else 6))
        k = int(rng.integers(1, 30 if big else 6))
        docs = [str(x) for x in rng.choice([*IDS, "u1", "u2"], size=k)]
        time = int(rng.integers(0, 100))
        query = str(rng.choice(["q1", "10", "ключ"]))
        lines.append(f"{session}\t{time}\tQ\t{query}\t{rng.integers(0, 9)}\t" + "\t".join(docs))
        shown.setdefault(session, []).extend(docs)
        for _ in range(int(rng.integers(0, 4))):
            who = str(rng.choice(list(shown)))
            url = str(rng.choice([*shown[who], "never", "u1"]))
            lines.append(f"{who}\t{int(rng.integers(0, 120))}\tC\t{url}")
        if rng.random() < 0.1:
            lines.append("   ")
    return lines


def _yandex_oracle(lines: list[str]):
    """The log as the published format reads: a click counts once, on the latest page
    of its session showing the URL (its first rank there), at the click's time minus
    the page's (at least 0)."""
    pages = []  # [query, docs, clicks, times, page time]
    latest: dict[str, list[int]] = {}
    for line in lines:
        f = line.split("\t")
        if not line.strip():
            continue
        if f[2] == "Q":
            latest.setdefault(f[0], []).append(len(pages))
            k = len(f) - 5
            pages.append([f[3], f[5:], [False] * k, [np.nan] * k, float(f[1])])
        else:
            for p in reversed(latest[f[0]]):
                if f[3] in pages[p][1]:
                    rank = pages[p][1].index(f[3])
                    if not pages[p][2][rank]:
                        pages[p][2][rank] = True
                        pages[p][3][rank] = max(float(f[1]) - pages[p][4], 0.0)
                    break
    want = _independent([(q, d, np.array(c)) for q, d, c, _, _ in pages])
    k = want.docs.shape[1]
    times = np.full((len(pages), k), np.nan)
    for i, page in enumerate(pages):
        times[i, : len(page[3])] = page[3]
    return want, (times if any(any(p[2]) for p in pages) else None)


def _yandex_file(tmp_path, rng, case: int, big: bool = False):
    lines = _yandex_lines(rng, int(rng.integers(1, 40)), big)
    end = "\r\n" if rng.random() < 0.5 else "\n"
    text = end.join(lines) + (end if rng.random() < 0.7 else "")  # a last line end or not
    path = tmp_path / f"{case}.yandex"
    path.write_bytes(text.encode())
    return path, lines


def _with_times(log, times):
    return log._replace(times=times)


@pytest.mark.parametrize("big", [False, True])
def test_yandex_in_pieces_equals_a_plain_parse(tmp_path, big):
    rng = np.random.default_rng(39 + big)
    for case in range(40):
        path, lines = _yandex_file(tmp_path, rng, case, big)
        want = _with_times(*_yandex_oracle(lines))
        _same(read_text(path.read_bytes(), str(path), "yandex"), want, times=True)
        for chunk, parallel_from in SETTINGS:
            _same(_read(path, "yandex", chunk, parallel_from), want, times=True)


def test_yandex_gzip_stdin_and_a_byte_order_mark(tmp_path, monkeypatch):
    rng = np.random.default_rng(3939)
    path, lines = _yandex_file(tmp_path, rng, 0, True)
    want = _with_times(*_yandex_oracle(lines))
    data = b"\xef\xbb\xbf" + path.read_bytes()
    zipped = tmp_path / "log.yandex.gz"
    zipped.write_bytes(gzip.compress(data))
    for chunk, parallel_from in SETTINGS:
        _same(_read(zipped, "yandex", chunk, parallel_from), want, times=True)
    for content in (data, gzip.compress(data)):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(content)))
        _same(read_log("-"), want, times=True)  # (told from the content)


BAD_YANDEX = [
    "1\t0\tQ\tq\t0",  # no URL
    "1\t5\tC\ta\textra",
    "77\t5\tC\ta",  # a session without a query
    "1\tsoon\tC\ta",
    "1\t-1\tQ\tq\t0\ta",
    "1\t0\tX\tq",
    "1\t0\tQ\t\t0\ta",  # an empty query id
    "1\t0\tQ\tq\t0\ta\t\tb",  # an empty URL
    "1\t0\tQ\tq\xff\t0\ta",  # not UTF-8
]


def test_yandex_errors_name_the_same_line_in_any_pieces(tmp_path):
    rng = np.random.default_rng(390)
    for case in range(27):
        path, lines = _yandex_file(tmp_path, rng, case)
        lines = ["1\t0\tQ\tq\t0\ta", *lines]
        at = int(rng.integers(1, len(lines) + 1))
        bad = BAD_YANDEX[case % len(BAD_YANDEX)]
        data = "\n".join([*lines[:at], bad, *lines[at:]]).encode()
        data = data.replace("\xff".encode(), b"\xff")  # (a byte that is not UTF-8)
        path.write_bytes(data)
        want = _error(lambda p=path: read_text(p.read_bytes(), str(p), "yandex"))
        assert want is not None and f":{at + 1}: " in want, (case, want)
        for chunk, parallel_from in SETTINGS:
            got = _error(lambda p=path, c=chunk, n=parallel_from: _read(p, "yandex", c, n))
            assert got == want, (case, chunk)


# -- tables ---------------------------------------------------------------------------------


def _table_sessions(rng, n):
    sessions = _sessions(rng, n)
    return [(q, [d.replace(",", "-") for d in docs], c) for q, docs, c in sessions]


def _write_table(path, fmt, sessions, rng):
    if fmt in ("parquet", "arrow"):
        import pyarrow as pa

        table = pa.table(
            {
                "query": [q for q, _, _ in sessions],
                "docs": [list(d) for _, d, _ in sessions],
                "clicks": [[int(x) for x in c] for _, _, c in sessions],
            }
        )
        if fmt == "parquet":
            import pyarrow.parquet as pq

            pq.write_table(table, path, row_group_size=int(rng.integers(1, 8)))
        else:
            import pyarrow.ipc as ipc

            with ipc.new_file(str(path), table.schema) as out:
                out.write_table(table, max_chunksize=int(rng.integers(1, 8)))
        return
    sep = "," if fmt == "csv" else "\t"
    end = "\r\n" if rng.random() < 0.5 else "\n"
    lines = [f"query{sep}docs{sep}clicks"]
    for q, d, c in sessions:
        docs, flags = " ".join(d), " ".join(str(int(x)) for x in c)
        if fmt == "csv" and rng.random() < 0.3:  # a quoted field across lines
            docs = '"' + docs.replace(" ", "\n", 1) + '"'
        lines.append(f"{q}{sep}{docs}{sep}{flags}")
        if rng.random() < 0.05:
            lines.append("")
    path.write_bytes((end.join(lines) + (end if rng.random() < 0.7 else "")).encode())


TABLES = ["csv", "tsv", "parquet", "arrow"]


@pytest.mark.parametrize("fmt", TABLES)
def test_tables_in_batches_equal_the_whole_read(tmp_path, monkeypatch, fmt):
    rng = np.random.default_rng(TABLES.index(fmt))
    for case in range(12):
        sessions = _table_sessions(rng, int(rng.integers(1, 60)))
        path = tmp_path / f"{case}.{fmt}"
        _write_table(path, fmt, sessions, rng)
        want = _independent(sessions)
        whole = read_table(path.read_bytes(), str(path), fmt, batch_rows=1 << 30)
        _same(whole, want)
        monkeypatch.setattr(text_stream, "BLOCK_BYTES", int(rng.integers(1, 200)))
        for rows in (1, 2, 7, 1 << 17):
            _same(read_table(path, str(path), fmt, batch_rows=rows), want)
            _same(read_table(path.read_bytes(), str(path), fmt, batch_rows=rows), want)
        _same(read_log(path, fmt), want)


def test_tables_gzip_and_stdin(tmp_path, monkeypatch):
    rng = np.random.default_rng(17)
    for fmt in TABLES:
        sessions = _table_sessions(rng, 30)
        path = tmp_path / f"log.{fmt}"
        _write_table(path, fmt, sessions, rng)
        want = _independent(sessions)
        zipped = tmp_path / f"log.{fmt}.gz"
        zipped.write_bytes(gzip.compress(path.read_bytes()))
        _same(read_log(zipped, fmt), want)
        for content in (path.read_bytes(), zipped.read_bytes()):
            monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(content)))
            _same(read_log("-", fmt), want)


BAD_ROWS = [
    ("q", "a b", "0 2", "expected click flags 0 or 1"),
    ("q", "a b", "0", "2 documents but 1 click flags"),
    ("", "a b", "0 0", "missing field 'query'"),
    ("q", "", "", "missing field 'docs'"),
]


@pytest.mark.parametrize("fmt", TABLES)
def test_table_errors_name_the_same_line_or_row(tmp_path, monkeypatch, fmt):
    rng = np.random.default_rng(100 + TABLES.index(fmt))
    for case in range(16):
        sessions = _table_sessions(rng, int(rng.integers(1, 40)))
        at = int(rng.integers(0, len(sessions) + 1))
        q, d, c, words = BAD_ROWS[case % len(BAD_ROWS)]
        path = tmp_path / f"{case}.{fmt}"
        if fmt in ("parquet", "arrow"):
            if not d:
                continue  # (a list column has no blank cell)
            rows = [(s[0], s[1], [int(x) for x in s[2]]) for s in sessions]
            rows.insert(at, (q or None, d.split(), [int(x) for x in c.split()]))
            _write_table(path, fmt, [(a, b, np.array(x)) for a, b, x in rows], rng)
        else:
            sep = "," if fmt == "csv" else "\t"
            good = tmp_path / f"good.{fmt}"
            _write_table(good, fmt, sessions, rng)
            text = good.read_bytes().decode()
            end = "\r\n" if "\r\n" in text else "\n"
            head, rest = text.split(end, 1)
            records = _records(rest, end)
            records.insert(at, sep.join((q, d, c)))
            path.write_bytes((end.join([head, *records]) + end).encode())
            line = 2 + sum(r.count("\n") + 1 for r in records[:at])
        want = _error(lambda p=path: read_table(p.read_bytes(), str(p), fmt, batch_rows=1 << 30))
        assert want is not None and words in want, (case, want)
        if fmt in ("parquet", "arrow"):
            assert f" row:{at + 1}: " in want, want  # (the wording before: FILE row:N:)
        else:
            assert f":{line}: " in want, (want, line)
        monkeypatch.setattr(text_stream, "BLOCK_BYTES", int(rng.integers(1, 200)))
        monkeypatch.setattr(text_stream, "PIECE_BYTES", int(rng.integers(1, 200)))
        for rows in (1, 3, 1 << 17):
            assert _error(lambda p=path, r=rows: read_table(p, str(p), fmt, batch_rows=r)) == want
        assert _error(lambda p=path: read_log(p, fmt)) == want


def _records(text: str, end: str) -> list[str]:
    """The records of CSV text (a quoted field's line break kept inside its record),
    blank lines dropped."""
    out: list[str] = []
    for line in text.split(end):
        if out and out[-1].count('"') % 2:
            out[-1] += end + line
        elif line:
            out.append(line)
    return out
