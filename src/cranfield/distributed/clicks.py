"""Click models fitted by EM over a click log partitioned by session, on Dask.

**PBM and UBM.**
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

**DBN and CCM.** Their E-step needs each session's ranks after its last click
(:class:`cranfield.clicks.tails.Tails`), not cell counts. Each worker reads one
partition and prepares it once (:data:`cranfield.clicks.estimate.TAIL_MODELS`:
distinct sessions, pairs, tails), keeping it in its memory (a Dask future held for
the whole fit) and sending back its pairs' ids, impressions and clicks. In each EM
iteration the client sends every partition the current parameters of its own pairs;
the worker runs the local fit's E-step (the same function) on its partition and
returns the sums the M-step divides (:class:`~cranfield.clicks.estimate.Sums`, in its
pair order); the client adds them per pair and over partitions and runs the local
M-step (:func:`~cranfield.clicks.estimate.m_step`). Same parameters within 1e-12 (the
sums are added in another order), same iterations.

Sessions may be cut anywhere (a session is one row); the closed-form models are not
distributed. Which EM a model has is its declaration's ``em``
(:data:`cranfield.clicks.registry.DASK_MODELS`); nothing here tells a model by its name.
"""

from __future__ import annotations

import os

import numpy as np

from ..clicks.estimate import MAX_ITER, PYCLICK_PRIOR, TOL
from ..errors import ParameterError
from .cluster import connect, gather, remote
from .partitions import paths


def _read(part, log_format):
    from ..clicks.log import ClickLog, read_log

    return part if isinstance(part, ClickLog) else read_log(part, log_format)


def _cells_of(part, log_format=None):
    """Worker task: the cells of one partition, pairs named: (query ids, doc ids, rank,
    previous-click rank, click, weight, max rank). The cells are the finest any model
    uses, (rank, previous-click rank); the client merges them into its model's own
    (:class:`~cranfield.clicks.estimate.CellsEM`)."""
    from ..clicks.estimate import em_cells
    from ..clicks.models import Pairs, distinct_sessions, previous_click

    log = _read(part, log_format)
    log, weight = distinct_sessions(log)
    pairs = Pairs(log, weight)
    k = log.max_rank
    ranks = np.broadcast_to(np.arange(k)[None, :], log.docs.shape)
    cell = ranks * (k + 1) + previous_click(log.clicks)
    pair, exam, click, w = em_cells(log, pairs, cell, k * (k + 1))
    queries = log.query_names[pairs.query[pair]]
    docs = log.doc_names[pairs.doc[pair]]
    return queries, docs, exam // (k + 1), exam % (k + 1), click, w, k


def _prepare(part, model: str, log_format=None):
    """Worker task: one partition made ready for DBN's or CCM's E-step (kept in the
    worker for the whole fit), with its pairs' ids, impressions and clicks."""
    from ..clicks.models import Pairs, distinct_sessions, per_pair
    from ..clicks.registry import get

    log = _read(part, log_format)
    log, weight = distinct_sessions(log)
    pairs = Pairs(log, weight)
    data = get(model).em.prepare(log, pairs)
    about = (
        log.query_names[pairs.query],
        log.doc_names[pairs.doc],
        pairs.impressions,
        per_pair(pairs, log.clicks.astype(float)),
        log.query_names[np.unique(log.query)],
    )
    return data, about


def _about(prepared):
    """Worker task: the pair ids, impressions and clicks of a prepared partition."""
    return prepared[1]


def _e_step(prepared, model: str, pair: dict, scalar: dict):
    """Worker task: the local fit's E-step on one prepared partition, for the
    parameters of its pairs: its :class:`~cranfield.clicks.estimate.Sums`."""
    from ..clicks.models import Params
    from ..clicks.registry import get

    return get(model).em.e_step(prepared[0], Params(pair=pair, scalar=scalar))


def fit_dask(
    logs,
    model: str,
    *,
    tol: float = TOL,
    max_iter: int = MAX_ITER,
    client=None,
    scheduler: str | None = None,
    log_format: str | None = None,
    prior=PYCLICK_PRIOR,
):
    """Fit PBM, UBM, DBN or CCM on a log given as partitions: ``ClickLog`` objects, or
    files :func:`cranfield.clicks.read_log` reads (``log_format``: their format, else
    told from each name), directories of them or glob patterns.

    Returns the :class:`~cranfield.clicks.FittedClickModel` that
    :func:`cranfield.clicks.fit` returns for the whole log (see the module docstring).
    """
    from ..clicks.estimate import CellsEM
    from ..clicks.fitted import check_options
    from ..clicks.registry import DASK_MODELS, get, listed

    declared = get(model)
    if declared.em is None:
        raise ParameterError("model", f"{listed(DASK_MODELS)} (the EM models distributed)", model)
    prior = check_options(tol, max_iter, prior)
    parts = list(logs) if isinstance(logs, (list, tuple)) else [logs]
    if not parts:
        raise ParameterError("logs", "at least one partition", logs)
    parts = [q for p in parts for q in (paths(p) if isinstance(p, (str, os.PathLike)) else [p])]
    labels = [getattr(p, "source", None) or str(p) for p in parts]
    with connect(client, scheduler) as dask_client:
        fit_parts = _fit_cells if isinstance(declared.em, CellsEM) else _fit_tails
        fitted = fit_parts(dask_client, parts, labels, declared, (tol, max_iter, prior), log_format)
    fitted.prior = prior
    return fitted


