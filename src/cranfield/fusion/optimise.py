"""Choosing a fusion's weights or parameters by a measure on training queries.

The candidates of the fused run are fixed; only their scores change with the weights,
so the runs are read, coded and normalised once (:class:`~cranfield.fusion.rows.Rows`)
and each weight vector costs one method call (whole arrays) and one ranking of every
query at once: :class:`FusionObjective` ranks with the learning-to-rank objective's
padded layout (:class:`cranfield.ltr.objective.Layout`, trec_eval's ties) and
measures with cranfield's own measure kernels against the full training qrels (the
ideal rankings include relevant documents no run retrieved), so a weight vector's
value is what ``cranfield.evaluate`` gives its fused run.

Searches: ``grid`` -- weights on the simplex ``{w : w_r in {0, step, ..., 1}, Σ w_r =
1}`` (ranx's ``optimize_fusion`` grid, enumerated exactly in integers), or a method
parameter on ranx's grid; ``mga`` and ``coordinate-ascent`` -- the learning-to-rank
searches (:mod:`cranfield.ltr.search`) over the weights. Ties between equally good
candidates go to the last one enumerated, as ranx. ``folds`` > 0 cross-validates over
query folds (:func:`cranfield.clustering.splits.query_kfold`): the search runs on the
training folds and the held-out score is reported.
"""

from __future__ import annotations

import itertools
from typing import Any

from .._lazy import lazy
from ..core.io import arrays
from ..core.judged import qrels_side
from ..errors import ParameterError
from ..ltr.data import RankingData
from ..ltr.objective import Layout, mean_rows, parse_objective
from .choices import SEARCHES
from .fuse import Plan, as_qrels
from .rows import Rows

np = lazy("numpy", __name__, "np")
pa = lazy("pyarrow", __name__, "pa")
pc = lazy("pyarrow.compute", __name__, "pc")


BUDGET = 2000  # objective evaluations of mga and coordinate ascent

# ranx's optimize_fusion grids of the parameter methods (name -> values)
PARAM_GRIDS = {
    "k": [float(k) for k in range(10, 101, 10)],
    "gamma": [round(x, 2) for x in np.arange(0.01, 1.0 + 0.01, 0.01)],
    "phi": [round(x, 2) for x in np.arange(0.01, 1.0, 0.01)],
    "sigma": [round(x, 2) for x in np.arange(0.01, 1.0 + 0.01, 0.01)],
    "n_segments": list(range(1, 101)),
    "w": list(range(1, 101)),
}


def simplex_grid(n: int, step: float) -> np.ndarray:
    """Every weight vector of ``n`` multiples of ``step`` summing to 1, in
    ``itertools.product`` order (ranx's), as exact integer compositions."""
    m = round(1 / step)
    if m < 1 or m > 1000 or abs(m * step - 1) > 1e-9:
        raise ParameterError("--step", "1/N for an integer N in [1, 1000]", step)
    out = [c for c in itertools.product(range(m + 1), repeat=n) if sum(c) == m]
    if len(out) > 1_000_000:
        raise ParameterError("--step", "a grid of at most 1,000,000 weight vectors", step)
    return np.array(out, dtype=np.float64) / m


def _labels(rows: Rows, qrels) -> np.ndarray:
    """Grade of each candidate in the qrels (-1 when not judged)."""
    sep = "\x1f"
    q = rows.query_ids.take(arrays.ints(rows.cand_query))
    keys = pc.binary_join_element_wise(q, rows.doc_ids, sep)
    t = qrels.table
    qkeys = pc.binary_join_element_wise(t["query_id"], t["doc_id"], sep)
    at = arrays.codes_or_minus_one(pc.index_in(keys, value_set=qkeys.combine_chunks()))
    grades = arrays.numbers(t["relevance"]).astype(np.float64)
    out = np.where(at >= 0, grades[np.maximum(at, 0)], -1)
    return np.where(out < 0, -1, out).astype(np.int64)


