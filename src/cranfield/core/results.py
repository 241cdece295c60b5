"""Results of an evaluation, and the steps around measuring that need no arrays.

:class:`Results` holds per-query values (in topic order) and aggregates of each run;
:func:`aggregate` is the one aggregation (arithmetic mean for most measures, sum for
counts, geometric mean with floor 1e-5 for GMAP/GMBpref, none for strings), accumulated
query by query in topic order as trec_eval does, so aggregates agree to the last digit.
This module imports neither NumPy nor PyArrow: the command line's engine path
(``core/files.py``) builds its results here from the compiled engine's columns.
"""

from __future__ import annotations

import os

from .._lazy import lazy
from .._memo import memo
from .._record import Record
from ..defaults import DEFAULT_MEASURES  # noqa: F401 - re-exported
from ..errors import ParameterError
from .measures.names import parse_many
from .measures.registry import Measure

# (modules a call of the Python API uses, bound on first use: an import statement in a
# function costs 2-3 us a call, and a loop of small evaluations makes dozens a call)
_engine = lazy("cranfield._engine", __name__, "_engine")
_families = lazy("cranfield.core.measures.families", __name__, "_families")

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a cold CLI)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from .judged import JudgedRun

MIN_GEO_MEAN = 1e-5

# file name endings left out of a run's name
_SUFFIXES = (".gz", ".txt", ".trec", ".run", ".parquet", ".pq", ".csv", ".tsv")


def default_run_name(source: str | None) -> str:
    """A run's name from its file when it has no TREC tag: the file name without its
    extensions (``run`` for standard input and in-memory data)."""
    if source and not source.startswith("<"):
        name = _name(source)
        for suffix in _SUFFIXES:
            if name.lower().endswith(suffix) and len(name) > len(suffix):
                name = name[: -len(suffix)]
        return name
    return "run"


def _name(path: str) -> str:
    """``pathlib.PurePath(path).name`` without importing pathlib on POSIX (a cold CLI)."""
    if os.name != "posix":
        from pathlib import PurePath

        return PurePath(path).name
    parts = [part for part in path.split("/") if part and part != "."]
    return parts[-1] if parts else ""


def distinct_run_names(names: list[str], sources: list[str | None]) -> list[str]:
    """The names to show runs by: their own (TREC tags), or, when two share one, every
    run's file name without its extension (``sources[i]`` is run ``i``'s file), or,
    when two of those are alike too (``a/run.txt`` and ``b/run.txt``, ``run.txt`` and
    ``run.gz``), every run's file as given.

    ``cranfield eval``, ``compare``, ``report``, ``plot`` and ``pool`` name runs so.
    """
    if len(set(names)) == len(names):
        return list(names)
    stems = [default_run_name(source) for source in sources]
    if len(set(stems)) == len(stems) or None in sources or len(set(sources)) < len(sources):
        return stems
    return [str(source) for source in sources]


def as_measures(measures) -> list[Measure]:
    """Parse measure names (readable or trec_eval) into a de-duplicated list."""
    if isinstance(measures, (str, Measure)):
        measures = [measures]
    if isinstance(measures, (list, tuple)) and all(type(m) is str for m in measures):
        return list(_names_parsed(tuple(measures), _families.generation()))
    return _parsed(measures)


@memo(1024)
def _names_parsed(names: tuple, _generation: tuple) -> tuple[Measure, ...]:
    """:func:`as_measures` of names while the registry is unchanged (a notebook's loop
    asks for the same few on every call), as ``names.parse_many`` keeps its answers."""
    return tuple(_parsed(names))


def _parsed(measures) -> list[Measure]:
    """:func:`as_measures`, parsed."""
    out: list[Measure] = []
    for m in measures:
        for parsed in [m] if isinstance(m, Measure) else parse_many(str(m)):
            if parsed not in out:
                out.append(parsed)
    if not out:
        raise ParameterError("measures", "at least one measure name", measures)
    return out


