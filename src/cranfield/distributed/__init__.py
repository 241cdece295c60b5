"""cranfield on Dask (``pip install 'cranfield[dask]'``): evaluation scaled out over a
cluster, with results equal to the local engine's bit for bit.

* :func:`evaluate_dask` — ``cranfield.evaluate(..., engine="dask")`` and
  ``cranfield eval --engine dask``: runs partitioned by query, one task per partition;
* :func:`judge_dask` — ``cranfield trec_eval --engine dask``;
* :mod:`.cluster` — the client (given, the user's scheduler, or a ``LocalCluster``),
  progress and errors of tasks;
* :mod:`.partitions` — what a partition is, and the check that none splits a query.

Importing this package does not import Dask; running does (docs/scaling.md).
"""

from .engine import evaluate_dask, judge_dask

__all__ = ["evaluate_dask", "judge_dask"]
