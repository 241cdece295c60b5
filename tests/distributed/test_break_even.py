"""When the local engine is faster than a Dask cluster (cranfield.distributed.break_even):
the threshold is where the model's two times cross, computed here from its definition;
the note reaches the Python API as a CranfieldNote warning and the command line as one
note line (tests/distributed/test_dask_files.py)."""

from __future__ import annotations

import math
import warnings

import pytest

import cranfield
from cranfield.distributed import break_even as be
from cranfield.errors import CranfieldNote


def times(size: float, workers: int, cores: int) -> tuple[float, float]:
    """(local, dask) seconds of the model for ``size`` bytes, written out here."""
    local = size / (cores * be.LOCAL_BYTES_PER_CORE_SECOND)
    dask = be.FIXED_SECONDS + size / (workers * be.WORKER_BYTES_PER_THREAD_SECOND)
    return local, dask


@pytest.mark.parametrize("cores", [1, 2, 8, 64])
@pytest.mark.parametrize("workers", [1, 2, 4, 16, 256, 4096])
def test_threshold_is_where_the_times_cross(workers, cores):
    threshold = be.break_even_bytes(workers, cores)
    if workers * be.WORKER_BYTES_PER_THREAD_SECOND <= cores * be.LOCAL_BYTES_PER_CORE_SECOND:
        assert threshold is None
        for size in (1e6, 1e9, 1e12, 1e15):  # never faster, at any size
            local, dask = times(size, workers, cores)
            assert dask > local
        assert be.local_is_faster(10**15, workers, cores) is not None
        return
    local, dask = times(threshold, workers, cores)
    assert math.isclose(local, dask, rel_tol=1e-12)
    below, above = times(threshold * 0.99, workers, cores), times(threshold * 1.01, workers, cores)
    assert below[1] > below[0] and above[1] < above[0]
    assert be.local_is_faster(int(threshold * 0.99), workers, cores) is not None
    assert be.local_is_faster(int(threshold * 1.01) + 1, workers, cores) is None


def test_more_workers_lower_the_threshold():
    sizes = [be.break_even_bytes(w, 2) for w in (4, 8, 16, 64, 1024)]
    assert all(a > b for a, b in zip(sizes, sizes[1:], strict=False))


def test_api_warns_with_a_cranfield_note(dask_client, sample_paths):
    qrels, run = sample_paths[0], sample_paths[1]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dist = cranfield.evaluate(qrels, run, "AP", engine="dask", client=dask_client)
    notes = [w for w in caught if issubclass(w.category, CranfieldNote)]
    assert len(notes) == 1 and "--engine dask" in str(notes[0].message)
    assert dist.runs[0].aggregates == cranfield.evaluate(qrels, run, "AP").runs[0].aggregates


def test_a_command_run_in_process_leaves_the_api_warning(cli, dask_client, sample_paths):
    """The command line prints the note; afterwards the same process's API warns again."""
    qrels, run = sample_paths[0], sample_paths[1]
    status, _, err = cli(
        "eval", qrels, run, "-m", "AP", "--scheduler", dask_client.scheduler.address
    )
    assert status == 0 and "cranfield eval: note: --engine dask: " in err
    with pytest.warns(CranfieldNote, match="--engine dask"):
        cranfield.evaluate(qrels, run, "AP", engine="dask", client=dask_client)
