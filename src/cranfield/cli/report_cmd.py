"""``cranfield report QRELS RUN [RUN ...] -m ... [--baseline RUN] -o report.html``."""

from __future__ import annotations

import shlex

from ._args import (
    add_figure_inputs,
    add_sampled_qrels,
    add_subtopic_qrels,
    add_systems,
    add_tests,
    add_topic_groups,
    eval_options,
    parse_ints,
    rel_level_value,
)

MAX_DEPTH = 1000  # largest --max-depth: the depth figure evaluates 2 measures per k


def add_arguments(p) -> None:
    from ..compare import TESTS
    from ..defaults import DIVERSITY_REPORT_MEASURES, REPORT_MEASURES

    add_figure_inputs(
        p,
        measure_help="measures (default: "
        + " ".join(REPORT_MEASURES)
        + "; with --subtopic-qrels also "
        + " ".join(DIVERSITY_REPORT_MEASURES)
        + ")",
        query_help="also draw the precision-recall curves of this query",
    )
    add_subtopic_qrels(p)
    add_sampled_qrels(p)
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
    add_tests(
        p,
        TESTS,
        f"significance tests: {', '.join(TESTS)}; repeatable or a comma list (default: t; "
        "the first decides significance)",
    )
    p.add_argument(
        "--images",
        choices=["png", "svg"],
        default="svg",
        help="kept for compatibility: the figures are always inline SVG",
    )
    p.add_argument("--title", default="cranfield evaluation report")
    add_topic_groups(p)
    add_systems(p)


def command_line(args, measures) -> str:
    """The canonical command that reproduces the report (every option spelled out)."""
    argv = ["cranfield", "report", args.qrels, *args.runs]
    argv += ["-m", *measures]
    for value in args.baseline or ():
        argv += ["--baseline", value]
    if args.query is not None:
        argv += ["--query", args.query]
    if args.subtopic_qrels is not None:
        argv += ["--subtopic-qrels", args.subtopic_qrels]
    if args.intent_probabilities is not None:
        argv += ["--intent-probabilities", args.intent_probabilities]
    if args.sampled_qrels is not None:
        argv += ["--sampled-qrels", args.sampled_qrels]
    argv += ["-l", str(rel_level_value(args)), "--convention", args.convention]
    argv += ["--complete"] * args.complete + ["--judged-only"] * args.judged_only
    argv += ["--test", ",".join(args.tests or ["t"])]
    argv += ["--depths", args.depths, "--max-depth", str(args.max_depth)]
    if args.topic_groups is not None:
        argv += ["--topic-groups", args.topic_groups]
    for value in args.system or ():
        argv += ["--system", value]
    argv += ["--images", args.images, "--title", args.title, "-o", args.output]
    return shlex.join(argv)


def run(args) -> int:
    from ..core.evaluation import RunFiles
    from ..core.qrels import Qrels
    from ..core.subtopics import SubtopicQrels
    from ..defaults import DIVERSITY_REPORT_MEASURES
    from ..errors import ParameterError
    from ..provenance import of_arguments
    from ..report.html import DEFAULT_MEASURES, build_report
    from ._args import resolve_baselines
    from ._common import (
        judgment_inputs,
        sampled_qrels_value,
        subtopic_qrels_value,
        systems_value,
        topic_groups_value,
    )
    from ._output import deliver

    if not 1 <= args.max_depth <= MAX_DEPTH:  # each k is two more measures to evaluate
        raise ParameterError("--max-depth", f"an integer in [1, {MAX_DEPTH}]", args.max_depth)
    subtopics = subtopic_qrels_value(args)
    if isinstance(subtopics, str):  # read once: the report evaluates several times
        subtopics = SubtopicQrels.read(subtopics)
    sampled = sampled_qrels_value(args)
    if sampled is not None:  # read once: the report evaluates several times
        from ..core.sampled import read_sampled_qrels

        sampled = read_sampled_qrels(sampled)
    diversity = list(DIVERSITY_REPORT_MEASURES) if subtopics is not None else []
    measures = args.measures or [*DEFAULT_MEASURES, *diversity]
    topic_groups = topic_groups_value(args)
    qrels = Qrels.read(args.qrels)
    runs = RunFiles(args.runs, duplicates=args.duplicates)  # read one at a time
    # a run name or one of the run files, as in compare: checked before the report's work
    baselines = resolve_baselines(args.baseline, runs.names, args.runs)
    systems = systems_value(args, runs.names, args.runs)
    text = build_report(
        qrels,
        runs,
        measures,
        baseline=baselines or None,
        query=args.query,
        depths=parse_ints(args.depths, "--depths"),
        max_depth=args.max_depth,
        command=command_line(args, measures),
        provenance=of_arguments(
            args,
            [
                args.qrels,
                *args.runs,
                *judgment_inputs(args),
                *([args.topic_groups] if topic_groups is not None else []),
            ],
        ),
        title=args.title,
        image_format=args.images,
        tests=tuple(args.tests or ["t"]),
        convention=args.convention,
        subtopic_qrels=subtopics,
        sampled_qrels=sampled,
        topic_groups=topic_groups,
        systems=systems,
        **eval_options(args),
    )
    deliver(text, args.output)
    return 0
