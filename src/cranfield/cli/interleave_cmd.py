"""``cranfield interleave``: simulated interleaving of two runs (or multileaving of
more) against the offline nDCG difference (docs/online.md)."""

from __future__ import annotations

import argparse

from ._args import add_format, add_output, add_seed, number, seed_value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ..clicks.registry import QRELS_MODELS, spellings

    parser.add_argument(
        "runs", nargs="+", metavar="RUN", help="two TREC runs (A, B), or more for multileaving"
    )
    parser.add_argument("--qrels", required=True, help="relevance judgments (TREC qrels)")
    parser.add_argument(
        "--method",
        choices=("team-draft", "balanced", "probabilistic"),
        default="team-draft",
        help="interleaving method (default team-draft; more than two runs: team-draft "
        "multileaving)",
    )
    parser.add_argument(
        "--click-model",
        choices=spellings(QRELS_MODELS),
        help="users simulated by this model built from the qrels (default pbm)",
    )
    parser.add_argument(
        "--click-model-file",
        metavar="MODEL.json",
        help="users simulated by a fitted model (cranfield clicks fit ... -o MODEL.json)",
    )
    parser.add_argument(
        "--position-bias",
        default="1",
        help="PBM from the qrels examines rank r with 1/r^B (default 1)",
    )
    parser.add_argument(
        "--impressions", default="1000", help="interleaved impressions per query (default 1000)"
    )
    parser.add_argument(
        "--depth", default="10", help="positions of each list and the nDCG cut-off (default 10)"
    )
    parser.add_argument(
        "--candidates",
        default="100",
        help="probabilistic: documents of each run its softmax draws from (default 100)",
    )
    parser.add_argument(
        "--power", default="0.8", help="target power for the impressions needed (default 0.8)"
    )
    parser.add_argument(
        "--alpha", default="0.05", help="level of the two-sided sign test (default 0.05)"
    )
    add_seed(parser, "interleaving and click simulation")
    add_format(parser, ("text", "json", "markdown"))
    add_output(parser)


def _load_model(path: str):
    import json

    from ..clicks import from_json
    from ..core.io.source import read_bytes, source_name
    from ..errors import InputError

    source = source_name(path)
    data = read_bytes(path, source)
    try:
        obj = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise InputError("not a JSON click model", source) from None
    if not isinstance(obj, dict):
        raise InputError("not a JSON click model", source)
    return from_json(obj, source)


def analyse(args: argparse.Namespace) -> dict:
    from ..core.qrels import Qrels
    from ..core.run import Run
    from ..errors import ParameterError
    from ..online.simulation import simulate_interleaving
    from ..progress import Progress

    if len(args.runs) < 2:
        raise ParameterError("RUN", "at least two runs", len(args.runs))
    if args.click_model is not None and args.click_model_file is not None:
        raise ParameterError(
            "--click-model-file", "not together with --click-model", args.click_model_file
        )
    impressions = number(args.impressions, "--impressions", int, 1, 10**7)
    depth = number(args.depth, "--depth", int, 1, 100)
    candidates = number(args.candidates, "--candidates", int, 1, 1000)
    bias = number(args.position_bias, "--position-bias", float, 0, 10)
    alpha = number(args.alpha, "--alpha", float, 0, 1, open_=True)
    power = number(args.power, "--power", float, alpha, 1, open_=True)
    seed = seed_value(args)
    if len(args.runs) > 2 and args.method != "team-draft":
        raise ParameterError("--method", "team-draft for more than two runs", args.method)
    qrels = Qrels.read(args.qrels)
    runs = [Run.read(p) for p in args.runs]
    names = [r.name for r in runs]
    if len(set(names)) < len(names):
        runs = [Run.read(p, name=str(p)) for p in args.runs]
    model = args.click_model or "pbm"
    if args.click_model_file is not None:
        model = _load_model(args.click_model_file)
    with Progress(1, "interleave") as bar:

        def step(done, total):
            bar.total = total
            bar.step(f"chunk {done}/{total}")

        return simulate_interleaving(
            runs,
            qrels,
            method=args.method,
            click_model=model,
            impressions=impressions,
            depth=depth,
            candidates=candidates,
            position_bias=bias,
            power=power,
            alpha=alpha,
            seed=seed,
            progress=step,
        )


def _fmt(v) -> str:
    from ..output import UNDEFINED, number_cell

    return UNDEFINED if v is None else number_cell(v, significant=4)


def _table(head, rows, fmt: str, left: int) -> list[str]:
    """One of the report's tables, laid out by the shared renderer (aligned text or
    Markdown): the first ``left`` columns (names) left-aligned, numbers right-aligned."""
    from ..output import table

    return table(head, rows, fmt, left=left, escape=True).splitlines()


def render(res: dict, fmt: str) -> str:
    """The report: a title, the notes, then three kinds of table (overall, per-query
    agreement, per query of each pair), as aligned text or Markdown."""
    from ..output import p_cell

    title = res["method"] if "multileaving" in res["method"] else res["method"] + " interleaving"
    lines = [
        f"{title}, click model {res['click_model']}, "
        f"{res['impressions_per_query']} impressions per query, {res['queries']} queries, "
        f"offline {res['measure']}",
    ]
    lines += [f"note: {n}" for n in res["notes"]]
    head = [
        "a",
        "b",
        "wins_a",
        "wins_b",
        "ties",
        "p",
        "share_a",
        "ci_low",
        "ci_high",
        f"{res['measure']}_a",
        f"{res['measure']}_b",
        "agrees",
        f"impressions_for_power_{res['power']:g}",
    ]
    rows = []
    for p in res["pairs"]:
        o = p["overall"]
        ci = o["ci"] or [None, None]
        rows.append(
            [p["a"], p["b"]]
            + [_fmt(v) for v in (o["wins_a"], o["wins_b"], o["ties"])]
            + [p_cell(o["p_value"])]
            + [
                _fmt(v)
                for v in (
                    o["proportion"],
                    ci[0],
                    ci[1],
                    o["ndcg_a"],
                    o["ndcg_b"],
                    o["agrees"],
                    o["impressions_needed"],
                )
            ]
        )
    lines += ["", "overall (all impressions; sign test, ties left out):"]
    lines += _table(head, rows, fmt, 2)
    lines += ["", "per-query agreement with the offline difference:"]
    head = ["a", "b", "queries", "with_difference", "decided", "agree", "fraction", "sig_agree"]
    head.append("sig_disagree")
    rows = []
    for p in res["pairs"]:
        a = p["agreement"]
        rows.append(
            [p["a"], p["b"]]
            + [
                _fmt(a[k])
                for k in (
                    "queries",
                    "with_difference",
                    "decided",
                    "agree",
                    "fraction",
                    "significant_agree",
                    "significant_disagree",
                )
            ]
        )
    lines += _table(head, rows, fmt, 2)
    for p in res["pairs"]:
        lines += ["", f"per query, {p['a']} vs {p['b']}:"]
        head = ["query", "ndcg_a", "ndcg_b", "wins_a", "wins_b", "ties", "p", "agrees"]
        rows = [
            [q["query"]]
            + [_fmt(q[k]) for k in ("ndcg_a", "ndcg_b", "wins_a", "wins_b", "ties")]
            + [p_cell(q["p_value"]), _fmt(q["agrees"])]
            for q in p["per_query"]
        ]
        lines += _table(head, rows, fmt, 1)
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    from ..output import dumps_json
    from ._output import deliver

    res = analyse(args)
    deliver(
        dumps_json(res) + "\n" if args.format == "json" else render(res, args.format), args.output
    )
    return 0
