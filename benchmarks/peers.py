"""Drivers for the peer tools, each run as its own process by ``run.py``.

``python benchmarks/peers.py TOOL QRELS RUN`` evaluates AP, nDCG@10, P@10, R@100 and RR
the way a user of TOOL would (reading the TREC files with the tool's own reader) and
prints the five means as JSON keyed by cranfield's names.
"""

from __future__ import annotations

import json
import sys

NAMES = ["AP", "nDCG@10", "P@10", "R@100", "RR"]


def _pytrec_eval(qrels_path: str, run_path: str) -> dict:
    import pytrec_eval

    # pytrec_eval has no file reader: parsing in Python is part of its cost
    qrels: dict = {}
    with open(qrels_path) as fh:
        for line in fh:
            q, _, d, r = line.split()
            qrels.setdefault(q, {})[d] = int(r)
    run: dict = {}
    with open(run_path) as fh:
        for line in fh:
            q, _, d, _, s, _ = line.split()
            run.setdefault(q, {})[d] = float(s)
    keys = {"map": "AP", "ndcg_cut_10": "nDCG@10", "P_10": "P@10", "recall_100": "R@100"}
    keys["recip_rank"] = "RR"
    ev = pytrec_eval.RelevanceEvaluator(
        qrels, {"map", "ndcg_cut.10", "P.10", "recall.100", "recip_rank"}
    )
    per_query = ev.evaluate(run)
    n = len(per_query)
    return {keys[k]: sum(v[k] for v in per_query.values()) / n for k in keys}


def _ir_measures(qrels_path: str, run_path: str) -> dict:
    import ir_measures
    from ir_measures import AP, RR, P, R, nDCG

    measures = {AP: "AP", nDCG @ 10: "nDCG@10", P @ 10: "P@10", R @ 100: "R@100", RR: "RR"}
    qrels = ir_measures.read_trec_qrels(qrels_path)
    run = ir_measures.read_trec_run(run_path)
    agg = ir_measures.calc_aggregate(list(measures), qrels, run)
    return {measures[m]: float(v) for m, v in agg.items()}


def _ranx(qrels_path: str, run_path: str) -> dict:
    from ranx import Qrels, Run, evaluate

    qrels = Qrels.from_file(qrels_path, kind="trec")
    run = Run.from_file(run_path, kind="trec")
    names = {"map": "AP", "ndcg@10": "nDCG@10", "precision@10": "P@10", "recall@100": "R@100"}
    names["mrr"] = "RR"
    out = evaluate(qrels, run, list(names))
    return {names[k]: float(v) for k, v in out.items()}


def _trec_eval_output(text: str) -> dict:
    keys = {"map": "AP", "ndcg_cut_10": "nDCG@10", "P_10": "P@10", "recall_100": "R@100"}
    keys["recip_rank"] = "RR"
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "all" and parts[0] in keys:
            out[keys[parts[0]]] = float(parts[2])
    return out


TOOLS = {"pytrec_eval": _pytrec_eval, "ir_measures": _ir_measures, "ranx": _ranx}


def main(argv: list[str]) -> None:
    tool, qrels_path, run_path = argv
    print(json.dumps(TOOLS[tool](qrels_path, run_path)))


if __name__ == "__main__":
    main(sys.argv[1:])
