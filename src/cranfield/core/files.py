"""evaluate_files(): runs in files evaluated against qrels in a file, by one path.

The one home of the evaluation of files, which ``cranfield eval`` and
:func:`cranfield.evaluate` (given paths) both call. In order of preference:

1. TREC files (plain or gzip, standard input ``-``, named pipes) and measures the
   compiled engine computes: one engine call (``_engine.evaluate_trec_files``) reads the
   qrels once and the runs in parallel, in query-aligned pieces when large (bounded
   memory), judges and measures them; neither NumPy nor PyArrow is imported.
2. Otherwise (qrels or runs in other formats: CSV, TSV, JSON lines, Parquet, ...) the
   qrels are read in Python and indexed once by the engine, and the runs go to the
   same engine core against the index (:mod:`cranfield.core.indexed`): TREC runs by
   their paths, others read as Arrow one at a time. Where the engine leaves a run to
   Python (standard input or a pipe among other formats, a directory, a problem to
   word), each run in turn is judged (:func:`cranfield.core.engine_judge.judge_trec`
   for TREC runs, ``Run.read`` and :func:`cranfield.core.judged.judge` for the others)
   and measured in Python.

The runs are named apart by their files (:func:`cranfield.core.results.combine`).
This module imports no arrays: the first path stays free of NumPy and PyArrow.
"""

from __future__ import annotations

import os

from .._memo import memo
from ..defaults import DEFAULT_MEASURES
from .options import JudgeOptions, merged

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a cold CLI)
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence


def evaluate_files(
    qrels: str | os.PathLike,
    runs: str | os.PathLike | Sequence[str | os.PathLike],
    measures: str | Iterable = DEFAULT_MEASURES,
    *,
    options: JudgeOptions | None = None,
    aggregate_by: str = "macro",
    skip_no_relevant: bool = False,
    collection_size: int | None = None,
    fractional: bool = False,
    stream: bool | None = None,
):
    """Evaluate the runs in files against the qrels in a file.

    Parameters
    ----------
    qrels, runs
        Paths (``runs``: one or a list) in any format the readers take (TREC, plain or
        gzip, CSV, TSV, JSON lines, Parquet, ...); ``"-"`` reads standard input (for one
        of them), named pipes are read once.
    measures, aggregate_by, skip_no_relevant, collection_size, options
        As :func:`cranfield.evaluate` (``options``: the
        :class:`~cranfield.core.options.JudgeOptions`; its ``duplicates`` applies to
        the runs).
    fractional
        Read qrels relevance as real numbers (``cranfield eval --fractional``).
    stream
        ``True`` (``--stream``: runs read in query-aligned pieces only), ``False``
        (``--no-stream``: read whole) or ``None`` (decided by the size of each run):
        :func:`cranfield.core.memory.engine_reading`.

    Returns
    -------
    Results
        One :class:`~cranfield.core.results.RunResult` per run, in order, named apart by
        their files; ``RunResult.judged`` is None when the engine measured the run.

    Raises
    ------
    InputError
        A problem in an input (naming its file and line), no query to evaluate.
    MeasureError, ParameterError
        A measure or an option refused.
    """
    return evaluate_files_counted(
        qrels,
        runs,
        measures,
        options=options,
        aggregate_by=aggregate_by,
        skip_no_relevant=skip_no_relevant,
        collection_size=collection_size,
        fractional=fractional,
        stream=stream,
    )[0]


def evaluate_files_counted(
    qrels,
    runs,
    measures=DEFAULT_MEASURES,
    *,
    options: JudgeOptions | None = None,
    aggregate_by: str = "macro",
    skip_no_relevant: bool = False,
    collection_size: int | None = None,
    fractional: bool = False,
    stream: bool | None = None,
    subtopic_qrels=None,
    sampled_qrels=None,
) -> tuple:
    """:func:`evaluate_files`, and what was read of the qrels for
    :func:`cranfield.core.results.missing_topics` and the command line's note on
    truncated grades: a :class:`~cranfield.core.results.QrelsRead` when the engine read
    them, the ``Qrels`` when they were read in Python."""
    from ..errors import ParameterError
    from .results import as_measures, with_collection_size

    if aggregate_by not in ("macro", "micro"):
        raise ParameterError("aggregate_by", "'macro' or 'micro'", aggregate_by)
    opts = merged(options, {})
    runs = [runs] if isinstance(runs, (str, os.PathLike)) else list(runs)
    if not runs:
        raise ParameterError("runs", "at least one run", runs)
    given = as_measures(measures)
    measures = given
    if collection_size is not None:
        measures = [with_collection_size(m, collection_size) for m in given]
    job = _Job(qrels, runs, measures, opts, aggregate_by, skip_no_relevant, fractional, stream)
    job.subtopic_qrels = subtopic_qrels
    job.sampled_qrels = sampled_qrels
    done = _engine_results(job)
    if done is not None:
        return done
    return _general_results(job, given, collection_size)


