"""The byte scan behind the fast TREC reader, and the prescan the command line starts."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cranfield.core.io import scan, trec

CLEAN = b"1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n"


@pytest.fixture(autouse=True)
def prescan_small_files(monkeypatch):
    monkeypatch.setattr(scan, "PRESCAN_MIN", 0)


@pytest.mark.parametrize(
    ("text", "rows", "agrees"),
    [
        (CLEAN, 2, True),
        (CLEAN[:-1], 2, True),  # no final newline
        (CLEAN, 3, False),  # Arrow counted another line: something is off
        (b"1 Q0 a 1 2.0 t \n", 1, False),  # trailing space: an empty field
        (b"1  Q0 a 1 2.0 t\n", 1, False),  # two spaces
        (b" 1 Q0 a 1 2.0 t\n", 1, False),  # leading space
        (b"1 Q0 a 1 2.0 t\r\n", 1, False),  # CR: two separators touch
        (b"1 Q0\tx a 1 2.0 t\n", 1, False),  # a tab inside a field Arrow saw
        (b"1 Q0 a 1 2.0 t\n\n", 2, False),  # blank line
        (b"1 Q0 a 1 2.0 t ", 1, False),  # ends with a delimiter, no newline
        (b"", 0, False),
    ],
)
def test_scan_verdicts(tmp_path, text, rows, agrees):
    path = tmp_path / "run.txt"
    path.write_bytes(text)
    for source in (text, path):
        assert scan.scan(source).agrees(rows, 6) is agrees


def test_scan_of_chunks_equals_whole(tmp_path, monkeypatch):
    # separators touching across a chunk border are found too
    monkeypatch.setattr(scan, "_CHUNK", 7)
    rng = np.random.default_rng(1)
    for _ in range(50):
        fields = rng.choice([b"a", b"bb", b"ccc", b""], size=(5, 6))
        text = b"\n".join(b" ".join(row) for row in fields) + b"\n"
        whole = b"" not in fields.ravel()
        assert scan.scan(text).agrees(5, 6) is whole


@pytest.mark.parametrize(
    "text", [CLEAN * 1000, CLEAN[:-1], b"1 Q0 a 1 2.0 t \n", b"x" * 5000, b"\n"]
)
def test_prescan_in_a_thread_is_collected_once(tmp_path, monkeypatch, text):
    monkeypatch.setattr(scan, "_can_fork", lambda: False)
    path = tmp_path / "run.txt"
    path.write_bytes(text)
    scan.prescan(path)
    assert isinstance(scan._pending[scan._identity(path)][0], scan._Threaded)
    assert scan.take(path) == scan.scan(path)
    assert scan.take(path) is None  # taken: the next reader scans on its own


FORKED = r"""
import sys
from pathlib import Path
from cranfield.core.io import scan  # no NumPy yet: the process has one thread

scan.PRESCAN_MIN = 0

d = Path(sys.argv[1])
texts = [b"1 Q0 a 1 2.0 t\n" * (i + 1) for i in range(30)] + [
    b"1  Q0 a 1 2.0 t\n", b"1 Q0 a 1 2.0 t ", b"x" * 5000, "1 Q0 é 1 2 t\n".encode()
]
paths = []
for i, text in enumerate(texts):
    paths.append(d / f"run{i}.txt")
    paths[-1].write_bytes(text)
assert scan._can_fork()
# a child that fails to scan: the reader is told to scan on its own
real = scan.scan
scan.scan = lambda path: 1 / 0
scan.prescan(paths[-1])
scan.scan = real
assert scan.take(paths[-1]) is None
scan.prescan([*paths, paths[0], d / "missing.txt"])  # repeats and misses are skipped
batch = scan._pending[scan._identity(paths[0])][0]
assert isinstance(batch, scan._Forked)
# the child lets go of the standard streams (a reader of the command's output must not
# wait for it); poll, as the child redirects them right after it starts
import os, time
for _ in range(500):
    try:
        if all(os.readlink(f"/proc/{batch.pid}/fd/{fd}") == os.devnull for fd in (0, 1, 2)):
            break
    except FileNotFoundError:  # already done and gone
        break
    time.sleep(0.01)
else:
    raise AssertionError("the prescan child kept the standard streams")
order = [3, 0, 31, 7, 33, 1, 2] + list(range(4, 7)) + list(range(8, 31)) + [32]
for i in order:
    assert scan.take(paths[i]) == scan.scan(paths[i]), i
