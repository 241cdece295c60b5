"""When the command line streams a run: memory figures of this machine and process."""

from __future__ import annotations

import gzip

import pytest

from cranfield.cli.main import main
from cranfield.core import memory

MIB = 1 << 20


@pytest.fixture
def run_file(tmp_path):
    path = tmp_path / "run.txt"
    path.write_bytes(b"1 Q0 d 1 1.0 t\n" * 70_000)  # about 1 MiB
    return path


def limits(monkeypatch, available=None, cgroup=None, address_space=None):
    monkeypatch.setattr(memory, "_meminfo_available", lambda: available)
    monkeypatch.setattr(memory, "_cgroup_room", lambda: cgroup)
    monkeypatch.setattr(memory, "_address_space_limit", lambda: address_space)


def test_each_limit_can_ask_for_streaming(monkeypatch, run_file):
    size = run_file.stat().st_size
    need = memory.NEED_PER_BYTE * size + memory.NEED_BASE
    limits(monkeypatch, available=10 * need)
    assert not memory.should_stream(run_file)
    limits(monkeypatch, available=0.9 * need / memory.RAM_SHARE)
    assert memory.should_stream(run_file)
    limits(monkeypatch, available=10 * need, cgroup=need - 1)
    assert memory.should_stream(run_file)
    limits(monkeypatch, available=10 * need, cgroup=need + 1)
    assert not memory.should_stream(run_file)
    space = memory.ADDRESS_SPACE_PER_BYTE * size + memory.ADDRESS_SPACE_BASE
    limits(monkeypatch, address_space=space - 1)
    assert memory.should_stream(run_file)
    limits(monkeypatch, address_space=space + 1)
    assert not memory.should_stream(run_file)


def test_without_figures_the_size_threshold_decides(monkeypatch, run_file):
    limits(monkeypatch)
    assert memory.fits_in_memory(run_file) is None
    assert not memory.should_stream(run_file)
    monkeypatch.setattr(memory, "STREAM_THRESHOLD", run_file.stat().st_size - 1)
    assert memory.should_stream(run_file)


def test_explicit_choice_stdin_and_missing_files(monkeypatch, tmp_path, run_file):
    limits(monkeypatch, available=1)  # nothing fits
    assert memory.should_stream(run_file)
    assert not memory.should_stream(run_file, stream=False)
    assert memory.should_stream(tmp_path / "missing.txt", stream=True)
    assert not memory.should_stream("-")
    assert not memory.should_stream(tmp_path / "missing.txt")  # the reader reports it


def test_gzip_size_is_the_uncompressed_size(tmp_path):
    text = b"1 Q0 d 1 1.0 t\n" * 100_000
    gz = tmp_path / "run.gz"
    gz.write_bytes(gzip.compress(text))
    assert memory._data_size(gz) == max(len(text), 4 * gz.stat().st_size)


def test_figures_of_this_machine_are_sane():
    available = memory._meminfo_available()
    assert available is None or available > 0
    room = memory._cgroup_room()
    assert room is None or room >= 0
    limit = memory._address_space_limit()
    assert limit is None or limit > 0


@pytest.mark.parametrize("path", ["engine", "general"])
def test_out_of_memory_is_one_line(monkeypatch, sample_paths, capsys, path):
    from cranfield import _engine
    from cranfield.core.run import Run

    qrels, run, *_ = sample_paths

    def exhausted(*args, **kwargs):
        raise MemoryError

    if path == "engine":  # the engine path of TREC files
        monkeypatch.setattr(_engine, "evaluate_trec_files", exhausted)
    else:
        from cranfield.cli import eval_cmd

        monkeypatch.setattr(eval_cmd, "_engine_path", lambda args: None)
        monkeypatch.setattr(Run, "read", classmethod(exhausted))
    assert main(["eval", str(qrels), str(run)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "out of memory; --stream" in err