def all_paths(qrels, runs) -> bool:
    """Whether the qrels and every run are given by their paths (files, ``-``, pipes):
    what :func:`evaluate_files` takes."""
    paths = (str, os.PathLike)
    if not isinstance(qrels, paths):
        return False
    if isinstance(runs, paths):
        return True
    return (
        isinstance(runs, (list, tuple)) and bool(runs) and all(isinstance(r, paths) for r in runs)
    )


class _Job:
    """The inputs of one :func:`evaluate_files` (measures with the collection size)."""

    def __init__(self, qrels, runs, measures, opts, aggregate_by, skip, fractional, stream):
        self.qrels, self.runs, self.measures, self.opts = qrels, runs, measures, opts
        self.aggregate_by, self.skip_no_relevant = aggregate_by, skip
        self.fractional, self.stream = fractional, stream
        self.subtopic_qrels = None  # subtopic qrels, for the diversity measures
        self.sampled_qrels = None  # sampled qrels, for the sampled estimators


def _general_results(job: _Job, given: list, collection_size: int | None) -> tuple:
    """The qrels read in Python (any format: :mod:`cranfield.core.io`) and indexed once
    by the engine, the runs evaluated against the index by the engine entries
    (:func:`cranfield.core.indexed.evaluate_indexed`: TREC files read by the engine,
    other formats read as Arrow one at a time); where the engine leaves a run to
    Python, each run in turn: a TREC run judged by the engine and measured here, any
    other read by ``Run.read`` and evaluated by ``evaluate``."""
    from .memory import check_room_for_arrays

    check_room_for_arrays()
    from .indexed import evaluate_indexed
    from .qrels import Qrels
    from .results import Results, combine

    opts, measures = job.opts, job.measures
    qrels = Qrels.read(job.qrels, fractional=job.fractional)
    done = None
    if job.subtopic_qrels is None and job.sampled_qrels is None:  # measured run by run
        done = evaluate_indexed(
            qrels,
            job.runs,
            measures,
            opts,
            aggregate_by=job.aggregate_by,
            skip_no_relevant=job.skip_no_relevant,
            stream=job.stream,
        )
    if done is not None:
        parts = [Results(measures, [result], opts.as_dict()) for result, _ in done]
        return combine(parts, [source for _, source in done]), qrels
    return _run_by_run(job, qrels, given, collection_size), qrels


def _run_by_run(job: _Job, qrels, given: list, collection_size: int | None):
    """Each run in turn (one in memory at a time), judged into a ``JudgedRun``: a TREC
    run by the engine, any other read by ``Run.read``; measured in Python."""
    from .engine_judge import judge_trec
    from .evaluation import evaluate, run_result
    from .io.source import source_name
    from .results import Results, combine
    from .run import Run
    from .sampled_run import as_sampled, attach_sampled
    from .subtopics import as_subtopics, intents_for

    opts, measures = job.opts, job.measures
    subtopics = as_subtopics(job.subtopic_qrels, measures)
    sampled = as_sampled(job.sampled_qrels, measures)
    parts, sources = [], []
    for path in job.runs:
        # a TREC run: read and judged by the engine (in pieces when large), measured here
        jr = judge_trec(qrels, job.qrels, path, opts, stream=job.stream)
        if jr is not None:
            intents = intents_for(subtopics, path, opts)
            attach_sampled(sampled, jr, path, opts)
            result = run_result(
                jr, jr.run_name, measures, job.aggregate_by, job.skip_no_relevant, intents
            )
            parts.append(Results(measures, [result], opts.as_dict()))
            sources.append(source_name(path))
            continue
        run = Run.read(path, duplicates=opts.duplicates)
        parts.append(
            evaluate(
                qrels,
                run,
                given,
                options=opts,
                aggregate_by=job.aggregate_by,
                skip_no_relevant=job.skip_no_relevant,
                collection_size=collection_size,
                subtopic_qrels=subtopics,
                sampled_qrels=sampled,
            )
        )
        sources.append(run.source)
        del run
    return combine(parts, sources)


def engine_specs(measures, fractional: bool) -> tuple[list, list, list] | None:
    """The engine's ``(family, cutoff, params)`` of each measure, whether it sees the
    judged-only view (``judged_only=True``) and, with ``fractional``, its refusal of
    fractional grades (families that refuse them); None when one of them needs the
    general path (a family the engine does not compute)."""
    from .measures.engine import families
    from .measures.registry import fractional_refusal

    engine = families()
    specs, judged_only, refusals = [], [], []
    for m in measures:
        values = m.param_values()
        if m.name not in engine:
            return None
        judged_only.append(bool(values.pop("judged_only", False)))
        refused = fractional and m.definition.fractional_use == "refused"
        refusals.append(fractional_refusal(m) if refused else None)
        specs.append((m.name, m.cutoff, values))
    return specs, judged_only, refusals


def engine_job(measures, fractional: bool, aggregate_by: str, skip_no_relevant: bool):
    """``(specs, keyword arguments)`` of the engine's evaluation entries
    (``_engine.evaluate_trec_files``, ``_engine.evaluate_arrow``) for these measures:
    their specs (:func:`engine_specs`), which see the judged-only view, their refusals
    of fractional grades, ``skip_no_relevant``, and with ``aggregate_by="micro"`` the
    formula of each micro average (its declaration's ``micro=``); None when the engine
    cannot compute them (the general path then says why)."""
    from .measures.families import generation

    known = _engine_job(tuple(measures), fractional, aggregate_by, skip_no_relevant, generation())
    if known is None:
        return None
    specs, how = known  # (kept for later calls: each caller gets its own lists)
    return list(specs), {k: list(v) if isinstance(v, list) else v for k, v in how.items()}


