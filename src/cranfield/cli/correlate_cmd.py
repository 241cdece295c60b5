"""``cranfield correlate``: rank correlation of the system orderings of two result tables."""

from __future__ import annotations

import argparse
import json
import math

from ..errors import ParameterError

HELP = "rank correlation between two result tables (system orderings)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "a", metavar="A", help="reference result table (run, measure, value columns)"
    )
    parser.add_argument("b", metavar="B", help="second result table")
    parser.add_argument(
        "-m", "--measure", help="measure of A to order runs by (needed if A has several)"
    )
    parser.add_argument("--measure-b", help="measure of B (default: the same as --measure)")
    parser.add_argument(
        "-p", "--rbo-p", type=float, default=0.9, help="RBO persistence (default 0.9)"
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")


def _pick(table: dict, measure: str | None, which: str) -> tuple[str, dict]:
    if measure is None:
        if len(table) != 1:
            raise ParameterError(f"measure of {which}", "one of " + ", ".join(table), None)
        measure = next(iter(table))
    if measure not in table:
        raise ParameterError(f"measure of {which}", "one of " + ", ".join(table), measure)
    return measure, table[measure]


def run(args) -> int:
    from ..compare import correlate_tables, read_result_table

    ma, a = _pick(read_result_table(args.a), args.measure, "A")
    mb, b = _pick(read_result_table(args.b), args.measure_b or args.measure, "B")
    result = correlate_tables(a, b, args.rbo_p)
    if args.format == "json":
        doc = {"a": ma, "b": mb, "runs": len(a), "rbo_p": args.rbo_p}
        doc.update({k: (None if math.isnan(v) else v) for k, v in result.items()})
        print(json.dumps(doc, indent=2))
        return 0
    print(f"# {args.a} ({ma}) vs {args.b} ({mb}), {len(a)} runs")
    for k, v in result.items():
        label = f"rbo(p={args.rbo_p:g})" if k == "rbo" else k
        print(f"{label}\t{v:.4f}")
    return 0
