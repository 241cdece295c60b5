"""``cranfield pool``: build a judgment pool from runs; ``pool stats``, ``pool reuse``.

``cranfield pool RUN...`` writes the pool; ``cranfield pool stats QRELS RUN...`` and
``cranfield pool reuse QRELS RUN...`` measure it; ``cranfield pool assign POOL ...``
writes assessment packages and ``cranfield pool merge DIR`` reads them back;
``cranfield pool mtc RUN...`` writes the pairs to judge next by minimal test collections
(a run file literally named like an action is given as ``./stats``).
"""

from __future__ import annotations

import argparse
import os
import sys

from ._args import (
    Parser,
    add_engine,
    add_format,
    add_measures,
    add_output,
    add_rel_level,
    add_seed,
    engine_value,
    rel_level_value,
    seed_value,
)
from ._output import check_outputs, deliver

ACTIONS: dict[str, str] = {}  # action -> one-line help, filled below


def _strategy_names() -> str:
    from ..pooling.strategies import STRATEGIES

    return ", ".join(STRATEGIES)


def _add_groups(p: Parser, groups_help: str) -> None:
    """``--groups FILE`` or ``--group-sep SEP``: which participant each run comes from."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("--groups", metavar="FILE", help=groups_help)
    g.add_argument(
        "--group-sep", metavar="SEP", help="the group is the run name up to this separator"
    )


def _pool_parser() -> Parser:
    p = Parser(
        prog="cranfield pool",
        description="Pool the documents of runs for relevance judging (all topics at once). "
        "Also: 'cranfield pool stats|reuse QRELS RUN...', 'cranfield pool assign POOL ...', "
        "'cranfield pool merge DIR', 'cranfield pool mtc RUN...' (minimal test collections).",
    )
    p.add_argument("runs", nargs="+", metavar="RUN", help="runs (TREC run files, Parquet, CSV/TSV)")
    p.add_argument(
        "-s",
        "--strategy",
        default=None,
        help=f"NAME or NAME(param=value,...), NAME one of {_strategy_names()} (default "
        "depth), e.g. 'budget(n=500,order=rrf)'; see docs/pooling.md",
    )
    p.add_argument("-k", "--depth", type=int, help="depth strategy: ranks per run (default 100)")
    p.add_argument("-n", "--budget", type=int, help="budget strategy: documents per topic")
    p.add_argument("--order", help="budget strategy: take (default), rrf, rbp-sum or rbp-max")
    p.add_argument(
        "--qrels", help="incremental pooling: leave out documents already in these judgments"
    )
    p.add_argument(
        "--per-group",
        type=int,
        metavar="N",
        help="pool at most N runs per group (needs --groups or --group-sep)",
    )
    _add_groups(
        p,
        "'run group [priority]' lines; with --per-group, smaller priorities first "
        "(default: the order of the runs on the command line)",
    )
    add_format(p, ("pairs", "qrels"), what="pairs: 'qid docid' lines; qrels: 'qid 0 docid -1'")
    add_engine(
        p,
        "local (default) or dask: read the runs in Dask workers, one task per run file, "
        "cut there to the pool depth (docs/scaling.md)",
    )
    _add_sampling(p)
    add_output(p, help="the pool (with --sample: the sampling frame) (default: standard output)")
    return p


def _add_sampling(p: Parser) -> None:
    """``--sample DESIGN`` and its parameters (docs/sampling.md)."""
    g = p.add_argument_group("sampled judging (docs/sampling.md)")
    g.add_argument(
        "--sample",
        metavar="DESIGN",
        help="draw the pairs to judge: uniform, stratified or statap; -o then gets the "
        "sampling frame 'topic docno stratum probability sampled' of every pooled pair",
    )
    g.add_argument(
        "--rate",
        help="uniform, statap: the fraction of each topic's pool to draw (default 1); "
        "stratified: one rate per stratum, e.g. 1,0.5,0.1",
    )
    g.add_argument("--size", type=int, help="uniform, statap: pairs to draw per topic")
    g.add_argument(
        "--strata",
        help="stratified: rank bounds of the strata (best rank over the runs), e.g. 10,30,100",
    )
    add_seed(g, "--sample draw")
    add_output(
        g,
        flags=("--to-judge",),
        help="with --sample: also write the drawn pairs (in --format) for judging",
    )


def _sample_params(args) -> tuple[str, dict]:
    """The design named by --sample and its parameters from --rate/--size/--strata."""
    from ..errors import ParameterError
    from ..pooling.sampling import SAMPLE_DESIGNS

    if args.sample is None:
        for flag in ("rate", "size", "strata", "to_judge"):
            if getattr(args, flag) is not None:
                raise ParameterError(
                    "--" + flag.replace("_", "-"), "only with --sample", getattr(args, flag)
                )
        return "", {}
    design = SAMPLE_DESIGNS.lookup(args.sample).name
    if design == "stratified":
        if args.size is not None:
            raise ParameterError(
                "--size", "not with --sample stratified (give --rate per stratum)", args.size
            )
        if args.strata is None or args.rate is None:
            raise ParameterError(
                "--sample stratified", "--strata B1,B2,... and --rate R1,R2,...", None
            )
        params = {"strata": args.strata, "rates": args.rate}
    else:
        if args.strata is not None:
            raise ParameterError("--strata", "only with --sample stratified", args.strata)
        if args.size is not None and args.size < 1:
            raise ParameterError("--size", "an integer >= 1", args.size)
        if args.size is not None and args.rate is not None:
            raise ParameterError("--size", "--rate or --size, not both", args.size)
        params = {"rate": args.rate, "size": args.size}
    params = {k: v for k, v in params.items() if v is not None}
    return design, SAMPLE_DESIGNS.lookup(design).resolve(params)


def run_pool(argv: list[str]) -> int:
    from ..errors import ParameterError

    args = _pool_parser().parse_args(argv)
    spec = args.strategy or ("budget" if args.budget is not None else "depth")
    from ..pooling.strategies import parse, split

    definition, _ = split(spec)
    overrides: dict = {}
    if definition.name == "depth":
        for flag, value in (("--budget", args.budget), ("--order", args.order)):
            if value is not None:
                raise ParameterError(flag, "only with --strategy budget", value)
        overrides["k"] = args.depth
    else:
        if args.depth is not None:
            raise ParameterError("--depth", "only with --strategy depth", args.depth)
        overrides["n"] = args.budget
        overrides["order"] = args.order
    parse(spec, **overrides)  # parameters are checked before reading
    design, design_params = _sample_params(args)
    seed = seed_value(args)
    if args.per_group is not None and args.groups is None and args.group_sep is None:
        raise ParameterError("--per-group", "--groups FILE or --group-sep SEP as well", None)
    check_outputs(args)
    from ..core.qrels import Qrels
    from ..pooling.files import pool_files
    from ..pooling.groups import read_groups

    groups, priority = read_groups(args.groups) if args.groups else (args.group_sep, None)
    qrels = Qrels.read(args.qrels) if args.qrels else None
    options = {"qrels": qrels, "per_group": args.per_group, "groups": groups, "priority": priority}
    whole = None
    if design and engine_value(args) == "local":  # the runs read once, whole (the prior)
        from ..pooling.files import read_runs
        from ..pooling.pool import build_pool

        whole = read_runs(args.runs)
        pool, names = build_pool(whole, spec, **options, **overrides), [r.name for r in whole]
    else:
        pool, names = pool_files(
            args.runs,
            spec,
            engine=engine_value(args),
            scheduler=args.scheduler,
            **options,
            **overrides,
        )
    if len(pool.runs) < len(names):
        left = [n for n in names if n not in pool.runs]
        print(
            f"cranfield pool: note: pooled {len(pool.runs)} of {len(names)} runs (at most "
            f"{args.per_group} per group); left out: {', '.join(left)}",
            file=sys.stderr,
        )
    if design:
        from ..pooling.files import read_runs
        from ..pooling.sampling import sample_pool

        # the runs whole (the prior counts every rank), read once above unless another
        # backend pooled them; only the pooled ones
        runs = [r for r in (whole or read_runs(args.runs)) if r.name in pool.runs]
        drawn = sample_pool(runs, pool, design, seed, **design_params)
        if args.to_judge:
            deliver(drawn.to_judge(args.format), args.to_judge)
        deliver(drawn.frame_bytes(), args.output)
        return 0
    deliver(pool.to_bytes(args.format), args.output)
    return 0


ACTIONS["sampled"] = "join the judgments of the drawn pairs into TREC's sampled qrels"


def run_sampled(argv: list[str]) -> int:
    from ..pooling.sampling import join_judgments

    p = Parser(
        prog="cranfield pool sampled",
        description=ACTIONS["sampled"] + ": 'topic 0 docno stratum relevance' lines (-1: "
        "pooled, not drawn), as sample_eval reads them",
    )
    p.add_argument("frame", help="the sampling frame written by 'cranfield pool --sample'")
    p.add_argument("qrels", help="the judgments of the drawn pairs")
    p.add_argument(
        "--probabilities",
        action="store_true",
        help="a sixth column: the inclusion probability (what sample_eval --statap reads)",
    )
    add_output(p)
    args = p.parse_args(argv)
    check_outputs(args)
    deliver(join_judgments(args.frame, args.qrels, args.probabilities), args.output)
    return 0


def _measure_parser(action: str) -> Parser:
    p = Parser(prog=f"cranfield pool {action}", description=ACTIONS[action])
    p.add_argument("qrels", help="the judgments made on the pool (TREC qrels, Parquet, CSV/TSV)")
    p.add_argument("runs", nargs="+", metavar="RUN", help="the pooled runs")
    p.add_argument("-k", "--depth", type=int, default=100, help="pool depth (default 100)")
    add_rel_level(p)
    add_output(p)
    return p


ACTIONS["stats"] = "pool size, unique contributions, Judged@k and relevant documents found"


def _stats_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--judged-at",
        type=int,
        nargs="+",
        default=None,
        metavar="D",
        help="depths of Judged@D (default 10 20 50 100)",
    )
    p.add_argument(
        "--overlap",
        action="store_true",
        help="also the mean Jaccard overlap of every two runs' top k (adds an 'overlap' key)",
    )
    add_format(p, ("text", "json", "markdown"))


def run_stats(argv: list[str]) -> int:
    from ..core.qrels import Qrels
    from ..pooling.files import read_runs
    from ..pooling.pool import check_depth
    from ..pooling.stats import DEFAULT_JUDGED_AT, pool_stats, render

    p = _measure_parser("stats")
    _stats_arguments(p)
    args = p.parse_args(argv)
    check_depth(args.depth)
    check_outputs(args)
    stats = pool_stats(
        Qrels.read(args.qrels),
        read_runs(args.runs),
        args.depth,
        judged_at=args.judged_at or DEFAULT_JUDGED_AT,
        rel_level=rel_level_value(args),
        overlap=args.overlap,
    )
    deliver(render(stats, args.format).encode("utf-8"), args.output)
    return 0


ACTIONS["reuse"] = "leave-one-group-out: how scores and rankings change without a group's judgments"


def run_reuse(argv: list[str]) -> int:
    from ..core.qrels import Qrels
    from ..pooling.files import read_runs
    from ..pooling.groups import read_groups
    from ..pooling.pool import check_depth
    from ..pooling.reuse import leave_one_group_out, render
    from .main import parse

    p = _measure_parser("reuse")
    add_measures(p, "measures to compare (default: AP Bpref infAP)")
    _add_groups(p, "'run group' lines (default: every run its own group)")
    p.add_argument(
        "--condensed",
        action="store_true",
        help="also evaluate every measure on condensed lists (unjudged documents dropped)",
    )
    p.add_argument(
        "--subsample",
        type=float,
        metavar="P",
        help="instead of leave-one-group-out: keep a fraction P of the judgments",
    )
    p.add_argument(
        "--stratified", action="store_true", help="with --subsample: P of every topic's judgments"
    )
    add_seed(p, "--subsample draw")
    add_format(p, ("text", "json", "markdown"))
    args = parse(p, argv)
    seed = seed_value(args)
    check_depth(args.depth)
    if args.subsample is not None and (args.groups or args.group_sep):
        from ..errors import ParameterError

        raise ParameterError("--subsample", "no --groups/--group-sep with it", args.subsample)
    check_outputs(args)
    from ..core.evaluation import as_measures

    measures = as_measures(args.measures or ["AP", "Bpref", "infAP"])
    if args.subsample is not None:
        from ..pooling.reuse import subsample_judgments

        result = subsample_judgments(
            Qrels.read(args.qrels),
            read_runs(args.runs),
            args.subsample,
            measures,
            stratified=args.stratified,
            seed=seed,
            condensed=args.condensed,
            rel_level=rel_level_value(args),
        )
        deliver(render(result, args.format).encode("utf-8"), args.output)
        return 0
    from ..pooling.groups import resolve_groups
    from ..progress import Progress

    groups = read_groups(args.groups)[0] if args.groups else args.group_sep
    qrels = Qrels.read(args.qrels)
    runs = read_runs(args.runs)
    n_groups = len(set(resolve_groups([r.name for r in runs], groups).values()))
    with Progress(n_groups, "leave-one-group-out") as bar:
        result = leave_one_group_out(
            qrels,
            runs,
            args.depth,
            measures,
            groups=groups,
            condensed=args.condensed,
            rel_level=rel_level_value(args),
            on_group=bar.step,
        )
    deliver(render(result, args.format).encode("utf-8"), args.output)
    return 0


ACTIONS["assign"] = "assign topics to assessors and write one blind package per assessor"


def run_assign(argv: list[str]) -> int:
    from ..pooling import assign

    p = Parser(prog="cranfield pool assign", description=ACTIONS["assign"])
    p.add_argument("pool", help="pool file: 'qid docid' or 'qid 0 docid -1' lines")
    p.add_argument("--assessors", required=True, help="file with one assessor name a line")
    p.add_argument("-r", "--per-topic", type=int, default=1, help="assessors per topic (default 1)")
    add_seed(p, "assignment and the package order")
    p.add_argument("--proposed", help="'topic assessor' lines: the proposer judges the topic")
    p.add_argument(
        "--order",
        choices=assign.ORDERS,
        default="shuffle",
        help="order of the pairs in a package: seeded shuffle (default) or document id",
    )
    add_output(p, required=True, help="new (or empty) directory")
    args = p.parse_args(argv)
    seed = seed_value(args)
    names = assign.read_assessors(args.assessors)
    proposed = assign.read_mapping(args.proposed, "topic assessor") if args.proposed else None
    pool = assign.read_pool_pairs(args.pool)
    topics = sorted(set(pool["query_id"].to_pylist()), key=str.encode)
    if proposed:
        unknown = sorted(set(proposed) - set(topics), key=str.encode)
        if unknown:
            from ..errors import InputError

            raise InputError(f"topic(s) not in the pool: {', '.join(unknown[:5])}", args.proposed)
    assignment = assign.assign_topics(topics, names, args.per_topic, seed, proposed)
    packages = assign.build_packages(pool, assignment, args.order, seed)
    assign.write_packages(args.output, packages, assignment)
    loads = [len(pk.table) for pk in packages]
    print(
        f"cranfield pool assign: {len(topics)} topics x {args.per_topic} assessors -> "
        f"{len(packages)} packages in {args.output} ({min(loads)}-{max(loads)} documents each)",
        file=sys.stderr,
    )
    return 0


ACTIONS["merge"] = "merge judged assessment packages into one qrels, with provenance"


def run_merge(argv: list[str]) -> int:
    from ..pooling import assign

    p = Parser(prog="cranfield pool merge", description=ACTIONS["merge"])
    p.add_argument("directory", help="directory written by 'cranfield pool assign'")
    p.add_argument(
        "--combine",
        choices=assign.COMBINE,
        default="max",
        help="grade of a pair judged by several assessors (default max)",
    )
    add_output(
        p,
        flags=("--provenance",),
        help="also write 'query_id doc_id assessor relevance' (TSV; '-': standard output)",
    )
    add_output(p, help="merged qrels (default: standard output)")
    args = p.parse_args(argv)
    inside = []
    if os.path.isdir(args.directory):
        inside = [os.path.join(args.directory, f) for f in os.listdir(args.directory)]
    check_outputs(args, extra_inputs=inside)
    merged = assign.merge_packages(args.directory, args.combine)
    if args.provenance:
        deliver(merged.provenance_bytes(), args.provenance)
    deliver(merged.qrels_bytes(), args.output)
    return 0


ACTIONS["mtc"] = "minimal test collections: the pairs to judge next to decide every run pair"


def _mtc_measure_problem(word: str) -> str | None:
    from ..pooling.mtc import measure_spec

    try:
        measure_spec(word)
    except ValueError as exc:
        return str(exc)
    return None


def _mtc_prior(text: str) -> float | str:
    """``--prior``: ``ranks`` or a probability in (0, 1)."""
    from ..errors import ParameterError

    if text.strip().lower() == "ranks":
        return "ranks"
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 < value < 1.0:
        raise ParameterError("--prior", "a probability in (0, 1) or 'ranks'", text)
    return value


def run_mtc(argv: list[str]) -> int:
    from ..errors import ParameterError
    from .main import parse

    p = Parser(
        prog="cranfield pool mtc",
        description=ACTIONS["mtc"] + " (the sign of every two runs' mean-measure difference; "
        "Carterette, Allan & Sitaraman 2006; docs/pooling.md): the pairs in MTC's order, "
        "best first; on standard error, which run pairs are decided",
    )
    p.add_argument("runs", nargs="+", metavar="RUN", help="at least two runs")
    p.add_argument("--qrels", help="the judgments so far (a negative grade: pooled, not judged)")
    add_rel_level(p)
    add_measures(
        p,
        "AP (MAP, default), P@k or DCG@k (binary gains), averaged over the topics",
        problem=_mtc_measure_problem,
    )
    p.add_argument(
        "-k", "--depth", type=int, default=100, help="ranks of each run considered (default 100)"
    )
    p.add_argument("-n", "--batch", type=int, default=100, help="pairs to write (default 100)")
    p.add_argument(
        "--stop",
        type=float,
        default=0.05,
        help="a run pair is decided below this sign-change probability, in (0, 0.5] (default 0.05)",
    )
    p.add_argument(
        "--prior",
        default="0.5",
        help="probability of relevance of an unjudged document, in (0, 1), or 'ranks': "
        "a logistic regression of the judgments so far on the documents' ranks (0.5 until "
        "10 relevant and 10 non-relevant are judged) (default 0.5)",
    )
    add_format(
        p,
        ("order", "pairs", "qrels"),
        what="order: 'topic docno weight'; pairs: 'topic docno'; qrels: 'topic 0 docno -1'",
    )
    add_output(
        p,
        flags=("--decisions",),
        help="also write 'run_a run_b difference sign_change_probability decided' per run pair",
    )
    add_output(p, help="the pairs to judge next (default: standard output)")
    args = parse(p, argv)
    measures = args.measures or ["AP"]
    if len(measures) != 1:
        raise ParameterError("--measure", "one measure", ",".join(measures))
    problem = _mtc_measure_problem(measures[0])
    if problem:
        raise ParameterError("--measure", "AP, P@k or DCG@k (k >= 1)", measures[0])
    from ..pooling.pool import check_depth

    check_depth(args.depth)
    if args.batch < 1:
        raise ParameterError("--batch", "an integer >= 1", args.batch)
    if not 0.0 < args.stop <= 0.5:
        raise ParameterError("--stop", "a probability in (0, 0.5]", args.stop)
    prior = _mtc_prior(args.prior)
    if len(args.runs) < 2:
        raise ParameterError("RUN", "at least two runs", len(args.runs))
    check_outputs(args)
    from ..core.qrels import Qrels
    from ..pooling.files import read_runs
    from ..pooling.mtc_order import judging_order

    order = judging_order(
        read_runs(args.runs, top=args.depth),
        Qrels.read(args.qrels) if args.qrels else None,
        measure=measures[0],
        depth=args.depth,
        batch=args.batch,
        stop=args.stop,
        prior=prior,
        rel_level=rel_level_value(args),
    )
    if args.decisions:
        deliver(order.decisions_bytes(), args.decisions)
    deliver(order.to_bytes(args.format), args.output)
    print(f"cranfield pool mtc: {order.summary()}", file=sys.stderr)
    return 0


def main(argv: list[str]) -> int:
    if argv and argv[0] in ACTIONS:
        return globals()[f"run_{argv[0]}"](argv[1:])
    return run_pool(argv)
