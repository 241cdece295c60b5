"""``cranfield curve pr QRELS RUN``: precision-recall curves as CSV or JSON."""

from __future__ import annotations

import argparse
import csv

from ._args import add_convention, add_format, add_output, add_rel_level, rel_level_value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("kind", choices=["pr"], help="curve kind (pr: precision-recall)")
    parser.add_argument("qrels", help="qrels file ('-' for stdin)")
    parser.add_argument("run", help="run file")
    parser.add_argument("--query", help="only this query")
    parser.add_argument(
        "--interpolated",
        action="store_true",
        help="interpolated precision at recall levels instead of the points at every rank",
    )
    parser.add_argument(
        "--recall",
        default=None,
        help="comma-separated recall levels for --interpolated (default: 0,0.1,...,1)",
    )
    add_convention(parser, default=None)  # None: only with --interpolated, --average recall
    parser.add_argument(
        "--average",
        choices=["ranks", "recall"],
        help="average over queries: mean P and R at ranks 5,10,... or mean interpolated "
        "precision at the recall levels",
    )
    add_rel_level(parser)
    add_format(parser, ["csv", "json"])
    add_output(parser, via_stdout=True)


def run(args) -> int:
    from ..core.qrels import Qrels
    from ..core.run import Run
    from ..errors import ParameterError
    from ..report import curves

    interpolating = args.average == "recall" or (args.average is None and args.interpolated)
    if args.convention is not None and not interpolating:
        raise ParameterError(
            "--convention", "to be used with --interpolated or --average recall", args.convention
        )
    qrels = Qrels.read(args.qrels)
    run_ = Run.read(args.run)
    levels = curves.ELEVEN_POINTS
    if args.recall is not None:
        try:
            levels = tuple(float(x) for x in args.recall.split(","))
        except ValueError:
            raise ParameterError(
                "--recall", "comma-separated numbers in [0, 1]", args.recall
            ) from None
    common = dict(rel_level=rel_level_value(args))
    convention = args.convention or "textbook"
    if args.average == "ranks":
        table = curves.average_at_ranks(qrels, run_, **common)
    elif args.average == "recall":
        table = curves.average_interpolated(qrels, run_, levels, convention=convention, **common)
    elif args.interpolated:
        table = curves.interpolated_precision(
            qrels, run_, levels, query=args.query, convention=convention, **common
        )
    else:
        table = curves.pr_points(qrels, run_, query=args.query, **common)
    _write(table, args.format)
    return 0


def _py(v):
    return v.item() if hasattr(v, "item") else v


def _write(table: dict, fmt: str) -> None:
    names = list(table)
    rows = [
        dict(zip(names, map(_py, values), strict=True))
        for values in zip(*table.values(), strict=True)
    ]
    from ._output import deliver

    if fmt == "json":
        from ..output import dumps_json

        deliver(dumps_json(rows, indent=1) + "\n", None)
        return
    import io

    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=names, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    deliver(text.getvalue(), None)
