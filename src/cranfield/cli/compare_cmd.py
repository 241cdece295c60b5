"""``cranfield compare``: significance tests, effect sizes and tables for runs."""

from __future__ import annotations

import argparse

from ..compare.stats import MAX_RESAMPLES
from ..errors import ParameterError
from ._args import (
    add_complete,
    add_engine,
    add_format,
    add_measures,
    add_output,
    add_seed,
    add_tests,
    engine_value,
    number,
    resolve_baseline,
    seed_value,
)
from ._output import emit, print_notes, rounded_note, warnings_as_notes


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ..compare import CORRECTIONS, FORMATS, TESTS, tests_text

    parser.add_argument("qrels", nargs="?", help="qrels file (omit with --from-per-query)")
    parser.add_argument("runs", nargs="*", metavar="RUN", help="run files")
    add_measures(
        parser,
        "measures to compare (e.g. -m AP -m nDCG@10); with --from-per-query the default is all",
        dest="measure",
    )
    parser.add_argument(
        "--baseline",
        metavar="RUN",
        help="compare every run with this one, given by run name or by the path of one of "
        "the RUN files (default: all pairs)",
    )
    add_tests(
        parser, TESTS, tests_text() + "; repeatable or a comma list, the first decides significance"
    )
    parser.add_argument(
        "--correction",
        choices=CORRECTIONS,
        default="holm",
        help="multiple-comparison correction (default holm)",
    )
    parser.add_argument(
        "--alpha", default="0.05", help="significance level, 0 < ALPHA < 1 (default 0.05)"
    )
    parser.add_argument(
        "--alternative", choices=("two-sided", "greater", "less"), default="two-sided"
    )
    parser.add_argument(
        "--ci", choices=("t", "bootstrap"), default="t", help="interval of the mean difference"
    )
    parser.add_argument(
        "--confidence", default="0.95", help="interval level, 0 < LEVEL < 1 (default 0.95)"
    )
    parser.add_argument(
        "--permutations",
        default="10000",
        help="random permutations / bootstrap resamples, 1 to "
        f"{MAX_RESAMPLES:_} (default 10000)".replace("_", ","),
    )
    add_seed(parser, "randomization and bootstrap tests")
    add_complete(parser)
    add_engine(
        parser,
        "local: this process (default); dask: the tests and intervals of the pairs computed "
        "in Dask workers, same numbers (needs cranfield[dask])",
    )
    add_format(parser, FORMATS, "text")
    parser.add_argument(
        "--table", choices=("detail", "summary"), help="layout (default: summary for latex/html)"
    )
    parser.add_argument(
        "--from-per-query",
        nargs="+",
        metavar="FILE",
        help="read per-query scores instead of evaluating QRELS and RUNs: the output of "
        "cranfield eval --per-query (any --format; csv keeps full precision), trec_eval -q "
        "(one or several runs per file) or a run,qid,measure,value table",
    )
    add_output(parser, via_stdout=True)


def _options(args) -> dict:
    """The numeric options, validated before any file is read."""
    return {
        "alpha": number(args.alpha, "--alpha", float, 0, 1, open_=True),
        "confidence": number(args.confidence, "--confidence", float, 0, 1, open_=True),
        "n_permutations": number(args.permutations, "--permutations", int, 1, MAX_RESAMPLES),
        "seed": seed_value(args),
    }


def _scores(args):
    """(per-query scores, baseline run name, notes for stderr), everything validated
    before evaluation."""
    from ..compare.per_query import read_table

    if args.from_per_query:
        if args.qrels or args.runs:
            raise ParameterError(
                "QRELS/RUN", "no positional files with --from-per-query", [args.qrels, *args.runs]
            )
        table = read_table(args.from_per_query)
        notes = [rounded_note(source) for source in table.rounded]
        scores = table.scores
        if not scores:
            raise ParameterError(
                "--from-per-query",
                "per-query scores (cranfield eval --per-query, trec_eval -q)",
                "a table of aggregates only",
            )
        if args.measure:
            missing = [m for m in args.measure if m not in scores]
            if missing:
                raise ParameterError(
                    "--measure", "measures in the file: " + ", ".join(scores), missing
                )
            scores = {m: scores[m] for m in args.measure}
        runs = dict.fromkeys(r for per_run in scores.values() for r in per_run)
        return scores, resolve_baseline(args.baseline, list(runs)), notes
    if not args.qrels or len(args.runs) < 2:
        raise ParameterError(
            "QRELS RUN RUN",
            "a qrels file and at least two runs (or --from-per-query)",
            [args.qrels, *args.runs],
        )
    if not args.measure:
        raise ParameterError("--measure", "at least one measure", None)
    from ..core.evaluation import as_measures, evaluate

    measures = as_measures(args.measure)  # unknown names fail before any file is read
    from ..core.io.source import check_path

    for path in [args.qrels, *args.runs]:
        if path != "-":
            check_path(path, path)
    from ..core.evaluation import read_runs

    runs = read_runs(args.runs)
    baseline = resolve_baseline(args.baseline, [r.name for r in runs], args.runs)
    results = evaluate(args.qrels, runs, measures, complete=args.complete)
    return results.per_query_table(), baseline, []


def run(args) -> int:
    from ..compare import compare

    options = _options(args)
    # the backend that computes the pairs' tests and intervals (dask: in Dask workers)
    options["engine"] = engine_value(args)
    options["scheduler"] = args.scheduler
    notes: list[str] = []
    with warnings_as_notes(notes):
        scores, baseline, read_notes = _scores(args)
        result = compare(
            scores,
            baseline=baseline,
            tests=tuple(args.tests or ("t",)),
            correction=args.correction,
            complete=args.complete,
            ci=args.ci,
            alternative=args.alternative,
            **options,
        )
        text = result.render(args.format, args.table)
    emit(text)
    notes = read_notes + notes
    print_notes("compare", notes)  # after the result: a failure is one line, no notes
    return 0
