"""``cranfield agreement``: how much assessors agree (kappa, pi, Fleiss, alpha, AC1)."""

from __future__ import annotations

import argparse

from ._args import (
    add_digits,
    add_format,
    add_name_list,
    add_output,
    add_seed,
    number,
    seed_value,
)
from ._judgments import add_effect_arguments, add_input_arguments, load_judgments, note_unjudged
from ._output import emit


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)
    parser.add_argument(
        "--threshold", help="also report binary agreement: labels >= THRESHOLD are relevant"
    )
    parser.add_argument(
        "--bootstrap",
        default="1000",
        help="bootstrap replicates for the intervals, 0 for none (default 1000)",
    )
    parser.add_argument("--confidence", default="0.95", help="interval level (default 0.95)")
    add_seed(parser, "bootstrap resampling")
    add_name_list(
        parser,
        "--statistic",
        "statistics",
        (*STATS, *PAIR_STATS[1:]),
        "compute and show only these statistics (repeat or a comma list; default all); "
        "the pairwise table only with a Cohen's kappa or scott_pi",
        "NAME[,NAME...]",
    )
    add_effect_arguments(parser, "each assessor's qrels")
    add_format(parser, ("text", "json", "markdown"))
    add_digits(parser)
    add_output(parser, via_stdout=True)


STATS = ("percent_agreement", "krippendorff_alpha", "fleiss_kappa", "gwet_ac1")
PAIR_STATS = (
    "percent_agreement",
    "cohen_kappa_unweighted",
    "cohen_kappa_linear",
    "cohen_kappa_quadratic",
    "scott_pi",
)


def _fmt(v, digits: int) -> str:
    from ..output import number_cell

    return number_cell(v, digits)


def _table(head: list[str], rows: list[list[str]], markdown: bool, left: int = 1) -> list[str]:
    """The lines of one table, drawn by :func:`cranfield.output.table` (the first
    ``left`` columns, the names, left-aligned; the numbers right-aligned)."""
    from ..output import table

    return table(head, rows, "markdown" if markdown else "text", left=left, escape=True).split("\n")


def _render_section(name: str, sec: dict, d: int, md: bool, chosen) -> list[str]:
    out = [f"## {name} ({sec['level']}, labels {sec['scale']})" if md else f"# {name}"]
    if not md:
        out[0] += f" ({sec['level']}, labels {sec['scale']})"
    head = ["statistic", "value"] + (["ci_low", "ci_high"] if "ci" in sec["overall"] else [])
    rows = []
    stats = [s for s in STATS if s in chosen]
    for s in stats:
        cells = [s, _fmt(sec["overall"][s], d)]
        if "ci" in sec["overall"]:
            cells += [_fmt(x, d) for x in sec["overall"]["ci"][s]]
        rows.append(cells)
    rows.append(["pairable_items", str(sec["overall"]["pairable_items"])])
    if "ci" in sec["overall"] and len(head) == 4:
        rows[-1] += ["", ""]
    out += _table(head, rows, md) + [""]
    rows = [
        [t, *[_fmt(v[s], d) for s in stats], str(v["pairable_items"])]
        for t, v in sec["per_topic"].items()
    ]
    out += _table(["topic", *stats, "pairable_items"], rows, md)
    if "pairs" in sec:
        pair_stats = [s for s in PAIR_STATS if s in chosen]
        rows = [
            [p["a"], p["b"], str(p["items"]), *[_fmt(p[s], d) for s in pair_stats]]
            for p in sec["pairs"]
        ]
        out += [""] + _table(["assessor_a", "assessor_b", "items", *pair_stats], rows, md, left=2)
    if "confusion" in sec:
        c = sec["confusion"]
        out += ["", f"confusion: rows {c['rows']}, columns {c['columns']}"]
        rows = [[str(lab), *map(str, r)] for lab, r in zip(c["labels"], c["matrix"], strict=False)]
        out += _table(["label", *map(str, c["labels"])], rows, md)
    out += [f"note: {n}" for n in sec["notes"]]
    return out


def run(args) -> int:
    from ..judgments import agreement_report
    from ..output import dumps_json

    replicates = number(args.bootstrap, "--bootstrap", int, 0, 100_000)
    confidence = number(args.confidence, "--confidence", float, 0, 1, open_=True)
    state = seed_value(args)
    digits = number(args.digits, "--digits", int, 0, 17)
    threshold = None
    if args.threshold is not None:
        threshold = number(args.threshold, "--threshold", int, -(2**62), 2**62)
    j = load_judgments(args)
    report = agreement_report(
        j,
        threshold=threshold,
        replicates=replicates,
        confidence=confidence,
        seed=state,
        statistics=args.statistics,
    )
    if args.run:
        from ..judgments.effect import effect_on_rankings

        report["effect"] = effect_on_rankings(j, args.run, args.measure)
    if args.format == "json":
        emit(dumps_json(report))
        note_unjudged("agreement", j)
        return 0
    md = args.format == "markdown"
    head = (
        f"{report['judgments']} judgments of {report['items']} topic-document pairs by "
        f"{len(report['assessors'])} assessors"
    )
    if replicates:
        head += f"; {100 * confidence:g}% percentile bootstrap intervals over pairs"
    out = ["# " + head, ""]
    chosen = args.statistics or (*STATS, *PAIR_STATS)
    out += _render_section("graded", report["graded"], digits, md, chosen)
    if "binary" in report:
        out += [""] + _render_section(
            f"binary (relevant: label >= {threshold})", report["binary"], digits, md, chosen
        )
    if "effect" in report:
        eff = report["effect"]
        out += ["", f"# system rankings by {eff['measure']} under each assessor's qrels"]
        rows = [
            [
                p["a"],
                p["b"],
                _fmt(p["kendall_tau"], digits),
                _fmt(p["tau_ap"], digits),
                _fmt(p["largest_change"], digits),
                p["run"] or "",
            ]
            for p in eff["pairs"]
        ]
        head = ["assessor_a", "assessor_b", "kendall_tau", "tau_ap", "largest_change", "run"]
        out += _table(head, rows, md, left=2)
    emit("\n".join(out))
    note_unjudged("agreement", j)
    return 0
