"""``cranfield meta``: evaluating the evaluation -- discriminative power, swap rates,
topic-set-size design and variance components of the measures on a set of runs."""

from __future__ import annotations

import argparse

from .._lazy import lazy
from ..errors import ParameterError

# (the statistics' declarations: this module is imported only to run its command)
from ..meta.registry import declared
from ._args import (
    Parser,
    add_complete,
    add_declared,
    add_digits,
    add_format,
    add_measures,
    add_output,
    add_seed,
    declared_value,
    digits_value,
    number,
    seed_value,
)
from ._output import emit, print_notes, warnings_as_notes

np = lazy("numpy", __name__, "np")

FORMATS = ("text", "markdown", "csv", "tsv", "json")
#: the models of ``meta anova --model`` (declared statistics of the command ``anova``)
MODELS = ("anova", "mixed")


def _inputs(p: argparse.ArgumentParser) -> None:
    p.add_argument("qrels", nargs="?", help="qrels file (omit with --from-per-query)")
    p.add_argument("runs", nargs="*", metavar="RUN", help="run files (at least two)")
    add_measures(
        p,
        "measures (e.g. -m AP -m nDCG@10); with --from-per-query the default is all",
        dest="measure",
    )
    p.add_argument(
        "--from-per-query",
        nargs="+",
        metavar="FILE",
        help="read per-query scores (cranfield eval --per-query, trec_eval -q) instead of "
        "evaluating QRELS and RUNs",
    )
    add_complete(p)
    p.set_defaults(baseline=None, system=None)


def _outputs(p: argparse.ArgumentParser) -> None:
    add_format(p, FORMATS)
    add_digits(p)
    add_output(p, via_stdout=True)


def _names(command: str, prefix: str = "") -> list[str]:
    from ..meta.registry import of_command

    return [d.name.removeprefix(prefix) for d in of_command(command)]


def _methods_help(command: str, prefix: str = "") -> str:
    from ..meta.registry import of_command

    return "; ".join(
        f"{d.name.removeprefix(prefix)}: {d.summary.rstrip('.')}" for d in of_command(command)
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True, parser_class=Parser)
    p = sub.add_parser("power", help="discriminative power: ASL of all run pairs per measure")
    _inputs(p)
    p.add_argument(
        "--method",
        action="append",
        choices=_names("power"),
        help="test(s), repeatable (default: all): " + _methods_help("power"),
    )
    p.add_argument(
        "--alpha", default="0.05", help="significance level, 0 < ALPHA < 1 (default 0.05)"
    )
    add_declared(p, "--samples", declared("bootstrap", "samples"))
    add_seed(p, "bootstrap and shuffles (the same draws for every measure)")
    _outputs(p)

    s = sub.add_parser("swap", help="swap rate and error rate versus topic-set size")
    _inputs(s)
    s.add_argument("--sizes", help="topic-set sizes, comma list (default 5, 10, ... up to half)")
    add_declared(s, "--trials", declared("swap_rate", "trials"))
    add_declared(s, "--bin-width", declared("swap_rate", "bin_width"))
    add_declared(
        s,
        "--fuzziness",
        declared("error_rate", "fuzziness"),
        "error rate: relative differences up to this are ties",
    )
    add_seed(s, "topic splits")
    _outputs(s)

    t = sub.add_parser("topics", help="topic-set-size design from the variance of these runs")
    _inputs(t)
    t.add_argument(
        "--design",
        action="append",
        choices=_names("topics", "topics_"),
        help="design(s), repeatable (default: all): " + _methods_help("topics", "topics_"),
    )
    add_declared(t, "--alpha", declared("topics_t", "alpha"))
    add_declared(t, "--beta", declared("topics_t", "beta"))
    t.add_argument(
        "--min-diff",
        default="0.02,0.05,0.1",
        help="minimum detectable differences (ANOVA: ranges; ci: widths), comma list "
        "(default 0.02,0.05,0.1)",
    )
    t.add_argument("--systems", help="ANOVA: systems compared (default: the number of runs)")
    t.add_argument("--variance", help="use this variance instead of the runs' residual V_E")
    _outputs(t)

    a = sub.add_parser(
        "anova",
        help="variance components: two-way ANOVA or mixed model; standardised scores",
    )
    _inputs(a)
    a.add_argument(
        "--model",
        choices=MODELS,
        default="anova",
        help="variance components by (default anova): anova: two-way ANOVA, type II sums "
        "of squares when runs lack topics; mixed: linear mixed model, topics random, REML",
    )
    a.add_argument(
        "--standardised",
        action="store_true",
        help="show each run's mean and standardised mean (Webber et al. 2008) instead",
    )
    _outputs(a)


