"""``cranfield correlate``: rank correlation of two result tables (system orderings)
or of two runs (document rankings, query by query)."""

from __future__ import annotations

import argparse
import json
import math

from ..errors import ParameterError

HELP = "rank correlation between two runs (per query) or two result tables (system orderings)"


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
    parser.add_argument(
        "--runs",
        action="store_true",
        help="A and B are runs: correlate their document rankings query by query "
        "(detected automatically for TREC run files)",
    )
    parser.add_argument("--depth", type=int, help="with runs: compare only the top N documents")
    parser.add_argument("-q", "--per-query", action="store_true", help="with runs: every query")
    parser.add_argument("--format", choices=("text", "json"), default="text")


def _pick(table: dict, measure: str | None, which: str) -> tuple[str, dict]:
    if measure is None:
        if len(table) != 1:
            raise ParameterError(f"measure of {which}", "one of " + ", ".join(table), None)
        measure = next(iter(table))
    if measure not in table:
        raise ParameterError(f"measure of {which}", "one of " + ", ".join(table), measure)
    return measure, table[measure]


def _looks_like_run(path: str) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.strip() and not line.startswith("#"):
                    return len(line.split()) >= 6
    except OSError:
        return False
    return False


def _run_mode(args) -> int:
    from ..compare import correlate_runs
    from ..run import Run

    result = correlate_runs(Run.read(args.a), Run.read(args.b), args.rbo_p, args.depth)
    clean = lambda v: None if isinstance(v, float) and math.isnan(v) else v  # noqa: E731
    if args.format == "json":
        doc = {
            "a": args.a,
            "b": args.b,
            "rbo_p": args.rbo_p,
            "queries": result["queries"],
            "mean": {k: clean(v) for k, v in result["mean"].items()},
            "only_in_a": result["only_in_a"],
            "only_in_b": result["only_in_b"],
        }
        if args.per_query:
            doc["per_query"] = {
                q: {k: clean(v) for k, v in vals.items()} for q, vals in result["per_query"].items()
            }
        print(json.dumps(doc, indent=2))
        return 0
    print(f"# {args.a} vs {args.b}: {result['queries']} queries in both runs")
    print("query\tkendall_tau\tspearman_rho\trbo\tcommon")
    rows = list(result["per_query"].items()) if args.per_query else []
    for q, v in rows + [("mean", result["mean"])]:
        print(
            f"{q}\t{v['kendall_tau']:.4f}\t{v['spearman_rho']:.4f}\t{v['rbo']:.4f}\t{v['common']:g}"
        )
    return 0


def run(args) -> int:
    from ..compare import correlate_tables, read_result_table

    if args.runs or (_looks_like_run(args.a) and _looks_like_run(args.b)):
        return _run_mode(args)

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
