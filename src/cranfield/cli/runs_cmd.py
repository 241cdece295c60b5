"""``cranfield runs describe RUN...``: what each run holds, and its ir_metadata."""

from __future__ import annotations

import argparse

from ._args import Parser, add_duplicates, add_format, add_output
from ._output import emit

FORMATS = ("text", "markdown", "csv", "tsv", "json")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True, parser_class=Parser)
    d = sub.add_parser(
        "describe",
        help="per run: topics, depth, ties, score range and its ir_metadata annotations",
    )
    d.add_argument("runs", nargs="+", metavar="RUN", help="run files (TREC, Parquet, CSV, TSV)")
    add_duplicates(d)
    add_format(d, FORMATS, what="json also holds each run's ir_metadata annotations")
    add_output(d, via_stdout=True)


def _flat(doc, prefix: str = "") -> list[tuple[str, str]]:
    """Nested annotations as ``(dotted.key, value)`` lines for a terminal."""
    if isinstance(doc, dict):
        return [kv for k, v in doc.items() for kv in _flat(v, f"{prefix}{k}.")]
    if isinstance(doc, list):
        return [kv for i, v in enumerate(doc) for kv in _flat(v, f"{prefix}{i}.")]
    return [(prefix.rstrip("."), "" if doc is None else str(doc))]


def _cell(value, digits: int | None) -> str:
    from ..output import number_cell

    if digits is None and isinstance(value, float):
        return repr(value)
    return number_cell(value, 4 if digits is None else digits)


def run(args) -> int:
    from ..core.describe import SUMMARY_COLUMNS, describe_run
    from ..core.io.metadata import read_metadata
    from ..core.io.source import check_path
    from ..core.run import Run
    from ..output import dumps_json, table

    for path in args.runs:
        if path != "-":
            check_path(path, path)
    summaries = []
    for path in args.runs:
        run = Run.read(path, duplicates=args.duplicates)
        metadata = None if path == "-" else read_metadata(path, run.source)
        summaries.append(describe_run(run, metadata))
    if args.format == "json":
        emit(
            dumps_json([{**s.row(), "source": s.source, "metadata": s.metadata} for s in summaries])
        )
        return 0
    head = list(SUMMARY_COLUMNS)
    # people read 4 decimals; csv/tsv keep every digit (the shortest exact text)
    digits = None if args.format in ("csv", "tsv") else 4
    body = [[_cell(v, digits) for v in s.row().values()] for s in summaries]
    text = table(head, body, args.format, left=1, rule=args.format == "text")
    annotated = [s for s in summaries if s.metadata]
    if annotated and args.format in ("text", "markdown"):
        for s in annotated:
            lines = _flat(s.metadata)
            text += f"\n\nir_metadata of {s.run}:\n" + table(
                ["key", "value"], [list(kv) for kv in lines], args.format, left=2
            )
    emit(text.rstrip("\n"))
    return 0
