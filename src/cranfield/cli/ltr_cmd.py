"""``cranfield ltr``: learning to rank by optimising a measure (docs/ltr.md).

``ltr train TRAIN [--vali VALI] --method mga --objective nDCG@10 -o model.json``,
``ltr eval MODEL TEST -m nDCG@10 P@10 AP [--convention letor]`` and
``ltr cv FOLDS_DIR --methods mga,ga,coordinate-ascent -m ...``.
"""

from __future__ import annotations

import sys

from ._args import (
    Parser,
    add_digits,
    add_format,
    add_measures,
    add_output,
    add_seed,
    add_tests,
    digits_value,
    number,
    seed_value,
)
from ._output import check_outputs, deliver

ACTIONS = {
    "train": "train a ranker on a training file (selecting on --vali) and save it as JSON",
    "eval": "measure a saved ranker on test data",
    "cv": "train, select and test rankers over LETOR folds; compare them",
}


def _ranker_names() -> list[str]:
    from ..ltr.rankers import RANKERS

    return list(RANKERS)


def _rankers_text() -> str:
    """``mga: genetic algorithm ...; ga: ...``: the rankers in words, for help texts."""
    from ..ltr.rankers import RANKERS

    text = "; ".join(f"{name}: {d.summary}" for name, d in RANKERS.items())
    return text.replace("%", "%%")  # (argparse formats help with %)


def _parameters_text() -> str:
    """``mga: population, ...; ga: ...``: each ranker's parameters, for help texts."""
    from ..ltr.rankers import RANKERS

    return "; ".join(
        f"{name}: {', '.join(p.name for p in d.params)}" for name, d in RANKERS.items()
    )


def _pair_tests() -> tuple[str, ...]:
    from ..compare import PAIR_TESTS

    return PAIR_TESTS


def _common(p: Parser) -> None:
    p.add_argument(
        "--objective",
        default="nDCG@10",
        help="the measure maximised, or a weighted sum such as '0.7*nDCG@10 + 0.3*P@10' "
        "(default nDCG@10)",
    )
    p.add_argument(
        "--budget",
        default="16000",
        help="objective evaluations on the training data (default 16000, the Nrf of "
        "Semenikhin & Denisova)",
    )
    add_seed(p, "rankers' random steps")
    p.add_argument(
        "--normalisation",
        choices=("query", "none"),
        default="query",
        help="feature normalisation: query-level min-max (LETOR's QueryLevelNorm, default) or none",
    )
    _convention(p)
    p.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a ranker parameter, e.g. population=100 (repeatable; in cv: METHOD.KEY=VALUE); "
        "their ranges are in docs/ltr.md: " + _parameters_text(),
    )


def _convention(p: Parser) -> None:
    p.add_argument(
        "--convention",
        choices=("trec", "letor"),
        default="trec",
        help="trec (default): cranfield's evaluator, trec_eval's ties and definitions; "
        "letor: LETOR's Eval-Score-4.0 rules (gains 2^l-1, ranks 1-2 undiscounted, "
        "NDCG@k 0 below k documents, ties in file order)",
    )


def _parser(action: str) -> Parser:
    p = Parser(prog=f"cranfield ltr {action}", description=ACTIONS[action])
    if action == "train":
        p.add_argument("train", metavar="TRAIN", help="SVMlight/LETOR, LightGBM or Parquet file")
        p.add_argument("--vali", metavar="VALI", help="validation data: selects the checkpoint")
        p.add_argument(
            "--method",
            choices=_ranker_names(),
            default="mga",
            help="the ranker (default mga): " + _rankers_text(),
        )
        _common(p)
        add_output(p, required=True, help="the model file to write (JSON)")
    elif action == "eval":
        p.add_argument("model", metavar="MODEL", help="a model written by 'cranfield ltr train'")
        p.add_argument("test", metavar="TEST", help="SVMlight/LETOR, LightGBM or Parquet file")
        add_measures(p, "measures (default: nDCG@10 P@1 P@5 P@10 Bpref R@10 AP)")
        _convention(p)
        add_output(p, flags=("--run",), help="also write the ranking as a TREC run ('-': stdout)")
        add_format(p, ("text", "json"))
        add_digits(p)
        add_output(p)
    else:
        p.add_argument("folds", metavar="FOLDS_DIR", help="directory of Fold1..FoldK")
        p.add_argument(
            "--methods",
            default="mga,ga,coordinate-ascent",
            help="comma list of rankers (default mga,ga,coordinate-ascent; the first is the "
            "baseline of the significance tests): " + _rankers_text(),
        )
        add_measures(p, "measures on the test folds (default: nDCG@10 P@1 P@5 P@10 Bpref R@10 AP)")
        _common(p)
        p.add_argument("--runs", metavar="DIR", help="write FOLD/METHOD.run and FOLD/test.qrels")
        add_tests(
            p,
            _pair_tests(),
            "significance tests over the test queries; repeatable or a comma list (default t)",
        )
        add_format(p, ("text", "json", "markdown"))
        add_digits(p)
        add_output(p)
    return p


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ACTIONS:
        from .main import description

        top = Parser(prog="cranfield ltr", description=description("ltr"))
        sub = top.add_subparsers(dest="action", metavar="ACTION", required=True)
        for name, text in ACTIONS.items():
            sub.add_parser(name, help=text, add_help=False)
        top.parse_args(argv)
        return 2
    from .main import parse

    action = argv[0]
    args = parse(_parser(action), argv[1:])
    return {"train": _train, "eval": _eval, "cv": _cv}[action](args)


