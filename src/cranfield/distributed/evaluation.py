"""``evaluate(..., engine="dask")``: runs partitioned by query, evaluated in Dask workers
(the Dask backend's ``evaluate`` and ``judge``, :mod:`.backend`).

Each partition (:mod:`.partitions`) is one task. In the worker it is read and
evaluated by the local backend (:func:`cranfield.evaluate`, with ``complete=False``),
and only the per-query values come back (``queries x measures`` numbers), with each
query's "has a relevant document" flag. On the client the values of a run's
partitions are put in trec_eval's topic order (byte order of the query id) and the
aggregates computed by the same code as the local backend
(:func:`cranfield.core.evaluation.aggregate`: sums accumulated query by query in
that order), so every per-query value and every mean equals the local backend's bit
for bit. The topics ``complete=True`` adds (qrels topics a run has no line for) are
evaluated on the client as the empty rankings the local backend gives them.

* Runs are named by their data (TREC tag, run-name column), else by the input's file
  or directory name; partitions of one input carrying the same name are one run, so
  a directory of many runs and a directory of one run's partitions both work. A query
  of a run in two partitions is an error (never evaluated twice).
* The qrels are read on the client (a directory or pattern of qrels files is read in
  the workers, checked for a topic in two partitions, and joined) and sent once to
  every worker.
* ``aggregate_by="micro"`` needs pooled counts, and two measures (:data:`WHOLE_RUN`)
  scale every query by the largest grade judged for any evaluated topic: the workers
  then also return their judged labels (one byte per ranked document) and the client
  pools them (:func:`cranfield.core.judged.concat`) and computes
  these there. Otherwise ``RunResult.judged`` is None.
* A failed task raises its error (one line); a task whose workers keep dying raises a
  :class:`~cranfield.errors.CranfieldError`; no partial result is ever returned.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from ..errors import InputError
from .cluster import InputsLost, connect, gather, remote
from .partitions import Partition, check_disjoint, partitions, paths


@dataclass
class PartRun:
    """What a worker returns for one run of one partition."""

    name: str
    run_queries: np.ndarray  # distinct query ids of the run lines (for the split check)
    query_ids: np.ndarray  # evaluated queries, in byte order
    values: dict  # Measure -> per-query values
    has_rel: np.ndarray  # per evaluated query: has a relevant document
    judged: object = None  # the JudgedRun, when the client pools counts (micro)


def read_partition(part: Partition, duplicates: str = "error", encoding: str = "utf-8"):
    """The runs of one partition (several when a run-name column holds several)."""
    from ..core.columnar import is_in_memory
    from ..core.io import tabular
    from ..core.run import Run, run_name_column

    data = part.data
    if isinstance(data, Run):
        return [data]
    if is_in_memory(data):
        return Run.split(data, duplicates=duplicates)
    fmt = tabular.infer_format(data, None)
    if fmt == "trec":
        table, source, tag = Run.read_table(data, "trec", duplicates, encoding)
        name = tag if tag is not None else part.default_name
        return [Run.of_table(table, source, name=name)]
    if fmt == "parquet":
        import pyarrow.parquet as pq

        table = pq.read_table(data)
        if run_name_column(table.column_names) is not None:
            return Run.split(table, duplicates=duplicates, source=str(data))
    return [Run.read(data, name=part.default_name, duplicates=duplicates, format=fmt)]


def _clean(jr):
    """The JudgedRun without document rows or its memo (what is sent back)."""
    import dataclasses

    return dataclasses.replace(jr, doc_rows=None)  # the memo is not copied


def _evaluate_partition(qrels, part, measures, options, want_judged):
    """Worker task: the local backend on one partition -> list of :class:`PartRun`
    (``options``: the JudgeOptions, ``complete`` applied on the client)."""
    import pyarrow.compute as pc

    from ..core.evaluation import evaluate_objects
    from ..core.judged import qrels_side
    from ..core.options import JudgeOptions

    topics = qrels_side(qrels)[0]  # kept by the qrels object: once per worker
    local = JudgeOptions.of(options, complete=False)
    out = []
    for run in read_partition(part, options.duplicates):
        run_queries = pc.unique(run.table["query_id"])
        shared = pc.is_in(run_queries, value_set=topics).to_numpy(False)
        ids = np.asarray(run_queries.to_pylist(), dtype=object)
        if not shared.any():  # nothing of this partition is judged: no value to return
            empty = np.zeros(0, dtype=object)
            out.append(PartRun(run.name, ids, empty, {m: empty for m in measures}, empty))
            continue
        # the JudgedRun kept: its relevant queries and, for micro averages and
        # whole-run measures, its labels are pooled on the client
        results, _ = evaluate_objects(qrels, {run.name: run}, measures, local, keep_judged=True)
        result = results.runs[0]
        jr = result.judged
        out.append(
            PartRun(
                run.name,
                ids,
                result.query_ids,
                result.values,
                jr.num_rel() > 0,
                _clean(jr) if want_judged else None,
            )
        )
    return out


def _read_qrels_partition(path, fractional):
    from ..core.qrels import Qrels

    return Qrels.read(path, fractional=fractional)


def load_qrels(qrels, client, fractional: bool = False):
    """The Qrels: read on the client, or, for a directory or pattern, read partition by
    partition in the workers, checked for a topic in two partitions, and joined
    (``fractional``: relevance as real numbers, :meth:`cranfield.Qrels.read`).

    With ``client=None`` a partitioned input is returned as it is (to be read later).
    """
    import pyarrow as pa

    from ..core.qrels import Qrels

    if isinstance(qrels, Qrels):
        return qrels
    if isinstance(qrels, (str, os.PathLike)):
        found = paths(qrels)
        if len(found) > 1 or os.path.isdir(os.fspath(qrels)):
            if client is None:
                return qrels
            task = remote(_read_qrels_partition)
            futures = [client.submit(task, p, fractional, pure=False) for p in found]
            parts = gather(client, futures, found, "qrels partitions")
            check_disjoint([q.query_ids() for q in parts], found, "the qrels")
            table = pa.concat_tables([q.table for q in parts])
            return Qrels.of_table(table, os.fspath(qrels))
    if isinstance(qrels, (str, os.PathLike)):
        return Qrels.read(qrels, fractional=fractional)
    return Qrels.coerce(qrels)


def _merge(qrels, name, parts, labels, measures, *, options, micro, keep_rel):
    """The RunResult of one run from its partitions' :class:`PartRun` values."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from ..core.evaluation import RunResult, aggregate, micro_aggregate, require_queries
    from ..core.judged import concat, qrels_side
    from ..core.options import JudgeOptions

    check_disjoint([p.run_queries for p in parts], labels, f"run {name!r}")
    topics = qrels_side(qrels)[0]  # byte order: trec_eval's topic order
    evaluated = [q for p in parts for q in p.query_ids]  # (one list: pa.array of an
    # object ndarray would import pandas)
    code = pc.index_in(pa.array(evaluated, pa.string()), value_set=topics)
    code = code.to_numpy(zero_copy_only=False).astype(np.int64)
    values = {m: [np.asarray(p.values[m]) for p in parts] for m in measures}
    has_rel = [np.asarray(p.has_rel, dtype=bool) for p in parts]
    empty_run = None
    if options.complete:
        missing = np.setdiff1d(np.arange(len(topics)), code)
        if len(missing):
            empty_run = concat(qrels, [], JudgeOptions.of(options, complete=True))
            code = np.concatenate([code, missing])
            for m in measures:
                values[m].append(m.compute(empty_run)[missing])
            has_rel.append(empty_run.num_rel()[missing] > 0)
    order = np.argsort(code, kind="stable")
    query_ids = np.asarray(topics.take(pa.array(code[order])).to_pylist(), dtype=object)
    per_query = {m: _joined(values[m])[order] for m in measures}
    relevant = _joined(has_rel)[order].astype(bool)
    require_queries(SimpleNamespace(num_queries=len(query_ids)), name)
    keep = relevant if keep_rel else np.ones(len(query_ids), bool)
    if not keep.any():
        raise InputError(
            f"no query to evaluate: no query of run {name!r} has a relevant document "
            "and queries without one are skipped"
        )
    judged = None
    whole = [m for m in measures if depends_on_whole_run(m)]
    if micro or whole:
        judged = concat(
            qrels,
            [p.judged for p in parts if p.judged is not None and p.judged.num_queries],
            options,
            run_name=name,
        )
        for m in whole:
            per_query[m] = m.compute(judged)
    if micro:
        aggs = {m: micro_aggregate(m, judged) for m in measures}
    else:
        aggs = {m: aggregate(per_query[m][keep], m.definition.aggregate) for m in measures}
    return RunResult(name, query_ids, per_query, aggs, judged)


