"""``cranfield eval``: evaluate runs against qrels with readable measure names."""

from __future__ import annotations

import sys

from ._common import Parsed, digits_value, engine_value, judge_options, quick_scan
from ._output import deliver
from ._quick_tables import EVAL, EVAL_DEFAULTS


def add_arguments(p) -> None:
    from ..defaults import DEFAULT_MEASURES
    from ._args import (
        add_ci,
        add_compat,
        add_digits,
        add_engine,
        add_format,
        add_judging,
        add_measures,
        add_output,
        add_qrels_and_runs,
        add_sampled_qrels,
        add_stream,
        add_subtopic_qrels,
        add_systems,
        add_topic_groups,
    )

    add_qrels_and_runs(p)
    add_measures(
        p,
        "measures, e.g. AP nDCG@10 'P(rel=2)@5' RR R@100 Bpref; trec_eval names such as "
        "ndcg_cut.10 work too (default: " + " ".join(DEFAULT_MEASURES) + ")",
    )
    p.add_argument("-q", "--per-query", action="store_true", help="also show every query")
    add_topic_groups(p)
    add_systems(p)
    add_judging(p)
    add_subtopic_qrels(p)
    add_sampled_qrels(p)
    add_ci(
        p,
        "after the runs (-f text, markdown or json): of each run's mean over topics, the t "
        "interval (topics as sampling units) of every measure averaged by its mean, and "
        "that of the judging sample of the sampled estimators, from their per-topic "
        "variances (Horvitz-Thompson for statAP and statPC, a stratified jackknife for "
        "xinfAP and infNDCG; docs/sampling.md)",
    )
    p.add_argument(
        "--fractional",
        action="store_true",
        help="read qrels relevance as real numbers (soft labels, e.g. from cranfield "
        "aggregate --soft): graded measures use the fractions as gains, binary ones call "
        "a document relevant when its value is at least -l; default: integer grades, a "
        "decimal in a TREC file truncated as trec_eval does",
    )
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
    add_engine(p)
    add_format(p, ["text", "markdown", "json", "csv", "tsv", "trec"])
    add_digits(p)
    add_output(p)


def quick(argv: list[str]) -> Parsed | None:
    """The options of a plain ``cranfield eval`` command line without ``argparse``, or
    None (then cli/main.py's parser reads it: its results and messages).

    Plain: ``QRELS RUN [RUN ...]`` together, every option written out in full and
    alone, each value an argument of its own not starting with '-', a ``-m`` value
    without commas and not followed by another word (``-m AP nDCG@10``, a list, is
    read by :func:`~cranfield.cli._args.expand_measure_lists`), an integer option's
    value all digits. tests/cli/test_eval_quick_parse.py checks that argparse reads
    such lines to the same options; the options are :mod:`cranfield.cli._quick_tables`'s,
    generated from :func:`add_arguments`.
    """
    read = quick_scan(argv, EVAL, EVAL_DEFAULTS)
    if read is None or len(read[1]) < 2:
        return None
    args, files = read
    args.qrels, args.runs = files[0], files[1:]
    return args


def run(args) -> int:
    from ..core.backends import backend
    from ..defaults import DEFAULT_MEASURES

    digits = digits_value(args)
    if getattr(args, "system", None) and args.format not in ("text", "markdown", "json"):
        from ..errors import ParameterError

        raise ParameterError(
            "--system", "-f text, markdown or json (the spread table)", args.format
        )
    if getattr(args, "ci", False):
        from ..errors import ParameterError

        if args.format not in ("text", "markdown", "json"):
            raise ParameterError(
                "--ci", "-f text, markdown or json (the interval table)", args.format
            )
        if args.aggregate != "macro" or args.skip_no_relevant:
            raise ParameterError(
                "--ci",
                "the mean over every topic (not with --aggregate micro or --skip-no-relevant)",
                "--ci",
            )
    topic_groups = None if args.topic_groups is None else _read_groups(args)
    from ._common import sampled_qrels_value, subtopic_qrels_value

    subtopics = subtopic_qrels_value(args)
    more = {} if subtopics is None else {"subtopic_qrels": subtopics}
    if sampled_qrels_value(args) is not None:
        more["sampled_qrels"] = sampled_qrels_value(args)
    results, qrels = backend(engine_value(args)).evaluate(
        args.qrels,
        args.runs,
        args.measures or DEFAULT_MEASURES,
        judge_options(args),
        aggregate_by=args.aggregate,
        skip_no_relevant=args.skip_no_relevant,
        collection_size=args.collection_size,
        fractional=args.fractional,
        stream=args.stream,
        scheduler=args.scheduler,
        **more,
    )
    return _finish(results, qrels, args, digits, topic_groups)


