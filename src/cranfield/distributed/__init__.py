"""cranfield on Dask (``pip install 'cranfield[dask]'``): evaluation scaled out over a
cluster, with results equal to the local backend's bit for bit.

* :mod:`.backend` — the ``"dask"`` execution backend, registered with
  :mod:`cranfield.core.backends` (``evaluate(..., engine="dask")``, ``cranfield eval
  --engine dask``, ``cranfield trec_eval --engine dask``, ``compare(..., engine="dask")``);
* :func:`evaluate_dask`, :func:`judge_dask` (:mod:`.evaluation`) — evaluation and
  judging of runs partitioned by query;
* :mod:`.cluster` — the client (given, the user's scheduler, or a ``LocalCluster``),
  progress and errors of tasks;
* :mod:`.partitions` — what a partition is, and the check that none splits a query.

Importing this package does not import Dask; running does (docs/scaling.md).
"""

from .evaluation import evaluate_dask, judge_dask

__all__ = ["evaluate_dask", "judge_dask"]
