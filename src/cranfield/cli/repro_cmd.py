"""``cranfield repro``: how closely a reproduced (same collection) or replicated (other
collection, --rpd-qrels) experiment matches the original (Breuer et al. 2020)."""

from __future__ import annotations

import argparse

# (the statistics' declarations: this module is imported only to run its command)
from ..meta.registry import declared
from ._args import (
    add_complete,
    add_declared,
    add_digits,
    add_format,
    add_measures,
    add_output,
    declared_value,
)
from ._output import emit, print_notes, warnings_as_notes


def add_arguments(parser: argparse.ArgumentParser) -> None:
    for flag, what in (
        ("--orig-baseline", "the original baseline run B"),
        ("--orig-advanced", "the original advanced run A"),
        ("--rpd-baseline", "the reproduced (or replicated) baseline run B'"),
        ("--rpd-advanced", "the reproduced (or replicated) advanced run A'"),
    ):
        parser.add_argument(flag, required=True, metavar="RUN", help=what)
    parser.add_argument("--qrels", required=True, help="qrels of the original collection")
    parser.add_argument(
        "--rpd-qrels",
        metavar="QRELS",
        help="qrels of another collection: a replication (ER, ΔRI, unpaired t-test only)",
    )
    add_measures(parser, "measures (e.g. -m AP -m nDCG@10)", dest="measure")
    add_declared(parser, "--rbo-p", declared("rbo", "p"), "RBO persistence (repro_eval's default)")
    add_declared(
        parser, "--depth", declared("rbo", "depth"), "documents of each ranking KTU and RBO compare"
    )
    add_complete(parser)
    add_format(parser, ("text", "markdown", "json"))
    add_digits(parser)
    add_output(parser, via_stdout=True)


def _text(doc: dict, fmt: str, d: int) -> str:
    from ..meta.registry import META_STATISTICS as S
    from ..output import number_cell, p_cell, table

    parts = [
        f"# {doc['mode']}: {doc['topics']['original']} original topics, "
        f"{doc['topics']['reproduced']} reproduced"
    ]
    order = doc.get("document_order")
    if order:
        head = ["statistic", "baseline", "advanced"]
        body = [
            [f"{S['ktu'].label} (depth {order['depth']})"]
            + [number_cell(order["ktu"][r], d) for r in ("baseline", "advanced")],
            [f"{S['rbo'].label} (p={order['rbo_p']:g}, depth {order['depth']})"]
            + [number_cell(order["rbo"][r], d) for r in ("baseline", "advanced")],
        ]
        parts.append(table(head, body, fmt))
    head = ["measure", "B", "A", "B'", "A'"]
    if order:
        head += [f"{S['rmse'].label} B", f"{S['rmse'].label} A"]
    head += ["p B", "p A", S["er"].label, S["delta_ri"].label]
    body = []
    for m, e in doc["per_measure"].items():
        row = [m] + [number_cell(v, d) for v in e["arp"].values()]
        if order:
            row += [number_cell(e["rmse"][r], d) for r in ("baseline", "advanced")]
        row += [p_cell(e["p"]["baseline"]), p_cell(e["p"]["advanced"])]
        row += [number_cell(e["er"], d), number_cell(e["delta_ri"], d)]
        body.append(row)
    parts.append(table(head, body, fmt))
    return "\n\n".join(parts)


def run(args) -> int:
    from ..core.evaluation import as_measures, read_runs
    from ..core.io.source import check_path
    from ..errors import ParameterError
    from ..meta.repro import repro
    from ..output import dumps_json
    from ._args import digits_value

    d = digits_value(args)
    rbo_p = declared_value(args.rbo_p, "--rbo-p", declared("rbo", "p"))
    depth = declared_value(args.depth, "--depth", declared("rbo", "depth"))
    if not args.measure:
        raise ParameterError("--measure", "at least one measure", None)
    measures = as_measures(args.measure)
    paths = [args.orig_baseline, args.orig_advanced, args.rpd_baseline, args.rpd_advanced]
    for path in [args.qrels, *paths] + ([args.rpd_qrels] if args.rpd_qrels else []):
        if path != "-":
            check_path(path, path)
    notes: list[str] = []
    with warnings_as_notes(notes):
        runs = read_runs(paths)
        doc = repro(
            *runs,
            args.qrels,
            measures,
            args.rpd_qrels,
            rbo_p=rbo_p,
            depth=depth,
            complete=args.complete,
        )
    notes[:0] = doc.pop("notes")
    emit(dumps_json(doc) if args.format == "json" else _text(doc, args.format, d))
    print_notes("repro", notes)
    return 0
