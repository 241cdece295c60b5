"""``build_pool`` over many runs on Dask: the runs are read in the workers, one task per
run, and each is cut there to what the strategy can use.

A strategy that reads only the top ``k`` of every run (``depth``: its
``max_rank``) gets from each worker the run's rows ranked ``k`` or better, in
trec_eval's order; their ranks are those of the whole run (every row ranked above is
kept, ties broken by document id), so :func:`cranfield.pooling.build_pool` on the
client chooses exactly the pool it chooses from the whole runs. Strategies that read
whole rankings (the budget orders) get the whole runs back: the workers then only
share the reading.
"""

from __future__ import annotations

from .cluster import connect, gather, remote
from .evaluation import read_partition
from .partitions import partitions


def _top(part, k):
    """Worker task: the run of ``part`` with only its rows ranked ``k`` or better."""
    import pyarrow.compute as pc

    from ..core.run import Run
    from ..pooling.candidates import top_rows

    (run,) = read_partition(part)
    if k is None:
        return run
    t = (top_rows(run, k) or run).ranked()
    t = t.filter(pc.less_equal(t["rank"], k)).select(["query_id", "doc_id", "score"])
    return Run.of_table(t, run.source, name=run.name)


def build_pool_dask(runs, strategy: str = "depth", *, client=None, scheduler=None, **options):
    """:func:`cranfield.pooling.build_pool` with the runs read in Dask workers.

    ``runs``: run files (or directories / glob patterns of run files, one run per
    file), or in-memory runs; ``client``/``scheduler`` as for
    :func:`cranfield.distributed.evaluate_dask`; ``options``: those of ``build_pool``
    (strategy parameters included). Returns the same :class:`~cranfield.pooling.Pool`.
    """
    return pool_and_names(runs, strategy, client=client, scheduler=scheduler, **options)[0]


def pool_and_names(runs, strategy: str = "depth", *, client=None, scheduler=None, **options):
    """:func:`build_pool_dask`'s pool and the names of all the runs read (pooled or
    not, as ``build_pool`` names them)."""
    from ..core.results import default_run_name
    from ..pooling.files import max_rank
    from ..pooling.pool import build_pool

    k = max_rank(strategy, options)
    parts = partitions(runs, default_run_name)
    with connect(client, scheduler) as dask_client:
        task = remote(_top)
        futures = [dask_client.submit(task, p, k, pure=False) for p in parts]
        cut = gather(dask_client, futures, [p.label for p in parts], "runs")
    return build_pool(cut, strategy, **options), [r.name for r in cut]
