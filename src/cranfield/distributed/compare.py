"""``compare(..., engine="dask")``: the pairs of a comparison computed in Dask workers.

Every pair's tests and interval (:func:`cranfield.compare.compare.pair_statistics`)
are a pure function of the two runs' per-query values and the settings (the
randomised tests of every pair use the same seed), so computing them in workers gives
the local numbers exactly; the multiple-comparison correction, Tukey's HSD and the
table are computed on the client. Pairs are sent in chunks (about four per worker).
"""

from __future__ import annotations

from .cluster import connect, gather, remote


def _chunk(jobs, settings):
    from ..compare.compare import pair_statistics

    return [pair_statistics(x, y, *settings) for x, y in jobs]


def map_pairs(engine: str, client, jobs: list, settings: tuple, scheduler: str | None = None):
    """``[pair_statistics(x, y, *settings) for x, y in jobs]``, computed in Dask workers."""
    from ..errors import ParameterError

    if engine != "dask":
        if engine != "local":
            raise ParameterError("engine", "'local' or 'dask'", engine)
        raise ParameterError("client", "None with engine='local'", client)
    if not jobs:
        return []
    with connect(client, scheduler) as dask_client:
        workers = max(1, len(dask_client.scheduler_info().get("workers", {})))
        size = max(1, -(-len(jobs) // (4 * workers)))
        chunks = [jobs[k : k + size] for k in range(0, len(jobs), size)]
        task = remote(_chunk)
        futures = [dask_client.submit(task, c, settings, pure=False) for c in chunks]
        labels = [f"pairs {k * size + 1}-{k * size + len(c)}" for k, c in enumerate(chunks)]
        answers = gather(dask_client, futures, labels, "chunks of pairs")
    return [s for answer in answers for s in answer]
