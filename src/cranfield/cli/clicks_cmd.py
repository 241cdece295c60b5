"""``cranfield clicks``: fit click models, compare them, derive relevance from clicks."""

from __future__ import annotations

import argparse
import math

from ..errors import ParameterError
from ._args import (
    Parser,
    add_digits,
    add_engine,
    add_format,
    add_output,
    add_refused,
    add_seed,
    digits_value,
    engine_value,
    seed_value,
)
from ._output import deliver, print_notes

_ACTIONS = ("compare", "fit", "relevance", "models")
#: the formats of the comparison tables (the shared renderer's and JSON)
TABLE_CHOICES = ("text", "markdown", "csv", "tsv", "json")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= 100_000:
        raise argparse.ArgumentTypeError(f"expected an integer in [1, 100000], got {text!r}")
    return value


def _tol(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1), got {text!r}")
    return value


def _thresholds(text: str) -> list[float]:
    try:
        values = [float(t) for t in text.split(",")]
    except ValueError:
        values = []
    if not values or any(not math.isfinite(v) for v in values) or values != sorted(set(values)):
        raise argparse.ArgumentTypeError(f"expected increasing numbers, got {text!r}")
    return values


def _prior(text: str) -> tuple[float, float]:
    from ..clicks.fitted import check_prior

    parts = str(text).split(",")
    try:
        return check_prior(parts if len(parts) == 2 else None)
    except ParameterError:
        raise ParameterError(
            "--prior", "A,B with 0 <= A <= B <= 1e6 (0,0: maximum likelihood)", text
        ) from None


def _common(p: argparse.ArgumentParser) -> None:
    from ..clicks.log import FORMATS

    p.add_argument(
        "--log-format",
        choices=FORMATS,
        help="format of the logs (default: from the file name, else from the content)",
    )
    p.add_argument(
        "--prior",
        default="1,2",
        metavar="A,B",
        help="add A clicks in B impressions to every estimate (default 1,2, PyClick's; "
        "0,0: maximum likelihood)",
    )
    p.add_argument(
        "--tolerance",
        "--tol",
        dest="tol",
        metavar="T",
        type=_tol,
        default=0.0,
        help="EM stops when an iteration gains less than this share of the "
        "log-likelihood (default 0: exactly --max-iterations, as PyClick)",
    )
    p.add_argument(
        "--max-iterations",
        "--max-iter",
        dest="max_iter",
        metavar="N",
        type=_positive_int,
        default=50,
        help="EM iterations, at most (default 50, PyClick's fixed count)",
    )
    add_seed(p, "EM start values", without="every start value 0.5")
    add_output(p)


def _engine_help(log: str) -> str:
    from ..clicks.registry import DASK_MODELS, listed

    return (
        f"local (default) or dask: fit {listed(DASK_MODELS, upper=True)} by EM in Dask "
        f"workers, {log} then being a file, a directory of files or a quoted glob "
        "pattern, the partitions of the log (docs/scaling.md)"
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ..clicks.registry import NAMES, spellings

    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True, parser_class=Parser)
    c = sub.add_parser("compare", help="fit models on TRAIN, score them on TEST")
    c.add_argument("train", metavar="TRAIN")
    c.add_argument("test", metavar="TEST")
    c.add_argument("--models", default=",".join(NAMES), help="comma list of models (default: all)")
    add_format(c, TABLE_CHOICES)
    add_digits(c)
    _common(c)
    add_engine(c, _engine_help("TRAIN"))
    f = sub.add_parser("fit", help="fit one model; its parameters as JSON")
    f.add_argument("log", metavar="LOG")
    f.add_argument("--model", required=True, help="one of " + ", ".join(spellings()))
    add_refused(f, "-m", "-m names measures in cranfield: give the click model as --model MODEL")
    _common(f)
    add_engine(f, _engine_help("LOG"))
    r = sub.add_parser("relevance", help="click-derived relevance per (query, document)")
    r.add_argument("log", metavar="LOG")
    r.add_argument("--model", required=True, help="one of " + ", ".join(spellings()))
    add_refused(r, "-m", "-m names measures in cranfield: give the click model as --model MODEL")
    r.add_argument(
        "--qrels",
        action="store_true",
        help="write TREC qrels: graded by --thresholds, else the continuous relevance",
    )
    r.add_argument("--thresholds", type=_thresholds, help="increasing values, e.g. 0.2,0.5")
    r.add_argument("--min-impressions", type=_positive_int, default=1, help="leave out rarer pairs")
    r.add_argument(
        "--compare",
        metavar="QRELS",
        help="compare the graded click relevance (--thresholds) with these editorial qrels",
    )
    r.add_argument(
        "--runs", nargs="+", metavar="RUN", help="with --compare: rank these runs by both qrels"
    )
    r.add_argument("--measure", default="ndcg", help="with --runs: the measure (default ndcg)")
    add_engine(r, _engine_help("LOG"))
    add_format(r, TABLE_CHOICES, what="with --compare: the report's format")
    add_digits(r)
    _common(r)
    m = sub.add_parser("models", help="list the click models with definitions and sources")
    add_output(m)