@memo(1024)
def _engine_job(
    measures: tuple, fractional: bool, aggregate_by: str, skip_no_relevant: bool, _generation
):
    """:func:`engine_job` while the registry is unchanged (the same few measures on every
    call of a notebook's loop), as ``names.parse_many`` keeps its answers."""
    engine = engine_specs(measures, fractional)
    micro = aggregate_by == "micro"
    if engine is None or (micro and any(m.definition.micro is None for m in measures)):
        return None
    specs, judged_only, refusals = engine
    formulas = [m.definition.micro.formula for m in measures] if micro else None
    how = dict(
        judged_only_specs=judged_only,
        skip_no_relevant=skip_no_relevant,
        micro=formulas,
        fractional_refusals=refusals,
    )
    return specs, how


def _engine_results(job: _Job) -> tuple | None:
    """The evaluation of TREC files in one engine call: the qrels read once, the runs
    read, judged and measured in the engine; NumPy and PyArrow are not imported; runs of
    any size are read in query-aligned pieces (bounded memory). Returns ``(Results,
    QrelsRead)`` (the qrels' topics and first truncated grade), or None when the engine
    cannot do it (other formats, a measure it does not compute or without a micro
    average asked for): the general path then runs.
    Standard input and named pipes are read by the engine too; as they can be read only
    once, what would send them to the general path is decided before reading
    (:func:`engine_reads`), and after reading every problem is raised here, with the
    general path's message (:func:`engine_problem`)."""
    from .. import _engine
    from ..errors import CranfieldError
    from ..progress import ReadProgress
    from .io.formats import infer_format
    from .io.source import source_name
    from .memory import engine_reading, read_once
    from .results import QrelsRead, Results, combine

    paths = [job.qrels, *job.runs]
    if any(infer_format(p, None) != "trec" for p in paths) or not engine_reads(*paths):
        return None
    opts, measures = job.opts, job.measures
    engine = engine_job(measures, job.fractional, job.aggregate_by, job.skip_no_relevant)
    if engine is None:
        return None  # (the general path says which measure has no micro average)
    if job.aggregate_by == "micro" and any(map(read_once, paths)):
        return None  # (an engine refusal of a micro average comes after reading stdin)
    specs, how = engine
    try:
        with ReadProgress(paths, "reading") as bar:
            topics, runs, truncated = _engine.evaluate_trec_files(
                str(job.qrels),
                [str(p) for p in job.runs],
                specs,
                options=opts,
                fractional=job.fractional,
                progress=bar.counter,
                **how,
                **engine_reading(job.stream),
            )
    except _engine.JudgeError as exc:
        error = engine_problem(exc, job.qrels, job.runs, job.fractional)
        if error is None:
            return None
        raise error from None
    except CranfieldError:
        raise  # a measure refusing the data, as the general path refuses it
    except ValueError:
        return None  # a spec the engine refuses (e.g. no collection size): reported there
    from .indexed import run_results

    names = [run[0] for run in runs]
    parts = [Results(measures, [r], opts.as_dict()) for r in run_results(measures, runs, names)]
    return combine(parts, [source_name(p) for p in job.runs]), QrelsRead(topics, truncated)


def engine_reads(qrels, *runs) -> bool:
    """Whether the engine may read the inputs: TREC files, named pipes, and standard
    input as the qrels or one run. Standard input and pipes can be read once only, so
    with one of them no run may be one the engine leaves to the general path (a
    directory): the engine reads the runs in parallel, and the general path would then
    find the pipe already read."""
    from .memory import engine_stdin, read_once

    inputs = [str(qrels), *map(str, runs)]
    if inputs.count("-") > 1 or ("-" in inputs and not engine_stdin()):
        return False
    if not any(map(read_once, inputs)):
        return True
    return not any(os.path.isdir(p) for p in inputs[1:])


def engine_problem(exc, qrels, runs, fractional: bool = False):
    """The general path's :class:`~cranfield.errors.InputError` for a problem the engine
    found in an input (the run being read when it failed is the one the engine names),
    or None when the general path must read the inputs itself (e.g. not a regular
    file)."""
    from .io.problems import engine_error, unread
    from .memory import engine_error as streaming_error
    from .memory import read_once

    error = streaming_error(exc)  # a run read in pieces: reappearing query, memory
    if error is not None:
        return error
    paths = {"qrels": str(qrels)}
    if len(exc.args) > 4:  # the index of the run it is in
        paths["run"] = str(runs[exc.args[4]])
    error = engine_error(exc, paths, fractional=fractional)
    once = [p for p in [qrels, *runs] if read_once(p)]
    if error is None and once:
        error = unread(exc, once)  # standard input or a pipe is read: no general path after
    return error
