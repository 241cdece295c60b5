"""``cranfield eval``: evaluate runs against qrels with readable measure names."""

from __future__ import annotations

import sys

from ._args import (
    add_compat,
    add_digits,
    add_format,
    add_judging,
    add_measures,
    add_output,
    add_qrels_and_runs,
    add_stream,
    digits_value,
)


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
    add_format(p, ["text", "markdown", "json", "csv", "tsv", "trec"])
    add_digits(p)
    add_output(p)


def run(args) -> int:
    from ..core import memory

    streamed = [memory.should_stream(path, args.stream) for path in args.runs]
    from ..core.evaluation import DEFAULT_MEASURES, as_measures, combine, evaluate, missing_topics
    from ..core.io.source import source_name
    from ..core.qrels import Qrels
    from ..core.run import Run
    from ..core.streaming import evaluate_file, use_system_allocator
    from ..errors import ParameterError
    from ..output import render

    digits = digits_value(args)
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
    parts, sources = [], []
    for path, stream in zip(args.runs, streamed, strict=True):
        if stream:
            parts.append(
                evaluate_file(qrels, path, measures, duplicates=args.duplicates, **options)
            )
            sources.append(source_name(path))
            continue
        run = Run.read(path, duplicates=args.duplicates)
        parts.append(evaluate(qrels, run, measures, **options))
        sources.append(run.source)
        del run
    results = combine(parts, sources)
    if not args.complete:
        for name, missing in missing_topics(results, qrels):
            print(
                f"cranfield eval: note: run {name!r} has no results for {missing} qrels "
                "topic(s); they are left out of its means (use --complete to count them as 0)",
                file=sys.stderr,
            )
    text = render(results, args.format, per_query=args.per_query, digits=digits)
    if args.output:
        from ..core.io.atomic import write_text

        write_text(args.output, text)
    else:
        sys.stdout.write(text)
    return 0
