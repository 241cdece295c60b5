"""``cranfield ppi``: run scores and differences from machine labels plus a human sample."""

from __future__ import annotations

import argparse

from ._args import (
    add_digits,
    add_format,
    add_measures,
    add_output,
    add_rel_level,
    number,
    rel_level_value,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("machine", help="the machine assessor's qrels of the whole pool")
    parser.add_argument(
        "human",
        help="the people's qrels of a random sample of topics, each judged whole, or of "
        "pooled pairs (--units pairs; six-column sampled qrels, 'cranfield pool sampled "
        "--probabilities', carry each pair's inclusion probability)",
    )
    parser.add_argument("runs", nargs="+", help="the runs (TREC run files, Parquet, CSV/TSV)")
    add_measures(parser, "measure to estimate (default AP)")
    parser.add_argument(
        "--estimator",
        default="ppi",
        help="ppi (default), ppi++ (power-tuned: for 40 or more sampled topics) or "
        "classical (the human sample alone); docs/machine-assessors.md",
    )
    parser.add_argument(
        "--units",
        choices=("topics", "pairs"),
        default="topics",
        help="what people judged: a random sample of whole topics (default; any measure) "
        "or of pooled pairs (P@k and DCG@k, linear in the labels, and AP: a ratio, "
        "estimators ppi and classical, linearised normal intervals)",
    )
    parser.add_argument(
        "--inclusion",
        metavar="P|FILE",
        help="the probability each sampled topic (or pair) had of being sampled: one "
        "number, or a file of 'topic probability' lines (default: a simple random "
        "sample, n/N; for AP with pairs, six-column sampled qrels' own probabilities, "
        "else each topic's share of pairs judged)",
    )
    parser.add_argument("--confidence", default="0.95", help="interval level (default 0.95)")
    parser.add_argument(
        "--interval",
        choices=("t", "normal"),
        default="t",
        help="t (default): the finite-population interval with Student's t (Cochran "
        "1977); normal: ppi_py's z interval, too narrow below about 20 sampled topics",
    )
    parser.add_argument(
        "--centre",
        choices=("sample", "model", "second"),
        help="AP with --units pairs: linearised at the machine's values to second order "
        "(second, the default), to first order (model), or the ratio of the unbiased "
        "estimates (sample: biased with about ten judged pairs a topic); "
        "docs/machine-assessors.md",
    )
    parser.add_argument(
        "--working-model",
        choices=("labels", "calibrated"),
        help="AP with --units pairs: the machine's values, probabilities of relevance "
        "fitted on the people's sample (calibrated, the default: generalised regression "
        "on its grade, the runs' AP-prior, the topic) or its labels (labels)",
    )
    add_rel_level(parser)
    add_format(parser, ("text", "json", "markdown"))
    add_digits(parser)
    add_output(parser, via_stdout=True)


def _inclusion(text: str | None):
    import os

    if text is None:
        return None
    from ..errors import InputError, ParameterError

    if not os.path.exists(text):
        value = number(text, "--inclusion", float, 0, 1)
        if value <= 0:
            raise ParameterError("--inclusion", "a number in (0, 1] or a file", text)
        return value
    from ..pooling.assign import read_mapping

    out = {}
    for topic, value in read_mapping(text, "topic probability").items():
        try:
            out[topic] = float(value)
        except ValueError:
            raise InputError(
                f"inclusion probability {value!r} of topic {topic} is not a number", text
            ) from None
    return out


def run(args) -> int:
    import os

    from ..errors import ParameterError
    from ..judgments.ppi import ppi_evaluate, ppi_evaluate_pairs
    from ..output import dumps_json, number_cell, table
    from ._output import emit, print_notes

    digits = number(args.digits, "--digits", int, 0, 17)
    confidence = number(args.confidence, "--confidence", float, 0, 1, open_=True)
    if args.units == "pairs" and args.inclusion is not None and os.path.exists(args.inclusion):
        raise ParameterError("--inclusion", "one probability with --units pairs", args.inclusion)
    inclusion = _inclusion(args.inclusion)
    measures = args.measures or ["AP"]
    ap_pairs = args.units == "pairs" and measures == ["AP"]
    for flag, value in (("--centre", args.centre), ("--working-model", args.working_model)):
        if value is not None and not ap_pairs:
            raise ParameterError(flag, "only with --units pairs -m AP", value)
    extra = {"model": args.working_model, "centre": args.centre} if ap_pairs else {}
    estimate = ppi_evaluate if args.units == "topics" else ppi_evaluate_pairs
    reports = [
        estimate(
            args.machine,
            args.human,
            args.runs,
            measure,
            estimator=args.estimator,
            inclusion=inclusion,
            confidence=confidence,
            rel_level=rel_level_value(args),
            interval=args.interval,
            **extra,
        )
        for measure in measures
    ]
    notes = list(dict.fromkeys(c["detail"] for r in reports for c in r["checks"] if not c["ok"]))
    if args.format == "json":
        emit(dumps_json(reports[0] if len(reports) == 1 else reports))
        print_notes("ppi", notes)
        return 0
    fmt = "markdown" if args.format == "markdown" else "text"

    def num(v) -> str:
        return number_cell(v, digits)

    out = []
    for rep in reports:
        level = f"{100 * rep['confidence']:g}%"
        units = "topics" if "topics" in rep else "pooled pairs"
        how = (
            f" ({rep['model']} machine values, centre {rep['centre']}, {rep['variance']} variance)"
            if "centre" in rep
            else ""
        )
        out += [
            f"# {rep['measure']}: {rep['estimator']}{how} estimates with {level} "
            f"{rep['interval']} intervals, "
            f"{rep['sampled']} of {rep.get('topics', rep.get('pairs'))} {units} judged by people",
            "",
        ]
        cols = ["estimate", "low", "high", "lam", "machine_only"]
        rows = [[name, *[num(r[c]) for c in cols]] for name, r in rep["runs"].items()]
        out += table(["run", *cols], rows, fmt, escape=True).split("\n") + [""]
        rows = [
            [
                d["a"],
                d["b"],
                *[num(d[c]) for c in cols],
                "yes" if d["low"] > 0 or d["high"] < 0 else "no",
            ]
            for d in rep["differences"]
        ]
        if rows:
            head = ["run_a", "run_b", *cols, "separated"]
            out += (
                ["differences a - b"]
                + table(head, rows, fmt, left=2, escape=True).split("\n")
                + [""]
            )
    emit("\n".join(out).rstrip("\n"))
    print_notes("ppi", notes)
    return 0