class FusionObjective:
    """The mean of a measure over the chosen queries, for a batch of weight vectors (or
    parameter values): the protocol of :mod:`cranfield.ltr.search`'s searches
    (``num_features``, ``evaluations``, ``__call__(W) -> values``)."""

    def __init__(self, score, rows: Rows, labels, qrels, terms, queries: np.ndarray, n: int):
        self.score, self.terms, self.num_features = score, terms, n
        self.evaluations = 0
        keep = np.isin(rows.cand_query, queries)
        self.cols = np.flatnonzero(keep)
        cq = rows.cand_query[self.cols]
        qs, counts = np.unique(cq, return_counts=True)
        offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        qids = np.asarray(rows.query_ids.take(arrays.ints(qs)).to_pylist(), dtype=object)
        docs = np.asarray(rows.doc_ids.take(arrays.ints(self.cols)).to_pylist(), dtype=object)
        data = RankingData(np.zeros((len(self.cols), 1)), labels[self.cols], offsets, qids, docs)
        self.layout = Layout(data, "trec")
        topics, q_off, grades = qrels_side(qrels)
        at = arrays.codes_or_minus_one(
            pc.index_in(pa.array(self.layout.query_ids.tolist()), value_set=topics)
        )
        counts = q_off[at + 1] - q_off[at]
        first = np.repeat(q_off[at] - (np.cumsum(counts) - counts), counts)
        self.layout.judged = (
            np.concatenate(([0], np.cumsum(counts))).astype(np.int64),
            grades[first + np.arange(int(counts.sum()))],
        )
        share = np.array([t.weight for t in terms])
        self.shares = share / share.sum()

    def __call__(self, weights) -> np.ndarray:
        w = np.atleast_2d(np.asarray(weights, dtype=np.float64))
        self.evaluations += len(w)
        out = np.empty(len(w))
        batch = max(1, 4_000_000 // max(sum(b.pad.size for b in self.layout.blocks), 1))
        for a in range(0, len(w), batch):
            block = w[a : a + batch]
            s = np.stack([self.score(x)[self.cols] for x in block])  # per candidate vector
            ranked = self.layout.ranked_by(s)
            jr = self.layout.judged_run(ranked)
            total = np.zeros(len(block))
            for share, t in zip(self.shares, self.terms, strict=True):
                v = t.measure.compute(jr).astype(np.float64)
                per = self.layout.by_query(self.layout.split(v, len(block)), len(block))
                total += share * mean_rows(per)
            out[a : a + len(block)] = total
        return out


def _search(obj: FusionObjective, plan: Plan, search: str, step: float, seed) -> tuple:
    """(best weights or parameter value, training value, candidates tried)."""
    if plan.method.weighted:
        if search == "grid":
            grid = simplex_grid(obj.num_features, step)
            values = obj(grid)
            i = len(values) - 1 - int(np.argmax(values[::-1]))  # the last best, as ranx
            return grid[i], float(values[i]), len(grid)
        from ..ltr import search as searches

        tracker = searches.Tracker(obj, BUDGET)
        rng = np.random.default_rng(seed)
        run = searches.mga if search == "mga" else searches.coordinate_ascent
        run(tracker, rng, budget=BUDGET)
        return tracker.best_w, float(tracker.best_key[1]), obj.evaluations
    name = _tuned_param(plan)
    if search != "grid":
        raise ParameterError("--search", f"grid for {plan.method.name} (tunes {name})", search)
    values = np.array(PARAM_GRIDS[name], dtype=np.float64)[:, None]
    got = obj(values)
    i = len(got) - 1 - int(np.argmax(got[::-1]))
    return values[i, 0], float(got[i]), len(values)


def _tuned_param(plan: Plan) -> str:
    names = [p.name for p in plan.method.params if p.name in PARAM_GRIDS]
    if not names:
        raise ParameterError(
            "--optimise",
            "a weighted method or one with a parameter to tune (k, gamma, phi, sigma, "
            "n_segments, w)",
            plan.method.name,
        )
    return names[0]


def optimise(
    runs,
    plan: Plan,
    qrels,
    measure: str,
    *,
    search: str = "grid",
    step: float | str = 0.1,
    folds: int = 0,
    topics: str = "same",
    seed: int | None = None,
) -> dict[str, Any]:
    """Choose ``plan``'s weights (weighted methods) or its tunable parameter by
    ``measure`` on the queries of the training ``qrels``; set them on ``plan`` and
    return the report: the choice, its training value, the candidates tried and, with
    ``folds``, each fold's choice with its training and held-out values."""
    if search not in SEARCHES:
        raise ParameterError("search", "one of " + ", ".join(SEARCHES), search)
    try:
        step = float(step)
    except (TypeError, ValueError):
        raise ParameterError("--step", "a number", step) from None
    qrels = as_qrels(qrels)
    terms = parse_objective(measure)
    trained = plan.trained(runs, qrels)
    rows = plan.rows(runs, topics)
    labels = _labels(rows, qrels)
    topics_judged = qrels_side(qrels)[0]
    judged = arrays.bools(pc.is_in(rows.query_ids, value_set=topics_judged))
    queries = np.flatnonzero(judged)
    if len(queries) == 0:
        raise ParameterError("--qrels", "judgments for some query of the runs", "none")
    if plan.method.weighted:
        n = rows.n_runs

        def score(w):
            return plan.scores(rows, trained, weights=w)
    else:
        name = _tuned_param(plan)
        n = 1

        def score(v):
            p = plan.params | {name: type(plan.method.param(name).default or 0)(v[0])}
            if plan.method.param(name).kind is int:
                p[name] = int(v[0])
            return plan.method.behaviour(
                rows, plan.weights, _retrain(plan, runs, qrels, p, trained), **p
            )

    def fit(qs):
        return _search(
            FusionObjective(score, rows, labels, qrels, terms, qs, n), plan, search, step, seed
        )

    best, value, tried = fit(queries)
    report: dict[str, Any] = {
        "method": plan.method.name,
        "norm": plan.norm.name,
        "measure": measure,
        "search": search,
        "queries": int(len(queries)),
        "candidates_tried": int(tried),
        "train": value,
    }
    if plan.method.weighted:
        report["weights"] = [float(x) for x in best]
        plan.weights = np.asarray(best, dtype=np.float64)
    else:
        name = _tuned_param(plan)
        chosen = int(best) if plan.method.param(name).kind is int else float(best)
        report["params"] = {name: chosen}
        plan.params = plan.params | {name: chosen}
    if folds:
        report["folds"] = _cross_validate(
            fit, score, rows, labels, qrels, terms, queries, n, folds, plan
        )
        report["cv_test_mean"] = float(np.mean([f["test"] for f in report["folds"]]))
    return report


def _retrain(plan: Plan, runs, qrels, params, trained):
    """A trained method's estimate for new parameters (probfuse's segments)."""
    if plan.method.train is None:
        return trained
    return plan.method.train(qrels, runs, **params)


def _cross_validate(fit, score, rows, labels, qrels, terms, queries, n, folds, plan) -> list:
    from ..clustering.splits import query_kfold

    out = []
    for i, split in enumerate(query_kfold(queries, k=folds)):
        train_q = np.asarray(split.train_queries, dtype=np.int64)
        test_q = np.asarray(split.test_queries, dtype=np.int64)
        best, value, _ = fit(train_q)
        test = FusionObjective(score, rows, labels, qrels, terms, test_q, n)
        held = (
            float(test(np.atleast_2d(best))[0])
            if plan.method.weighted
            else float(test(np.array([[best]]))[0])
        )
        entry = {"fold": i + 1, "train": value, "test": held}
        entry["weights" if plan.method.weighted else "value"] = (
            [float(x) for x in np.atleast_1d(best)] if plan.method.weighted else float(best)
        )
        out.append(entry)
    return out


def print_report(report: dict, digits: int) -> None:
    """The chosen weights or parameter and the scores, on standard error (the fused run
    may be on standard output)."""
    import sys

    chosen = (
        "weights " + ",".join(f"{w:g}" for w in report["weights"])
        if "weights" in report
        else ", ".join(f"{k}={v}" for k, v in report["params"].items())
    )
    lines = [
        f"{report['method']}: {chosen} ({report['measure']} {report['train']:.{digits}f} on "
        f"{report['queries']} training queries, {report['candidates_tried']} candidates, "
        f"{report['search']})"
    ]
    for f in report.get("folds", []):
        lines.append(f"fold {f['fold']}: train {f['train']:.{digits}f} test {f['test']:.{digits}f}")
    if "cv_test_mean" in report:
        lines.append(f"cross-validated {report['measure']}: {report['cv_test_mean']:.{digits}f}")
    sys.stderr.write("\n".join(lines) + "\n")


def per_query_table(runs, fused, args, digits: int) -> str:
    """TSV: per query, each run's and the fused run's value of the measure (--optimise,
    else nDCG@10), the fused run's gain over the best run, and the documents fusion
    moved: how many of the fused run's top k (the measure's cutoff, else 10) are not in
    the top k of the run that is best on that query, and how many of those are judged
    relevant (grade > 0)."""
    from ..core.judged import judge
    from ..core.measures.names import parse as parse_measure

    if args.qrels is None:
        raise ParameterError("--per-query", "--qrels to measure the runs by", None)
    qrels = as_qrels(args.qrels)
    name = args.optimise or "nDCG@10"
    measure = parse_measure(name)
    depth = int(measure.cutoff) if measure.cutoff else 10
    columns = {}
    for run in [*runs, fused]:
        jr = judge(qrels, run, complete=True, doc_rows=False)
        columns[run.name] = dict(
            zip([str(q) for q in jr.query_ids], np.asarray(measure.compute(jr), float), strict=True)
        )
    queries = sorted({q for c in columns.values() for q in c}, key=str.encode)
    values = np.array([[columns[r.name].get(q, 0.0) for r in [*runs, fused]] for q in queries])
    best = np.argmax(values[:, :-1], axis=1) if len(queries) else np.zeros(0, int)
    entered, relevant = _entered(runs, fused, queries, best, qrels, depth)
    head = [
        "query", *[r.name for r in runs], fused.name, "gain over best run",
        f"new in top {depth}", f"new relevant in top {depth}",
    ]  # fmt: skip
    lines = ["\t".join(head)]
    for i, (q, v) in enumerate(zip(queries, values, strict=True)):
        gain = v[-1] - v[:-1].max()
        cells = [q, *[f"{x:.{digits}f}" for x in v], f"{gain:+.{digits}f}"]
        lines.append("\t".join([*cells, str(entered[i]), str(relevant[i])]))
    return "\n".join(lines) + "\n"


def _entered(runs, fused, queries: list[str], best: np.ndarray, qrels, depth: int):
    """Per query (in ``queries``' order): the fused run's top-``depth`` documents absent
    from the best run's top ``depth``, and how many of them are judged relevant."""
    import pyarrow.compute as pc

    def top(run) -> pa.Table:
        t = run.ranked()
        return t.filter(pc.less_equal(t["rank"], depth)).select(["query_id", "doc_id"])

    query_ids = pa.array(queries, pa.string())
    tops = []
    for r, run in enumerate(runs):  # a loop over runs: each gives the queries it is best on
        t = top(run)
        mine = query_ids.filter(pa.array(best == r))
        tops.append(t.filter(pc.is_in(t["query_id"].cast(pa.string()), value_set=mine)))
    best_top = pa.concat_tables([t.cast(tops[0].schema) for t in tops])
    fused_top = top(fused).cast(tops[0].schema)
    moved = fused_top.join(best_top, keys=["query_id", "doc_id"], join_type="left anti")
    judged = qrels.table.select(["query_id", "doc_id", qrels._value])
    judged = judged.cast(pa.schema([("query_id", pa.string()), ("doc_id", pa.string()),
                                    judged.schema.field(2)]))  # fmt: skip
    moved = moved.join(judged, keys=["query_id", "doc_id"], join_type="left outer")
    grade = arrays.numbers(pc.fill_null(moved[qrels._value], 0).combine_chunks())
    rows = arrays.numbers(pc.index_in(moved["query_id"], value_set=query_ids).combine_chunks())
    entered = np.bincount(rows, minlength=len(queries))
    relevant = np.bincount(rows, weights=(grade > 0).astype(float), minlength=len(queries))
    return entered.astype(np.int64), relevant.astype(np.int64)


def optimise_fusion(
    runs,
    qrels,
    method: str = "wsum",
    measure: str = "nDCG@10",
    norm: str | None = "min-max",
    *,
    search: str = "grid",
    step: float = 0.1,
    folds: int = 0,
    missing: str = "zero",
    topics: str = "same",
    seed: int | None = None,
    **params: Any,
) -> dict[str, Any]:
    """Choose a fusion's weights (weighted methods) or tunable parameter by ``measure``
    on the queries of the training ``qrels`` (docs/fusion.md, "Weight and parameter
    search"); the report holds ``weights`` or ``params`` (give them to
    :func:`cranfield.fuse`), the training value and, with ``folds``, each fold's
    held-out value and ``cv_test_mean``."""
    from .fuse import as_run_list

    listed = as_run_list(runs)
    plan = Plan(method, norm, None, missing, params, len(listed), tune=True)
    return optimise(
        listed,
        plan,
        qrels,
        measure,
        search=search,
        step=step,
        folds=folds,
        topics=topics,
        seed=seed,
    )