def _fit_cells(dask_client, parts, labels, declared, em, log_format):
    """PBM or UBM from the summed cell counts of the partitions."""
    from ..clicks.estimate import cells_em
    from ..clicks.models import Params

    task = remote(_cells_of)
    futures = [dask_client.submit(task, p, log_format, pure=False) for p in parts]
    answers = gather(dask_client, futures, labels, "log partitions")
    k = max(a[6] for a in answers)
    cells = declared.em
    n_exam = cells.n_cells(k)
    qnames, qcode = np.unique(np.concatenate([a[0] for a in answers]), return_inverse=True)
    dnames, dcode = np.unique(np.concatenate([a[1] for a in answers]), return_inverse=True)
    pair_keys, code = np.unique(qcode * np.int64(len(dnames)) + dcode, return_inverse=True)
    rank = np.concatenate([a[2] for a in answers])
    prev = np.concatenate([a[3] for a in answers])
    exam = cells.cell(rank, prev, k)
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
        c_pair, c_exam, c_click, cell_weight, n_pairs, n_exam, impressions, *em[:2], None, em[2]
    )
    examination = cells.examination(gamma, k)
    pair_query = qnames[pair_keys // len(dnames)]
    pair_doc = dnames[pair_keys % len(dnames)]
    return _fitted(
        declared.name,
        Params(pair={"attractiveness": alpha}, rank={"examination": examination}),
        pair_query,
        pair_doc,
        impressions.round().astype(np.int64),
        clicks.round().astype(np.int64),
        pair_query,
        it,
        converged,
        trace,
    )


def _fit_tails(dask_client, parts, labels, declared, em, log_format):
    """DBN or CCM: the partitions prepared once in the workers, one E-step per
    partition and iteration there, the sums added and the M-step on the client."""
    from ..clicks.estimate import Sums, m_step, run_em

    prepare = remote(_prepare)
    model = declared.name
    prepared = [dask_client.submit(prepare, p, model, log_format, pure=False) for p in parts]
    about = remote(_about)
    answers = gather(
        dask_client,
        [dask_client.submit(about, f, pure=False) for f in prepared],
        labels,
        "log partitions",
    )
    qnames, qcode = np.unique(np.concatenate([a[0] for a in answers]), return_inverse=True)
    dnames, dcode = np.unique(np.concatenate([a[1] for a in answers]), return_inverse=True)
    pair_keys, code = np.unique(qcode * np.int64(len(dnames)) + dcode, return_inverse=True)
    n_pairs = len(pair_keys)
    cuts = np.cumsum([len(a[0]) for a in answers])[:-1]
    local = np.split(code, cuts)  # partition i's pair j is pair local[i][j]
    impressions = np.bincount(code, np.concatenate([a[2] for a in answers]), n_pairs)
    clicks = np.bincount(code, np.concatenate([a[3] for a in answers]), n_pairs)
    e_step = remote(_e_step)

    def add(sums: list, name: str, at: int):
        values = np.concatenate([s.pair[name][at] for s in sums])
        return np.bincount(code, values, n_pairs)

    def step(p):
        futures = [
            dask_client.submit(
                e_step, f, model, {n: v[g] for n, v in p.pair.items()}, p.scalar, pure=False
            )
            for f, g in zip(prepared, local, strict=True)
        ]
        sums = gather(dask_client, futures, labels, "log partitions")
        total = Sums(
            pair={n: (add(sums, n, 0), add(sums, n, 1)) for n in sums[0].pair},
            scalar={
                n: (sum(s.scalar[n][0] for s in sums), sum(s.scalar[n][1] for s in sums))
                for n in sums[0].scalar
            },
            ll=sum(s.ll for s in sums),
        )
        return m_step(total, em[2]), total.ll

    start = declared.em.start(n_pairs, None)
    params, it, converged, trace = run_em(start, step, *em[:2])
    queries = np.unique(np.concatenate([a[4] for a in answers]))
    return _fitted(
        declared.name,
        params,
        qnames[pair_keys // len(dnames)],
        dnames[pair_keys % len(dnames)],
        impressions.round().astype(np.int64),
        clicks.round().astype(np.int64),
        queries,
        it,
        converged,
        trace,
    )


def _fitted(model, params, pair_query, pair_doc, impressions, clicks, queries, *rest):
    from ..clicks.fitted import FittedClickModel

    return FittedClickModel(
        model, params, pair_query, pair_doc, impressions, clicks, frozenset(queries.tolist()), *rest
    )