def _params(items: list[str], methods: list[str] | None = None) -> dict:
    """``KEY=VALUE`` (or ``METHOD.KEY=VALUE`` for cv) as a dict."""
    from ..errors import ParameterError

    out: dict = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ParameterError("--param", "KEY=VALUE", item)
        if methods is None:
            out[key] = value
            continue
        method, dot, name = key.partition(".")
        if not dot or method not in methods:
            raise ParameterError("--param", "METHOD.KEY=VALUE with METHOD in --methods", item)
        out.setdefault(method, {})[name] = value
    return out


def _budget_seed(args) -> tuple[int, int]:
    budget = number(args.budget, "--budget", int, 1, 10**9)
    seed = seed_value(args)
    return budget, seed


def _train(args) -> int:
    from ..ltr.rankers import parameters, train
    from ..ltr.readers import read
    from ..progress import Progress

    check_outputs(args)
    budget, seed = _budget_seed(args)
    params = parameters(args.method, _params(args.param))  # checked before any reading
    data = read(args.train)
    vali = read(args.vali) if args.vali else None
    with Progress(100, f"ltr train {args.method}") as bar:

        def progress(evaluations: int) -> None:
            while bar.done < min(100, 100 * evaluations // budget):
                bar.step()

        model = train(
            data,
            args.method,
            args.objective,
            vali=vali,
            budget=budget,
            seed=seed,
            normalisation=args.normalisation,
            convention=args.convention,
            params=params,
            progress=progress,
        )
    model.save(args.output)
    vali_text = "" if model.vali_value is None else f", validation {model.vali_value:.4f}"
    print(
        f"cranfield ltr train: {model.method}: {model.objective} ({model.convention}) "
        f"training {model.train_value:.4f}{vali_text}, {model.seconds:.2f} s -> {args.output}",
        file=sys.stderr,
    )
    return 0


def _eval(args) -> int:
    from ..ltr.model import Model
    from ..ltr.protocol import default_measures, evaluate_scores
    from ..ltr.readers import read
    from ..output import dumps_json, table

    digits = digits_value(args)
    check_outputs(args)
    model = Model.load(args.model)
    data = read(args.test)
    scores = model.scores(data)
    measures = args.measures or list(default_measures(args.convention))
    ev = evaluate_scores(data, scores, measures, args.convention, model.method)
    if args.run:
        from ..ltr.runs import trec_run_text

        deliver(trec_run_text(data, scores, model.method), args.run)
    if args.format == "json":
        doc = {
            "convention": ev.convention,
            "model": {"method": model.method, "objective": model.objective},
            "num_queries": data.num_queries,
            "aggregate": ev.aggregate,
            "per_query": ev.per_query,
        }
        deliver(dumps_json(doc) + "\n", args.output)
        return 0
    rows = [[k, "-" if v is None else f"{v:.{digits}f}"] for k, v in ev.aggregate.items()]
    text = (
        f"# convention: {ev.convention}; model: {model.method}; {data.num_queries} queries\n"
        + table(["measure", "value"], rows)
        + "\n"
    )
    deliver(text, args.output)
    return 0


def _cv(args) -> int:
    from ..ltr.protocol import cross_validate, load_folds
    from ..ltr.rankers import parameters, ranker
    from ..output import dumps_json
    from ..progress import Progress

    digits = digits_value(args)
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    for m in methods:
        ranker(m)
    given = _params(args.param, methods)
    # every ranker and its parameters checked before any reading
    params = {m: parameters(m, given.get(m)) for m in methods}
    check_outputs(args)
    budget, seed = _budget_seed(args)
    folds = load_folds(args.folds)
    with Progress(len(folds) * len(methods), "ltr cv") as bar:
        result = cross_validate(
            folds,
            methods,
            args.objective,
            args.measures or None,
            budget=budget,
            seed=seed,
            normalisation=args.normalisation,
            convention=args.convention,
            params=params,
            runs_dir=args.runs,
            progress=bar,
            tests=tuple(args.tests or ("t",)),
        )
    if args.format == "json":
        deliver(dumps_json(result.to_dict()) + "\n", args.output)
    else:
        deliver(result.render(args.format, digits), args.output)
    return 0
