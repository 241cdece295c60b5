"""Arguments and loading shared by ``agreement``, ``aggregate`` and ``assessors``."""

from __future__ import annotations

import argparse

from ..errors import ParameterError

LEVELS = ("nominal", "ordinal", "interval", "ratio")


def add_input_arguments(parser: argparse.ArgumentParser) -> None:
    """The judgments: qrels files (one per assessor) or ``--judgments FILE``; the scale."""
    parser.add_argument(
        "qrels", metavar="QRELS", nargs="*", help="one qrels file per assessor (named by stem)"
    )
    parser.add_argument(
        "--judgments",
        metavar="FILE",
        help="a judgments table (CSV, TSV, Parquet or JSON lines) with topic, document, "
        "assessor, label and optionally seconds and timestamp columns",
    )
    parser.add_argument(
        "--scale",
        help="the labels, e.g. 0,1,2 or 0=non,1=rel,2=high (default: the integers present)",
    )
    parser.add_argument(
        "--level", choices=LEVELS, default="ordinal", help="level of measurement (default ordinal)"
    )


def add_effect_arguments(parser: argparse.ArgumentParser, what: str) -> None:
    """``--run RUN`` (repeatable) and ``--measure``: the runs evaluated under ``what``
    (each assessor's qrels) and their system rankings compared."""
    parser.add_argument(
        "--run",
        action="append",
        default=[],
        metavar="RUN",
        help=f"a run to evaluate with {what} (repeat; two or more compare the system "
        "rankings: Kendall's tau, tau_AP, largest score change)",
    )
    parser.add_argument(
        "--measure", default="AP", help="measure for --run (default AP; one measure name)"
    )


def load_judgments(args):
    from ..judgments import Judgments

    if (args.judgments is None) == (not args.qrels):
        raise ParameterError("input", "either QRELS files or --judgments FILE", None)
    if args.judgments is not None:
        return Judgments.read(args.judgments, scale=args.scale, level=args.level)
    return Judgments.from_qrels(args.qrels, scale=args.scale, level=args.level)


def note_unjudged(command: str, judgments) -> None:
    """After the result: the note saying how many rows were left out as not yet judged."""
    from ._output import print_notes

    if judgments.unjudged:
        print_notes(
            command,
            [
                f"{judgments.unjudged} negative grade(s) left out: pooled, not yet judged "
                "(as pool merge does)"
            ],
        )
