"""Runs of any kind evaluated by the engine against a ``Qrels`` object's index.

The qrels are indexed once by the engine (:meth:`cranfield.Qrels.index`, kept by the
object across calls and runs); each run then goes to the engine whole: ``Run`` objects
(and runs of any format read by :mod:`cranfield.core.io`: CSV, TSV, JSON lines,
Parquet, DataFrames) as Arrow columns (``_engine.evaluate_arrow``), TREC files by their
paths (``_engine.evaluate_trec_files``, read in query-aligned pieces when large). Both
entries share one core in ``rust/engine/src/evaluate.rs``: judge, measure, micro
averages; the result is what :func:`cranfield.core.evaluation.run_result` computes on
the judged run, bit for bit.

:func:`evaluate_indexed` returns None when the engine cannot take the job (a measure it
does not compute, a micro average asked for a measure without one, a run read once —
standard input, a pipe — or a problem it leaves to the general path to word): the
caller then judges and measures in Python as before, and reports what is wrong.
"""

from __future__ import annotations

import os
from itertools import compress

from .._lazy import lazy
from .options import JudgeOptions

# (modules a call of the Python API uses, bound on first use: an import statement in a
# function costs 2-3 us a call, and a loop of small evaluations makes dozens a call)
_engine = lazy("cranfield._engine", __name__, "_engine")
_arrays = lazy("cranfield.core.io.arrays", __name__, "_arrays")
_files = lazy("cranfield.core.files", __name__, "_files")
_formats = lazy("cranfield.core.io.formats", __name__, "_formats")
_memory = lazy("cranfield.core.memory", __name__, "_memory")
_results = lazy("cranfield.core.results", __name__, "_results")
_run = lazy("cranfield.core.run", __name__, "_run")


def evaluate_indexed(
    qrels,
    items: list,
    measures: list,
    options: JudgeOptions,
    *,
    aggregate_by: str = "macro",
    skip_no_relevant: bool = False,
    stream: bool | None = None,
) -> list[tuple] | None:
    """``[(RunResult, source)]`` of each item (a :class:`~cranfield.Run` or a path) in
    order, evaluated by the engine against ``qrels`` (a :class:`~cranfield.Qrels`), or
    None (see the module's documentation). ``source`` is the run's file (None for
    objects), for :func:`cranfield.core.results.combine`. Paths other than TREC files
    are read (``Run.read``) one at a time; consecutive ``Run`` objects, and consecutive
    TREC files, go to the engine together (evaluated in parallel when small).
    ``stream``: see :func:`cranfield.core.memory.engine_reading`."""
    engine = _files.engine_job(measures, qrels.fractional, aggregate_by, skip_no_relevant)
    if engine is None:
        return None
    specs, how = engine
    job = dict(options=options, **how)
    out: list[tuple] = []
    for kind, group in _groups(items):
        if kind == "unreadable":
            return None
        done = (
            _trec_files(qrels, group, specs, job, stream, measures)
            if kind == "trec"
            else _objects(qrels, group, specs, job, measures, options)
        )
        if done is None:
            return None
        out.extend(done)
    return out


def _groups(items: list) -> list[tuple[str, list]]:
    """The items in groups that go to the engine together: consecutive ``Run`` objects
    (``"objects"``), consecutive regular TREC files (``"trec"``), a file of another
    format alone (``"objects"``: read when its turn comes, one in memory at a time), or
    an input the engine paths do not read here (``"unreadable"``: standard input, a
    pipe, a directory)."""
    groups: list[tuple[str, list]] = []
    for item in items:
        together = True
        if not isinstance(item, (str, os.PathLike)):
            kind = "objects"
        elif _memory.read_once(item) or os.path.isdir(item):
            kind = "unreadable"
        elif _formats.infer_format(item, None) == "trec":
            kind = "trec"
        else:
            kind, together = "read", False
        if together and groups and groups[-1][0] == kind:
            groups[-1][1].append(item)
        else:
            groups.append((kind, [item]))
    return [("objects" if kind == "read" else kind, group) for kind, group in groups]


def _objects(qrels, group: list, specs, job: dict, measures, options) -> list[tuple] | None:
    """Run objects (a path among them read by ``Run.read``) through
    ``_engine.evaluate_arrow``."""
    Run = _run.Run
    runs = [r if isinstance(r, Run) else Run.read(r, duplicates=options.duplicates) for r in group]
    try:
        _, done = _engine.evaluate_arrow(
            qrels.index(),
            [_arrays.engine_batches(run.table, "score") for run in runs],
            specs,
            **job,
        )
    except (_engine.JudgeError, ValueError):
        # no query, a spec the engine refuses (e.g. no collection size): the general
        # path words it, naming the run
        return None
    names = [run.name for run in runs]
    sources = [
        None if isinstance(r, Run) else run.source for r, run in zip(group, runs, strict=True)
    ]
    results = run_results(measures, done, names)
    return list(zip(results, sources, strict=True))


def _trec_files(qrels, paths: list, specs, job: dict, stream, measures) -> list[tuple] | None:
    """TREC files through ``_engine.evaluate_trec_files`` against the index."""
    from .. import _engine
    from ..progress import ReadProgress
    from .io.source import MAX_LINE, source_name
    from .memory import engine_reading
    from .results import default_run_name

    try:
        with ReadProgress(paths, "reading") as bar:
            _, done, _ = _engine.evaluate_trec_files(
                qrels.index(),
                [str(p) for p in paths],
                specs,
                max_line=MAX_LINE,
                progress=bar.counter,
                **job,
                **engine_reading(stream),
            )
    except (_engine.JudgeError, ValueError):
        return None  # the general path reads the file again and words the problem
    sources = [source_name(p) for p in paths]
    names = [name or default_run_name(src) for (name, *_), src in zip(done, sources, strict=True)]
    return list(zip(run_results(measures, done, names), sources, strict=True))


def run_results(measures: list, done: list, names: list[str]) -> list:
    """The :class:`~cranfield.core.results.RunResult` of each run an engine entry
    evaluated (``(name, query ids, columns, relevant, micro)``, see
    ``_engine.evaluate_trec_files``), named ``names[i]``: the macro averages over the
    queries kept (all, or those with a relevant document), or the micro averages."""
    RunResult, aggregate = _results.RunResult, _results.aggregate
    out = []
    for (_, query_ids, columns, relevant, micros), name in zip(done, names, strict=True):
        values = dict(zip(measures, columns, strict=True))
        if micros is not None:  # pooled counts over every query (Measure.micro)
            aggregates = dict(zip(measures, micros, strict=True))
        else:
            aggregates = {}
            for m in measures:
                kept = values[m] if relevant is None else list(compress(values[m], relevant))
                aggregates[m] = aggregate(kept, m.definition.aggregate)
        out.append(RunResult(name, query_ids, values, aggregates))
    return out
