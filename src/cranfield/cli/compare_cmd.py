"""``cranfield compare``: significance tests, effect sizes and tables for runs."""

from __future__ import annotations

import argparse

from ..compare.stats import MAX_RESAMPLES
from ..errors import ParameterError
from ._args import (
    add_baselines,
    add_complete,
    add_engine,
    add_format,
    add_measures,
    add_output,
    add_sampled_qrels,
    add_seed,
    add_subtopic_qrels,
    add_systems,
    add_tests,
    add_topic_groups,
    engine_value,
    number,
    resolve_baselines,
    seed_value,
)
from ._common import sampled_qrels_value, subtopic_qrels_value, systems_value
from ._output import emit, print_notes, rounded_note, warnings_as_notes


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ..compare import CORRECTIONS, FORMATS, TESTS, tests_text

    parser.add_argument("qrels", nargs="?", help="qrels file (omit with --from-per-query)")
    parser.add_argument("runs", nargs="*", metavar="RUN", help="run files")
    add_measures(
        parser,
        "measures to compare (e.g. -m AP -m nDCG@10); with --from-per-query the default is all",
        dest="measure",
    )
    add_baselines(parser, "default: all pairs")
    add_topic_groups(parser)
    add_systems(parser)
    add_tests(
        parser, TESTS, tests_text() + "; repeatable or a comma list, the first decides significance"
    )
    parser.add_argument(
        "--correction",
        choices=CORRECTIONS,
        default="holm",
        help="multiple-comparison correction (default holm)",
    )
    parser.add_argument(
        "--alpha", default="0.05", help="significance level, 0 < ALPHA < 1 (default 0.05)"
    )
    parser.add_argument(
        "--alternative", choices=("two-sided", "greater", "less"), default="two-sided"
    )
    parser.add_argument(
        "--ci", choices=("t", "bootstrap"), default="t", help="interval of the mean difference"
    )
    parser.add_argument(
        "--confidence", default="0.95", help="interval level, 0 < LEVEL < 1 (default 0.95)"
    )
    parser.add_argument(
        "--permutations",
        default="10000",
        help="random permutations / bootstrap resamples, 1 to "
        f"{MAX_RESAMPLES:_} (default 10000)".replace("_", ","),
    )
    add_seed(parser, "randomization and bootstrap tests")
    add_complete(parser)
    add_subtopic_qrels(parser)
    add_sampled_qrels(parser)
    add_engine(
        parser,
        "local: this process (default); dask: the tests and intervals of the pairs computed "
        "in Dask workers, same numbers (needs cranfield[dask])",
    )
    add_format(parser, FORMATS, "text")
    parser.add_argument(
        "--table", choices=("detail", "summary"), help="layout (default: summary for latex/html)"
    )
    parser.add_argument(
        "--from-per-query",
        nargs="+",
        metavar="FILE",
        help="read per-query scores instead of evaluating QRELS and RUNs: the output of "
        "cranfield eval --per-query (any --format; csv keeps full precision), trec_eval -q "
        "(one or several runs per file) or a run,qid,measure,value table",
    )
    add_output(parser, via_stdout=True)


def _options(args) -> dict:
    """The numeric options, validated before any file is read."""
    return {
        "alpha": number(args.alpha, "--alpha", float, 0, 1, open_=True),
        "confidence": number(args.confidence, "--confidence", float, 0, 1, open_=True),
        "n_permutations": number(args.permutations, "--permutations", int, 1, MAX_RESAMPLES),
        "seed": seed_value(args),
    }


def _scores(args):
    """(per-query scores, baseline run names, seed spreads, notes for stderr), everything
    validated before evaluation; the runs of each ``--system`` merged into the system's
    per-topic means over its seeds (:func:`cranfield.compare.seeds.merge_seeds`)."""
    return _scores_and_seeds(args)[:4]