WHOLE_RUN = {"nCG": "max_gain", "RBPResidual": "rel"}
"""Measures whose value for a query depends on the other queries evaluated, when the
named parameter is not given: the largest grade among the judgments of all evaluated
topics scales them. They are computed on the client from the pooled judged labels.
Every family with a ``max_grade`` parameter whose default is that largest grade (the
C/W/L measures, ERR) is one too (:func:`depends_on_whole_run`)."""


def _scaling_parameter(definition) -> str | None:
    """The parameter that, left out, makes the largest judged grade scale a measure."""
    if definition.name in WHOLE_RUN:
        return WHOLE_RUN[definition.name]
    for p in definition.params:
        if p.name == "max_grade" and p.default is None:
            return p.name
    return None


def depends_on_whole_run(m) -> bool:
    """Whether ``m``'s per-query values depend on the other queries (:data:`WHOLE_RUN`)."""
    param = _scaling_parameter(m.definition)
    return param is not None and dict(m.params).get(param) is None


def _joined(arrays: list[np.ndarray]) -> np.ndarray:
    """The arrays end to end (the empty ones of partitions without a judged query left
    out, so that they do not change the dtype)."""
    arrays = [a for a in arrays if len(a)]
    if not arrays:
        return np.zeros(0)
    if any(a.dtype == object for a in arrays):
        return np.concatenate([a.astype(object) for a in arrays])
    return np.concatenate(arrays)


