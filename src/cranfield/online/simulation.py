"""Interleaving experiments by simulation: rankers given as TREC runs, users as a click
model, truth as a qrels.

For every query the runs share with the qrels, ``impressions`` interleaved lists are
drawn (:mod:`~.interleaving`), clicks on them are drawn from a click model
(:func:`cranfield.clicks.simulate`; built from the qrels with a position bias,
:func:`cranfield.clicks.from_qrels`, or fitted on a log), and each impression's
outcome is compared with the offline difference of nDCG@depth (Järvelin & Kekäläinen
2002, computed by :func:`cranfield.evaluate`). The report says, per query and over
all queries, how often the interleaving's preferred ranker is the one with the higher
nDCG, and how many impressions the sign test needs to reach a given power, estimated
by simulation from the observed outcome rates (Chapelle, Joachims, Radlinski & Yue
2012 run the same comparison on real traffic). Impressions are processed in chunks of
whole queries, each chunk vectorised; everything is drawn from one
``numpy.random.SeedSequence(seed)``.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations

import numpy as np

from ..errors import InputError, ParameterError
from .interleaving import (
    METHODS,
    _sign_test_p,
    credit,
    impressions_for_power,
    interleave,
    sign_test,
)

CHUNK = 40_000
"""Impressions per vectorised chunk: memory is bounded by the chunk and the per-query
counts, whatever the number of impressions."""


def _lists(run, depth: int) -> dict[str, list[str]]:
    """``{query: [doc, ...]}``, each query's top ``depth`` documents in rank order."""
    t = run.ranked()
    q = np.asarray(t["query_id"].to_numpy(zero_copy_only=False), dtype=object)
    d = np.asarray(t["doc_id"].to_numpy(zero_copy_only=False), dtype=object)
    rank = t["rank"].to_numpy()
    keep = rank <= depth
    q, d, rank = q[keep], d[keep], rank[keep]
    starts = np.flatnonzero(rank == 1)
    ends = np.append(starts[1:], len(q))
    return {q[s]: d[s:e].tolist() for s, e in zip(starts, ends, strict=True)}  # per query


def _model(click_model, qrels_dict, lists, queries, depth, position_bias):
    from ..clicks import from_qrels
    from ..clicks.registry import QRELS_MODELS, get

    if not isinstance(click_model, str):
        return click_model, click_model.name
    name = get(click_model, QRELS_MODELS).name
    # every candidate document has a grade: an unjudged one is not relevant (0)
    grades = {}
    for q in queries:
        judged = qrels_dict.get(q, {})
        g = {d: 0 for r in lists for d in r[q]}
        g.update({d: v for d, v in judged.items() if d in g})
        grades[q] = g
    return from_qrels(grades, name, position_bias=position_bias, max_rank=depth), name