assert not scan._pending
print("ok")
"""


def test_prescan_in_a_forked_child(tmp_path):
    # in a fresh interpreter: pytest's own process has threads, so it never forks
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2] / "src"))
    done = subprocess.run(
        [sys.executable, "-c", FORKED, str(tmp_path)], capture_output=True, env=env
    )
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout == b"ok\n"


def test_prescan_of_a_changed_file_is_ignored(tmp_path):
    path = tmp_path / "run.txt"
    path.write_bytes(CLEAN)
    scan.prescan(path)
    path.write_bytes(CLEAN + b"2 Q0 c 1 3.0 t\n")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert scan.take(path) is None
    parsed = trec.parse(path, trec.RUN, "x")
    assert parsed.table.num_rows == 3


def test_no_prescan_for_gzip_small_or_missing_files(tmp_path, monkeypatch):
    gz = tmp_path / "run.txt.gz"
    gz.write_bytes(gzip.compress(CLEAN))
    scan.prescan(gz)
    assert scan.take(gz) is None
    plain = tmp_path / "run.txt"
    plain.write_bytes(CLEAN)
    monkeypatch.setattr(scan, "PRESCAN_MIN", len(CLEAN) + 1)  # too small to bother
    scan.prescan(plain)
    assert scan.take(plain) is None
    scan.prescan(tmp_path / "missing.txt")
    scan.prescan(tmp_path)  # a directory
    assert scan.take(tmp_path / "missing.txt") is None


def test_reader_uses_the_prescan_and_still_verifies(tmp_path):
    path = tmp_path / "run.txt"
    path.write_bytes(b"1 Q0 a 1 2.0 t\n1 Q0\tb 2 1.0 t\n")
    scan.prescan(path)
    parsed = trec.parse(path, trec.RUN, "x")  # the prescan says: not for the fast path
    assert parsed.lines is not None  # the exact reader's line numbers
    assert parsed.table["doc_id"].to_pylist() == ["a", "b"]


def test_ascii_flag_and_non_ascii_ids(tmp_path):
    assert scan.scan(CLEAN).ascii
    text = "1 Q0 café 1 2.0 t\n1 Q0 b 2 1.0 t\n".encode()
    assert not scan.scan(text).ascii
    path = tmp_path / "run.txt"
    path.write_bytes(text)
    scan.prescan(path)
    parsed = trec.parse(path, trec.RUN, "x")
    assert parsed.lines is None  # the fast path, with UTF-8 validation of its chunks
    assert parsed.table["doc_id"].to_pylist() == ["café", "b"]
    path.write_bytes(b"1 Q0 a 1 2.0 t\n1 Q0 caf\xe9 2 1.0 t\n")  # Latin-1, not UTF-8
    scan.prescan(path)
    with pytest.raises(trec.InputError, match=r"doc_id is not valid UTF-8.*") as info:
        trec.parse(path, trec.RUN, str(path))
    assert info.value.line == 2


def test_prescan_of_several_files_in_a_thread(tmp_path, monkeypatch):
    monkeypatch.setattr(scan, "_can_fork", lambda: False)
    texts = [CLEAN * (i + 1) for i in range(12)] + [b"1  Q0 a 1 2.0 t\n"]
    paths = []
    for i, text in enumerate(texts):
        paths.append(tmp_path / f"run{i}.txt")
        paths[-1].write_bytes(text)
    scan.prescan([*paths, paths[0], tmp_path / "missing.txt"])
    for i in [3, 0, 12, 7, 1, 2, 4, 5, 6, 8, 9, 10, 11]:
        assert scan.take(paths[i]) == scan.scan(paths[i])
    assert not any(scan._identity(p) in scan._pending for p in paths)
    monkeypatch.setattr(scan, "scan", lambda path: 1 / 0)  # a failed scan: None
    scan.prescan(paths[0])
    assert scan.take(paths[0]) is None


THREAD_COUNT = """
import threading
from cranfield.core.io import scan

alone = (scan._threads(), scan._can_fork())
stop = threading.Event()
worker = threading.Thread(target=stop.wait)
worker.start()
busy = (scan._threads(), scan._can_fork())
stop.set()
worker.join()
print(alone, busy)
"""


def test_threads_are_counted_with_native_ones():
    # In a fresh interpreter that has started no native thread pool (this test process may
    # have Arrow's or OpenBLAS's, whose threads come and go), the count is exact.
    done = subprocess.run(
        [sys.executable, "-c", THREAD_COUNT],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(scan.__file__).parents[3])},
        check=True,
    )
    assert done.stdout.split("\n")[0] == "(1, True) (2, False)", done.stdout + done.stderr


def test_prescan_falls_back_to_a_thread_when_fork_fails(tmp_path, monkeypatch):
    def no_fork():
        raise OSError("fork refused")

    monkeypatch.setattr(scan, "_can_fork", lambda: True)
    monkeypatch.setattr(scan.os, "fork", no_fork)
    path = tmp_path / "run.txt"
    path.write_bytes(CLEAN)
    scan.prescan(path)
    assert isinstance(scan._pending[scan._identity(path)][0], scan._Threaded)
    assert scan.take(path) == scan.scan(path)


def test_prescan_never_opens_pipes_or_devices(tmp_path):
    """Opening a named pipe blocks until a writer comes, and consumes what it writes:
    the prescan (a forked child) must leave pipes and devices to the reader."""
    import os
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    done = threading.Event()

    def start():
        scan.prescan([fifo, "/dev/zero", "/dev/urandom"])
        done.set()

    threading.Thread(target=start, daemon=True).start()
    assert done.wait(10), "prescan opened the pipe (and blocked)"
    assert scan.take(fifo) is None and scan.take("/dev/zero") is None
