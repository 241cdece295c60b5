"""Weight and parameter search against ranx.optimize_fusion on small cases: every
weight vector ranx tries scores the same nDCG@10 with cranfield's search (so the
choice agrees wherever ranx's grid holds it), and the score cranfield reports for its
choice is what cranfield.evaluate gives the fused run."""

from __future__ import annotations

import re

import numpy as np
import ranx

import cranfield
from cranfield.fusion.fuse import Plan
from cranfield.fusion.optimise import optimise, simplex_grid
from generators import fusion_case


def _case(seed: int, n_runs: int):
    """Several generated cases of ``n_runs`` runs merged into one (distinct scores: ranx
    and cranfield then rank the fused runs alike)."""
    runs, qrels = [{} for _ in range(n_runs)], {}
    for s in range(seed, seed + 200):
        rr, qq, _ = fusion_case(s, kind="random")
        if len(rr) != n_runs:
            continue
        for r in range(n_runs):
            runs[r].update({f"s{s}{q}": d for q, d in rr[r].items()})
        qrels.update({f"s{s}{q}": d for q, d in qq.items()})
    return runs, qrels


def _weights(config: str) -> list[float]:
    """ranx's report key ``(np.float64(0.1), ...)`` or ``(0.1, ...)`` as numbers."""
    return [float(x) for x in re.findall(r"(-?[0-9.]+(?:e-?[0-9]+)?)\)?(?:,|\)$)", config)]


def test_wsum_grid_matches_ranx_optimize_fusion():
    """zmuv scores and positive weights: fused scores without ties, where ranx's order of
    tied documents (arbitrary) and cranfield's (document id) cannot differ."""
    runs, qrels = _case(0, 3)
    theirs = [ranx.Run.from_dict(r) for r in runs]
    rq = ranx.Qrels.from_dict(qrels)
    _, report = ranx.optimize_fusion(
        rq,
        theirs,
        norm="zmuv",
        method="wsum",
        metric="ndcg@10",
        step=0.1,
        show_progress=False,
        return_optimization_report=True,
    )
    assert len(report.configs) == 62 and len(simplex_grid(3, 0.1)) == 66  # ranx drops 4
    compared = 0
    for config, value in zip(report.configs, report.results, strict=True):
        w = _weights(config)
        if min(w) == 0:
            continue
        fused = cranfield.fuse(runs, "wsum", "zmuv", weights=w)
        mine = cranfield.evaluate(qrels, fused, ["nDCG@10"]).aggregate(0, "nDCG@10")
        assert abs(mine - value) <= 1e-12, (w, mine, value)
        compared += 1
    assert compared >= 30
    plan = Plan("wsum", "zmuv", None, "zero", {}, 3, tune=True)
    ours = optimise([cranfield.Run.read(r) for r in runs], plan, qrels, "nDCG@10")
    positive = [
        v for c, v in zip(report.configs, report.results, strict=True) if min(_weights(c)) > 0
    ]
    assert ours["train"] >= max(positive) - 1e-12
    # the reported value is the evaluation of the chosen weights' fused run
    fused = cranfield.fuse(runs, "wsum", "zmuv", weights=ours["weights"])
    value = cranfield.evaluate(qrels, fused, ["nDCG@10"]).aggregate(0, "nDCG@10")
    assert abs(value - ours["train"]) <= 1e-12


def test_parameter_search_values_are_those_of_evaluate():
    """RRF's k on ranx's grid (10, 20, ..., 100): the optimiser's value of the chosen k
    is cranfield.evaluate's for that fused run (ties ranked as evaluate ranks them)."""
    runs, qrels = _case(300, 2)
    plan = Plan("rrf", None, None, "zero", {}, 2, tune=True)
    ours = optimise([cranfield.Run.read(r) for r in runs], plan, qrels, "nDCG@10")
    assert ours["candidates_tried"] == 10
    k = ours["params"]["k"]
    fused = cranfield.fuse(runs, "rrf", k=k)
    value = cranfield.evaluate(qrels, fused, ["nDCG@10"]).aggregate(0, "nDCG@10")
    assert abs(value - ours["train"]) <= 1e-12
    for other in range(10, 101, 10):
        fused = cranfield.fuse(runs, "rrf", k=other)
        assert (
            cranfield.evaluate(qrels, fused, ["nDCG@10"]).aggregate(0, "nDCG@10") <= value + 1e-12
        )


def test_cross_validation_reports_held_out_scores():
    runs, qrels = _case(0, 3)
    plan = Plan("wsum", "min-max", None, "zero", {}, 3, tune=True)
    report = optimise([cranfield.Run.read(r) for r in runs], plan, qrels, "nDCG@10", folds=3)
    assert len(report["folds"]) == 3
    for f in report["folds"]:
        assert 0 <= f["test"] <= 1 and abs(sum(f["weights"]) - 1) < 1e-9
    assert report["cv_test_mean"] == np.mean([f["test"] for f in report["folds"]])
