"""``cranfield eval``: evaluate runs against qrels with readable measure names."""

from __future__ import annotations

import sys

from ._args import add_measures

HELP = "evaluate runs against qrels with readable measure names"
DEFAULT_MEASURES = ["AP", "nDCG@10", "P@10", "R@100", "RR"]


def add_arguments(p) -> None:
    p.add_argument(
        "qrels", help="relevance judgments: TREC qrels, Parquet, CSV/TSV, or - for stdin"
    )
    p.add_argument("runs", nargs="+", help="one or more runs (TREC run files, Parquet, CSV/TSV)")
    add_measures(
        p,
        "measures, e.g. AP nDCG@10 'P(rel=2)@5' RR R@100 Bpref; trec_eval names such as "
        "ndcg_cut.10 work too (default: " + " ".join(DEFAULT_MEASURES) + ")",
    )
    p.add_argument("-q", "--per-query", action="store_true", help="also show every query")
    p.add_argument(
        "-c",
        "--complete",
        action="store_true",
        help="score qrels topics missing from a run as 0 and include them in means",
    )
    p.add_argument("-M", "--depth", type=int, help="evaluate only the top N documents per query")
    p.add_argument("-J", "--judged-only", action="store_true", help="drop unjudged documents first")
    p.add_argument(
        "-l", "--rel-level", type=int, default=1, help="minimum relevant grade (default 1)"
    )
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
    p.add_argument(
        "--compat",
        type=int,
        choices=[9, 10],
        default=10,
        help="10: trec_eval 10.0 semantics (default); 9: trec_eval 9.x / pytrec_eval",
    )
    p.add_argument(
        "--duplicates",
        choices=["error", "first", "max"],
        default="error",
        help="a document listed twice for a query: error (default), keep first, keep max",
    )
    p.add_argument(
        "--stream",
        action="store_const",
        const=True,
        default=None,
        help="read TREC runs in query-aligned pieces (bounded memory; each query's lines "
        "must be together); default: only when reading a run whole would not fit in "
        "the memory available",
    )
    p.add_argument(
        "--no-stream",
        dest="stream",
        action="store_const",
        const=False,
        help="read runs whole, whatever their size",
    )
    p.add_argument(
        "-f", "--format", default="text", choices=["text", "markdown", "json", "csv", "tsv", "trec"]
    )
    p.add_argument("--digits", type=int, default=4, help="decimals in text/markdown/trec output")
    p.add_argument("-o", "--output", help="write to this file instead of standard output")


def run(args) -> int:
    from .. import memory
    from ..io import scan

    streamed = [memory.should_stream(path, args.stream) for path in args.runs]
    # the runs read whole are scanned in the background from now on (see io/scan.py)
    scan.prescan([path for path, s in zip(args.runs, streamed, strict=True) if not s])
    from ..errors import ParameterError
    from ..evaluation import Results, as_measures, evaluate
    from ..io.source import source_name
    from ..output import render
    from ..qrels import Qrels
    from ..run import Run, _default_name
    from ..streaming import evaluate_file, use_system_allocator

    if args.depth is not None and args.depth <= 0:
        raise ParameterError("--depth", "a positive integer", args.depth)
    measures = as_measures(args.measures or DEFAULT_MEASURES)
    if any(streamed):
        use_system_allocator()  # bounded address space, see streaming.py
    qrels = Qrels.read(args.qrels)
    options = dict(
        rel_level=args.rel_level,
        depth=args.depth,
        judged_only=args.judged_only,
        complete=args.complete,
        compat=args.compat,
        aggregate_by=args.aggregate,
        skip_no_relevant=args.skip_no_relevant,
        collection_size=args.collection_size,
    )
    # one run in memory at a time; the qrels are read and indexed once
    parts = []
    for path, stream in zip(args.runs, streamed, strict=True):
        if stream:
            one = evaluate_file(qrels, path, measures, duplicates=args.duplicates, **options)
            parts.append((one, source_name(path)))
            continue
        run = Run.read(path, duplicates=args.duplicates)
        one = evaluate(qrels, run, measures, **options)
        parts.append((one, run.source))
        del run
    names = [one.runs[0].name for one, _ in parts]
    if len(set(names)) != len(names):  # two files with the same TREC tag: use file names
        for one, source in parts:
            one.runs[0].name = _default_name(source)
    results = Results(parts[0][0].measures, [one.runs[0] for one, _ in parts], parts[0][0].options)
    if not args.complete:
        topics = set(qrels.query_ids())
        for r in results.runs:
            missing = len(topics) - len(r.query_ids)
            if missing:
                print(
                    f"cranfield eval: note: run {r.name!r} has no results for {missing} qrels "
                    "topic(s); they are left out of its means (use --complete to count them as 0)",
                    file=sys.stderr,
                )
    text = render(results, args.format, per_query=args.per_query, digits=args.digits)
    if args.output:
        from ..io.atomic import write_text

        write_text(args.output, text)
    else:
        sys.stdout.write(text)
    return 0