def _aligned(args):
    """``({measure: (runs, topics, runs x topics)}, notes)``. For the two-way ANOVA the
    topics a run lacks are NaN (an unbalanced design) unless --complete scores them 0."""
    from ..compare.compare import align_scores
    from .compare_cmd import _scores

    scores, _, _, notes = _scores(args)
    if args.action != "anova" or args.standardised or args.complete:
        return align_scores(scores, complete=args.complete), notes
    aligned = align_scores(scores, complete=True)
    for measure, (runs, topics, m) in aligned.items():
        ids = np.asarray(topics, dtype=object)
        for i, run in enumerate(runs):  # (a loop over runs: each row in one operation)
            m[i, ~np.isin(ids, np.asarray(list(scores[measure][run]), dtype=object))] = np.nan
        missing = int(np.count_nonzero(np.isnan(m)))
        if missing:
            fit = "type II sums of squares" if args.model == "anova" else "REML on the rest"
            notes.append(
                f"{measure}: {missing} of {m.size} run-topic scores missing: an unbalanced "
                f"design, {fit} (--complete scores them 0)"
            )
    return aligned, notes


def _floats(text: str, name: str) -> list[float]:
    values = [number(v.strip(), name, float, 0, 1e6) for v in str(text).split(",")]
    if any(v <= 0 for v in values):
        raise ParameterError(name, "positive numbers, comma separated", text)
    return values


def _render(head, body, fmt: str) -> str:
    from ..output import table

    return table(head, body, fmt)


def _power_options(args) -> dict:
    return {
        "alpha": number(args.alpha, "--alpha", float, 0, 1, open_=True),
        "samples": declared_value(args.samples, "--samples", declared("bootstrap", "samples")),
        "seed": seed_value(args),
        "methods": tuple(dict.fromkeys(args.method or _names("power"))),
    }


def _power(o: dict, aligned, d: int):
    from ..meta.power import discriminative_power
    from ..output import number_cell

    methods = o["methods"]
    result = discriminative_power(aligned, methods, o["alpha"], o["samples"], o["seed"])
    doc = {"alpha": o["alpha"], "samples": o["samples"], "seed": o["seed"], "measures": result}
    first = next(iter(result.values()))
    # per method: its count, share and what else it reports (the bootstrap's difference
    # required), the ASL curve left to JSON
    columns = {m: [k for k in first[m] if k != "asl"] for m in methods}
    head = ["measure", "runs", "topics", "pairs"]
    for m in methods:
        head += [f"{m}_{k}" for k in columns[m]]
    body = []
    for measure, e in result.items():
        row = [measure, str(e["runs"]), str(e["topics"]), str(e["pairs"])]
        for m in methods:
            row += [number_cell(e[m][k], d) for k in columns[m]]
        body.append(row)
    return doc, head, body


def _swap_options(args) -> dict:
    sizes = None
    if args.sizes is not None:
        sizes = [number(v.strip(), "--sizes", int, 1, 10**9) for v in args.sizes.split(",")]
    return {
        "sizes": sizes,
        "trials": declared_value(args.trials, "--trials", declared("swap_rate", "trials")),
        "bin_width": declared_value(
            args.bin_width, "--bin-width", declared("swap_rate", "bin_width")
        ),
        "fuzziness": declared_value(
            args.fuzziness, "--fuzziness", declared("error_rate", "fuzziness")
        ),
        "seed": seed_value(args),
    }


def _swap(o: dict, aligned, d: int):
    from ..meta.swap import swap_rates
    from ..output import number_cell

    doc: dict = {k: o[k] for k in ("trials", "bin_width", "fuzziness")}
    doc["measures"] = {}
    head = [
        "measure",
        "size",
        "error_rate",
        "tie_rate",
        "bin_low",
        "bin_high",
        "cases",
        "swaps",
        "swap_rate",
    ]
    body = []
    for measure, (_, _, m) in aligned.items():
        rates = swap_rates(m, o["sizes"], o["trials"], o["bin_width"], o["fuzziness"], o["seed"])
        doc["measures"][measure] = rates
        for r in rates:
            for b in r["bins"]:
                body.append(
                    [
                        measure,
                        str(r["size"]),
                        number_cell(r["error_rate"], d),
                        number_cell(r["tie_rate"], d),
                        number_cell(b["low"], d),
                        number_cell(b["high"], d),
                        str(b["cases"]),
                        str(b["swaps"]),
                        number_cell(b["swap_rate"], d),
                    ]
                )
    return doc, head, body


def _topics_options(args) -> dict:
    return {
        "alpha": declared_value(args.alpha, "--alpha", declared("topics_t", "alpha")),
        "beta": declared_value(args.beta, "--beta", declared("topics_t", "beta")),
        "diffs": _floats(args.min_diff, "--min-diff"),
        "designs": tuple(dict.fromkeys(args.design or _names("topics", "topics_"))),
        "variance": None
        if args.variance is None
        else number(args.variance, "--variance", float, 0, 1e6),
        "systems": None
        if args.systems is None
        else number(args.systems, "--systems", int, 2, 10**6),
    }


