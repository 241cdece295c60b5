"""Every click-log input kind read in pieces equals the log read whole.

Every format (JSON lines, PyClick, Yandex, CSV, TSV, Parquet, Arrow IPC file and stream)
x compression (none, gzip in one member, gzip in two members cut anywhere, a session's
middle included; gzip without a ``.gz`` name) x where it comes from (a path, standard
input), on seeded random logs (CRLF or LF, a byte-order mark, blank lines, quoted line
breaks, Arrow batches and Parquet row groups of 1-7 rows), with the pieces made tiny
(decompressed and read a few bytes at a time, Arrow's CSV blocks of a few bytes, table
batches of one row) so that every boundary falls inside a session: the sessions equal
those generated (an independent parse written in the tests) and the log read whole from
the decompressed bytes in memory. Adversarial inputs (empty, one session, truncated or
corrupt gzip) give the whole read's result or its one error line.
"""

from __future__ import annotations

import gzip
import io
import sys

import numpy as np
import pytest

from cranfield.clicks.log import _read, read_log, read_table, read_text
from cranfield.core.io import source as source_module
from cranfield.core.io import text_stream
from cranfield.errors import InputError

from .test_click_log_engine import _independent, _write
from .test_click_log_pieces import (
    _same,
    _table_sessions,
    _with_times,
    _write_table,
    _yandex_file,
    _yandex_oracle,
)
from .test_click_log_stream import _error

FORMATS = ["jsonl", "pyclick", "yandex", "csv", "tsv", "parquet", "arrow", "arrow-stream"]
TEXT = ("jsonl", "pyclick", "yandex")


def _fmt(kind: str) -> str:
    return "arrow" if kind == "arrow-stream" else kind


def _log_file(tmp_path, kind: str, rng, case: int, n: int | None = None):
    """A seeded random log in ``kind`` and the sessions it holds (the oracle); ``n``
    sessions (over 300: 300 drawn, repeated)."""
    n = n or int(rng.integers(1, 30))
    path = tmp_path / f"{case}.{_fmt(kind)}"
    if kind == "yandex":
        path, lines = _yandex_file(tmp_path, rng, case)
        return path, _with_times(*_yandex_oracle(lines))
    sessions = _many(rng, n)
    if kind in ("jsonl", "pyclick"):
        _write(path, kind, sessions, rng)
    elif kind == "arrow-stream":
        _write_binary(path, kind, sessions, int(rng.integers(1, 8)))
    else:
        _write_table(path, kind, sessions, rng)
    if kind in ("jsonl", "pyclick", "csv", "tsv") and rng.random() < 0.3:
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())  # a byte-order mark
    return path, _independent(sessions)


