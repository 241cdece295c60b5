"""``cranfield ab``: an A/B test from a per-unit log (docs/online.md)."""

from __future__ import annotations

import argparse

from ._args import add_format, add_output, add_seed, number, seed_value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "log",
        metavar="LOG",
        help="one row per unit: CSV, TSV, Parquet, Arrow or JSON lines, or - for stdin",
    )
    parser.add_argument(
        "--metric",
        required=True,
        help="a metric column, or NUM/DEN for a ratio metric (delta method); 'ctr' is "
        "clicks/queries when there is no ctr column",
    )
    parser.add_argument(
        "--variant-column", required=True, help="the column naming each unit's variant"
    )
    parser.add_argument(
        "--control", help="the control variant (default: the first in sorted order)"
    )
    parser.add_argument("--covariate", help="pre-period column for CUPED")
    parser.add_argument(
        "--expected", help="planned split for the sample-ratio check, e.g. 0.5,0.5 (default equal)"
    )
    parser.add_argument("--confidence", default="0.95", help="interval level (default 0.95)")
    parser.add_argument(
        "--replicates", default="2000", help="bootstrap replicates, 0 for none (default 2000)"
    )
    parser.add_argument(
        "--mde",
        help="also plan: units per variant to detect this absolute difference (80%% power)",
    )
    parser.add_argument(
        "--log-format",
        choices=("csv", "tsv", "parquet", "arrow", "jsonl"),
        help="default: told from the content",
    )
    add_seed(parser, "bootstrap resampling")
    add_format(parser, ("text", "json", "markdown"))
    add_output(parser)


def _split(text: str | None, name: str) -> list[float] | None:
    if text is None:
        return None
    return [number(t, name, float, 0, 1e12, open_=True) for t in text.split(",")]


def analyse(args: argparse.Namespace) -> dict:
    import numpy as np

    from ..errors import InputError, ParameterError
    from ..online import (
        bootstrap_ci,
        cuped,
        mann_whitney,
        ratio_delta,
        read_units,
        sample_ratio_mismatch,
        sample_size,
        welch,
    )

    confidence = number(args.confidence, "--confidence", float, 0, 1, open_=True)
    replicates = number(args.replicates, "--replicates", int, 0, 1_000_000)
    seed = seed_value(args)
    expected = _split(args.expected, "--expected")
    mde = None if args.mde is None else number(args.mde, "--mde", float, 0, 1e300, open_=True)
    log = read_units(args.log, args.variant_column, args.log_format)
    names = sorted(set(log.variant.tolist()))
    if len(names) < 2:
        raise InputError(f"only one variant ({names[0]!r}) in {args.variant_column!r}", log.source)
    control = names[0] if args.control is None else args.control
    if control not in names:
        raise ParameterError("--control", "one of " + ", ".join(names), control)
    metric = args.metric
    ratio = None
    if "/" in metric and metric not in log.columns:
        ratio = metric.split("/", 1)
    elif metric == "ctr" and "ctr" not in log.columns:
        ratio = ["clicks", "queries"]
    if ratio is not None:
        for given, option in ((args.covariate, "--covariate"), (args.mde, "--mde")):
            if given is not None:
                raise ParameterError(option, "a plain metric column (not a ratio metric)", given)
        num, den = log.metric(ratio[0]), log.metric(ratio[1])
    else:
        values = log.metric(metric)
    pre = None if args.covariate is None else log.metric(args.covariate)
    counts = [int((log.variant == v).sum()) for v in names]
    if expected is not None and len(expected) != len(names):
        raise ParameterError(
            "--expected", f"{len(names)} proportions (one per variant)", args.expected
        )
    out = {
        "metric": metric if ratio is None else f"{ratio[0]}/{ratio[1]}",
        "control": control,
        "units": dict(zip(names, counts, strict=True)),
        "sample_ratio": sample_ratio_mismatch(counts, expected),
        "comparisons": [],
    }
    ia = np.flatnonzero(log.variant == control)
    for name in names:
        if name == control:
            continue
        ib = np.flatnonzero(log.variant == name)
        tests = []
        if ratio is not None:
            tests.append(ratio_delta(num[ia], den[ia], num[ib], den[ib], confidence))
        else:
            a, b = values[ia], values[ib]
            tests.append(welch(a, b, confidence))
            tests.append(mann_whitney(a, b, confidence))
            if replicates:
                tests.append(bootstrap_ci(a, b, confidence, replicates, seed))
            if pre is not None:
                tests.append(cuped(a, b, pre[ia], pre[ib], confidence))
        entry = {"variant": name, "tests": tests}
        if mde is not None and ratio is None:
            sd = float(values[ia].std(ddof=1))
            entry["units_needed_per_variant"] = (
                int(np.ceil(sample_size(mde / sd))) if sd > 0 else None
            )
        out["comparisons"].append(entry)
    return out


def _fmt(v) -> str:
    from ..output import UNDEFINED, number_cell

    return UNDEFINED if v is None else number_cell(v, significant=4)


def render(res: dict, fmt: str) -> str:
    from ..output import p_cell, table

    md = fmt == "markdown"
    srm = res["sample_ratio"]
    lines = [
        f"metric {res['metric']}, control {res['control']}, units "
        + ", ".join(f"{k} {v}" for k, v in res["units"].items()),
        f"sample-ratio check: chi2 {_fmt(srm['statistic'])}, df {srm['df']}, "
        f"p {p_cell(srm['p_value'])}",
        "",
    ]
    head = ["variant", "test", "control", "treatment", "difference", "ci_low", "ci_high", "p"]
    rows = []
    for c in res["comparisons"]:
        for t in c["tests"]:
            ci = t.get("ci", [None, None])
            rows.append(
                [
                    c["variant"],
                    t["test"],
                    _fmt(t.get("mean_control")),
                    _fmt(t.get("mean_treatment")),
                    _fmt(t.get("difference")),
                    _fmt(ci[0]),
                    _fmt(ci[1]),
                    p_cell(t["p_value"], t.get("p_value_is_bound", False)),
                ]
            )
    lines.append(table(head, rows, "markdown" if md else "text", left=2))
    for c in res["comparisons"]:
        for t in c["tests"]:
            if t.get("note"):
                lines.append(f"note: {c['variant']} {t['test']}: {t['note']}")
    for c in res["comparisons"]:
        if "units_needed_per_variant" in c:
            lines.append(
                f"{c['variant']}: units per variant for 80% power at alpha 0.05: "
                f"{_fmt(c['units_needed_per_variant'])}"
            )
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    from ..output import dumps_json
    from ._output import deliver

    res = analyse(args)
    deliver(
        dumps_json(res) + "\n" if args.format == "json" else render(res, args.format), args.output
    )
    return 0