def _topics(o: dict, aligned, d: int):
    from ..meta.anova import residual_variance
    from ..meta.registry import META_STATISTICS
    from ..output import number_cell

    alpha, beta, fixed = o["alpha"], o["beta"], o["variance"]
    doc: dict = {"alpha": alpha, "beta": beta, "measures": {}}
    head = ["measure", "variance", "design", "min_diff", "topics"]
    body = []
    for measure, (runs, _, m) in aligned.items():
        variance = residual_variance(m) if fixed is None else fixed
        systems = len(runs) if o["systems"] is None else o["systems"]
        entry: dict = {"variance": variance, "systems": systems}
        for design in o["designs"]:
            fn = META_STATISTICS.lookup(f"topics_{design}").behaviour
            sizes = []
            for diff in o["diffs"]:
                n = fn(alpha, beta, diff, variance, systems)
                sizes.append({"min_diff": diff, "topics": n})
                body.append(
                    [measure, number_cell(variance, d), design, number_cell(diff, d), str(n)]
                )
            entry[design] = sizes
        doc["measures"][measure] = entry
    return doc, head, body


def _anova(args, aligned, d: int, notes: list[str]):
    from ..meta.anova import standardise, two_way_anova
    from ..output import number_cell, p_cell

    doc: dict = {"measures": {}}
    body = []
    if args.standardised:
        head = ["measure", "run", "mean", "standardised_mean"]
        for measure, (runs, _, m) in aligned.items():
            z, flat = standardise(m)
            if flat:
                notes.append(
                    f"{measure}: {flat} topics on which every run scores the same "
                    "standardised to 0.5"
                )
            doc["measures"][measure] = {
                r: {"mean": float(m[i].mean()), "standardised_mean": float(z[i].mean())}
                for i, r in enumerate(runs)
            }
            for i, r in enumerate(runs):
                body.append([measure, r, number_cell(m[i].mean(), d), number_cell(z[i].mean(), d)])
        return doc, head, body
    if args.model == "mixed":
        return _mixed(aligned, d, notes)
    head = ["measure", "source", "ss", "df", "ms", "f", "p", "eta2", "partial_eta2"]

    def cells(r: dict) -> list[str]:
        return [
            number_cell(r["ss"], d),
            str(r["df"]),
            number_cell(r["ms"], d),
            number_cell(r.get("f"), d),
            p_cell(r["p"]) if "p" in r else "",
            number_cell(r.get("eta2"), d),
            number_cell(r.get("partial_eta2"), d),
        ]

    def fit(runs, m) -> dict:
        return two_way_anova(m)

    doc, body = _by_source(aligned, fit, ("ss", "F, p and shares"), cells, notes)
    return doc, head, body


def _mixed(aligned, d: int, notes: list[str]):
    """``meta anova --model mixed``: the REML variance components, one row per source;
    JSON has each run's fitted effect."""
    from ..meta.mixed import mixed_model
    from ..output import number_cell

    def fit(runs, m) -> dict:
        rows = mixed_model(m)
        rows["system"]["estimates"] = dict(zip(runs, rows["system"]["estimates"], strict=True))
        return rows

    def cells(r: dict) -> list[str]:
        return [
            number_cell(r["variance"], d),
            number_cell(r.get("share"), d),
            number_cell(r.get("icc"), d),
            str(r["df"]) if "df" in r else "",
        ]

    doc, body = _by_source(aligned, fit, ("variance", "shares and ICC"), cells, notes)
    head = ["measure", "source", "variance", "share", "icc", "df"]
    return {"model": "mixed", **doc}, head, body


def _by_source(aligned, fit, total, cells, notes: list[str]):
    """``(JSON document, table rows)`` of the variance components ``fit(runs, matrix)``
    of each measure, one row per source (``cells(row)`` its columns after the
    measure's and the source's names); a note where ``total = (key, what)``, the total
    row's ``key``, is 0 (``what`` is then undefined)."""
    doc: dict = {"measures": {}}
    body = []
    key, undefined = total
    for measure, (runs, _, m) in aligned.items():
        rows = fit(runs, m)
        doc["measures"][measure] = rows
        if rows["total"][key] == 0:
            notes.append(
                f"{measure}: every score is the same: no variance to share out "
                f"({undefined} undefined)"
            )
        body += [[measure, source, *cells(r)] for source, r in rows.items()]
    return doc, body


#: action -> (its numeric options, read and checked before any file is read; its table)
_ACTIONS = {
    "power": (_power_options, _power),
    "swap": (_swap_options, _swap),
    "topics": (_topics_options, _topics),
}


def run(args) -> int:
    from ..output import dumps_json

    d = digits_value(args)
    if args.action == "anova" and args.standardised and args.model != "anova":
        raise ParameterError("--model", "anova with --standardised", args.model)
    read, compute = _ACTIONS.get(args.action, (None, None))
    options = read(args) if read else None
    notes: list[str] = []
    with warnings_as_notes(notes):
        aligned, read_notes = _aligned(args)
        notes[:0] = read_notes
        if compute is not None:
            doc, head, body = compute(options, aligned, d)
        else:
            doc, head, body = _anova(args, aligned, d, notes)
    emit(
        dumps_json(doc) if args.format == "json" else _render(head, body, args.format).rstrip("\n")
    )
    print_notes(f"meta {args.action}", notes)
    return 0