def _compare(args: argparse.Namespace, est: dict) -> int:
    from .. import Qrels, Run
    from ..clicks.editorial import compare_with_qrels, render
    from ..output import dumps_json

    if args.thresholds is None:
        raise ParameterError("--thresholds", "given with --compare (to grade clicks)", None)
    qrels = Qrels.read(args.compare)
    runs = None
    if args.runs is not None:
        runs = {}
        for path in args.runs:
            name = path if path not in runs else f"{path}#{len(runs)}"
            runs[name] = Run.read(path)
    result = compare_with_qrels(
        est,
        qrels,
        args.thresholds,
        min_impressions=args.min_impressions,
        runs=runs,
        measure=args.measure,
    )
    if args.format == "json":
        text = dumps_json(result) + "\n"
    else:
        text = render(result, args.format, digits_value(args))
    deliver(text, args.output)
    return 0


def _fit(args: argparse.Namespace, log: str, names: list[str], options: dict) -> list:
    """The models ``names`` fitted on ``log`` by the backend ``--engine`` names
    (:func:`cranfield.clicks.fitted.fit_log`); a parameter it refuses is named by its
    option."""
    from ..clicks.fitted import fit_log

    try:
        return fit_log(
            log,
            names,
            engine=engine_value(args),
            scheduler=args.scheduler,
            log_format=args.log_format,
            **options,
        )
    except ParameterError as exc:
        flags = {"model": "--models" if args.action == "compare" else "--model", "seed": "--seed"}
        if exc.name not in flags:
            raise
        raise ParameterError(flags[exc.name], exc.allowed, exc.given) from None


def run(args: argparse.Namespace) -> int:
    from ..clicks import estimates, read_log, to_json
    from ..clicks.evaluation import evaluate, notes, render
    from ..clicks.registry import CLICK_MODELS, get
    from ..clicks.relevance import qrels_lines
    from ..output import dumps_json

    if args.action == "models":
        lines = []
        for d in CLICK_MODELS.values():
            also = f", also {', '.join(d.aliases)}" if d.aliases else ""
            lines.append(f"{d.name}  {d.label} ({d.estimation}{also})")
            lines.append(f"    {d.formula}")
            lines.append("    parameters: " + "; ".join(f"{p.name}: {p.doc}" for p in d.params))
            lines.append(f"    {d.citation}")
        deliver("\n".join(lines) + "\n", args.output)
        return 0
    options = {
        "tol": args.tol,
        "max_iter": args.max_iter,
        "seed": seed_value(args),
        "prior": _prior(args.prior),
    }
    if args.action == "compare":
        names = [get(n).name for n in args.models.split(",")]
        test = read_log(args.test, args.log_format)  # checked before any fitting
        scores = [evaluate(m, test) for m in _fit(args, args.train, names, options)]
        deliver(render(scores, args.format, digits_value(args)), args.output)
        if args.format in ("csv", "tsv"):  # the table alone: the notes on stderr
            print_notes("clicks compare", notes(scores))
        return 0
    (model,) = _fit(args, args.log, [get(args.model).name], options)
    if args.action == "fit":
        deliver(dumps_json(to_json(model)) + "\n", args.output)
        return 0
    est = estimates(model)
    if args.compare is not None:
        return _compare(args, est)
    if args.runs is not None:
        raise ParameterError("--runs", "given with --compare QRELS", " ".join(args.runs))
    if args.qrels:
        deliver(qrels_lines(est, args.thresholds, args.min_impressions), args.output)
        return 0
    keep = est["impressions"] >= args.min_impressions
    rows = [{k: v[i] for k, v in est.items()} for i in range(len(keep)) if keep[i]]
    deliver(dumps_json(rows) + "\n", args.output)
    return 0
