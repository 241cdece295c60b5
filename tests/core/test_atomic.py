"""cranfield.core.io.atomic: outputs are replaced whole or not at all, never over an input."""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from cranfield.core.io import atomic
from cranfield.core.io.atomic import atomic_path, check_output, write_bytes, write_text
from cranfield.errors import CranfieldError, OutputError

SRC = str(Path(__file__).resolve().parents[2] / "src")


def leftovers(directory: Path, keep: set[str]) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name not in keep)


def test_writes_new_file_with_umask(tmp_path):
    old = os.umask(0o027)
    try:
        write_text(tmp_path / "a.txt", "héllo\n")
    finally:
        os.umask(old)
    assert (tmp_path / "a.txt").read_text(encoding="utf-8") == "héllo\n"
    assert stat.S_IMODE((tmp_path / "a.txt").stat().st_mode) == 0o640
    assert leftovers(tmp_path, {"a.txt"}) == []


def test_replacement_keeps_permissions(tmp_path):
    target = tmp_path / "a.txt"
    target.write_text("old")
    target.chmod(0o604)
    write_bytes(target, b"new")
    assert target.read_bytes() == b"new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o604


def test_symlink_is_followed_and_kept(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    write_text(link, "new")
    assert link.is_symlink()
    assert real.read_text() == "new"


def test_error_in_writer_keeps_old_file_and_no_temp(tmp_path):
    target = tmp_path / "a.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_path(target) as tmp:
            tmp.write_text("half")
            raise RuntimeError("boom")
    assert target.read_text() == "old"
    assert leftovers(tmp_path, {"a.txt"}) == []


def test_full_disk_is_one_output_error(tmp_path, monkeypatch):
    target = tmp_path / "a.txt"
    target.write_text("old")
    real_fsync = os.fsync

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(atomic.os, "fsync", full)
    with pytest.raises(OutputError) as info:
        write_text(target, "new content")
    monkeypatch.setattr(atomic.os, "fsync", real_fsync)
    assert isinstance(info.value, CranfieldError)
    assert str(info.value).startswith(f"{target}: cannot write: ")
    assert "No space left" in str(info.value)
    assert target.read_text() == "old"
    assert leftovers(tmp_path, {"a.txt"}) == []


def test_path_callers_get_the_suffix(tmp_path):
    with atomic_path(tmp_path / "fig.svg") as tmp:
        assert tmp.parent == tmp_path and tmp.suffix == ".svg" and tmp.exists()
        tmp.write_text("<svg/>")
    assert (tmp_path / "fig.svg").read_text() == "<svg/>"
    assert leftovers(tmp_path, {"fig.svg"}) == []


def test_special_file_is_written_directly(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        write_bytes(fifo, b"through")  # written into, not replaced by a regular file
        assert os.read(reader, 100) == b"through"
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert leftovers(tmp_path, {"fifo"}) == []


def test_directory_and_missing_directory(tmp_path):
    with pytest.raises(OutputError, match="is a directory"):
        write_text(tmp_path, "x")
    with pytest.raises(OutputError, match="no such directory"):
        write_text(tmp_path / "nope" / "a.txt", "x")
    with pytest.raises(OutputError, match="no such directory"):
        check_output(tmp_path / "nope" / "a.txt")
    with pytest.raises(OutputError, match="is a directory"):
        check_output(tmp_path)


def test_check_output_finds_inputs_through_links(tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 d 1 1 r\n")
    (tmp_path / "soft").symlink_to(run)
    os.link(run, tmp_path / "hard")
    for out in (run, tmp_path / "soft", tmp_path / "hard", tmp_path / "." / "run.txt"):
        with pytest.raises(OutputError, match="is also an input"):
            check_output(out, ["qrels.txt", str(run)])
    # a dangling link whose target is an input path that does not exist yet
    (tmp_path / "dangling").symlink_to(tmp_path / "later.txt")
    with pytest.raises(OutputError, match="is also an input"):
        check_output(tmp_path / "later.txt", [str(tmp_path / "dangling")])
    check_output(tmp_path / "other.txt", [str(run)])  # a different file is fine
    # an argument that is no file (a measure named like the new output) is no input
    check_output(tmp_path / "AP", [str(tmp_path / "AP")])
    check_output(os.devnull, [os.devnull])  # nothing to lose in a device


def test_check_output_standard_input(tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("data")
    code = (
        "import sys; from cranfield.core.io.atomic import check_output\n"
        "try:\n    check_output(sys.argv[1], ['-'])\nexcept Exception as e:\n    print(e)\n"
    )
    with open(run, "rb") as fh:
        done = subprocess.run(
            [sys.executable, "-c", code, str(run)],
            stdin=fh,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": SRC},
            check=True,
        )
    assert "is also an input (standard input)" in done.stdout


def test_concurrent_writers_leave_one_complete_file(tmp_path):
    target = tmp_path / "a.txt"
    contents = [str(i) * 200_000 for i in range(8)]
    threads = [threading.Thread(target=write_text, args=(target, c)) for c in contents]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert target.read_text() in contents
    assert leftovers(tmp_path, {"a.txt"}) == []


def test_sigterm_during_write_removes_the_temporary_file(tmp_path):
    target = tmp_path / "a.txt"
    target.write_text("old")
    code = (
        "import os, signal, sys\n"
        "from cranfield.core.io.atomic import atomic_path\n"
        "with atomic_path(sys.argv[1]) as tmp:\n"
        "    tmp.write_text('partial')\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    tmp.write_text('never')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(target)],
        env={**os.environ, "PYTHONPATH": SRC},
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == -15, done
    assert target.read_text() == "old"
    assert leftovers(tmp_path, {"a.txt"}) == []


def test_signal_handlers_are_restored(tmp_path):
    import signal

    before = signal.getsignal(signal.SIGTERM)
    write_text(tmp_path / "a.txt", "x")
    assert signal.getsignal(signal.SIGTERM) is before
