"""The Dask backend (``engine="dask"``, ``--engine dask``), registered with the core.

Importing this module registers :data:`DASK` with :mod:`cranfield.core.backends` (the
package root declares it there by name, so ``engine="dask"`` finds it without an
import by the caller). Each entry runs on the client given, the scheduler named, or a
``LocalCluster`` (:func:`.cluster.connect`):

* ``evaluate`` — :func:`.evaluation.evaluate_counted`: runs partitioned by query, one
  task per partition;
* ``judge`` — :func:`.evaluation.judge_dask`: one partitioned run judged in the
  workers (``cranfield trec_eval --engine dask``);
* ``starmap`` — :func:`starmap`: a pure function over many argument tuples, in chunks
  (``compare``'s pairs: every pair's tests and interval are a pure function of the
  two runs' per-query values and the settings, the randomised tests of every pair
  using the same seed, so computing them in workers gives the local numbers exactly;
  the multiple-comparison correction, Tukey's HSD and the table are computed on the
  client).

It also provides the capability packages' work (:func:`cranfield.core.backends.provide`):

* ``"pool"`` — :func:`.pooling.pool_and_names`: each run file read and cut to the pool
  depth in a worker, the pool built on the client;
* ``"fit_clicks"`` — :func:`fit_clicks`: the EM models fitted over a log's partitions.

Importing this module does not import Dask; running does.
"""

from __future__ import annotations

from ..core.backends import Backend, provide, register
from .cluster import connect, gather, remote
from .evaluation import evaluate_counted, judge_dask


def _chunk(function, jobs: list) -> list:
    """Worker task: ``function`` on each argument tuple of one chunk."""
    return [function(*job) for job in jobs]


def starmap(function, jobs: list, *, client=None, scheduler: str | None = None) -> list:
    """``[function(*job) for job in jobs]``, computed in Dask workers in chunks (about
    four per worker); ``function`` must be a pure, importable function."""
    if not jobs:
        return []
    with connect(client, scheduler) as dask_client:
        workers = max(1, len(dask_client.scheduler_info().get("workers", {})))
        size = max(1, -(-len(jobs) // (4 * workers)))
        chunks = [jobs[k : k + size] for k in range(0, len(jobs), size)]
        task = remote(_chunk)
        futures = [dask_client.submit(task, function, c, pure=False) for c in chunks]
        labels = [f"items {k * size + 1}-{k * size + len(c)}" for k, c in enumerate(chunks)]
        answers = gather(dask_client, futures, labels, "chunks")
    return [s for answer in answers for s in answer]


def _judge(
    qrels,
    qrels_path,
    run_path,
    options,
    *,
    encoding="utf-8",
    stream=None,
    client=None,
    scheduler=None,
):
    """The backend's ``judge``: :func:`.evaluation.judge_dask` (the qrels already read)."""
    return judge_dask(
        qrels, run_path, options, client=client, scheduler=scheduler, encoding=encoding
    )


def _pool(paths, strategy, *, scheduler=None, **options):
    """The backend's ``"pool"``: :func:`.pooling.pool_and_names`."""
    from .pooling import pool_and_names

    return pool_and_names(paths, strategy, scheduler=scheduler, **options)


def fit_clicks(
    log, models, *, scheduler=None, log_format=None, tol, max_iter, seed=None, prior
) -> list:
    """The backend's ``"fit_clicks"``: each of ``models`` (EM models only) fitted by
    :func:`.clicks.fit_dask` on the partitions of ``log`` (a file, directory or glob
    pattern), one cluster for all of them. EM starts every parameter at 0.5: a ``seed``
    is refused. Everything is checked before a cluster starts."""
    from ..clicks.registry import DASK_MODELS, get, listed
    from ..errors import ParameterError
    from .clicks import fit_dask
    from .partitions import paths

    for name in models:
        if get(name).em is None:
            raise ParameterError("model", f"{listed(DASK_MODELS)} with engine dask", name)
    if seed is not None:
        raise ParameterError("seed", "not given with engine dask (EM starts at 0.5)", seed)
    parts = paths(log)  # a missing log is reported before any cluster starts
    with connect(None, scheduler) as client:
        return [
            fit_dask(
                parts,
                name,
                tol=tol,
                max_iter=max_iter,
                client=client,
                log_format=log_format,
                prior=prior,
            )
            for name in models
        ]


DASK = register(
    Backend(
        "dask",
        evaluate_counted,
        _judge,
        starmap,
        "Dask workers: runs partitioned by query, pairs in chunks (docs/scaling.md)",
    )
)
provide("pool", "dask", _pool)
provide("fit_clicks", "dask", fit_clicks)