def _scores_and_seeds(args):
    """:func:`_scores` and ``spreads_of(topic_scores)``: the spreads over seeds of the
    runs' scores cut to some topics (a topic group), None without systems."""
    scores, names, paths, notes, seeded = _read_scores(args)
    systems = systems_value(args, names, paths)
    if seeded:  # a per-query table with a seed (fold) column names its systems
        if systems:
            raise ParameterError(
                "--system", "none when the per-query table has a seed or fold column", args.system
            )
        systems = seeded
    spreads, spreads_of = [], None
    if systems:
        from ..compare.seeds import merge_seeds

        confidence = number(args.confidence, "--confidence", float, 0, 1, open_=True)
        runs = scores

        def spreads_of(select):
            return merge_seeds(select(runs), systems, confidence)[1]

        scores, spreads, seed_notes = merge_seeds(scores, systems, confidence)
        notes = notes + seed_notes
        file_of = dict(zip(names, paths, strict=False))
        names = list(dict.fromkeys(r for by_run in scores.values() for r in by_run))
        paths = [file_of.get(n, n) for n in names] if paths else []
    baselines = resolve_baselines(args.baseline, names, paths)
    return scores, baselines, spreads, notes, spreads_of


def _read_scores(args):
    """(per-query scores, run names, their files, notes, systems of a seed column) of
    the command's inputs."""
    from ..compare.per_query import read_table

    if args.from_per_query:
        if args.qrels or args.runs:
            raise ParameterError(
                "QRELS/RUN", "no positional files with --from-per-query", [args.qrels, *args.runs]
            )
        table = read_table(args.from_per_query)
        notes = [rounded_note(source) for source in table.rounded]
        scores = table.scores
        if not scores:
            raise ParameterError(
                "--from-per-query",
                "per-query scores (cranfield eval --per-query, trec_eval -q)",
                "a table of aggregates only",
            )
        if args.measure:
            missing = [m for m in args.measure if m not in scores]
            if missing:
                raise ParameterError(
                    "--measure", "measures in the file: " + ", ".join(scores), missing
                )
            scores = {m: scores[m] for m in args.measure}
        runs = dict.fromkeys(r for per_run in scores.values() for r in per_run)
        systems_value(args, list(runs))  # checked before the work
        return scores, list(runs), [], notes, table.systems
    if not args.qrels or len(args.runs) < 2:
        raise ParameterError(
            "QRELS RUN RUN",
            "a qrels file and at least two runs (or --from-per-query)",
            [args.qrels, *args.runs],
        )
    if not args.measure:
        raise ParameterError("--measure", "at least one measure", None)
    from ..core.evaluation import as_measures, evaluate

    measures = as_measures(args.measure)  # unknown names fail before any file is read
    from ..core.io.source import check_path

    for path in [args.qrels, *args.runs]:
        if path != "-":
            check_path(path, path)
    from ..core.evaluation import read_runs

    runs = read_runs(args.runs)
    names = [r.name for r in runs]
    systems_value(args, names, args.runs)  # checked before the evaluation
    if not args.system:
        resolve_baselines(args.baseline, names, args.runs)
    results = evaluate(
        args.qrels,
        runs,
        measures,
        complete=args.complete,
        subtopic_qrels=subtopic_qrels_value(args),
        sampled_qrels=sampled_qrels_value(args),
    )
    return results.per_query_table(), names, list(args.runs), [], {}


#: the formats that carry the spread over seeds beside the comparison (CSV holds one
#: table: the comparison's; its spreads are in JSON)
SPREAD_FORMATS = ("text", "markdown", "json", "latex", "html")


def _spread_format(args) -> ParameterError:
    return ParameterError(
        "--system", "-f " + ", ".join(SPREAD_FORMATS) + " (the spread over seeds)", args.format
    )