def _read_groups(args):
    """``--topic-groups FILE`` (cranfield.core.groups), read and checked before the
    evaluation."""
    from ..errors import ParameterError
    from ._common import topic_groups_value

    if args.per_query or args.format == "trec":
        given = "-q" if args.per_query else "-f trec"
        raise ParameterError("--topic-groups", "the table of means (not with -q or -f trec)", given)
    if args.aggregate == "micro" or args.skip_no_relevant:
        flag = "--aggregate micro" if args.aggregate == "micro" else "--skip-no-relevant"
        raise ParameterError("--topic-groups", "macro means over all topics", flag)
    return topic_groups_value(args)


def _with_systems(text: str, results, args, digits: int, groups=None) -> str:
    """``--system``: after the runs, each system's value over its seeds (the measure's
    own aggregate of the run of each seed: mean, sd, range, 95% t interval;
    :func:`cranfield.compare.seeds.spread`); JSON adds ``seeds``. With ``groups``
    (``--topic-groups``: ``{group: Results}``) the same per group (``groups_seeds``)."""
    from ..compare.seeds import result_spreads, spread_table
    from ._common import systems_value

    systems = systems_value(args, [r.name for r in results.runs], args.runs)
    rows = result_spreads(results, systems)
    per_group = {g: result_spreads(r, systems) for g, r in (groups or {}).items()}
    if args.format == "json":
        import json

        from ..output import dumps_json

        doc = json.loads(text)
        doc["seeds"] = [r.to_row() for r in rows]
        if per_group:
            doc["groups_seeds"] = {g: [r.to_row() for r in v] for g, v in per_group.items()}
        return dumps_json(doc)
    heading, tail = ("### ", "") if args.format == "markdown" else ("== ", " ==")
    title = "systems over seeds (the aggregate of each seed; mean, sd, range and 95% t interval over seeds)"
    parts = [
        text.rstrip("\n"),
        f"{heading}{title}{tail}\n" + spread_table(rows, args.format, digits),
    ]
    for g, v in per_group.items():
        parts.append(
            f"{heading}systems over seeds, topic group {g}{tail}\n"
            + spread_table(v, args.format, digits)
        )
    return "\n\n".join(parts) + "\n"


def _with_intervals(text: str, results, args, digits: int) -> str:
    """``--ci``: after the runs, each run's 95% intervals of its mean over topics
    (:func:`cranfield.judgments.intervals.run_intervals`); JSON adds ``intervals``."""
    from ..judgments.intervals import interval_table, run_intervals

    rows = run_intervals(results)
    if args.format == "json":
        import json

        from ..output import dumps_json

        doc = json.loads(text)
        doc["intervals"] = [r.to_row() for r in rows]
        return dumps_json(doc)
    heading, tail = ("### ", "") if args.format == "markdown" else ("== ", " ==")
    title = (
        "95% intervals of each run's mean over topics (t: topics as sampling units; "
        "sample: the judging sample's, topics fixed)"
    )
    table = interval_table(rows, args.format, digits).rstrip("\n")
    return "\n\n".join([text.rstrip("\n"), f"{heading}{title}{tail}\n{table}"]) + "\n"


def _finish(results, qrels, args, digits: int, topic_groups=None) -> int:
    """Notes on truncated grades and missing topics, then the rendered results (stdout
    or ``-o``); ``qrels``: the qrels, or the engine's ``QrelsRead`` of their file."""
    from ..core.results import QrelsRead, missing_topics
    from ..output import render

    if not args.fractional:
        from ..core.io.grades import first_fractional_grade, truncation_note

        # the engine found it as it read the qrels; read in Python, they are looked at
        # again
        found = (
            qrels.truncated if isinstance(qrels, QrelsRead) else first_fractional_grade(args.qrels)
        )
        note = truncation_note(found, str(args.qrels), "--fractional")
        if note is not None:
            print(f"cranfield eval: {note}", file=sys.stderr)
    if not args.complete:
        for name, missing in missing_topics(results, qrels):
            print(
                f"cranfield eval: note: run {name!r} has no results for {missing} qrels "
                "topic(s); they are left out of its means (use --complete to count them as 0)",
                file=sys.stderr,
            )
    record = None
    if args.format == "json":  # what the numbers were computed from (files hashed)
        from ..provenance import of_arguments
        from ._common import judgment_inputs

        record = of_arguments(args, [args.qrels, *args.runs, *judgment_inputs(args)])
    groups = None
    if topic_groups is not None:
        from ..core.groups import by_group

        topic_groups.check_topics({q for r in results.runs for q in r.query_ids})
        groups = by_group(results, topic_groups)
    text = render(
        results,
        args.format,
        per_query=args.per_query,
        digits=digits,
        provenance=record,
        groups=groups,
    )
    if getattr(args, "system", None):
        text = _with_systems(text, results, args, digits, groups)
    if getattr(args, "ci", False):
        text = _with_intervals(text, results, args, digits)
    deliver(text, args.output)
    return 0
