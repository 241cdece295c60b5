"""``cranfield eval``: evaluate runs against qrels with readable measure names."""

from __future__ import annotations

import sys

from ._args import (
    add_compat,
    add_digits,
    add_engine,
    add_format,
    add_judging,
    add_measures,
    add_output,
    add_qrels_and_runs,
    add_stream,
    digits_value,
    engine_value,
    judge_options,
)
from ._output import deliver


def add_arguments(p) -> None:
    from ..defaults import DEFAULT_MEASURES

    add_qrels_and_runs(p)
    add_measures(
        p,
        "measures, e.g. AP nDCG@10 'P(rel=2)@5' RR R@100 Bpref; trec_eval names such as "
        "ndcg_cut.10 work too (default: " + " ".join(DEFAULT_MEASURES) + ")",
    )
    p.add_argument("-q", "--per-query", action="store_true", help="also show every query")
    add_judging(p)
    p.add_argument(
        "--fractional",
        action="store_true",
        help="read qrels relevance as real numbers (soft labels, e.g. from cranfield "
        "aggregate --soft): graded measures use the fractions as gains, binary ones call "
        "a document relevant when its value is at least -l; default: integer grades, a "
        "decimal in a TREC file truncated as trec_eval does",
    )
    p.add_argument("-M", "--depth", type=int, help="evaluate only the top N documents per query")
    p.add_argument(
        "--aggregate",
        choices=["macro", "micro"],
        default="macro",
        help="mean of per-query values (macro) or pooled counts (micro, set measures)",
    )
    p.add_argument(
        "--skip-no-relevant",
        action="store_true",
        help="leave queries without relevant documents out of the means",
    )
    p.add_argument(
        "-N",
        "--collection-size",
        type=int,
        help="documents in the collection (for Fallout, Generality, utility)",
    )
    add_compat(p)
    add_stream(p)
    add_engine(p)
    add_format(p, ["text", "markdown", "json", "csv", "tsv", "trec"])
    add_digits(p)
    add_output(p)


def run(args) -> int:
    if engine_value(args) == "dask":
        return _run_dask(args)
    # the engine reads runs of any size in bounded memory; the general path only takes
    # what the engine does not evaluate whole
    done = _engine_path(args)
    if done is not None:
        return done
    from ..core.engine_judge import judge_trec
    from ..core.evaluation import (
        DEFAULT_MEASURES,
        Results,
        as_measures,
        combine,
        evaluate,
        run_result,
        with_collection_size,
    )
    from ..core.io.source import source_name
    from ..core.qrels import Qrels
    from ..core.run import Run

    digits = digits_value(args)
    judging = judge_options(args)
    measures = as_measures(args.measures or DEFAULT_MEASURES)
    qrels = Qrels.read(args.qrels, fractional=args.fractional)
    options = dict(
        options=judging,
        aggregate_by=args.aggregate,
        skip_no_relevant=args.skip_no_relevant,
        collection_size=args.collection_size,
    )
    measured = measures
    if args.collection_size is not None:
        measured = [with_collection_size(m, args.collection_size) for m in measures]
    # one run in memory at a time; the qrels are read once
    parts, sources = [], []
    for path in args.runs:
        # a TREC run: read and judged by the engine (in pieces when large), measured here
        jr = judge_trec(qrels, args.qrels, path, judging, stream=args.stream)
        if jr is not None:
            result = run_result(jr, jr.run_name, measured, args.aggregate, args.skip_no_relevant)
            parts.append(Results(measured, [result], judging.as_dict()))
            sources.append(source_name(path))
            continue
        run = Run.read(path, duplicates=judging.duplicates)
        parts.append(evaluate(qrels, run, measures, **options))
        sources.append(run.source)
        del run
    results = combine(parts, sources)
    return _finish(results, qrels, args, digits)


def _engine_specs(measures, fractional: bool) -> tuple[list, list, list] | None:
    """The engine's ``(family, cutoff, params)`` of each measure, whether it sees the
    judged-only view (``judged_only=True``) and, with ``fractional``, its refusal of
    fractional grades (families that refuse them); None when one of them needs the
    general path (a family the engine does not compute)."""
    from ..core.measures.engine import families
    from ..core.measures.registry import fractional_refusal

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