def evaluate_dask(
    qrels,
    runs,
    measures=None,
    *,
    client=None,
    scheduler: str | None = None,
    options=None,
    aggregate_by: str = "macro",
    skip_no_relevant: bool = False,
    collection_size: int | None = None,
    fractional: bool = False,
    **judging,
):
    """:func:`cranfield.evaluate` on a Dask cluster (see the module docstring).

    ``runs`` is one input or a list of inputs, each a TREC/Parquet/CSV/TSV file, a
    directory or glob pattern of partitions, or a :class:`~cranfield.Run` (a list or
    tuple of these: the partitions of one run); ``client`` a ``distributed.Client``
    (default: the current one, else a ``LocalCluster`` sized to the machine);
    ``scheduler`` the address of a scheduler to connect to instead. ``options`` (a
    :class:`~cranfield.core.options.JudgeOptions`) or the judging keywords
    (``rel_level``, ``depth``, ``judged_only``, ``complete``, ``compat``,
    ``duplicates``) and the other parameters are :func:`cranfield.evaluate`'s; the
    result is the same :class:`~cranfield.core.evaluation.Results`, except that
    ``RunResult.judged`` is None unless pooled labels were needed (micro averages);
    ``fractional``: qrels given by path read with real-valued relevance.
    """
    from ..core.options import merged

    return evaluate_counted(
        qrels,
        runs,
        measures,
        merged(options, judging),
        client=client,
        scheduler=scheduler,
        aggregate_by=aggregate_by,
        skip_no_relevant=skip_no_relevant,
        collection_size=collection_size,
        fractional=fractional,
    )[0]