def with_collection_size(measure: Measure, size: int) -> Measure:
    """The measure with ``collection_size`` filled in, if it has that parameter and was
    not given one (``evaluate(collection_size=...)``, ``cranfield eval -N``)."""
    names = [p.name for p in measure.definition.params]
    if "collection_size" not in names or "collection_size" in dict(measure.params):
        return measure
    return Measure.of(
        measure.name, cutoff=measure.cutoff, **dict(measure.params), collection_size=size
    )


def aggregate(values, how: str, num_queries: int | None = None) -> float | None:
    """Aggregate per-query values: mean, sum, gmean or none (sequential, topic order).

    ``values`` is a float64 array or a sequence of floats; the mean divides by
    ``num_queries`` when given (queries without values count as 0), the geometric mean
    (``exp(mean(log(max(v, 1e-5))))``) counts each of them at the floor 1e-5. Computed
    by the engine (``rust/eval/src/aggregate.rs``): sums left to right from the first
    value, as NumPy's ``cumsum`` and trec_eval add.
    """
    if how == "none":
        return None
    return _engine.aggregate(values, how, num_queries)


class RunResult(Record):
    """Values of one run: per query (in topic order) and aggregated."""

    __slots__ = ("name", "query_ids", "values", "aggregates", "judged")
    _frozen = False
    _no_repr = ("judged",)
    name: str
    query_ids: Sequence[str]
    values: dict[Measure, Sequence]
    aggregates: dict[Measure, Any]
    judged: JudgedRun | None

    def __init__(
        self,
        name: str,
        query_ids: Sequence[str],
        values: dict[Measure, Sequence],
        aggregates: dict[Measure, Any],
        judged: JudgedRun | None = None,
    ) -> None:
        self.name, self.query_ids, self.values = name, query_ids, values
        self.aggregates, self.judged = aggregates, judged


class Results(Record):
    """Evaluation results of one or more runs.

    ``results[run_name][measure]`` gives the aggregate; :meth:`per_query` the values
    of every query; :meth:`to_json`, :meth:`to_pandas` and :meth:`to_polars` export.
    """

    __slots__ = ("measures", "runs", "options")
    _frozen = False
    measures: list[Measure]
    runs: list[RunResult]
    options: dict

    def __init__(
        self, measures: list[Measure], runs: list[RunResult], options: dict | None = None
    ) -> None:
        self.measures, self.runs = measures, runs
        self.options = {} if options is None else options

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

    def _repr_html_(self) -> str:
        """The aggregates as an HTML table (Jupyter shows it for a bare ``results``)."""
        import html

        from ..output import number_cell

        head = "".join(f"<th>{html.escape(str(m))}</th>" for m in self.measures)
        rows = [
            f"<tr><th>{html.escape(r.name)}</th>"
            + "".join(
                f"<td>{html.escape(number_cell(_py(r.aggregates[m])))}</td>" for m in self.measures
            )
            + "</tr>"
            for r in self.runs
        ]
        return (
            f"<table><thead><tr><th>run</th>{head}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>"
        )


def _py(v):
    """A NumPy scalar as the Python number it holds (Python values unchanged)."""
    if type(v).__module__ == "numpy":
        return v.item()
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


class QrelsRead(Record):
    """What the compiled engine says of the qrels file it read for an evaluation: the
    number of ``topics``, and ``truncated``, the first grade with a non-zero fractional
    part that was read truncated toward zero as trec_eval's ``atol`` reads it
    (``(line, grade as written)``; None when there is none, or the grades were read as
    real numbers). The parser notes it as it reads each piece: the file is not read
    again for the note."""

    __slots__ = ("topics", "truncated")


def missing_topics(results: Results, qrels) -> list[tuple[str, int]]:
    """(run name, how many topics of ``qrels`` the run has no values for), for each run
    that misses any, in run order (``qrels``: the qrels, their number of topics, or
    the :class:`QrelsRead` of their file)."""
    if isinstance(qrels, QrelsRead):
        qrels = qrels.topics
    topics = qrels if isinstance(qrels, int) else len(set(qrels.query_ids()))
    counts = [(r.name, topics - len(r.query_ids)) for r in results.runs]
    return [(name, n) for name, n in counts if n]