def _with_spreads(text: str, spreads, args, per_group: dict | None = None) -> str:
    """The comparison followed by each system's spread over its seeds: JSON adds
    ``seeds`` (a row per system and measure; ``groups_seeds`` per topic group); the
    other formats add a table (and one per topic group)."""
    import html

    from ..compare.seeds import spread_table

    if args.format not in SPREAD_FORMATS:  # systems from a per-query table's seed column
        raise _spread_format(args)
    per_group = per_group or {}
    if args.format == "json":
        import json

        from ..output import dumps_json

        doc = json.loads(text)
        doc["seeds"] = [s.to_row() for s in spreads]
        if per_group:
            doc["groups_seeds"] = {g: [s.to_row() for s in rows] for g, rows in per_group.items()}
        return dumps_json(doc)
    level = number(args.confidence, "--confidence", float, 0, 1, open_=True)
    title = (
        "systems over seeds (mean over seeds of each one's mean over topics; "
        f"sd, range and {level:g} t interval over seeds)"
    )
    heading = {"markdown": "### {}", "latex": "% {}", "html": "<h3>{}</h3>"}.get(
        args.format, "== {} =="
    )
    parts = [text, heading.format(title) + "\n" + spread_table(spreads, args.format)]
    for group, rows in per_group.items():
        label = html.escape(group) if args.format == "html" else group
        parts.append(
            heading.format(f"systems over seeds, topic group {label}")
            + "\n"
            + spread_table(rows, args.format)
        )
    return "\n\n".join(parts)


def _rendered(result, per_group: dict, args, record) -> str:
    """The comparison, then one per topic group (``--topic-groups``): JSON nests them
    under ``groups``; CSV adds a ``group`` column; the other formats give each group a
    heading of its own."""
    if not per_group:
        return result.render(args.format, args.table, record)
    if args.format == "json":
        import json

        from ..output import dumps_json

        doc = json.loads(result.render("json", args.table, record))
        doc["groups"] = {g: json.loads(c.render("json")) for g, c in per_group.items()}
        return dumps_json(doc)
    if args.format == "csv":
        from ..output import delimited

        rows = [{"group": "all", **r} for r in result.to_rows()]
        rows += [{"group": g, **r} for g, c in per_group.items() for r in c.to_rows()]
        head = list(rows[0])
        return delimited(head, ([r.get(k, "") for k in head] for r in rows)).rstrip("\n")
    parts = [("all topics", result)]
    parts += [
        (f"topic group {g} ({len(c.queries[c.measures[0]])} topics)", c)
        for g, c in per_group.items()
    ]
    heading = {"markdown": "### {}", "latex": "% {}", "html": "<h3>{}</h3>"}.get(
        args.format, "== {} =="
    )
    import html

    return "\n\n".join(
        heading.format(html.escape(title) if args.format == "html" else title)
        + "\n"
        + c.render(args.format, args.table)
        for title, c in parts
    )


def run(args) -> int:
    from ..compare import compare
    from ._common import topic_groups_value

    options = _options(args)
    if args.system and args.format not in SPREAD_FORMATS:
        raise _spread_format(args)
    # the backend that computes the pairs' tests and intervals (dask: in Dask workers)
    options["engine"] = engine_value(args)
    options["scheduler"] = args.scheduler
    notes: list[str] = []
    topic_groups = topic_groups_value(args)
    with warnings_as_notes(notes):
        scores, baseline, spreads, read_notes, spreads_of = _scores_and_seeds(args)

        def compared(table):
            return compare(
                table,
                baseline=baseline or None,
                tests=tuple(args.tests or ("t",)),
                correction=args.correction,
                complete=args.complete,
                ci=args.ci,
                alternative=args.alternative,
                **options,
            )

        result = compared(scores)
        per_group, group_spreads = {}, {}
        if topic_groups is not None:
            from ..core.groups import select_topics

            topic_groups.check_topics(
                {q for by_run in scores.values() for v in by_run.values() for q in v}
            )
            for name in topic_groups.names:
                per_group[name] = compared(select_topics(scores, topic_groups, name))
            if spreads_of is not None:  # each group's spread over seeds, on its topics
                group_spreads = {
                    name: spreads_of(lambda t, n=name: select_topics(t, topic_groups, n))
                    for name in topic_groups.names
                }
        record = None
        if args.format == "json":  # what the numbers were computed from (files hashed)
            from ..provenance import of_arguments
            from ._common import judgment_inputs

            files = args.from_per_query or [args.qrels, *args.runs, *judgment_inputs(args)]
            record = of_arguments(args, files)
        text = _rendered(result, per_group, args, record)
        if spreads:
            text = _with_spreads(text, spreads, args, group_spreads)
    emit(text)
    notes = read_notes + notes
    print_notes("compare", notes)  # after the result: a failure is one line, no notes
    return 0
