"""``cranfield rec``: recommender evaluation -- ``eval`` (accuracy and beyond accuracy
of recommendation lists against held-out interactions) and ``split`` (leakage-free
train/test splits of an interaction log)."""

from __future__ import annotations

import argparse

from ._args import (
    Parser,
    add_complete,
    add_format,
    add_measures,
    add_output,
    add_seed,
    number,
    seed_value,
)
from ._output import emit

FORMATS = ("text", "markdown", "csv", "tsv", "json", "html")


def _add_split(p: argparse.ArgumentParser, required: bool) -> None:
    from ..rec.splits import SPLITS

    p.add_argument(
        "--split",
        choices=list(SPLITS),
        required=required,
        help="how the interactions are split into train and test: "
        + "; ".join(f"{n}: {d.summary}" for n, d in SPLITS.items()),
    )
    p.add_argument(
        "--fraction",
        help="share kept for training by the temporal, temporal-user and ratio splits, "
        "0 < F < 1 (default 0.8)",
    )
    add_seed(p, "random splits (loo-random, ratio)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True, parser_class=Parser)
    e = sub.add_parser("eval", help="accuracy and beyond-accuracy measures of recommendation lists")
    e.add_argument(
        "interactions",
        help="the interaction log (user, item[, rating][, timestamp]): the held-out test "
        "interactions, or the whole log with --split",
    )
    e.add_argument("recs", help="recommendation lists (user, item, score or rank)")
    from ..rec.measures import REC_MEASURES

    add_measures(
        e,
        "measures: the measure language's (nDCG@10, R@20, AP@10, RR; HR@10, MRR, MAP@10, "
        "Recall@10, Precision@10 accepted) and beyond accuracy: "
        + ", ".join(f"{n}@k" for n in REC_MEASURES)
        + " (k default 10); default HR@10 nDCG@10 Recall@10 coverage@10 novelty@10 arp@10",
        problem=_measure_problem,
    )
    _add_split(e, required=False)
    e.add_argument("--train", metavar="FILE", help="the training interactions (without --split)")
    e.add_argument(
        "--keep-train-items",
        action="store_true",
        help="keep a user's training items in their list (default: removed, with a note)",
    )
    add_complete(e)
    e.add_argument(
        "--min-rating",
        help="held-out interactions rated below this are not relevant (default: all are)",
    )
    e.add_argument(
        "--item-features",
        metavar="FILE",
        help="item features or embeddings (item, numeric columns) for ild@k",
    )
    e.add_argument(
        "--sampled-negatives",
        metavar="M",
        help="also report HR@k, nDCG@k and RR as a sampled evaluation with M negatives "
        "would (NAME~M) and corrected (Krichene & Rendle 2020); needs lists over the catalogue",
    )
    e.add_argument(
        "--gamma",
        default="0",
        help="bias-variance weight of the sampled metrics' correction, in [0, 1] (default 0)",
    )
    e.add_argument(
        "--user-groups",
        metavar="FILE",
        help="a table of user and group columns (one group a user) for user_mad@k",
    )
    e.add_argument(
        "--item-groups",
        metavar="FILE",
        help="a table of item and group columns (providers; one group an item) for item_mad@k "
        "and exposure_mad@k",
    )
    add_format(e, FORMATS)
    add_output(e, via_stdout=True)
    p = sub.add_parser(
        "plot",
        help="the popularity-bias plot: each user's recommended against profile popularity",
    )
    p.add_argument("interactions", help="the interaction log (the whole log with --split)")
    p.add_argument("recs", help="recommendation lists (user, item, score or rank)")
    _add_split(p, required=False)
    p.add_argument("--train", metavar="FILE", help="the training interactions (without --split)")
    p.add_argument("-k", default="10", help="the lists' cutoff (default 10)")
    p.add_argument(
        "--keep-train-items",
        action="store_true",
        help="keep a user's training items in their list (default: removed)",
    )
    add_output(p, required=True, help="the figure: a file ending in .png, .svg or .pdf")
    s = sub.add_parser("split", help="split an interaction log into train and test files")
    s.add_argument("interactions", help="the interaction log")
    _add_split(s, required=True)
    add_output(s, required=True, flags=("--train-output",), help="training interactions (CSV)")
    add_output(s, required=True, flags=("--test-output",), help="test interactions (CSV)")


def _measure_problem(word: str) -> str | None:
    """Why ``word`` names no measure of ``rec eval`` (None if it names one)."""
    from ..core.measures.names import parse_many
    from ..rec.evaluate import accuracy_name, beyond_name
    from ._args import split_measures

    try:
        for item in split_measures(word):
            if beyond_name(item) is None:
                parse_many(accuracy_name(item))
    except (ValueError, TypeError) as exc:
        return str(exc)
    return None


DEFAULT = ("HR@10", "nDCG@10", "Recall@10", "coverage@10", "novelty@10", "arp@10")


def _split_params(args) -> dict:
    """``--fraction``, for the splits that take it (given to another: a usage error)."""
    if args.fraction is None:
        return {}
    from ..errors import ParameterError
    from ..rec.splits import SPLITS

    if args.split is None or not SPLITS[args.split].params:
        raise ParameterError("--fraction", "no --fraction with this split", args.split)
    return {"fraction": number(args.fraction, "--fraction", float, 0, 1, open_=True)}


def run(args) -> int:
    if args.action == "split":
        return _split(args)
    if args.action == "plot":
        return _plot(args)
    from ..output import dumps_json, number_cell, table
    from ..rec import evaluate_recommendations, open_recommendations
    from ..rec.evaluate import read_item_features

    min_rating = (
        None
        if args.min_rating is None
        else number(args.min_rating, "--min-rating", float, -1e300, 1e300)
    )
    train, test = _train_and_test(args)
    recs = open_recommendations(args.recs)  # (streamed when evaluated, standard input too)
    features = None if args.item_features is None else read_item_features(args.item_features)
    result = evaluate_recommendations(
        test,
        recs,
        args.measures or DEFAULT,
        train=train,
        exclude_train=not args.keep_train_items,
        min_rating=min_rating,
        features=features,
        complete=args.complete,
        user_groups=args.user_groups,
        item_groups=args.item_groups,
        sampled_negatives=None
        if args.sampled_negatives is None
        else number(args.sampled_negatives, "--sampled-negatives", int, 1, 10**6),
        gamma=number(args.gamma, "--gamma", float, 0, 1),
    )
    values = result.table()
    if args.format == "html":
        from ..rec.evaluate import popularity_bias
        from ..rec.report import html_report

        k = plot_cutoff(args.measures or DEFAULT)
        popularity = (
            None
            if train is None
            else popularity_bias(test, recs, train, k, not args.keep_train_items)
        )
        emit(html_report(recs.name, values, result.notes, popularity, k).rstrip("\n"))
    elif args.format == "json":
        emit(dumps_json({"run": recs.name, "measures": values, "notes": result.notes}))
    else:
        digits = None if args.format in ("csv", "tsv") else 4
        cells = [
            repr(v) if digits is None and isinstance(v, float) else number_cell(v, digits or 4)
            for v in values.values()
        ]
        emit(table(["run", *values], [[recs.name, *cells]], args.format, left=1).rstrip("\n"))
    import sys

    for note in result.notes:
        print(f"cranfield rec: note: {note}", file=sys.stderr)
    return 0


def plot_cutoff(measures) -> int:
    """The cutoff of the HTML report's popularity-bias plot: the first measure's that
    has one (``nDCG@20`` -> 20), else 10."""
    import re

    for name in measures:
        found = re.search(r"@(\d+)\b", name)
        if found:
            return max(1, int(found.group(1)))
    return 10


def _train_and_test(args):
    """(train, test) of ``rec eval``/``rec plot``: ``--split`` of the log, or ``--train``."""
    from ..errors import ParameterError
    from ..rec import read_interactions, split

    if args.split and args.train:
        raise ParameterError("--train", "no --train with --split (the split makes it)", args.train)
    log = read_interactions(args.interactions)
    train = None if args.train is None else read_interactions(args.train)
    if args.split:
        return split(log, args.split, seed=seed_value(args), **_split_params(args))
    return train, log


def _plot(args) -> int:
    from ..errors import ParameterError
    from ..rec import open_recommendations
    from ..rec.evaluate import popularity_bias
    from ..report import plots

    suffix = args.output.rsplit(".", 1)[-1].lower() if "." in args.output else ""
    if suffix not in plots.FORMATS:
        raise ParameterError("--output", "a file name ending in .png, .svg or .pdf", args.output)
    k = number(args.k, "-k", int, 1, 10**6)
    train, test = _train_and_test(args)
    if train is None:
        raise ParameterError("--split/--train", "the training interactions (the profiles)", None)
    data = popularity_bias(
        test, open_recommendations(args.recs), train, k, not args.keep_train_items
    )
    plots.save_figure(plots.draw_popularity_bias(data, k=k), args.output)
    return 0


def _split(args) -> int:
    from ..output import delimited
    from ..rec import read_interactions, split
    from ._output import deliver

    log = read_interactions(args.interactions)
    train, test = split(log, args.split, seed=seed_value(args), **_split_params(args))
    for part, target in ((train, args.train_output), (test, args.test_output)):
        table = part.to_arrow()
        rows = zip(*(table[c].to_pylist() for c in table.column_names), strict=True)
        deliver(delimited(table.column_names, rows), target)  # each file atomically
    return 0