def _engine_path(args) -> int | None:
    """The evaluation of TREC files in one engine call: the qrels read once, each run
    read, judged and measured in the engine, one at a time; NumPy and PyArrow are not
    imported; runs of any size are read in query-aligned pieces (bounded memory). Returns
    the exit status, or None when the engine cannot do it (other formats, a measure it
    does not compute or without a micro average asked for): the general path then
    runs. Standard input and named pipes (qrels or runs) are read by the engine too; as
    they can be read only once, what would send them to the general path is decided
    before reading (:func:`_engine_reads`), and after reading every problem is reported
    here. A problem in an input is reported here, with the general path's
    message (a run whose queries reappear after others' and that does not fit in
    memory, or memory lacking for one query's lines: ``memory.engine_error``)."""
    from itertools import compress

    from .. import _engine
    from ..core.io.formats import infer_format
    from ..core.io.source import source_name
    from ..core.memory import engine_reading, read_once
    from ..core.results import (
        DEFAULT_MEASURES,
        Results,
        RunResult,
        aggregate,
        as_measures,
        combine,
        with_collection_size,
    )
    from ..errors import CranfieldError

    paths = [args.qrels, *args.runs]
    if any(infer_format(p, None) != "trec" for p in paths) or not _engine_reads(args):
        return None
    judging = judge_options(args)
    measures = as_measures(args.measures or DEFAULT_MEASURES)
    if args.collection_size is not None:
        measures = [with_collection_size(m, args.collection_size) for m in measures]
    engine = _engine_specs(measures, args.fractional)
    micro = args.aggregate == "micro"
    if engine is None or (micro and any(m.definition.micro is None for m in measures)):
        return None  # (the general path says which measure has no micro average)
    if micro and any(map(read_once, paths)):
        return None  # (an engine refusal of a micro average comes after reading stdin)
    specs, judged_only, refusals = engine
    try:
        topics, runs = _engine.evaluate_trec_files(
            str(args.qrels),
            [str(p) for p in args.runs],
            specs,
            fractional=args.fractional,
            rel_level=judging.rel_level,
            depth=judging.depth,
            judged_only=judging.judged_only,
            complete=judging.complete,
            compat=judging.compat,
            duplicates=judging.duplicates,
            judged_only_specs=judged_only,
            skip_no_relevant=args.skip_no_relevant,
            micro=micro,
            fractional_refusals=refusals,
            **engine_reading(args.stream),
        )
    except _engine.JudgeError as exc:
        return _reported(exc, args)
    except CranfieldError:
        raise  # a measure refusing the data, as the general path refuses it
    except ValueError:
        return None  # a spec the engine refuses (e.g. no collection size): reported there
    parts = []
    for name, query_ids, columns, relevant, micros in runs:
        values = dict(zip(measures, columns, strict=True))
        if micros is not None:  # pooled counts over every query (Measure.micro)
            aggregates = dict(zip(measures, micros, strict=True))
        else:
            aggregates = {}
            for m in measures:
                kept = values[m] if relevant is None else list(compress(values[m], relevant))
                aggregates[m] = aggregate(kept, m.definition.aggregate)
        result = RunResult(name, query_ids, values, aggregates)
        parts.append(Results(measures, [result], judging.as_dict()))
    results = combine(parts, [source_name(p) for p in args.runs])
    return _finish(results, topics, args, digits_value(args))


def _engine_reads(args) -> bool:
    """Whether the engine may read the inputs: TREC files, named pipes, and standard
    input as the qrels or one run. Standard input and pipes can be read once only, so
    with one of them no run may be one the engine leaves to the general path (a
    directory): the engine reads the runs in parallel, and the general path would then
    find the pipe already read."""
    import os

    from ..core.memory import engine_stdin, read_once

    inputs = [str(args.qrels), *map(str, args.runs)]
    if inputs.count("-") > 1 or ("-" in inputs and not engine_stdin()):
        return False
    if not any(map(read_once, inputs)):
        return True
    return not any(os.path.isdir(p) for p in inputs[1:])


def _reported(exc, args) -> None:
    """Raise the general path's InputError for a problem the engine found in an input
    (the run being read when it failed is the one the engine names), or return None
    when the general path must read the inputs itself (e.g. not a regular file)."""
    from ..core.io.problems import engine_error, unread
    from ..core.memory import engine_error as streaming_error
    from ..core.memory import read_once

    error = streaming_error(exc)  # a run read in pieces: reappearing query, memory
    if error is not None:
        raise error
    paths = {"qrels": str(args.qrels)}
    if len(exc.args) > 4:  # the index of the run it is in
        paths["run"] = str(args.runs[exc.args[4]])
    error = engine_error(exc, paths, fractional=args.fractional)
    if error is None and any(map(read_once, [args.qrels, *args.runs])):
        error = unread(exc)  # standard input or a pipe is read: no general path after
    if error is None:
        return None
    raise error


def _run_dask(args) -> int:
    """``--engine dask``: the runs' partitions evaluated in Dask workers (docs/scaling.md)."""
    from ..core.evaluation import DEFAULT_MEASURES, as_measures
    from ..core.run import _default_name
    from ..distributed.cluster import connect
    from ..distributed.engine import evaluate_dask, load_qrels
    from ..distributed.partitions import partitions
    from ..errors import ParameterError

    digits = digits_value(args)
    judging = judge_options(args)
    if args.stream:
        raise ParameterError(
            "--engine", "local with --stream (with dask, partition the runs by query)", "dask"
        )
    measures = as_measures(args.measures or DEFAULT_MEASURES)
    partitions(args.runs, _default_name)  # what cannot be read fails before connecting
    qrels = load_qrels(args.qrels, None, args.fractional)  # read here unless partitioned
    with connect(None, args.scheduler) as client:
        qrels = load_qrels(qrels, client, args.fractional)
        results = evaluate_dask(
            qrels,
            args.runs,
            measures,
            client=client,
            options=judging,
            aggregate_by=args.aggregate,
            skip_no_relevant=args.skip_no_relevant,
            collection_size=args.collection_size,
        )
    return _finish(results, qrels, args, digits)


def _finish(results, qrels, args, digits: int) -> int:
    """Notes on missing topics, then the rendered results (stdout or ``-o``);
    ``qrels``: the qrels, or their number of topics."""
    from ..core.results import missing_topics
    from ..output import render

    if not args.complete:
        for name, missing in missing_topics(results, qrels):
            print(
                f"cranfield eval: note: run {name!r} has no results for {missing} qrels "
                "topic(s); they are left out of its means (use --complete to count them as 0)",
                file=sys.stderr,
            )
    text = render(results, args.format, per_query=args.per_query, digits=digits)
    deliver(text, args.output)
    return 0
