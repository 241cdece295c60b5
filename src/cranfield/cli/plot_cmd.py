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
        output_help="the figure: FILE.svg, FILE.pdf or FILE.png, one drawing by cranfield "
        "(PNG rasterised by resvg: pip install 'cranfield[png]')",
    )
    p.add_argument("--max-depth", type=int, default=20, help="depth: k = 1..N (default 20)")
    p.add_argument(
        "--depth-measures",
        default="P,nDCG",
        help="depth: comma-separated measures without cutoff (default P,nDCG)",
    )
    p.add_argument("--depths", default="1,5,10,20,50,100", help="coverage: depths")


def run(args) -> int:
    from ..core.qrels import Qrels
    from ..errors import ParameterError
    from ..report import data as _data

    suffix = args.output.rsplit(".", 1)[-1].lower() if "." in args.output else ""
    if suffix not in ("png", "svg", "pdf"):
        raise ParameterError("--output", "a file name ending in .png, .svg or .pdf", args.output)
    if suffix == "png":  # missing: said before the evaluation, not after
        from ..errors import require

        require("resvg_py", "png")
    from ..core.evaluation import read_runs

    qrels = Qrels.read(args.qrels)
    runs = read_runs(args.runs, duplicates=args.duplicates)
    opts = eval_options(args)
    convention = args.convention
    if args.kind == "pr":
        curves = dict(rel_level=rel_level_value(args), convention=convention)
        figure = ("pr", _data.pr_data(qrels, runs, query=args.query, **curves))
        style = dict(query=args.query, convention=convention)
    elif args.kind == "avg":
        curves = dict(rel_level=rel_level_value(args), convention=convention)
        figure = ("averages", _data.averages_data(qrels, runs, **curves))
        style = dict(convention=convention)
    elif args.kind == "depth":
        measures = [m for m in args.depth_measures.split(",") if m]
        figure = ("depth", _data.depth_data(qrels, runs, measures, args.max_depth, **opts))
        style = {}
    elif args.kind == "coverage":
        depths = parse_ints(args.depths, "--depths")
        figure, style = ("coverage", _data.coverage_data(qrels, runs, depths, **opts)), {}
    elif args.kind in ("asl", "swap"):
        figure, style = _meta_data(args, qrels, runs, opts)
    else:
        figure, style = _per_topic_data(args, qrels, runs, opts)
    kind, data = figure
    from ..report import svg_plots
    from ._output import deliver

    svg = getattr(svg_plots, f"{kind}_svg")(data, **style)
    if suffix == "png":
        from ..report.png import svg_to_png

        deliver(svg_to_png(svg), args.output)
    elif suffix == "pdf":
        from ..report.pdf import svg_to_pdf

        deliver(svg_to_pdf(svg), args.output)
    else:
        deliver(svg, args.output)
    return 0


def _per_topic_data(args, qrels, runs, opts):
    """``plot delta`` and ``plot dist``: one measure's per-query values of every run."""
    from ..core.evaluation import evaluate
    from ..errors import ParameterError
    from ..report import data as _data

    measures = args.measures or ["AP"]
    if len(measures) != 1:
        raise ParameterError("--measure", f"one measure for plot {args.kind}", measures)
    table = evaluate(qrels, runs, measures, **opts).per_query_table()
    if not table:
        raise ParameterError("--measure", "a numeric measure", measures[0])
    name, scores = next(iter(table.items()))
    if args.kind == "dist":
        return ("distribution", _data.distribution_data(scores)), dict(measure=name)
    if len(scores) < 2:
        raise ParameterError("runs", "at least two runs for plot delta", args.runs)
    (baseline,) = resolve_baselines(args.baseline, [r.name for r in runs], args.runs, most=1) or (
        None,
    )
    base = next(iter(scores)) if baseline is None else baseline
    return ("delta", _data.delta_data(scores, baseline)), dict(baseline=base, measure=name)


def _meta_data(args, qrels, runs, opts):
    """The ASL or swap-rate data (docs/meta-evaluation.md) of the evaluated runs: the
    paired bootstrap with 1,000 samples and seed 0; swap rates in bins of 0.05, seed 0."""
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
        from ..meta import discriminative_power

        power = discriminative_power(aligned, ("bootstrap",), n_samples=1000, seed=0)
        return ("asl", power), {}
    from ..meta import swap_rates

    name, (_, _, matrix) = next(iter(aligned.items()))
    return ("swap", swap_rates(matrix, bin_width=0.05, seed=0)), dict(measure=name)
