"""``cranfield fuse RUN RUN... --method M [--norm N] [--weights ...] -o fused.txt``:
combine runs into one run; with ``--optimise MEASURE --qrels TRAIN``, choose the
weights (and parameters) on training queries first (docs/fusion.md)."""

from __future__ import annotations

import argparse

from ._args import (
    add_digits,
    add_duplicates,
    add_format,
    add_output,
    add_refused,
    add_seed,
    seed_value,
)
from ._common import digits_value
from ._output import deliver

RUN_FORMATS = ("trec", "parquet")


def _names(registry_name: str) -> str:
    from ..fusion import FUSION_METHODS, NORMALISATIONS

    registry = FUSION_METHODS if registry_name == "methods" else NORMALISATIONS
    return ", ".join(registry)


def add_arguments(p: argparse.ArgumentParser) -> None:
    from ..fusion.choices import MISSING, SEARCHES, TOPIC_POLICIES

    p.add_argument("runs", nargs="+", metavar="RUN", help="runs to fuse (TREC, Parquet, CSV/TSV)")
    p.add_argument(
        "--method",
        required=True,
        help=f"fusion method: {_names('methods')} (ranx's names are aliases); see docs/fusion.md",
    )
    add_refused(p, "-m", "-m names measures in cranfield: give the fusion method as --method M")
    p.add_argument(
        "--norm",
        default="min-max",
        help=f"score normalisation before score-based methods: {_names('norms')} "
        "(default min-max, as ranx)",
    )
    p.add_argument("--weights", help="comma-separated weights, one per run (weighted methods)")
    p.add_argument(
        "-p",
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a method parameter, e.g. k=60 (rrf), phi=0.8 (rbc), gamma=1 (combgmnz)",
    )
    p.add_argument(
        "--missing",
        choices=MISSING,
        default="zero",
        help="a document a run did not retrieve scores 0 there (default, as ranx) or the "
        "run's smallest normalised score for the query (min: the default minimum)",
    )
    p.add_argument(
        "--topics",
        choices=TOPIC_POLICIES,
        default="same",
        help="same (default): the runs must answer the same queries; union: fuse over all",
    )
    p.add_argument(
        "--qrels",
        help="training qrels: for the trained methods (probfuse, ...) and --optimise",
    )
    p.add_argument(
        "--optimise",
        metavar="MEASURE",
        help="choose the weights (weighted methods) or parameters by this measure on the "
        "--qrels queries, e.g. nDCG@10",
    )
    p.add_argument(
        "--search",
        choices=SEARCHES,
        default="grid",
        help="with --optimise: grid (default: weights on a simplex grid, step --step; "
        "parameters on ranx's grids), mga or coordinate-ascent (weights)",
    )
    p.add_argument("--step", default="0.1", help="grid step of the weights (default 0.1)")
    p.add_argument(
        "--folds",
        type=int,
        default=0,
        help="with --optimise: also cross-validate over this many query folds and report "
        "the held-out score (default 0: no cross-validation)",
    )
    p.add_argument("--name", help="the fused run's name (TREC tag; default the method's name)")
    add_format(p, RUN_FORMATS, otherwise="from -o's extension, else trec")
    add_duplicates(p)
    add_seed(p, "mga and coordinate ascent")
    add_digits(p)
    add_output(p, help="the fused run (default: standard output, TREC)")
    add_output(p, flags=("--report",), help="the optimisation report (JSON)")
    add_output(
        p,
        flags=("--per-query",),
        help="a TSV of what fusion changed per query: each run's and the fused run's value "
        "of the --optimise measure (else nDCG@10), the gain over the best run, and the "
        "fused top-k documents not in the best run's top k (needs --qrels)",
    )


def _params(items: list[str]) -> dict:
    from ..errors import ParameterError

    out = {}
    for item in items:
        if "=" not in item:
            raise ParameterError("--param", "NAME=VALUE", item)
        k, v = item.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def _format(args) -> str:
    if args.format:
        return args.format
    from ..core.io.formats import extension_format

    return "parquet" if extension_format(args.output) == "parquet" else "trec"


def run(args) -> int:
    from ..core.evaluation import read_runs
    from ..errors import ParameterError
    from ..fusion import optimise
    from ..fusion.fuse import Plan, fuse_planned

    params = _params(args.param)
    if args.optimise is None and (args.folds or args.search != "grid"):
        raise ParameterError("--folds/--search", "to be used with --optimise", "given")
    if args.optimise is not None and args.qrels is None:
        raise ParameterError("--optimise", "training --qrels", None)
    fmt = _format(args)
    if fmt == "parquet" and args.output in (None, "-"):
        raise ParameterError("--format parquet", "a file to write (-o FILE)", "standard output")
    # the plan first: a bad method, weight or parameter is refused before reading
    n_runs = len(args.runs)
    weights = args.weights
    if args.optimise is not None:
        plan = Plan(args.method, args.norm, None, args.missing, params, n_runs, tune=True)
    else:
        plan = Plan(args.method, args.norm, weights, args.missing, params, n_runs)
    runs = read_runs(args.runs, duplicates=args.duplicates)
    report = None
    if args.optimise is not None:
        report = optimise.optimise(
            runs,
            plan,
            args.qrels,
            args.optimise,
            search=args.search,
            step=args.step,
            folds=args.folds,
            topics=args.topics,
            seed=seed_value(args),
        )
        optimise.print_report(report, digits_value(args))
    fused = fuse_planned(runs, plan, args.qrels, args.topics, args.name)
    if args.per_query:
        deliver(optimise.per_query_table(runs, fused, args, digits_value(args)), args.per_query)
    if args.report and report is not None:
        from ..output import dumps_json

        deliver(dumps_json(report, indent=1) + "\n", args.report)
    if fmt == "parquet":
        fused.to_parquet(args.output)
    else:
        fused.to_trec(args.output or "-")
    return 0
