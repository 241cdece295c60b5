"""evaluate(): runs x measures -> Results (per-query values and aggregates).

Aggregation is a separate step from measuring (:func:`cranfield.core.results.aggregate`);
the results, run naming and measure lists live in :mod:`cranfield.core.results`, which
needs no arrays.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np

from .._lazy import lazy
from ..defaults import DEFAULT_MEASURES
from ..errors import InputError, ParameterError
from .files import evaluate_files  # noqa: F401 - re-exported (docs/streaming.md)
from .judged import JudgedRun, judge, judge_runs
from .measures.engine import as_array, compute_many
from .measures.registry import Measure
from .options import JudgeOptions, merged
from .results import (  # noqa: F401 - re-exported: the names callers import from here
    MIN_GEO_MEAN,
    Results,
    RunResult,
    aggregate,
    as_measures,
    combine,
    distinct_run_names,
    missing_topics,
    with_collection_size,
)

# (modules a call of the Python API uses, bound on first use: an import statement in a
# function costs 2-3 us a call, and a loop of small evaluations makes dozens a call)
_backends = lazy("cranfield.core.backends", __name__, "_backends")
_columnar = lazy("cranfield.core.columnar", __name__, "_columnar")
_indexed = lazy("cranfield.core.indexed", __name__, "_indexed")
_qrels = lazy("cranfield.core.qrels", __name__, "_qrels")
_run = lazy("cranfield.core.run", __name__, "_run")
_sampled_run = lazy("cranfield.core.sampled_run", __name__, "_sampled_run")
_subtopics = lazy("cranfield.core.subtopics", __name__, "_subtopics")


def read_runs(paths, duplicates: str = "error") -> list:
    """:class:`~cranfield.Run` objects read from ``paths``, named apart by
    :func:`distinct_run_names` (two files with the same TREC tag get their file names)."""
    from .run import Run

    runs = [Run.read(path, duplicates=duplicates) for path in paths]
    names = distinct_run_names([r.name for r in runs], [r.source for r in runs])
    for run, name in zip(runs, names, strict=True):
        run.name = name
    return runs


class RunFiles(Sequence):
    """Run files named up front and read when used: item ``i`` is the :class:`Run` of
    ``paths[i]``, read anew each time, named as :func:`read_runs` names them.

    Work that visits runs one at a time (the report's figures) holds one run's rows at
    a time; :func:`evaluate` takes the files by their paths (the engine reads each in
    bounded pieces). Every file is read once when the object is made, so a bad file
    fails before any work."""

    def __init__(self, paths, duplicates: str = "error"):
        from .run import Run

        self.paths = list(paths)
        self.duplicates = duplicates
        names, sources = [], []
        for path in self.paths:
            run = Run.read(path, duplicates=duplicates)
            names.append(run.name)
            sources.append(run.source)
        self.names = distinct_run_names(names, sources)

    def __len__(self) -> int:
        return len(self.paths)

    def __getitem__(self, i):
        from .run import Run

        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        run = Run.read(self.paths[i], duplicates=self.duplicates)
        run.name = self.names[i]
        return run


def as_runs(runs, duplicates: str = "error") -> list:
    """Accept a Run, a path, a table, a list of these, or a {name: run} mapping.

    A mapping whose values are all ``{docid: score}`` mappings is one run in the
    pytrec_eval / ranx / ir_measures shape ``{qid: {docid: score}}``, not a dict of runs
    (whose values are runs: ``{qid: {docid: score}}`` one level deeper, Run objects,
    paths or tables); the two shapes differ in depth, so neither is mistaken for the other.

    A run given as a path is read with the ``duplicates`` policy (``Run.read``).

    A table (pandas or polars DataFrame, Arrow table) with a run-name column (``run``,
    ``tag``, ... see :data:`cranfield.core.run.RUN_NAME_COLUMNS`) holds one run per name
    (:meth:`Run.split`); without one it is a single run.

    A ranx ``Run`` is one run (named by its ``name``); a list (or an iterator) of
    ir_measures ``ScoredDoc`` records is one run.
    """
    frame_kind, is_ranx, is_records = (
        _columnar.frame_kind,
        _columnar.is_ranx,
        _columnar.is_records,
    )
    Run = _run.Run

    def is_table(obj) -> bool:
        import pyarrow as pa

        return isinstance(obj, pa.Table) or frame_kind(obj) is not None

    def coerce(obj) -> Run:
        if isinstance(obj, (str, Path)):
            return Run.read(obj, duplicates=duplicates)
        return Run.coerce(obj)

    if hasattr(runs, "__next__"):  # an iterator (of runs or of records): read it once
        runs = list(runs)
    if (
        isinstance(runs, (Run, str, Path))
        or is_table(runs)
        or _one_run_dict(runs)
        or is_ranx(runs)
        or is_records(runs)
    ):
        runs = [runs]
    if isinstance(runs, Mapping):
        out = []
        for name, run in runs.items():
            try:
                run = run if isinstance(run, Run) else coerce(run)
            except InputError as exc:
                if not isinstance(run, Mapping):
                    raise
                raise InputError(
                    f"run {name!r}: {exc.message} (a dict of runs is {{name: {{qid: {{docid: "
                    "score}}}; one run is {qid: {docid: score}}, or pass [run] or {name: run})",
                    exc.source,
                    exc.line,
                ) from None
            if run.name != str(name):
                run = Run(run.table, run.source, name=str(name))
            out.append(run)
        return out
    out = []
    for r in runs:
        out.extend([r] if isinstance(r, Run) else Run.split(r) if is_table(r) else [coerce(r)])
    if not out:
        raise ParameterError("runs", "at least one run", runs)
    return out


def _one_run_dict(runs) -> bool:
    """Whether ``runs`` is one run as ``{qid: {docid: score}}`` (scores at depth 2),
    rather than ``{name: run}``."""
    if not isinstance(runs, Mapping) or not runs:
        return False
    inner = list(runs.values())
    if not all(isinstance(v, Mapping) for v in inner):
        return False
    leaves = [leaf for v in inner for leaf in v.values()]
    return bool(leaves) and not any(isinstance(leaf, Mapping) for leaf in leaves)


def micro_aggregate(measure: Measure, jr: JudgedRun) -> float:
    """Micro average (pooled counts); raises MeasureError where it is not defined."""
    return measure.micro(jr)


def evaluate(
    qrels,
    runs,
    measures: str | Iterable[str | Measure] = DEFAULT_MEASURES,
    *,
    rel_level: int = 1,
    depth: int | None = None,
    judged_only: bool = False,
    complete: bool = False,
    compat: int = 10,
    aggregate_by: str = "macro",
    skip_no_relevant: bool = False,
    collection_size: int | None = None,
    options: JudgeOptions | None = None,
    engine: str = "local",
    client=None,
    subtopic_qrels=None,
    sampled_qrels=None,
) -> Results:
    """Evaluate one or more runs against relevance judgments.

    Parameters
    ----------
    qrels
        :class:`~cranfield.Qrels`, or anything ``Qrels.coerce`` accepts (a path, a
        ``{qid: {docid: grade}}`` dict, a DataFrame, an Arrow table).
    runs
        A :class:`~cranfield.Run`, a path, a list of them or a ``{name: run}`` dict; a
        ``{qid: {docid: score}}`` dict (pytrec_eval's, ranx's and ir_measures' shape) is
        one run, named ``"run"``.
    measures
        Measure names, readable (``"nDCG@10"``) or trec_eval (``"ndcg_cut.10"``).
    rel_level
        Minimum grade of a relevant document (trec_eval ``-l``).
    depth
        Evaluate only the top ``depth`` documents of each ranking (``-M``).
    judged_only
        Drop unjudged documents from the rankings before measuring (``-J``).
    complete
        Evaluate every qrels topic; a topic missing from a run scores as an empty
        ranking and counts in the mean (``-c``). Otherwise such topics are skipped.
    compat
        10 (trec_eval 10.0) or 9 (trec_eval 9.x / pytrec_eval: float32 scores and
        9.x recall-point rounding).
    aggregate_by
        ``"macro"`` (mean of per-query values) or ``"micro"`` (pooled counts, for
        set-based measures that support it).
    skip_no_relevant
        Leave queries without any relevant document out of the means.
    collection_size
        Number of documents in the collection, for measures that need it (Fallout,
        Generality, utility's d term) and were not given one explicitly.
    options
        The judging options as one :class:`~cranfield.core.options.JudgeOptions`
        value, instead of ``rel_level``, ``depth``, ``judged_only``, ``complete`` and
        ``compat`` (giving both is an error); its ``duplicates`` applies to runs
        given as file paths.
    engine
        The execution backend (:mod:`cranfield.core.backends`): ``"local"`` (this
        process) or ``"dask"``: runs partitioned by query (files, directories, glob
        patterns, Parquet datasets) evaluated in Dask workers, with the same values
        (docs/scaling.md).
    client
        With ``engine="dask"``: the ``distributed.Client`` to run on (default: the
        current one, else a ``LocalCluster`` sized to the machine).
    subtopic_qrels
        Subtopic (intent) qrels for the diversity measures (``alpha_nDCG@20``,
        ``ERR_IA@20``, ...): a :class:`~cranfield.core.subtopics.SubtopicQrels`, a path
        or a table (docs/diversity.md). Their values are given for the queries the
        other measures are (those of ``qrels``); a query without subtopic judgments
        scores 0.
    sampled_qrels
        Sampled qrels for the sampled estimators (``xinfAP``, ``infNDCG``, ``statAP``,
        ``statPC@10``): a path or :func:`~cranfield.core.sampled.read_sampled_qrels`'
        result (docs/sampling.md). Their values are given for the queries of ``qrels``;
        a query without sampled judgments scores 0.

    Returns
    -------
    Results
    """
    opts = merged(
        options,
        dict(
            rel_level=rel_level,
            depth=depth,
            judged_only=judged_only,
            complete=complete,
            compat=compat,
        ),
    )
    more = {} if subtopic_qrels is None else {"subtopic_qrels": subtopic_qrels}
    if sampled_qrels is not None:
        more["sampled_qrels"] = sampled_qrels
    results, _ = _backends.backend(engine).evaluate(
        qrels,
        runs,
        measures,
        opts,
        aggregate_by=aggregate_by,
        skip_no_relevant=skip_no_relevant,
        collection_size=collection_size,
        client=client,
        **more,
    )
    return _with_arrays(results)


def evaluate_objects(
    qrels,
    runs,
    measures,
    options: JudgeOptions,
    *,
    aggregate_by: str = "macro",
    skip_no_relevant: bool = False,
    collection_size: int | None = None,
    subtopic_qrels=None,
    keep_judged: bool = False,
    sampled_qrels=None,
) -> tuple[Results, object]:
    """The local backend's :func:`evaluate` of anything but files given by their paths
    (those go to :func:`cranfield.core.files.evaluate_files`): ``(Results, Qrels)``.

    The qrels are indexed once by the engine (:meth:`cranfield.Qrels.index`, kept by
    the object: a loop of calls with one ``Qrels`` indexes them once) and every run is
    judged and measured by the engine (:func:`cranfield.core.indexed.evaluate_indexed`:
    ``Run`` objects as Arrow columns, TREC files by their paths).
    With ``keep_judged`` (or when the engine leaves the job to Python: see there), the
    runs are judged into :class:`JudgedRun` objects (``RunResult.judged``, for the Dask
    backend's workers) and measured from them (:func:`run_result`).
    """
    Qrels = _qrels.Qrels
    if aggregate_by not in ("macro", "micro"):
        raise ParameterError("aggregate_by", "'macro' or 'micro'", aggregate_by)
    qrels_path = qrels if isinstance(qrels, (str, Path)) else None
    qrels = qrels if isinstance(qrels, Qrels) else Qrels.coerce(qrels)
    measure_list = as_measures(measures)
    if collection_size is not None:
        measure_list = [with_collection_size(m, collection_size) for m in measure_list]
    items = _run_items(runs, options)
    subtopics = _subtopics.as_subtopics(subtopic_qrels, measure_list)
    sampled = _sampled_run.as_sampled(sampled_qrels, measure_list)
    done = None
    if not keep_judged and subtopics is None and sampled is None:  # run by run below
        done = _indexed.evaluate_indexed(
            qrels,
            items,
            measure_list,
            options,
            aggregate_by=aggregate_by,
            skip_no_relevant=skip_no_relevant,
        )
    names = runs.names if isinstance(runs, RunFiles) else None
    if done is not None:
        results = [result for result, _ in done]
        given = names or _apart([r.name for r in results], items)
        for result, name in zip(results, given, strict=True):
            result.name = name
        _distinct([r.name for r in results])
    else:
        judged = _judged_all(qrels, qrels_path, items, options)
        given = names or _apart([name for name, _ in judged], items)
        judged = [(name, jr) for name, (_, jr) in zip(given, judged, strict=True)]
        _distinct([name for name, _ in judged])
        for (_, jr), item in zip(judged, items, strict=True):
            _sampled_run.attach_sampled(sampled, jr, item, options)
        results = [
            run_result(
                jr,
                name,
                measure_list,
                aggregate_by,
                skip_no_relevant,
                _subtopics.intents_for(subtopics, item, options),
            )
            for (name, jr), item in zip(judged, items, strict=True)
        ]
    return Results(measure_list, results, options.as_dict()), qrels


def _apart(names: list[str], items: list) -> list[str]:
    """The runs' names; when two share one and every run was given by its file, every
    run's file name instead (:func:`distinct_run_names`), as when the qrels are a path
    too (``cranfield eval`` names runs so)."""
    if len(set(names)) == len(names) or not all(isinstance(i, (str, Path)) for i in items):
        return names
    from .io.source import source_name

    return distinct_run_names(names, [source_name(i) for i in items])


def _distinct(names: list[str]) -> None:
    """:class:`InputError` when two runs have one name."""
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise InputError(f"two runs are named {dup!r}; give each run a distinct name")


def _with_arrays(results: Results) -> Results:
    """The results with NumPy arrays of values and query ids, as :func:`run_result`
    gives them (the engine path of :func:`cranfield.core.files.evaluate_files` gives
    lists)."""
    for r in results.runs:
        if r.judged is None:
            r.values = {m: _array(v, as_array) for m, v in r.values.items()}
            r.query_ids = np.asarray(r.query_ids, dtype=object)
    return results


def _array(values, as_array) -> np.ndarray:
    """An engine column as a NumPy array: float64, or object for a text family's."""
    if len(values) and isinstance(values[0], str):
        return as_array(values)
    return np.asarray(values, dtype=np.float64)


def _run_items(runs, opts: JudgeOptions) -> list:
    """The runs of :func:`evaluate`: :class:`Run` objects (:func:`as_runs`), except that
    a run given by its path (alone or in a list) stays a path, for
    :func:`_judged`."""
    if isinstance(runs, (str, Path)):
        return [runs]
    if isinstance(runs, RunFiles):  # by their paths; named after judging
        return list(runs.paths)
    if hasattr(runs, "__next__"):  # an iterator (of runs or of records): read it once
        runs = list(runs)
    if isinstance(runs, (list, tuple)) and runs and not _columnar.is_records(runs):
        items = []
        for r in runs:
            items.extend([r] if isinstance(r, (str, Path)) else as_runs([r], opts.duplicates))
        return items
    return as_runs(runs, opts.duplicates)


def _judged_all(qrels, qrels_path, items: list, opts: JudgeOptions) -> list[tuple]:
    """``(name, JudgedRun)`` of each run, in order: paths by :func:`_judged`, the
    :class:`Run` objects together (:func:`~cranfield.core.judged.judge_runs`: the qrels
    indexed once)."""
    objects = [i for i, run in enumerate(items) if not isinstance(run, (str, Path))]
    together = judge_runs(qrels, [items[i] for i in objects], opts, doc_rows=False)
    judged = {i: (items[i].name, jr) for i, jr in zip(objects, together, strict=True)}
    return [
        judged[i] if i in judged else _judged(qrels, qrels_path, run, opts)
        for i, run in enumerate(items)
    ]


def _judged(qrels, qrels_path, run, opts: JudgeOptions) -> tuple:
    """``(name, JudgedRun)`` of one run: a TREC file read and judged by the compiled
    engine (:func:`cranfield.core.engine_judge.judge_trec`: in query-aligned pieces
    when large, so in bounded memory), anything else by :func:`judge`."""
    if isinstance(run, (str, Path)):
        from .engine_judge import judge_trec
        from .run import Run

        jr = judge_trec(qrels, qrels_path, run, opts)
        if jr is not None:
            return jr.run_name, jr
        run = Run.read(run, duplicates=opts.duplicates)
    return run.name, judge(qrels, run, opts, doc_rows=False)  # measures only


def require_queries(jr: JudgedRun, name: str) -> None:
    """Raise :class:`InputError` when a judged run has no query to evaluate.

    A mean over zero queries is undefined: trec_eval stops with an error, and so does
    every cranfield path that aggregates (``evaluate``, ``eval``, ``trec_eval``).
    """
    if jr.num_queries == 0:
        from .io.problems import no_query

        raise no_query(name)


def run_result(
    jr: JudgedRun,
    name: str,
    measures: list[Measure],
    aggregate_by: str = "macro",
    skip_no_relevant: bool = False,
    intents: JudgedRun | None = None,
) -> RunResult:
    """Per-query values and aggregates of one judged run (the body of :func:`evaluate`);
    ``intents``: the same run judged against subtopic qrels
    (:func:`~cranfield.core.subtopics.judge_intents`), for the diversity measures."""
    require_queries(jr, name)
    keep = jr.num_rel() > 0 if skip_no_relevant else np.ones(jr.num_queries, bool)
    if not keep.any():
        from .io.problems import no_relevant

        raise no_relevant(name)
    values = _values(jr, measures, intents)
    aggs = {}
    for m in measures:
        if aggregate_by == "micro":
            aggs[m] = micro_aggregate(m, jr)
        else:
            aggs[m] = aggregate(values[m][keep], m.definition.aggregate)
    return RunResult(name, jr.query_ids, values, aggs, jr)


def _values(jr: JudgedRun, measures: list[Measure], intents: JudgedRun | None) -> dict:
    """Per-query values of each measure on ``jr``'s queries: the diversity measures on
    ``intents`` (the run judged against subtopic qrels; a query it lacks scores 0),
    computed together by the engine; the others by :func:`compute_many`."""
    from .measures.diversity import is_diversity

    diverse = [m for m in measures if is_diversity(m.definition)]
    others = [m for m in measures if not is_diversity(m.definition)]
    values = dict(zip(others, compute_many(others, jr), strict=True)) if others else {}
    if diverse:
        from .subtopics import diversity_values, intents_of

        if intents is None:
            intents_of(jr, diverse[0].name)  # raises: the run was judged without subtopics
        specs = []
        for m in diverse:
            m.definition.check(intents, m.cutoff, **m.param_values())
            p = m.param_values()
            specs.append(
                (m.name, m.cutoff, p.get("alpha", 0.5), p.get("beta", 0.5), p.get("gamma", 0.5))
            )
        columns = diversity_values(intents, specs)
        ids = np.asarray(intents.query_ids, dtype=object)
        at = np.searchsorted(ids, np.asarray(jr.query_ids, dtype=object)) if len(ids) else None
        for m, column in zip(diverse, columns, strict=True):
            out = np.zeros(jr.num_queries)
            if at is not None:
                found = at < len(ids)
                found[found] = ids[at[found]] == np.asarray(jr.query_ids, dtype=object)[found]
                out[found] = column[at[found]]
            values[m] = out
    return {m: values[m] for m in measures}