def simulate_interleaving(
    runs,
    qrels,
    *,
    method: str = "team-draft",
    click_model="pbm",
    impressions: int = 1000,
    depth: int = 10,
    candidates: int = 100,
    position_bias: float = 1.0,
    power: float = 0.8,
    alpha: float = 0.05,
    seed: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict:
    """Run the experiment (module docstring) and return the report as a dict.

    Parameters
    ----------
    runs
        Two :class:`~cranfield.Run` (A and B), or more for team-draft multileaving.
    qrels
        :class:`~cranfield.Qrels`: the offline truth, and the click model's source when
        ``click_model`` is a name.
    method
        ``"balanced"``, ``"team-draft"`` or ``"probabilistic"`` (two runs only).
    click_model
        ``"pbm"``, ``"cm"`` (or ``"cascade"``), ``"sdbn"``, ``"dbn"`` (built from the
        qrels), or a fitted :class:`~cranfield.clicks.FittedClickModel` (its pairs
        not seen in training get the default 0.5).
    impressions
        Interleaved impressions per query.
    depth
        Positions of each interleaved list, and the cut-off of nDCG.
    candidates
        Probabilistic interleaving: the documents of each run its softmax draws from.
    position_bias
        PBM built from the qrels examines rank ``r`` with ``1 / r^position_bias``.
    power, alpha
        The target power of the two-sided sign test at level ``alpha``.
    seed
        Seed of every random draw.
    progress
        Called with ``(done, total)`` chunks.
    """
    from ..clicks.log import ClickLog
    from ..clicks.simulate import simulate
    from ..core.evaluation import evaluate

    if method not in METHODS:
        raise ParameterError("method", "one of " + ", ".join(METHODS), method)
    runs = list(runs)
    if len(runs) < 2:
        raise ParameterError("runs", "at least 2 runs", len(runs))
    if len(runs) > 2 and method != "team-draft":
        raise ParameterError("method", "team-draft (multileaving) for more than 2 runs", method)
    for name, v, lo, hi in (
        ("impressions", impressions, 1, 10**7),
        ("depth", depth, 1, 100),
        ("candidates", candidates, 1, 1000),
    ):
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise ParameterError(name, f"an integer from {lo} to {hi}", v)
    if not (isinstance(alpha, (int, float)) and 0 < alpha < 1):
        raise ParameterError("alpha", "a number strictly between 0 and 1", alpha)
    if not (isinstance(power, (int, float)) and alpha < power < 1):
        raise ParameterError("power", "a number strictly between alpha and 1", power)

    width = max(depth, candidates) if method == "probabilistic" else depth
    lists = [_lists(r, width) for r in runs]
    judged = set(qrels.query_ids())
    in_all = set.intersection(*(set(x) for x in lists))
    queries = sorted(in_all & judged)
    notes = []
    union = set.union(*(set(x) for x in lists))
    if len(union - in_all):
        notes.append(f"{len(union - in_all)} queries not in every run left out")
    if len(in_all - judged):
        notes.append(f"{len(in_all - judged)} queries without judgments left out")
    if not queries:
        raise InputError("the runs and the qrels have no query in common", qrels.source)
    qrels_dict = qrels.to_dict()
    model, model_name = _model(click_model, qrels_dict, lists, queries, depth, position_bias)

    # codes: one document table over all queries; rankings Q x R x width
    names = sorted({d for x in lists for q in queries for d in x[q]})
    code = {d: i for i, d in enumerate(names)}
    n_q, n_r = len(queries), len(runs)
    table = np.full((n_q, n_r, width), -1, dtype=np.int64)
    for i, q in enumerate(queries):  # one row per query and run
        for s, x in enumerate(lists):
            table[i, s, : len(x[q])] = [code[d] for d in x[q]]

    # offline: nDCG@depth per query
    measure = f"nDCG@{depth}"
    res = evaluate(qrels, runs, [measure])
    ndcg = np.zeros((n_r, n_q))
    for s in range(n_r):
        per_q = res.per_query(s, measure)
        ndcg[s] = [per_q.get(q) or 0.0 for q in queries]

    pairs = list(combinations(range(n_r), 2))
    total = n_q * impressions
    bounds = list(range(0, total, CHUNK)) + [total]
    streams = np.random.SeedSequence(seed).spawn(len(bounds) - 1)
    # per pair and query: impressions won by the pair's first and second run
    wins_a = np.zeros((len(pairs), n_q), dtype=np.int64)
    wins_b = np.zeros((len(pairs), n_q), dtype=np.int64)
    query_names = np.asarray(queries, dtype=object)
    doc_names = np.asarray(names, dtype=object)
    for c in range(len(bounds) - 1):
        qidx = np.arange(bounds[c], bounds[c + 1]) // impressions
        s_inter, s_click = (int(v) for v in streams[c].generate_state(2, np.uint64) >> 1)
        inter = interleave(method, table, depth, qidx, seed=s_inter)
        template = ClickLog(
            qidx, inter.docs, np.zeros(inter.docs.shape, dtype=bool), query_names, doc_names
        )
        clicks = simulate(model, template, seed=s_click).clicks
        cr = credit(inter, clicks)
        for p, (i, j) in enumerate(pairs):
            o = cr.outcome if n_r == 2 else np.sign(cr.credits[:, i] - cr.credits[:, j])
            wins_a[p] += np.bincount(qidx, o == 1, n_q).astype(np.int64)
            wins_b[p] += np.bincount(qidx, o == -1, n_q).astype(np.int64)
        if progress is not None:
            progress(c + 1, len(bounds) - 1)

    out_pairs = []
    for p, (i, j) in enumerate(pairs):
        wa, wb = wins_a[p], wins_b[p]
        ties = impressions - wa - wb
        pv = np.atleast_1d(_sign_test_p(wa, wa + wb))
        delta = ndcg[i] - ndcg[j]
        pref = np.sign(wa - wb)
        offline = np.sign(np.where(np.abs(delta) < 1e-12, 0.0, delta))
        decided = (offline != 0) & (pref != 0)
        agree = decided & (pref == offline)
        sig = pv < alpha
        overall = sign_test(int(wa.sum()), int(wb.sum()), int(ties.sum()), 1 - alpha)
        pa, pb = overall["wins_a"] / total, overall["wins_b"] / total
        mean_delta = float(delta.mean())
        pooled = np.sign(overall["wins_a"] - overall["wins_b"])
        out_pairs.append(
            {
                "a": runs[i].name,
                "b": runs[j].name,
                "overall": {
                    **overall,
                    "ndcg_a": float(ndcg[i].mean()),
                    "ndcg_b": float(ndcg[j].mean()),
                    "ndcg_delta": mean_delta,
                    "agrees": None
                    if pooled == 0 or abs(mean_delta) < 1e-12
                    else bool(pooled == np.sign(mean_delta)),
                    "impressions_needed": impressions_for_power(
                        pa, pb, power, alpha, 1000, None if seed is None else seed
                    ),
                },
                "agreement": {
                    "queries": n_q,
                    "with_difference": int((offline != 0).sum()),
                    "decided": int(decided.sum()),
                    "agree": int(agree.sum()),
                    "fraction": float(agree.sum() / decided.sum()) if decided.any() else None,
                    "significant_agree": int((agree & sig).sum()),
                    "significant_disagree": int((decided & ~agree & sig).sum()),
                },
                "per_query": [
                    {
                        "query": q,
                        "ndcg_a": float(ndcg[i, k]),
                        "ndcg_b": float(ndcg[j, k]),
                        "wins_a": int(wa[k]),
                        "wins_b": int(wb[k]),
                        "ties": int(ties[k]),
                        "p_value": float(pv[k]),
                        "agrees": bool(agree[k]) if decided[k] else None,
                    }
                    for k, q in enumerate(queries)
                ],
            }
        )
    return {
        "method": method if n_r == 2 else "team-draft multileaving",
        "click_model": model_name,
        "runs": [r.name for r in runs],
        "measure": measure,
        "impressions_per_query": impressions,
        "depth": depth,
        "power": power,
        "alpha": alpha,
        "queries": n_q,
        "notes": notes,
        "pairs": out_pairs,
    }