def evaluate_counted(
    qrels,
    runs,
    measures,
    options,
    *,
    aggregate_by: str = "macro",
    skip_no_relevant: bool = False,
    collection_size: int | None = None,
    fractional: bool = False,
    stream: bool | None = None,
    client=None,
    scheduler: str | None = None,
    subtopic_qrels=None,
    sampled_qrels=None,
) -> tuple:
    """The Dask backend's ``evaluate`` (:mod:`cranfield.core.backends`):
    ``(Results, Qrels)``, for :func:`evaluate_dask` and ``cranfield eval --engine
    dask``. What cannot be read (a run input, qrels in one file) fails before a
    cluster is connected to; ``stream=True`` is refused (partition the runs instead)."""
    from ..core.evaluation import DEFAULT_MEASURES, Results, as_measures, distinct_run_names
    from ..core.results import default_run_name, with_collection_size
    from ..errors import ParameterError

    if stream:
        raise ParameterError(
            "--engine", "local with --stream (with dask, partition the runs by query)", "dask"
        )
    if subtopic_qrels is not None:
        raise ParameterError("--engine", "local with subtopic qrels (diversity measures)", "dask")
    if sampled_qrels is not None:
        raise ParameterError("--engine", "local with sampled qrels (sampled estimators)", "dask")
    if aggregate_by not in ("macro", "micro"):
        raise ParameterError("aggregate_by", "'macro' or 'micro'", aggregate_by)
    measure_list = as_measures(DEFAULT_MEASURES if measures is None else measures)
    if collection_size is not None:
        measure_list = [with_collection_size(m, collection_size) for m in measure_list]
    if isinstance(runs, dict):
        from ..core.evaluation import as_runs

        runs = as_runs(runs)
    parts = partitions(runs, default_run_name)
    want_judged = aggregate_by == "micro" or any(map(depends_on_whole_run, measure_list))
    qrels = load_qrels(qrels, None, fractional)  # read here unless partitioned
    with connect(client, scheduler) as dask_client:
        note = _local_is_faster(parts, dask_client)
        qrels = load_qrels(qrels, dask_client, fractional)
        task = remote(_evaluate_partition)
        for attempt in (1, 2):  # once more when a dead worker took scattered data along
            shared_qrels = dask_client.scatter(qrels, broadcast=True, hash=False)
            inputs = [
                p if isinstance(p.data, (str, os.PathLike)) else dask_client.scatter(p, hash=False)
                for p in parts
            ]
            futures = [
                dask_client.submit(
                    task, shared_qrels, p, measure_list, options, want_judged, pure=False
                )
                for p in inputs
            ]
            try:
                answers = gather(dask_client, futures, [p.label for p in parts])
                break
            except InputsLost:
                if attempt == 2:
                    raise
    # runs in input order, then in order of first appearance
    groups: dict[tuple[int, str], list[tuple[PartRun, str]]] = {}
    for part, answer in zip(parts, answers, strict=True):
        for pr in answer:
            groups.setdefault((part.group, pr.name), []).append((pr, part.label))
    keys = list(groups)
    sources = [_group_source(parts, g) for g, _ in keys]
    names = distinct_run_names([n for _, n in keys], sources)
    results = [
        _merge(
            qrels,
            name,
            [pr for pr, _ in groups[key]],
            [label for _, label in groups[key]],
            measure_list,
            options=options,
            micro=aggregate_by == "micro",
            keep_rel=skip_no_relevant,
        )
        for key, name in zip(keys, names, strict=True)
    ]
    if note is not None:  # (given once the results stand: an error stays one line)
        from ..errors import note as tell

        tell(note)
    return Results(measure_list, results, options.as_dict()), qrels


def _local_is_faster(parts: list[Partition], dask_client) -> str | None:
    """The note for runs too small for the cluster to beat the local engine
    (:mod:`.break_even`); runs in memory are not sized, so they get none."""
    if not all(isinstance(p.data, (str, os.PathLike)) for p in parts):
        return None
    from .break_even import local_is_faster
    from .cluster import machine_workers

    size = sum(os.path.getsize(p.data) for p in parts)
    return local_is_faster(size, sum(dask_client.nthreads().values()), machine_workers())


def _group_source(parts: list[Partition], group: int) -> str | None:
    """The file (or directory, pattern) input ``group`` was read from, for naming."""
    labels = [p.label for p in parts if p.group == group]
    if len(labels) == 1:
        return labels[0]
    try:
        return os.path.commonpath(labels)
    except ValueError:  # in-memory partitions
        return labels[0]


def judge_dask(
    qrels,
    run,
    options=None,
    *,
    client=None,
    scheduler: str | None = None,
    encoding: str = "utf-8",
    **judging,
):
    """The :class:`~cranfield.core.judged.JudgedRun` of one partitioned run, judged in
    the workers and joined on the client (:func:`cranfield.core.judged.concat`): what
    ``cranfield trec_eval --engine dask`` measures. Moves one byte per ranked document
    to the client."""
    from ..core.judged import concat
    from ..core.options import merged
    from ..core.results import default_run_name

    opts = merged(options, judging)
    parts = partitions(run, default_run_name)
    with connect(client, scheduler) as dask_client:
        shared_qrels = dask_client.scatter(qrels, broadcast=True, hash=False)
        task = remote(_judge_partition)
        futures = [
            dask_client.submit(task, shared_qrels, p, opts, encoding, pure=False) for p in parts
        ]
        answers = gather(dask_client, futures, [p.label for p in parts])
    check_disjoint([ids for ids, _, _ in answers], [p.label for p in parts], "the run")
    pieces = [jr for _, jr, _ in answers if jr.num_queries]
    # the local reader names a run by the tag of its last line
    return concat(qrels, pieces, opts, run_name=answers[-1][2])


def _judge_partition(qrels, part, options, encoding):
    """Worker task: (distinct query ids, JudgedRun, run name) of one partition."""
    import pyarrow.compute as pc

    from ..core.judged import judge
    from ..core.options import JudgeOptions

    (run,) = read_partition(part, options.duplicates, encoding)
    ids = np.asarray(pc.unique(run.table["query_id"]).to_pylist(), dtype=object)
    jr = judge(qrels, run, JudgeOptions.of(options, complete=False), doc_rows=False)
    return ids, _clean(jr), run.name
