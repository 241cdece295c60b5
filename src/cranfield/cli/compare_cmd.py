"""``cranfield compare``: significance tests, effect sizes and tables for runs."""

from __future__ import annotations

import argparse

from ..errors import ParameterError
from ._args import add_measures

HELP = "compare runs: significance tests, effect sizes, tables"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ..compare import CORRECTIONS, FORMATS, TESTS

    parser.add_argument("qrels", nargs="?", help="qrels file (omit with --from-per-query)")
    parser.add_argument("runs", nargs="*", metavar="RUN", help="run files")
    add_measures(
        parser,
        "measures to compare (e.g. -m AP -m nDCG@10); with --from-per-query the default is all",
        dest="measure",
    )
    parser.add_argument(
        "--baseline", metavar="RUN", help="compare every run with this one (default: all pairs)"
    )
    parser.add_argument(
        "--test",
        action="append",
        choices=TESTS,
        metavar="TEST",
        help="t (default), wilcoxon, sign, randomization, bootstrap or tukey; repeatable, "
        "the first decides significance",
    )
    parser.add_argument(
        "--correction",
        choices=CORRECTIONS,
        default="holm",
        help="multiple-comparison correction (default holm)",
    )
    parser.add_argument(
        "--alpha", type=float, default=0.05, help="significance level (default 0.05)"
    )
    parser.add_argument(
        "--alternative", choices=("two-sided", "greater", "less"), default="two-sided"
    )
    parser.add_argument(
        "--ci", choices=("t", "bootstrap"), default="t", help="interval of the mean difference"
    )
    parser.add_argument(
        "--confidence", type=float, default=0.95, help="interval level (default 0.95)"
    )
    parser.add_argument(
        "--permutations", type=int, default=10000, help="random permutations / bootstrap resamples"
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the randomised tests (default 0)"
    )
    parser.add_argument(
        "--complete", action="store_true", help="score queries missing from a run as 0"
    )
    parser.add_argument("--format", choices=FORMATS, default="text")
    parser.add_argument(
        "--table", choices=("detail", "summary"), help="layout (default: summary for latex/html)"
    )
    parser.add_argument(
        "--from-per-query",
        nargs="+",
        metavar="FILE",
        help="read per-query scores (run,qid,measure,value table or trec_eval -q output, "
        "one file per run) instead of evaluating QRELS and RUNs",
    )


def _scores(args):
    from ..compare import read_per_query

    if args.from_per_query:
        if args.qrels or args.runs:
            raise ParameterError(
                "QRELS/RUN", "no positional files with --from-per-query", [args.qrels, *args.runs]
            )
        table = read_per_query(args.from_per_query)
        if args.measure:
            missing = [m for m in args.measure if m not in table]
            if missing:
                raise ParameterError(
                    "--measure", "measures in the file: " + ", ".join(table), missing
                )
            table = {m: table[m] for m in args.measure}
        return table
    if not args.qrels or len(args.runs) < 2:
        raise ParameterError(
            "QRELS RUN RUN",
            "a qrels file and at least two runs (or --from-per-query)",
            [args.qrels, *args.runs],
        )
    if not args.measure:
        raise ParameterError("--measure", "at least one measure", None)
    from ..evaluation import evaluate

    results = evaluate(args.qrels, args.runs, args.measure, complete=args.complete)
    return results.per_query_table()


def run(args) -> int:
    from ..compare import compare

    result = compare(
        _scores(args),
        baseline=args.baseline,
        tests=tuple(args.test or ("t",)),
        correction=args.correction,
        alpha=args.alpha,
        complete=args.complete,
        confidence=args.confidence,
        ci=args.ci,
        alternative=args.alternative,
        n_permutations=args.permutations,
        seed=args.seed,
    )
    print(result.render(args.format, args.table))
    return 0
