"""The memory budget of inputs read whole, and how the engine is told to read a run."""

from __future__ import annotations

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


def test_each_limit_bounds_the_budget(monkeypatch):
    """The budget of an input read whole is the least of what each figure allows."""
    gib = 1 << 30
    limits(monkeypatch)
    assert memory.input_budget() is None  # no figure: no budget
    limits(monkeypatch, available=10 * gib)
    want = (memory.RAM_SHARE * 10 * gib - memory.NEED_BASE) / memory.NEED_PER_BYTE
    assert memory.input_budget() == int(want)
    limits(monkeypatch, available=10 * gib, cgroup=gib)
    assert memory.input_budget() == int((gib - memory.NEED_BASE) / memory.NEED_PER_BYTE)
    limits(monkeypatch, available=10 * gib, address_space=2 * gib)
    space = (2 * gib - memory.ADDRESS_SPACE_BASE) / memory.ADDRESS_SPACE_PER_BYTE
    assert memory.input_budget() == int(space)
    limits(monkeypatch, available=1)  # nothing fits: a floor of 1 MiB
    assert memory.input_budget() == MIB


def test_engine_reading_of_stream_and_no_stream(monkeypatch):
    limits(monkeypatch, cgroup=1 << 30)
    budget = memory.input_budget()
    assert memory.engine_reading(None) == {
        "max_bytes": budget,
        "whole_bytes": min(memory.WHOLE_BYTES, budget),
    }
    assert memory.engine_reading(True) == {
        "max_bytes": budget,
        "whole_bytes": 0,
        "regroup_bytes": 0,
    }
    assert memory.engine_reading(False) == {"max_bytes": budget, "piece_bytes": 0}


def test_read_once(tmp_path, run_file):
    import os

    os.mkfifo(tmp_path / "pipe")
    assert memory.read_once("-") and memory.read_once(tmp_path / "pipe")
    assert not memory.read_once(run_file) and not memory.read_once(tmp_path)
    assert not memory.read_once(tmp_path / "missing")  # its reading reports it


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
        from cranfield.core import files

        monkeypatch.setattr(files, "_engine_results", lambda job: None)
        # the run's evaluation against the qrels' index, or its judging
        monkeypatch.setattr(_engine, "evaluate_trec_files", exhausted)
        monkeypatch.setattr(_engine, "judge_trec_files", exhausted)
        monkeypatch.setattr(Run, "read", classmethod(exhausted))
    assert main(["eval", str(qrels), str(run)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "out of memory; --stream" in err


def test_too_little_address_space_for_numpy_and_pyarrow_is_a_memory_error(monkeypatch):
    # a process that has not loaded them yet (their C++ start-up can abort under a tight
    # limit): refused before the import, with the command line's out-of-memory line
    import sys

    from cranfield.core import memory

    monkeypatch.delitem(sys.modules, "pyarrow.compute", raising=False)
    monkeypatch.setattr(memory, "_address_space_used", lambda: 30 << 20)
    monkeypatch.setattr(memory, "_address_space_limit", lambda: (30 << 20) + (100 << 20))
    with pytest.raises(MemoryError):
        memory.check_room_for_arrays()
    monkeypatch.setattr(memory, "_address_space_limit", lambda: (30 << 20) + (300 << 20))
    memory.check_room_for_arrays()  # room enough
    monkeypatch.setattr(memory, "_address_space_limit", lambda: None)
    memory.check_room_for_arrays()  # no limit
    assert memory._address_space_used() > 0
