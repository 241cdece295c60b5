r"""When a Dask cluster evaluates runs faster than the local engine on one machine.

A model with three constants measured by ``benchmarks/dask.py`` (benchmarks/README.md,
"Dask engine"; TREC runs of its dense profile, 38 bytes a line, five measures):

.. math:: t_\text{local}(B) = \frac{B}{c\,r_\text{core}}, \qquad
          t_\text{dask}(B) = T_0 + \frac{B}{W\,r_\text{worker}}

for ``B`` bytes of runs, ``c`` cores on this machine (the local engine uses them all),
``W`` worker threads on the cluster, the local engine's throughput per core
:math:`r_\text{core}`, a worker thread's :math:`r_\text{worker}` (reading its partition
and evaluating it) and the fixed cost :math:`T_0` of a job on a running cluster (the
client's import of ``distributed``, connecting, sending the qrels, the tasks' round
trips). The cluster is faster above

.. math:: B^* = \frac{T_0}{1/(c\,r_\text{core}) - 1/(W\,r_\text{worker})}

and never when :math:`W\,r_\text{worker} \le c\,r_\text{core}`. The figures are this
machine's (2 cores, shared): other machines, disks and networks move them, so the note
the command line prints gives the order of magnitude, not a promise.
"""

from __future__ import annotations

LOCAL_BYTES_PER_CORE_SECOND = 220e6
"""The local engine's throughput per core: 400-480 MB/s on 2 cores (``cranfield eval``
on 2M-21M lines, 77-804 MB)."""

WORKER_BYTES_PER_THREAD_SECOND = 150e6
"""A Dask worker thread's throughput on its partitions (1M lines each): 325 MB/s for
two single-threaded workers on the 2 cores, 266 MB/s for one (whose engine also used
the second core)."""

FIXED_SECONDS = 0.6
"""The fixed cost of one ``--engine dask`` job on a running cluster, measured 0.52-0.63 s
(importing ``distributed`` alone takes 0.4 s)."""


def break_even_bytes(workers: int, cores: int) -> float | None:
    """:math:`B^*`: the bytes of runs above which ``workers`` worker threads beat the
    local engine on ``cores`` cores; ``None`` when they never do."""
    local = 1.0 / (max(1, cores) * LOCAL_BYTES_PER_CORE_SECOND)
    cluster = 1.0 / (max(1, workers) * WORKER_BYTES_PER_THREAD_SECOND)
    if cluster >= local:
        return None
    return FIXED_SECONDS / (local - cluster)


def _megabytes(size: float) -> str:
    return f"{size / 1e6:,.0f} MB" if size >= 1e6 else f"{size / 1e3:,.0f} kB"


def local_is_faster(run_bytes: int, workers: int, cores: int) -> str | None:
    """The note to give when the local engine would evaluate ``run_bytes`` bytes of
    runs faster than ``workers`` Dask worker threads (``None`` when the cluster is
    faster)."""
    threshold = break_even_bytes(workers, cores)
    if threshold is not None and run_bytes >= threshold:
        return None
    where = f"{workers} Dask worker thread{'s' if workers != 1 else ''}"
    if threshold is None:
        return (
            f"--engine dask: with {where}, the local engine on this machine's {cores} "
            f"core{'s' if cores != 1 else ''} is faster at any size (a cluster pays off "
            "with more workers: docs/scaling.md)"
        )
    return (
        f"--engine dask: {_megabytes(run_bytes)} of runs; below about "
        f"{_megabytes(threshold)} the local engine on this machine is faster than {where}"
    )
