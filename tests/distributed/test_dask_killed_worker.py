"""A worker process killed in the middle of a job: Dask reschedules its tasks and the
job completes with the local engine's values, or (when the workers keep dying) fails
with one clear error; never a partial result."""

from __future__ import annotations

import os
import signal
import threading
import time

import numpy as np
import pytest

import cranfield
from cranfield.distributed.cluster import _local_error
from cranfield.errors import CranfieldError

MEASURES = ["AP", "nDCG@10", "P@10", "R@100", "Bpref", "infAP", "RR", "Rprec", "ERR@20"]


@pytest.fixture(scope="module")
def big_partitions(tmp_path_factory):
    """(qrels, directory of 6 TREC files of 100 queries x 1000 documents, the whole run)."""
    root = tmp_path_factory.mktemp("big")
    rng = np.random.default_rng(5)
    qrels_lines = []
    for p in range(6):
        lines = []
        for q in range(p * 100, (p + 1) * 100):
            scores = np.round(rng.random(1000), 3)
            lines += [
                f"q{q} Q0 d{d} {r} {s!r} big"
                for r, (d, s) in enumerate(zip(range(1000), scores.tolist(), strict=True))
            ]
            qrels_lines += [
                f"q{q} 0 d{d} {g}"
                for d, g in zip(
                    rng.choice(1200, 40, replace=False), rng.integers(-1, 3, 40), strict=True
                )
            ]
        (root / "run").mkdir(exist_ok=True)
        (root / "run" / f"part{p}.txt").write_text("\n".join(lines) + "\n")
    (root / "qrels.txt").write_text("\n".join(qrels_lines) + "\n")
    whole = "".join(p.read_text() for p in sorted((root / "run").iterdir()))
    (root / "whole.txt").write_text(whole)
    return root / "qrels.txt", root / "run", root / "whole.txt"


def test_killed_worker_job_completes_with_local_values(dask_client, big_partitions):
    qrels, run_dir, whole = big_partitions
    pids = dask_client.run(os.getpid)  # worker address -> process id
    outcome: dict = {}

    def job():
        try:
            outcome["results"] = cranfield.evaluate(
                qrels, run_dir, MEASURES, engine="dask", client=dask_client
            )
        except Exception as exc:  # reported below
            outcome["error"] = exc

    thread = threading.Thread(target=job)
    thread.start()
    killed = None
    deadline = time.monotonic() + 60
    while killed is None and time.monotonic() < deadline and thread.is_alive():
        for address, keys in dask_client.processing().items():
            if any("evaluate-partition" in str(k) for k in keys) and address in pids:
                os.kill(pids[address], signal.SIGKILL)
                killed = address
                break
        time.sleep(0.01)
    thread.join(120)
    assert killed is not None, "no task was seen running: the kill did not happen mid-job"
    assert not thread.is_alive()
    assert "error" not in outcome, outcome.get("error")
    local = cranfield.evaluate(qrels, whole, MEASURES)
    assert len(outcome["results"].runs[0].query_ids) == 600
    assert outcome["results"].dumps(per_query=True) == local.dumps(per_query=True)
    dask_client.wait_for_workers(2, timeout=60)  # the nanny restarted the worker
    assert killed not in dask_client.scheduler_info()["workers"]


def test_workers_that_keep_dying_give_one_clear_error():
    from distributed.scheduler import KilledWorker

    error = _local_error(KilledWorker("cranfield-evaluate-partition-1", "tcp://w", None), "p3.txt")
    assert isinstance(error, CranfieldError)
    text = str(error)
    assert text.startswith("p3.txt: ") and "died" in text and "\n" not in text


def test_a_job_whose_scattered_inputs_were_lost_is_submitted_once_more(
    dask_client, big_partitions, monkeypatch
):
    """Scattered qrels die with their worker (they cannot be recomputed) and the
    scheduler cancels the tasks needing them: the job is submitted again, once."""
    from cranfield.distributed import evaluation
    from cranfield.distributed.cluster import InputsLost

    qrels, run_dir, whole = big_partitions
    real, calls = evaluation.gather, []

    def lose_the_first(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise InputsLost("part0.txt: the Dask scheduler cancelled this task")
        return real(*args, **kwargs)

    monkeypatch.setattr(evaluation, "gather", lose_the_first)
    results = cranfield.evaluate(qrels, run_dir, ["AP", "P@10"], engine="dask", client=dask_client)
    local = cranfield.evaluate(qrels, whole, ["AP", "P@10"])
    assert len(calls) == 2 and results.dumps(per_query=True) == local.dumps(per_query=True)

    def always_lose(*args, **kwargs):
        raise InputsLost("part0.txt: the Dask scheduler cancelled this task")

    monkeypatch.setattr(evaluation, "gather", always_lose)
    with pytest.raises(InputsLost, match="cancelled"):
        cranfield.evaluate(qrels, run_dir, ["AP"], engine="dask", client=dask_client)
