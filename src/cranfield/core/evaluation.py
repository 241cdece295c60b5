"""evaluate(): runs x measures -> Results (per-query values and aggregates).

Aggregation is a separate step from measuring: arithmetic mean for most measures,
sum for counts, geometric mean (floor 1e-5) for GMAP/GMBpref, none for strings. The
mean is accumulated query by query in topic order, as trec_eval does, so aggregates
agree to the last digit.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..defaults import DEFAULT_MEASURES
from ..errors import InputError, ParameterError
from .judged import JudgedRun, judge
from .measures._common import libm_exp, libm_log
from .measures.engine import compute_many
from .measures.names import parse_many
from .measures.registry import Measure
from .options import JudgeOptions, merged

MIN_GEO_MEAN = 1e-5


def distinct_run_names(names: list[str], sources: list[str | None]) -> list[str]:
    """The names to show runs by: their own (TREC tags), or, when two share one, every
    run's file name without its extension (``sources[i]`` is run ``i``'s file).

    ``cranfield eval``, ``compare``, ``report``, ``plot`` and ``pool`` name runs so.
    """
    from .run import _default_name

    if len(set(names)) == len(names):
        return list(names)
    return [_default_name(source) for source in sources]


def read_runs(paths, duplicates: str = "error") -> list:
    """:class:`~cranfield.Run` objects read from ``paths``, named apart by
    :func:`distinct_run_names` (two files with the same TREC tag get their file names)."""
    from .run import Run

    runs = [Run.read(path, duplicates=duplicates) for path in paths]
    names = distinct_run_names([r.name for r in runs], [r.source for r in runs])
    for run, name in zip(runs, names, strict=True):
        run.name = name
    return runs


def as_measures(measures) -> list[Measure]:
    """Parse measure names (readable or trec_eval) into a de-duplicated list."""
    if isinstance(measures, (str, Measure)):
        measures = [measures]
    out: list[Measure] = []
    for m in measures:
        for parsed in [m] if isinstance(m, Measure) else parse_many(str(m)):
            if parsed not in out:
                out.append(parsed)
    if not out:
        raise ParameterError("measures", "at least one measure name", measures)
    return out


def as_runs(runs, duplicates: str = "error") -> list:
    """Accept a Run, a path, a table, a list of these, or a {name: run} mapping.

    A run given as a path is read with the ``duplicates`` policy (``Run.read``).

    A table (pandas or polars DataFrame, Arrow table) with a run-name column (``run``,
    ``tag``, ... see :data:`cranfield.core.run.RUN_NAME_COLUMNS`) holds one run per name
    (:meth:`Run.split`); without one it is a single run.
    """
    from ._columnar import frame_kind
    from .run import Run

    def is_table(obj) -> bool:
        import pyarrow as pa

        return isinstance(obj, pa.Table) or frame_kind(obj) is not None

    def coerce(obj) -> Run:
        if isinstance(obj, (str, Path)):
            return Run.read(obj, duplicates=duplicates)
        return Run.coerce(obj)

    if isinstance(runs, (Run, str, Path)) or is_table(runs):
        runs = [runs]
    if isinstance(runs, Mapping):
        out = []
        for name, run in runs.items():
            run = run if isinstance(run, Run) else coerce(run)
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


def aggregate(values: np.ndarray, how: str, num_queries: int | None = None) -> float | None:
    """Aggregate per-query values: mean, sum, gmean or none (sequential, topic order)."""
    n = len(values) if num_queries is None else num_queries
    if how == "none":
        return None
    if how == "sum":
        return float(np.cumsum(values)[-1]) if len(values) else 0.0
    if n == 0:
        return 0.0
    if how == "gmean":
        logs = libm_log(np.maximum(values, MIN_GEO_MEAN))
        total = float(np.cumsum(logs)[-1]) if len(values) else 0.0
        total += (n - len(values)) * float(libm_log(MIN_GEO_MEAN))
        return float(libm_exp(total / n))
    total = float(np.cumsum(values)[-1]) if len(values) else 0.0
    return total / n


def _with_collection_size(measure: Measure, size: int) -> Measure:
    """The measure with ``collection_size`` filled in, if it has that parameter."""
    names = [p.name for p in measure.definition.params]
    if "collection_size" not in names or "collection_size" in dict(measure.params):
        return measure
    return Measure.of(
        measure.name, cutoff=measure.cutoff, **dict(measure.params), collection_size=size
    )


def micro_aggregate(measure: Measure, jr: JudgedRun) -> float:
    """Micro average (pooled counts); raises MeasureError where it is not defined."""
    return measure.micro(jr)


@dataclass
class RunResult:
    """Values of one run: per query (in topic order) and aggregated."""

    name: str
    query_ids: np.ndarray
    values: dict[Measure, np.ndarray]
    aggregates: dict[Measure, Any]
    judged: JudgedRun = field(repr=False)


@dataclass
class Results:
    """Evaluation results of one or more runs.

    ``results[run_name][measure]`` gives the aggregate; :meth:`per_query` the values
    of every query; :meth:`to_json`, :meth:`to_pandas` and :meth:`to_polars` export.
    """

    measures: list[Measure]
    runs: list[RunResult]
    options: dict = field(default_factory=dict)

    @property
    def run_names(self) -> list[str]:
        return [r.name for r in self.runs]

    def run(self, name: str | int) -> RunResult:
        if isinstance(name, int):
            return self.runs[name]
        for r in self.runs:
            if r.name == name:
                return r
        raise KeyError(name)

    def __getitem__(self, name) -> dict[str, Any]:
        r = self.run(name)
        return {str(m): r.aggregates[m] for m in self.measures}

    def _measure(self, measure) -> Measure:
        if isinstance(measure, Measure):
            return measure
        parsed = parse_many(str(measure))
        if len(parsed) != 1 or parsed[0] not in self.measures:
            raise KeyError(measure)
        return parsed[0]

    def aggregate(self, run=0, measure=None):
        r = self.run(run)
        if measure is None:
            return {str(m): r.aggregates[m] for m in self.measures}
        return r.aggregates[self._measure(measure)]

    def per_query(self, run=0, measure=None) -> dict:
        """``{qid: {measure: value}}`` for a run, or ``{qid: value}`` for one measure."""
        r = self.run(run)
        if measure is not None:
            m = self._measure(measure)
            return {q: _py(v) for q, v in zip(r.query_ids, r.values[m], strict=True)}
        cols = [(str(m), r.values[m]) for m in self.measures]
        return {q: {name: _py(v[i]) for name, v in cols} for i, q in enumerate(r.query_ids)}

    def per_query_table(self) -> dict[str, dict[str, dict[str, float]]]:
        """``{measure: {run: {qid: value}}}``: the input of :func:`cranfield.compare`."""
        return {
            str(m): {
                r.name: {q: _py(v) for q, v in zip(r.query_ids, r.values[m], strict=True)}
                for r in self.runs
            }
            for m in self.measures
            if m.definition.kind != "str"
        }

    def to_json(self, per_query: bool = False) -> dict:
        runs = []
        for r in self.runs:
            entry: dict[str, Any] = {
                "name": r.name,
                "aggregate": {str(m): _py(r.aggregates[m]) for m in self.measures},
            }
            if per_query:
                entry["per_query"] = self.per_query(r.name)
            runs.append(entry)
        return {"runs": runs}

    def dumps(self, per_query: bool = False) -> str:
        from ..output import dumps_json

        return dumps_json(self.to_json(per_query))

    def rows(self, per_query: bool = False) -> list[dict]:
        """Long format: one dict per (run, query, measure) or (run, measure)."""
        out = []
        for r in self.runs:
            if per_query:
                for m in self.measures:
                    for q, v in zip(r.query_ids, r.values[m], strict=True):
                        out.append(
                            {"run": r.name, "query_id": q, "measure": str(m), "value": _py(v)}
                        )
            else:
                for m in self.measures:
                    out.append({"run": r.name, "measure": str(m), "value": _py(r.aggregates[m])})
        return out

    def to_pandas(self, per_query: bool = False):
        """A wide DataFrame: rows are runs (or run, query), columns are measures."""
        from ..errors import require

        pd = require("pandas", "pandas")
        records = []
        for r in self.runs:
            if per_query:
                for i, q in enumerate(r.query_ids):
                    rec = {"run": r.name, "query_id": q}
                    rec.update({str(m): _py(r.values[m][i]) for m in self.measures})
                    records.append(rec)
            else:
                rec = {"run": r.name}
                rec.update({str(m): _py(r.aggregates[m]) for m in self.measures})
                records.append(rec)
        index = ["run", "query_id"] if per_query else ["run"]
        return pd.DataFrame.from_records(records).set_index(index)

    def to_polars(self, per_query: bool = False):
        from ..errors import require

        pl = require("polars", "polars")
        return pl.from_pandas(self.to_pandas(per_query).reset_index())


def _py(v):
    if isinstance(v, (np.floating, float)):
        return float(v)
    if isinstance(v, np.integer):
        return int(v)
    return v


def combine(parts: list[Results], sources: list[str | None]) -> Results:
    """One :class:`Results` from results of one run each (same measures and options),
    the runs named apart by :func:`distinct_run_names` (``sources[i]``: part i's file).

    ``cranfield eval`` evaluates its runs one at a time (one run in memory) and combines.
    """
    runs = [part.runs[0] for part in parts]
    for result, name in zip(runs, distinct_run_names([r.name for r in runs], sources), strict=True):
        result.name = name
    return Results(parts[0].measures, runs, parts[0].options)


def missing_topics(results: Results, qrels) -> list[tuple[str, int]]:
    """(run name, how many topics of ``qrels`` the run has no values for), for each run
    that misses any, in run order."""
    topics = len(set(qrels.query_ids()))
    counts = [(r.name, topics - len(r.query_ids)) for r in results.runs]
    return [(name, n) for name, n in counts if n]


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
) -> Results:
    """Evaluate one or more runs against relevance judgments.

    Parameters
    ----------
    qrels
        :class:`~cranfield.Qrels`, or anything ``Qrels.coerce`` accepts (a path, a
        ``{qid: {docid: grade}}`` dict, a DataFrame, an Arrow table).
    runs
        A :class:`~cranfield.Run`, a path, a list of them or a ``{name: run}`` dict.
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
        ``"local"`` (this process) or ``"dask"``: runs partitioned by query (files,
        directories, glob patterns, Parquet datasets) evaluated in Dask workers, with
        the same values (:func:`cranfield.distributed.evaluate_dask`, docs/scaling.md).
    client
        With ``engine="dask"``: the ``distributed.Client`` to run on (default: the
        current one, else a ``LocalCluster`` sized to the machine).

    Returns
    -------
    Results
    """
    from .qrels import Qrels

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
    if engine != "local" or client is not None:
        from ..distributed.engine import run_engine

        other = dict(aggregate_by=aggregate_by, skip_no_relevant=skip_no_relevant)
        other.update(collection_size=collection_size)
        return run_engine(engine, client, qrels, runs, measures, opts, other)
    if aggregate_by not in ("macro", "micro"):
        raise ParameterError("aggregate_by", "'macro' or 'micro'", aggregate_by)
    qrels = qrels if isinstance(qrels, Qrels) else Qrels.coerce(qrels)
    run_list = as_runs(runs, opts.duplicates)
    measure_list = as_measures(measures)
    if collection_size is not None:
        measure_list = [_with_collection_size(m, collection_size) for m in measure_list]
    names = [r.name for r in run_list]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise InputError(f"two runs are named {dup!r}; give each run a distinct name")
    results = []
    for run in run_list:
        jr = judge(qrels, run, opts)
        results.append(run_result(jr, run.name, measure_list, aggregate_by, skip_no_relevant))
    return Results(measure_list, results, opts.as_dict())


def require_queries(jr: JudgedRun, name: str) -> None:
    """Raise :class:`InputError` when a judged run has no query to evaluate.

    A mean over zero queries is undefined: trec_eval stops with an error, and so does
    every cranfield path that aggregates (``evaluate``, streaming, ``trec_eval``).
    """
    if jr.num_queries == 0:
        raise InputError(f"no query to evaluate: run {name!r} and the qrels share no query")


def run_result(
    jr: JudgedRun,
    name: str,
    measures: list[Measure],
    aggregate_by: str = "macro",
    skip_no_relevant: bool = False,
) -> RunResult:
    """Per-query values and aggregates of one judged run (the body of :func:`evaluate`)."""
    require_queries(jr, name)
    keep = jr.num_rel() > 0 if skip_no_relevant else np.ones(jr.num_queries, bool)
    if not keep.any():
        raise InputError(
            f"no query to evaluate: no query of run {name!r} has a relevant document "
            "and queries without one are skipped"
        )
    values = dict(zip(measures, compute_many(measures, jr), strict=True))
    aggs = {}
    for m in measures:
        if aggregate_by == "micro":
            aggs[m] = micro_aggregate(m, jr)
        else:
            aggs[m] = aggregate(values[m][keep], m.definition.aggregate)
    return RunResult(name, jr.query_ids, values, aggs, jr)
