"""``cranfield plot pr|avg|delta|dist|depth|coverage|asl|swap QRELS RUN [RUN ...] -o FILE``."""

from __future__ import annotations

from ._args import (
    add_figure_inputs,
    eval_options,
    parse_ints,
    rel_level_value,
    resolve_baselines,
)

KINDS = ("pr", "avg", "delta", "dist", "depth", "coverage", "asl", "swap")


def add_arguments(p) -> None:
    p.add_argument(
        "kind",
        choices=KINDS,
        help="pr: precision-recall (averaged, or --query); avg: the two averages over "
        "queries (mean P and R at ranks 5, 10, ...; mean interpolated precision at recall "
        "levels); "
        "delta: per-query difference to --baseline; dist: per-query box plots; "
        "depth: P@k and nDCG@k by k; coverage: Judged@k by depth; asl: ASL curves of the "
        "paired bootstrap over all run pairs, one per measure (Sakai 2006); swap: swap rate "
        "by difference, one line per topic-set size (Voorhees & Buckley 2002)",
    )
    add_figure_inputs(
        p,
        measure_help="delta, dist, swap: the measure; asl: the measures (default AP)",
        query_help="pr: the curves of this query instead of the average",
    )
    p.add_argument("--max-depth", type=int, default=20, help="depth: k = 1..N (default 20)")
    p.add_argument(
        "--depth-measures",
        default="P,nDCG",
        help="depth: comma-separated measures without cutoff (default P,nDCG)",
    )
    p.add_argument("--depths", default="1,5,10,20,50,100", help="coverage: depths")


def run(args) -> int:
    from ..core.evaluation import evaluate, read_runs
    from ..core.qrels import Qrels
    from ..errors import ParameterError
    from ..report import plots

    suffix = args.output.rsplit(".", 1)[-1].lower() if "." in args.output else ""
    if suffix not in plots.FORMATS:
        raise ParameterError("--output", "a file name ending in .png, .svg or .pdf", args.output)
    qrels = Qrels.read(args.qrels)
    runs = read_runs(args.runs, duplicates=args.duplicates)
    opts = eval_options(args)
    if args.kind == "pr":
        fig, _ = plots.pr_plot(
            qrels,
            runs,
            query=args.query,
            rel_level=rel_level_value(args),
            convention=args.convention,
        )
    elif args.kind == "avg":
        fig, _ = plots.averages_plot(
            qrels, runs, rel_level=rel_level_value(args), convention=args.convention
        )
    elif args.kind == "depth":
        measures = [m for m in args.depth_measures.split(",") if m]
        fig, _ = plots.depth_plot(qrels, runs, measures, args.max_depth, **opts)
    elif args.kind == "coverage":
        fig, _ = plots.coverage_plot(qrels, runs, parse_ints(args.depths, "--depths"), **opts)
    elif args.kind in ("asl", "swap"):
        fig = _meta_figure(args, plots, qrels, runs, opts)
    else:
        measures = args.measures or ["AP"]
        if len(measures) != 1:
            raise ParameterError("--measure", f"one measure for plot {args.kind}", measures)
        results = evaluate(qrels, runs, measures, **opts)
        table = results.per_query_table()
        if not table:
            raise ParameterError("--measure", "a numeric measure", measures[0])
        name, scores = next(iter(table.items()))
        if args.kind == "delta":
            if len(scores) < 2:
                raise ParameterError("runs", "at least two runs for plot delta", args.runs)
            (baseline,) = resolve_baselines(
                args.baseline, [r.name for r in runs], args.runs, most=1
            ) or (None,)
            fig, _ = plots.delta_plot(scores, baseline, measure=name)
        else:
            fig, _ = plots.distribution_plot(scores, measure=name)
    plots.save_figure(fig, args.output)
    return 0


def _meta_figure(args, plots, qrels, runs, opts):
    """The ASL or swap-rate figure (docs/meta-evaluation.md) of the evaluated runs."""
    from ..compare.compare import align_scores
    from ..core.evaluation import evaluate
    from ..errors import ParameterError

    measures = args.measures or ["AP"]
    if args.kind == "swap" and len(measures) != 1:
        raise ParameterError("--measure", "one measure for plot swap", measures)
    table = evaluate(qrels, runs, measures, **opts).per_query_table()
    if not table:
        raise ParameterError("--measure", "a numeric measure", measures)
    aligned = align_scores(table, complete=opts["complete"])
    if args.kind == "asl":
        return plots.asl_plot(aligned)[0]
    name, (_, _, matrix) = next(iter(aligned.items()))
    return plots.swap_plot(matrix, measure=name)[0]
