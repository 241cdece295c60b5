"""``cranfield report QRELS RUN [RUN ...] -m ... [--baseline RUN] -o report.html``."""

from __future__ import annotations

import shlex

from ._args import add_measures

HELP = "write a self-contained HTML evaluation report"
DEFAULT_MEASURES = ["AP", "nDCG@10", "P@10", "RR"]
MAX_DEPTH = 1000  # largest --max-depth: the depth figure evaluates 2 measures per k


def add_common(p, measure_help: str | None = None, query_help: str | None = None) -> None:
    """Arguments shared with ``cranfield plot``: inputs and evaluation options."""
    p.add_argument("qrels", help="relevance judgments (TREC qrels, Parquet, CSV/TSV)")
    p.add_argument("runs", nargs="+", help="one or more runs")
    add_measures(p, measure_help or "measures (default: " + " ".join(DEFAULT_MEASURES) + ")")
    p.add_argument("--baseline", help="run the others are compared with (default: the first)")
    p.add_argument(
        "--query", help=query_help or "also draw the precision-recall curves of this query"
    )
    p.add_argument("-l", "--rel-level", type=int, default=1, help="minimum relevant grade")
    p.add_argument("-c", "--complete", action="store_true", help="score missing topics as 0")
    p.add_argument("-J", "--judged-only", action="store_true", help="drop unjudged documents")
    p.add_argument(
        "--duplicates",
        choices=["error", "first", "max"],
        default="error",
        help="a document listed twice for a query: error (default), keep first, keep max",
    )
    p.add_argument(
        "--convention",
        choices=["textbook", "trec_eval"],
        default="textbook",
        help="interpolated precision of the averaged precision-recall curves: textbook "
        "(default; exact recall levels, Manning, Raghavan & Schuetze 2008, sec. 8.4) or "
        "trec_eval (its iprec_at_recall: r*R rounded to whole documents); the figures "
        "name the one shown",
    )
    p.add_argument("-o", "--output", required=True, help="file to write")


def add_arguments(p) -> None:
    add_common(p)
    p.add_argument(
        "--depths",
        default="1,5,10,20,50,100",
        help="depths of the Judged@k coverage table (default: 1,5,10,20,50,100)",
    )
    p.add_argument(
        "--max-depth",
        type=int,
        default=20,
        help=f"P@k and nDCG@k for k = 1..N, N in [1, {MAX_DEPTH}] (default 20)",
    )
    p.add_argument(
        "--test",
        dest="tests",
        action="extend",
        nargs="+",
        metavar="TEST",
        help="significance tests: t, wilcoxon, sign, randomization, bootstrap, tukey "
        "(default: t; the first decides significance)",
    )
    p.add_argument(
        "--images",
        choices=["png", "svg"],
        default="svg",
        help="kept for compatibility: the figures are always inline SVG",
    )
    p.add_argument("--title", default="cranfield evaluation report")


def load(args):
    """Qrels and runs from the arguments; runs sharing a TREC tag get their file names."""
    from ..qrels import Qrels
    from ..run import Run, _default_name

    qrels = Qrels.read(args.qrels)
    runs = [Run.read(path, duplicates=args.duplicates) for path in args.runs]
    names = [r.name for r in runs]
    if len(set(names)) != len(names):
        runs = [Run(r.table, r.source, name=_default_name(r.source)) for r in runs]
    return qrels, runs


def eval_options(args) -> dict:
    return dict(rel_level=args.rel_level, complete=args.complete, judged_only=args.judged_only)


def parse_ints(text: str, name: str) -> list[int]:
    from ..errors import ParameterError

    try:
        values = [int(x) for x in text.split(",")]
    except ValueError:
        raise ParameterError(name, "comma-separated positive integers", text) from None
    if not values or min(values) < 1:
        raise ParameterError(name, "comma-separated positive integers", text)
    return values


def command_line(args) -> str:
    """The canonical command that reproduces the report (every option spelled out)."""
    argv = ["cranfield", "report", args.qrels, *args.runs]
    argv += ["-m", *(args.measures or DEFAULT_MEASURES)]
    for flag, value in (("--baseline", args.baseline), ("--query", args.query)):
        if value is not None:
            argv += [flag, value]
    argv += ["-l", str(args.rel_level), "--convention", args.convention]
    argv += ["--complete"] * args.complete + ["--judged-only"] * args.judged_only
    argv += ["--test", *(args.tests or ["t"])]
    argv += ["--depths", args.depths, "--max-depth", str(args.max_depth)]
    argv += ["--images", args.images, "--title", args.title, "-o", args.output]
    return shlex.join(argv)


def run(args) -> int:
    from ..errors import ParameterError
    from ..report.html import write_report

    if not 1 <= args.max_depth <= MAX_DEPTH:  # each k is two more measures to evaluate
        raise ParameterError("--max-depth", f"an integer in [1, {MAX_DEPTH}]", args.max_depth)
    qrels, runs = load(args)
    write_report(
        args.output,
        qrels,
        runs,
        args.measures or DEFAULT_MEASURES,
        baseline=args.baseline,
        query=args.query,
        depths=parse_ints(args.depths, "--depths"),
        max_depth=args.max_depth,
        command=command_line(args),
        title=args.title,
        image_format=args.images,
        tests=tuple(args.tests or ["t"]),
        convention=args.convention,
        **eval_options(args),
    )
    return 0
