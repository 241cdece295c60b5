"""``cranfield correlate``: rank correlation of two result tables (system orderings)
or of two runs (document rankings, query by query)."""

from __future__ import annotations

import argparse
import os

from ..errors import InputError, ParameterError
from ._args import add_digits, add_format, add_output, digits_value, number
from ._output import emit, print_notes, rounded_note, warnings_as_notes

#: Largest --depth accepted (a ranking deeper than this is not a ranking one reads).
MAX_DEPTH = 10**9


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "a",
        metavar="A",
        help="reference scores: a table written by cranfield eval (any --format, with or "
        "without --per-query), trec_eval (-q) output, or a run,measure,value table",
    )
    parser.add_argument(
        "b", metavar="B", nargs="?", help="second table (default: A again, with --measure-b)"
    )
    parser.add_argument(
        "-m", "--measure", help="measure of A to order runs by (needed if A has several)"
    )
    parser.add_argument("--measure-b", help="measure of B (default: the same as --measure)")
    parser.add_argument(
        "-p", "--rbo-p", default="0.9", help="RBO persistence, 0 < P < 1 (default 0.9)"
    )
    parser.add_argument(
        "--confidence",
        default="0.95",
        help="level of the intervals of tau and rho, 0 < LEVEL < 1 (default 0.95)",
    )
    parser.add_argument(
        "--runs",
        action="store_true",
        help="A and B are runs: correlate their document rankings query by query "
        "(detected automatically for TREC run files)",
    )
    parser.add_argument("--depth", help="with runs: compare only the top N documents (N >= 1)")
    parser.add_argument("-q", "--per-query", action="store_true", help="with runs: every query")
    add_digits(parser)
    add_format(parser, ("text", "json"))
    add_output(parser, via_stdout=True)


def _options(args) -> dict:
    """The numeric options, validated before any file is read."""
    return {
        "rbo_p": number(args.rbo_p, "--rbo-p", float, 0, 1, open_=True),
        "confidence": number(args.confidence, "--confidence", float, 0, 1, open_=True),
        "depth": None if args.depth is None else number(args.depth, "--depth", int, 1, MAX_DEPTH),
        "digits": digits_value(args),
    }


def _pick(table: dict, measure: str | None, which: str) -> tuple[str, dict]:
    if measure is None:
        if len(table) != 1:
            raise ParameterError(f"measure of {which}", "one of " + ", ".join(table), None)
        measure = next(iter(table))
    if measure not in table:
        raise ParameterError(f"measure of {which}", "one of " + ", ".join(table), measure)
    return measure, table[measure]


def _looks_like_run(path: str) -> bool:
    """Whether ``path`` is a TREC run (6+ fields on its first line). Only regular files
    are peeked at: a pipe read here would be empty for the reader that follows."""
    if not os.path.isfile(path):
        return False
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.strip() and not line.startswith("#"):
                    # (a Markdown score table's header has 6+ words too)
                    return len(line.split()) >= 6 and not line.lstrip().startswith("|")
    except OSError:
        return False
    return False


def _fmt(v, digits: int) -> str:
    from ..output import number_cell

    return number_cell(v, digits)


def _run_mode(args, opts) -> int:
    from ..compare import correlate_runs
    from ..core.run import Run
    from ..output import dumps_json

    result = correlate_runs(Run.read(args.a), Run.read(args.b), opts["rbo_p"], opts["depth"])
    if not result["queries"]:
        raise InputError("the two runs answer no query in common: nothing to correlate", args.b)
    if args.format == "json":
        doc = {
            "a": args.a,
            "b": args.b,
            "rbo_p": opts["rbo_p"],
            "queries": result["queries"],
            "mean": result["mean"],
            "only_in_a": result["only_in_a"],
            "only_in_b": result["only_in_b"],
        }
        if args.per_query:
            doc["per_query"] = result["per_query"]
        emit(dumps_json(doc))
        return 0
    d = opts["digits"]
    out = [f"# {args.a} vs {args.b}: {result['queries']} queries in both runs"]
    out.append("query\tkendall_tau\tspearman_rho\trbo\tcommon")
    rows = list(result["per_query"].items()) if args.per_query else []
    for q, v in rows + [("mean", result["mean"])]:
        cells = [_fmt(v[k], d) for k in ("kendall_tau", "spearman_rho", "rbo")]
        common = _fmt(v["common"], 0 if q != "mean" else d)
        out.append("\t".join([q, *cells, common]))
    emit("\n".join(out))
    return 0


def run(args) -> int:
    notes: list[str] = []
    with warnings_as_notes(notes):
        status = _run(args, notes)
    print_notes("correlate", notes)  # after the result: a failure is one line, no notes
    return status


def _run(args, notes: list[str]) -> int:
    from ..compare.per_query import correlate_tables, read_table
    from ..compare.tables import format_pvalue
    from ..output import dumps_json

    opts = _options(args)
    if args.b is None:
        if args.runs:
            raise ParameterError("B", "a second run with --runs", None)
        args.b = args.a
    if args.runs or (_looks_like_run(args.a) and _looks_like_run(args.b)):
        return _run_mode(args, opts)

    table_a = read_table(args.a)
    table_b = table_a if args.b == args.a else read_table(args.b)
    ma, a = _pick(table_a.means(), args.measure, "A")
    mb, b = _pick(table_b.means(), args.measure_b or args.measure, "B")
    result = correlate_tables(a, b, opts["rbo_p"], opts["confidence"])
    notes += [rounded_note(s) for s in dict.fromkeys(table_a.rounded + table_b.rounded)]
    level = f"{100 * opts['confidence']:g}%"
    if args.format == "json":
        doc = {"a": ma, "b": mb, "runs": len(a), "rbo_p": opts["rbo_p"]}
        doc["confidence"] = opts["confidence"]
        doc.update(result)
        emit(dumps_json(doc))
    else:
        d = opts["digits"]
        out = [f"# {args.a} ({ma}) vs {args.b} ({mb}), {len(a)} runs"]
        out.append(
            f"# p: two-sided (kendall_tau {result['kendall_tau_p_method']}, spearman_rho "
            f"{result['spearman_rho_p_method']}); {level} intervals: Fisher z-transform with "
            "the standard error of Fieller, Hartley & Pearson 1957 (tau) and Bonett & Wright "
            "2000 (rho)"
        )
        out.append("statistic\tvalue\tp\tci_low\tci_high")
        for k in ("kendall_tau", "tau_ap", "spearman_rho", "rbo"):
            label = f"rbo(p={opts['rbo_p']:g})" if k == "rbo" else k
            cells = [_fmt(result[k], d)]
            if f"{k}_p" in result:
                cells += [
                    format_pvalue(result[f"{k}_p"]),
                    _fmt(result[f"{k}_ci_low"], d),
                    _fmt(result[f"{k}_ci_high"], d),
                ]
            out.append("\t".join([label, *cells]))
        emit("\n".join(out))
    return 0
