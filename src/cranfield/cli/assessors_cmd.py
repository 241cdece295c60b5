"""``cranfield assessors``: each assessor's quality, with the reasons for concern."""

from __future__ import annotations

import argparse

from ._args import number
from ._judgments import add_input_arguments, load_judgments, note_unjudged
from ._output import emit


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)
    parser.add_argument("--gold", metavar="FILE", help="qrels of gold (honeypot) pairs")
    parser.add_argument(
        "--min-kappa", default="0.2", help="flag chance-corrected accuracy below (default 0.2)"
    )
    parser.add_argument(
        "--fast-fraction",
        default="0.25",
        help="flag a median time per judgment under this share of the crowd's (default 0.25)",
    )
    parser.add_argument("--digits", default="3", help="decimals in text output (default 3)")
    parser.add_argument("--format", choices=("text", "json"), default="text")


def run(args) -> int:
    from ..judgments.quality import Thresholds, assessor_quality
    from ..output import UNDEFINED, delimited, dumps_json

    thresholds = Thresholds(
        min_kappa=number(args.min_kappa, "--min-kappa", float, 0, 1),
        fast_fraction=number(args.fast_fraction, "--fast-fraction", float, 0, 1),
    )
    digits = number(args.digits, "--digits", int, 0, 17)
    j = load_judgments(args)
    rows = assessor_quality(j, gold=args.gold, thresholds=thresholds)
    if args.format == "json":
        emit(dumps_json({"source": j.source, "assessors": rows}))
        note_unjudged("assessors", j)
        return 0
    cols = (
        "judgments",
        "score",
        "kappa",
        "accuracy",
        "agreement_with_aggregate",
        "gold_accuracy",
        "median_seconds",
    )
    body = [
        [
            r["assessor"],
            *[
                str(r[c])
                if c == "judgments"
                else UNDEFINED
                if r[c] != r[c]
                else f"{r[c]:.{digits}f}"
                for c in cols
            ],
        ]
        for r in rows
    ]
    # tab-separated (a stable, parseable layout), through the one table renderer
    head, *lines = [
        delimited(cells, [], "\t").rstrip("\n") for cells in [["assessor", *cols], *body]
    ]
    out = ["# worst first; reasons after each row", head]
    for line, r in zip(lines, rows, strict=True):
        out.append(line)
        out += [f"  - {reason}" for reason in r["reasons"]]
    emit("\n".join(out))
    note_unjudged("assessors", j)
    return 0
