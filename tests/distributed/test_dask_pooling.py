"""Pooling many runs with the runs read (and cut to the strategy's depth) in Dask
workers: the same pool as ``build_pool`` on the whole runs, ties included."""

from __future__ import annotations

import numpy as np

from cranfield.core.run import Run
from cranfield.distributed.pooling import build_pool_dask
from cranfield.pooling import build_pool
from generators import pool_qrels, pool_runs


def test_pool_equals_local(dask_client, tmp_path):
    rng = np.random.default_rng(3)
    runs = [Run.from_dict(r, name=f"run{i}") for i, r in enumerate(pool_runs(rng, 40))]
    for i, run in enumerate(runs[:20]):  # half as files (named by their tags)
        run.to_trec(tmp_path / f"run{i}.txt")
    files = sorted(str(p) for p in tmp_path.iterdir())
    qrels = pool_qrels(rng)
    for strategy, options in (
        ("depth", dict(k=3)),
        ("depth", dict(k=1, qrels=qrels)),
        ("budget(n=25, order=rrf)", {}),
    ):
        for inputs in (runs, files):
            local = build_pool(inputs, strategy, **options)
            dist = build_pool_dask(inputs, strategy, client=dask_client, **options)
            assert dist.table.equals(local.table), (strategy, options)
            assert (dist.strategy, dist.runs) == (local.strategy, local.runs)
            assert len(local) > 5