def _many(rng, n: int) -> list:
    """``n`` sessions: drawn (slow: a few thousand a second), repeated past 300."""
    drawn = _table_sessions(rng, min(n, 300))
    return (drawn * (n // len(drawn) + 1))[:n]


def _write_binary(path, kind: str, sessions, rows: int) -> None:
    """Parquet or Arrow IPC (file or stream), record batches or row groups of ``rows``."""
    import pyarrow as pa
    import pyarrow.ipc as ipc
    import pyarrow.parquet as pq

    table = pa.table(
        {
            "query": [q for q, _, _ in sessions],
            "docs": [list(d) for _, d, _ in sessions],
            "clicks": [[int(x) for x in c] for _, _, c in sessions],
        }
    )
    if kind == "parquet":
        pq.write_table(table, path, row_group_size=rows)
        return
    with (ipc.new_stream if kind == "arrow-stream" else ipc.new_file)(
        str(path), table.schema
    ) as out:
        out.write_table(table, max_chunksize=rows)


def _whole(raw: bytes, source: str, kind: str):
    """The log read whole from its bytes in memory (gunzipped first, as every input
    is): the readers' whole-text and whole-table paths."""
    data = source_module.load(iter([raw]), source, text=False)
    if kind in TEXT:
        return read_text(data, source, kind)
    return read_table(data, source, _fmt(kind), batch_rows=1 << 30)


def _gzip_members(data: bytes, rng) -> bytes:
    """``data`` gzip-compressed in two members cut at a random byte (``cat a.gz b.gz``)."""
    cut = int(rng.integers(0, len(data) + 1))
    return gzip.compress(data[:cut], mtime=0) + gzip.compress(data[cut:], mtime=0)


def _stdin(monkeypatch, content: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(content)))


def _tiny(monkeypatch, rng) -> None:
    """Pieces of a few bytes everywhere: reading, gunzipping, Arrow's CSV blocks."""
    monkeypatch.setattr(source_module, "_PIECE", int(rng.integers(2, 64)))
    monkeypatch.setattr(text_stream, "BLOCK_BYTES", int(rng.integers(1, 200)))
    monkeypatch.setattr(text_stream, "PIECE_BYTES", int(rng.integers(1, 200)))
    monkeypatch.setattr(text_stream, "HEAD_BYTES", int(rng.integers(1, 200)))


def _read_kind(path, kind: str, rng):
    """The log read from ``path`` in pieces, one way or another."""
    fmt = _fmt(kind)
    if kind in TEXT:
        return _read(path, fmt, int(rng.integers(1, 64)), None)
    if rng.random() < 0.5:
        return read_table(path, str(path), fmt, batch_rows=int(rng.integers(1, 4)))
    return read_log(path, fmt)


@pytest.mark.parametrize("kind", FORMATS)
def test_every_compression_and_stdin_equals_the_whole_read(tmp_path, monkeypatch, kind):
    rng = np.random.default_rng(3900 + FORMATS.index(kind))
    times = kind == "yandex"
    for case in range(6):
        path, want = _log_file(tmp_path, kind, rng, case)
        data = path.read_bytes()
        whole = _whole(data, str(path), kind)
        _same(whole, want, times)
        zipped = tmp_path / f"{case}.{_fmt(kind)}.gz"
        zipped.write_bytes(gzip.compress(data, mtime=0))
        members = tmp_path / f"{case}.members"  # (no .gz name: told by its magic)
        members.write_bytes(_gzip_members(data, rng))
        with monkeypatch.context() as patched:
            _tiny(patched, rng)
            for p in (path, zipped, members):
                _same(_read_kind(p, kind, rng), whole, times)
            for content in (data, zipped.read_bytes(), members.read_bytes()):
                _stdin(patched, content)
                _same(read_log("-", _fmt(kind)), whole, times)
            if kind != "arrow-stream":  # (told from the content: the stream's name is .arrow)
                _stdin(patched, members.read_bytes())
                _same(read_log("-"), whole, times)


@pytest.mark.parametrize("kind", FORMATS)
def test_one_session(tmp_path, monkeypatch, kind):
    rng = np.random.default_rng(39)
    path, want = _log_file(tmp_path, kind, rng, 0, n=1)
    if kind == "yandex":
        path.write_bytes(b"7\t0\tQ\tq\t0\ta\tb\n7\t3\tC\tb\n")
        want = _whole(path.read_bytes(), str(path), kind)
        assert want.n_sessions == 1 and want.clicks.tolist() == [[False, True]]
    zipped = tmp_path / "one.gz"
    zipped.write_bytes(gzip.compress(path.read_bytes(), mtime=0))
    with monkeypatch.context() as patched:
        _tiny(patched, rng)
        _same(_read_kind(zipped, kind, rng), want)
        _stdin(patched, zipped.read_bytes())
        _same(read_log("-", _fmt(kind)), want)


EMPTY = {"nothing": b"", "blank lines": b"\n\r\n  \n", "a byte-order mark": b"\xef\xbb\xbf"}


@pytest.mark.parametrize("kind", FORMATS)
@pytest.mark.parametrize("empty", EMPTY)
def test_empty_logs_are_the_whole_reads_one_error(tmp_path, monkeypatch, kind, empty):
    data = EMPTY[empty]
    if kind in ("parquet", "arrow", "arrow-stream") and data:
        return  # (not a binary table: its error is its own, tested below)
    path = tmp_path / f"empty.{_fmt(kind)}"
    zipped = tmp_path / "empty.gz"
    path.write_bytes(data)
    zipped.write_bytes(gzip.compress(data, mtime=0))
    for p in (path, zipped):
        want = _error(lambda p=p: _whole(p.read_bytes(), str(p), kind))
        assert want is not None and "\n" not in want
        assert _error(lambda p=p: read_log(p, _fmt(kind))) == want
        _stdin(monkeypatch, p.read_bytes())
        assert _error(lambda: read_log("-", _fmt(kind))) == want.replace(str(p), "<stdin>")


@pytest.mark.parametrize("kind", FORMATS)
def test_truncated_or_corrupt_gzip_is_one_line(tmp_path, monkeypatch, kind):
    rng = np.random.default_rng(139 + FORMATS.index(kind))
    path, _ = _log_file(tmp_path, kind, rng, 0, n=800)  # (over the 64 KiB sniffed)
    packed = gzip.compress(path.read_bytes(), mtime=0)
    spoiled = {
        "truncated": [packed[:cut] for cut in (len(packed) - 4, len(packed) // 2, 12)],
        "corrupt": [packed[:-8] + bytes([packed[-8] ^ 1]) + packed[-7:]],  # (its CRC)
    }
    for words, contents in spoiled.items():
        for n, content in enumerate(contents):
            p = tmp_path / f"{words}{n}.{_fmt(kind)}.gz"
            p.write_bytes(content)
            want = _error(lambda p=p: _whole(p.read_bytes(), str(p), kind))
            assert want is not None and words in want and "gzip" in want, want
            for tiny in (False, True):
                with monkeypatch.context() as patched:
                    if tiny:
                        _tiny(patched, rng)
                    assert _error(lambda p=p: _read_kind(p, kind, rng)) == want
                    _stdin(patched, content)
                    got = _error(lambda: read_log("-", _fmt(kind)))
                    assert got == want.replace(str(p), "<stdin>")


def test_stdin_leaves_no_temporary_file(tmp_path, monkeypatch):
    """Standard input copied to a temporary file for a table: the file goes with the
    read, whether it succeeds or fails."""
    import tempfile

    rng = np.random.default_rng(5)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "spool"))
    (tmp_path / "spool").mkdir()
    for kind in ("csv", "parquet", "arrow"):
        path, want = _log_file(tmp_path, kind, rng, 0)
        packed = gzip.compress(path.read_bytes(), mtime=0)
        for content in (path.read_bytes(), packed, packed[:-6]):
            _stdin(monkeypatch, content)
            try:
                _same(read_log("-", kind), want)
            except InputError as exc:
                assert "truncated gzip data" in str(exc)
            assert not list((tmp_path / "spool").iterdir())


@pytest.mark.parametrize("kind", FORMATS)
def test_never_held_whole_under_a_small_budget(tmp_path, monkeypatch, kind):
    """With memory for 256 KiB of input read whole (``memory.input_budget``), a log of
    over 512 KiB, gzip-compressed or on standard input, is read all the same (only a
    piece is held), where reading it whole is refused."""
    from cranfield.core import memory

    rng = np.random.default_rng(77)
    if kind == "yandex":
        path = tmp_path / "log.yandex"
        pages = "".join(
            f"{i}\t0\tQ\tq{i % 7}\t0\ta\tb\tc{i % 5}\n{i}\t1\tC\tb\n" for i in range(20000)
        )
        path.write_text(pages)
        want = _whole(path.read_bytes(), str(path), kind)
    elif kind in TEXT or kind in ("csv", "tsv"):
        path, want = _log_file(tmp_path, kind, rng, 0, n=30000)
    else:  # (batches and row groups of 4,096 rows)
        path, sessions = tmp_path / "log.bin", _many(rng, 30000)
        _write_binary(path, kind, sessions, 4096)
        want = _independent(sessions)
    data = path.read_bytes()
    assert len(data) > 1 << 19 or kind == "parquet"
    zipped = tmp_path / "log.gz"
    zipped.write_bytes(gzip.compress(data, mtime=0))
    monkeypatch.setattr(memory, "input_budget", lambda: 1 << 18)
    if len(data) > 1 << 18:
        assert "more than 0 MiB" in _error(lambda: _whole(zipped.read_bytes(), "x", kind))
    times = kind == "yandex"
    _same(read_log(zipped, _fmt(kind)), want, times)
    for content in (data, zipped.read_bytes()):
        _stdin(monkeypatch, content)
        _same(read_log("-", _fmt(kind)), want, times)
