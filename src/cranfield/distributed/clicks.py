"""PBM and UBM fitted by EM over a click log partitioned by session, on Dask.

Their EM (:func:`cranfield.clicks.estimate.cells_em`) reads the log only through the
distinct (query, document, examination cell, click) cells and their counts — the
sufficient statistics. Each worker reads one partition (a file
:func:`cranfield.clicks.read_log` reads, or an in-memory
:class:`~cranfield.clicks.ClickLog`), merges its identical sessions and counts its
cells, naming pairs by their query and document ids; the client adds the counts of
all partitions (integers: exact), codes the pairs, and runs the same EM on them. The
parameters equal those of :func:`cranfield.clicks.fit` on the whole log up to the
order of floating-point sums over pairs (within 1e-12; pairs are ordered by id here,
by first appearance there), so EM starts from 0.5 everywhere (no ``seed``).

Sessions may be cut anywhere (a session is one row); the other models (DBN, CCM and
the closed forms) are not distributed.
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError
from .cluster import connect, gather, remote

MODELS = ("pbm", "ubm")


def _cells_of(part, model: str):
    """Worker task: the cells of one partition, pairs named: (query ids, doc ids, rank,
    previous-click rank (UBM; else 0), click, weight, max rank)."""
    from ..clicks.estimate import em_cells
    from ..clicks.log import ClickLog, read_log
    from ..clicks.models import Pairs, distinct_sessions, previous_click

    log = part if isinstance(part, ClickLog) else read_log(part)
    log, weight = distinct_sessions(log)
    pairs = Pairs(log, weight)
    k = log.max_rank
    ranks = np.broadcast_to(np.arange(k)[None, :], log.docs.shape)
    if model == "ubm":
        cell, n_exam = ranks * (k + 1) + previous_click(log.clicks), k * (k + 1)
    else:
        cell, n_exam = ranks, k
    pair, exam, click, w = em_cells(log, pairs, cell, n_exam)
    rank, prev = (exam // (k + 1), exam % (k + 1)) if model == "ubm" else (exam, 0 * exam)
    queries = log.query_names[pairs.query[pair]]
    docs = log.doc_names[pairs.doc[pair]]
    return queries, docs, rank, prev, click, w, k


def fit_dask(
    logs,
    model: str,
    *,
    tol: float = 1e-6,
    max_iter: int = 100,
    client=None,
    scheduler: str | None = None,
):
    """Fit PBM or UBM on a log given as partitions (paths or ``ClickLog`` objects).

    Returns the :class:`~cranfield.clicks.FittedClickModel` that
    :func:`cranfield.clicks.fit` returns for the whole log (see the module docstring).
    """
    from ..clicks.estimate import cells_em
    from ..clicks.fitted import FittedClickModel, _check_options
    from ..clicks.models import Params

    if model not in MODELS:
        raise ParameterError("model", "pbm or ubm (the EM models distributed)", model)
    _check_options(tol, max_iter)
    parts = list(logs) if isinstance(logs, (list, tuple)) else [logs]
    if not parts:
        raise ParameterError("logs", "at least one partition", logs)
    labels = [getattr(p, "source", None) or str(p) for p in parts]
    with connect(client, scheduler) as dask_client:
        task = remote(_cells_of)
        futures = [dask_client.submit(task, p, model, pure=False) for p in parts]
        answers = gather(dask_client, futures, labels, "log partitions")
    k = max(a[6] for a in answers)
    n_exam = k * (k + 1) if model == "ubm" else k
    qnames, qcode = np.unique(np.concatenate([a[0] for a in answers]), return_inverse=True)
    dnames, dcode = np.unique(np.concatenate([a[1] for a in answers]), return_inverse=True)
    pair_keys, code = np.unique(qcode * np.int64(len(dnames)) + dcode, return_inverse=True)
    rank = np.concatenate([a[2] for a in answers])
    prev = np.concatenate([np.broadcast_to(a[3], a[2].shape) for a in answers])
    exam = rank * (k + 1) + prev if model == "ubm" else rank
    click = np.concatenate([a[4] for a in answers])
    weight = np.concatenate([a[5] for a in answers])
    key = (code.astype(np.int64) * n_exam + exam) * 2 + click
    uniq, inverse = np.unique(key, return_inverse=True)
    cell_weight = np.bincount(inverse, weights=weight)  # counts: exact sums
    c_click = (uniq % 2).astype(bool)
    c_exam = (uniq // 2) % n_exam
    c_pair = uniq // 2 // n_exam
    n_pairs = len(pair_keys)
    impressions = np.bincount(c_pair, weights=cell_weight, minlength=n_pairs)
    clicks = np.bincount(c_pair[c_click], weights=cell_weight[c_click], minlength=n_pairs)
    alpha, gamma, it, converged, trace = cells_em(
        c_pair, c_exam, c_click, cell_weight, n_pairs, n_exam, impressions, tol, max_iter, None
    )
    examination = gamma.reshape(k, k + 1) if model == "ubm" else gamma
    pair_query = qnames[pair_keys // len(dnames)]
    pair_doc = dnames[pair_keys % len(dnames)]
    return FittedClickModel(
        model,
        Params(pair={"attractiveness": alpha}, rank={"examination": examination}),
        pair_query,
        pair_doc,
        impressions.round().astype(np.int64),
        clicks.round().astype(np.int64),
        frozenset(pair_query.tolist()),
        it,
        converged,
        trace,
    )
