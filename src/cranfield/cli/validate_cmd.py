"""``cranfield validate``: a machine assessor's labels against people's."""

from __future__ import annotations

import argparse

from ._args import add_digits, add_format, add_output, add_rel_level, number, rel_level_value
from ._judgments import add_effect_arguments


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("human", help="the people's qrels")
    parser.add_argument("machine", help="the machine assessor's qrels (cranfield judge)")
    add_effect_arguments(parser, "both qrels")
    add_rel_level(parser)
    parser.add_argument(
        "--samples",
        metavar="FILE",
        help="repeated machine labels (cranfield judge --samples N -f judgments): their "
        "self-consistency",
    )
    parser.add_argument(
        "--scale", help="the labels, e.g. 0,1,2,3 (default: the integers present in either)"
    )
    add_format(parser, ("text", "json", "markdown"))
    add_digits(parser)
    add_output(parser, via_stdout=True)


def run(args) -> int:
    from ..judgments import Judgments
    from ..judgments.validation import judge_validation
    from ..output import dumps_json, number_cell, table
    from ._output import emit

    digits = number(args.digits, "--digits", int, 0, 17)
    samples = Judgments.read(args.samples, scale=args.scale) if args.samples else None
    report = judge_validation(
        args.human,
        args.machine,
        scale=args.scale,
        runs=args.run or None,
        measure=args.measure,
        rel_level=rel_level_value(args),
        samples=samples,
    )
    if args.format == "json":
        emit(dumps_json(report))
        return 0
    fmt = "markdown" if args.format == "markdown" else "text"

    def num(v) -> str:
        return number_cell(v, digits)

    def tab(head, rows, left=1) -> list[str]:
        return table(head, rows, fmt, left=left, escape=True).split("\n") + [""]

    out = [
        f"# machine against people on {report['pairs']} topic-document pairs "
        f"({report['human_only']} judged by people only, {report['machine_only']} by the "
        f"machine only); labels {report['scale']}",
        "",
    ]
    stats = [
        "percent_agreement",
        "cohen_kappa_unweighted",
        "cohen_kappa_linear",
        "cohen_kappa_quadratic",
        "krippendorff_alpha",
        "mean_difference",
    ]
    rows = [[s, num(report[s])] for s in stats]
    b = report["binary"]
    rows += [
        [f"binary_kappa (relevant >= {b['rel_level']})", num(b["cohen_kappa"])],
        ["binary_precision", num(b["precision"])],
        ["binary_recall", num(b["recall"])],
    ]
    out += tab(["statistic", "value"], rows)
    labels = report["confusion"]["labels"]
    out += ["confusion: rows people, columns machine"]
    rows = [
        [str(v), *map(str, r)] for v, r in zip(labels, report["confusion"]["matrix"], strict=True)
    ]
    out += tab(["label", *map(str, labels)], rows)
    cols = ("pairs", "machine_mean", "mean_difference", "above", "below")
    rows = [
        [str(r["human_label"]), str(r["pairs"]), *[num(r[c]) for c in cols[1:]]]
        for r in report["bias"]
    ]
    out += ["bias per human label"] + tab(["human_label", *cols], rows)
    if "rankings" in report:
        rk = report["rankings"]
        out += [
            f"system rankings by {rk['measure']}: Kendall's tau {num(rk['kendall_tau'])}, "
            f"tau_AP {num(rk['tau_ap'])}, largest change {num(rk['largest_change'])} "
            f"({rk['run']})"
        ]
        runs = list(rk["scores"]["human"])
        rows = [[r, num(rk["scores"]["human"][r]), num(rk["scores"]["machine"][r])] for r in runs]
        out += tab(["run", "human", "machine"], rows)
    if "self_consistency" in report:
        sc = report["self_consistency"]
        out += [
            f"self-consistency of {sc['samples']} samples on {sc['pairs']} pairs: alpha "
            f"{num(sc['krippendorff_alpha'])}, Fleiss' kappa {num(sc['fleiss_kappa'])}, "
            f"unanimous {num(sc['unanimous'])}"
        ]
    emit("\n".join(out).rstrip("\n"))
    return 0
