"""``cranfield assessors``: each assessor's quality, with the reasons for concern."""

from __future__ import annotations

import argparse

from ..output import number_cells
from ._args import add_digits, add_format, add_output, number
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
    add_format(parser, ("text", "json"))
    add_digits(parser, default=3)
    add_output(parser, via_stdout=True)


#: Assessors rendered at once: a million rows are written in pieces, never held whole.
CHUNK = 10_000


def run(args) -> int:
    from ..judgments.quality import Thresholds, assessor_columns, assessor_reasons
    from ..output import delimited, dumps_json

    thresholds = Thresholds(
        min_kappa=number(args.min_kappa, "--min-kappa", float, 0, 1),
        fast_fraction=number(args.fast_fraction, "--fast-fraction", float, 0, 1),
    )
    digits = number(args.digits, "--digits", int, 0, 17)
    j = load_judgments(args)
    table = assessor_columns(j, gold=args.gold, thresholds=thresholds)
    pieces = range(0, j.n_assessors, CHUNK)
    if args.format == "json":
        # one assessor per line, so the rows can be written a piece at a time
        emit(dumps_json({"source": j.source})[:-2] + ',\n  "assessors": [')
        for start in pieces:
            rows = _json_rows(j, table, table["order"][start : start + CHUNK])
            last = start + CHUNK >= j.n_assessors
            emit(",\n".join("    " + row for row in rows) + ("" if last else ","))
        emit("  ]\n}")
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
    # tab-separated (a stable, parseable layout), through the one table renderer
    head = delimited(["assessor", *cols], [], "\t").rstrip("\n")
    emit("# worst first; reasons after each row\n" + head)
    # a name with a line break spans lines when quoted: then each row is laid out alone
    one_line = not any("\n" in a or "\r" in a for a in j.assessors)
    for start in pieces:
        codes = table["order"][start : start + CHUNK]
        columns = [
            [j.assessors[a] for a in codes.tolist()],
            [str(n) for n in table["judgments"][codes].tolist()],
            *[number_cells(table[c][codes], digits) for c in cols[1:]],
        ]
        body = list(zip(*columns, strict=True))
        if one_line:
            lines = delimited(body[0], body[1:], "\t").split("\n")
        else:
            lines = [delimited(cells, [], "\t").rstrip("\n") for cells in body]
        out = []
        for line, reasons in zip(lines, assessor_reasons(table, codes), strict=False):
            out.append(line)
            out += [f"  - {reason}" for reason in reasons]
        emit("\n".join(out))
    note_unjudged("assessors", j)
    return 0


def _json_rows(j, table: dict, codes) -> list[str]:
    """The JSON lines of the assessors ``codes``: the dicts of
    :func:`~cranfield.judgments.quality.assessor_rows` as :func:`~cranfield.output.dumps_json`
    writes them, built a column at a time (300,000 assessors: 16 s a row at a time)."""
    from json.encoder import encode_basestring_ascii as quoted

    from ..judgments.quality import assessor_fields
    from ..output import json_objects, json_texts

    fields = assessor_fields(j, table, codes)
    texts = {f: json_texts(v) for f, v in fields.items() if f not in ("assessor", "reasons")}
    texts["assessor"] = [quoted(name) for name in fields["assessor"]]
    texts["reasons"] = ["[" + ", ".join(map(quoted, why)) + "]" for why in fields["reasons"]]
    return json_objects({f: texts[f] for f in fields})
