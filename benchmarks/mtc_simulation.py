"""MTC for the ranking of all runs by MAP (Carterette, Allan & Sitaraman 2006; Carterette
2007), simulated with complete judgments: is the sign of every significantly different
run pair's MAP difference decided correctly, and with what share of the pool judged?

Collections:

* ``generated``: T topics of 200 documents, 10% relevant; R runs of depth D whose
  relevance signal ``s`` is spread over [0, 2] (a run ranks by ``s * rel + U(0, 1)``).
  "Complete judgments": the relevances of the depth-D pool; AP uses the relevant pooled
  documents as R.
* ``demo``: the bundled sample collection (``cranfield demo --dir DIR``: 4 runs, 40
  topics); the truth is its qrels (unjudged = non-relevant) and AP its depth-D AP with R
  all relevant documents of the qrels, as trec_eval computes it.

MTC (``cranfield.pooling.mtc.MapJudging``) judges the pooled (topic, document) of
largest weight, one at a time, until every pair's sign-change probability is below
``--stop`` or ``--budget`` (a share of the pool) is spent; the decision is then the
sign of the expected MAP difference. ``--prior ranks`` refits
``mtc.rank_prior`` (a logistic regression of relevance on the runs' AP-prior) to the
judgments so far after every 5% of the pool. A pair counts when it is significantly
different under complete judgments (paired t-test, p < 0.05, SciPy); also shown: of
all the pairs MTC calls decided, how many have the sign of complete judgments (its
claim is >= 1 - stop of them; a pair the runs tie exactly under complete judgments
is never right, and is counted apart). For comparison:
depth-k pooling with at least as many judgments (unjudged = non-relevant).

Usage: PYTHONPATH=src python benchmarks/mtc_simulation.py [--collection generated|demo]
       [--topics 25] [--runs 6] [--depth 50] [--seeds 1-5] [--prior uniform|ranks]
       [--budget 0.2] [--stop 0.05] [--demo-dir DIR]
"""

from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path

import numpy as np
from scipy import stats

from cranfield.pooling import mtc


def _ap(runs, truth, r_total):
    """AP of each run (ranked local ids) with R = ``r_total`` (trec_eval's definition)."""
    out = []
    for run in runs:
        rel = truth[run]
        hits = np.cumsum(rel)
        ranks = np.arange(1, len(run) + 1)
        out.append(float((rel * hits / ranks).sum() / max(r_total, 1)))
    return out


def pooled(truth, runs):
    """A topic's runs as positions in its pool, the pool's relevance, R (the relevant
    documents the pool holds)."""
    pool = np.unique(np.concatenate(runs))
    remap = np.full(len(truth), -1)
    remap[pool] = np.arange(len(pool))
    local = truth[pool]
    return [remap[r] for r in runs], local, int(local.sum())


def generated(n_topics, n_runs, depth, seed):
    rng = np.random.default_rng(seed)
    topics = []
    for _ in range(n_topics):
        n = 200
        truth = (rng.random(n) < 0.1).astype(int)
        signal = np.linspace(0.0, 2.0, n_runs)
        runs = [np.argsort(-(truth * s + rng.random(n)))[:depth] for s in signal]
        topics.append(pooled(truth, runs))
    return topics


def realistic(n_topics, n_runs, depth, seed):
    """Harder: 1000 documents a topic, 1-6% relevant, a retrieval signal every run shares
    (documents that look relevant to one system look so to all), topic difficulty, and a
    run quality that varies from topic to topic around the run's mean (quality means
    0.2 apart at most between neighbours, so many pairs are close)."""
    rng = np.random.default_rng(seed)
    quality = np.sort(rng.uniform(0.5, 2.0, n_runs))
    topics = []
    for _ in range(n_topics):
        n = 1000
        truth = (rng.random(n) < rng.uniform(0.01, 0.06)).astype(int)
        truth[rng.integers(n)] = 1
        shared = truth * rng.uniform(0.0, 1.5) + rng.normal(0.0, 1.0, n)
        runs = []
        for q in quality:
            q_t = max(q + rng.normal(0.0, 0.5), 0.0)
            score = shared + truth * q_t + rng.normal(0.0, 1.0, n)
            runs.append(np.argsort(-score)[:depth])
        topics.append(pooled(truth, runs))
    return topics


def demo(directory, depth):
    names = ["bm25", "dense", "hybrid", "random"]
    return on_disk(f"{directory}/qrels.txt", [f"{directory}/{n}.txt" for n in names], depth)


def on_disk(qrels_path, run_paths, depth):
    """Topics of a collection in files (a TREC track's qrels and runs): a pooled pair the
    qrels do not judge counts as non-relevant, as trec_eval counts it."""
    from cranfield.core.qrels import Qrels
    from cranfield.pooling.files import read_runs
    from cranfield.pooling.mtc_order import build_state

    runs = read_runs(run_paths)
    qrels = Qrels.read(qrels_path)
    state, cands, ukeys, first = build_state(runs, None, depth=depth)
    # the truth of every pooled pair from the qrels (absent: non-relevant)
    from cranfield.pooling.candidates import pair_keys

    t = qrels.table
    keys, known = pair_keys(cands, t["query_id"], t["doc_id"])
    grade = np.asarray(t["relevance"].to_numpy(zero_copy_only=False))[known]
    truth_flat = np.zeros(len(ukeys), dtype=int)
    pos = np.searchsorted(ukeys, keys)
    inside = (pos < len(ukeys)) & (ukeys[np.minimum(pos, len(ukeys) - 1)] == keys)
    truth_flat[pos[inside]] = grade[inside] > 0
    qid = np.asarray(t["query_id"].to_numpy(zero_copy_only=False)).astype(str)
    rel_all = {q: int(((qid == q) & (np.asarray(t["relevance"]) > 0)).sum()) for q in set(qid)}
    topics = []
    for ti in range(len(state.sizes)):  # a benchmark, not a hot path: a loop per topic
        n = int(state.sizes[ti])
        truth = truth_flat[first[ti] : first[ti] + n]
        ranks = state.ranks[ti, :, :n]
        runs_t = [
            np.argsort(np.where(np.isfinite(r), r, np.inf))[: int(np.isfinite(r).sum())]
            for r in ranks
        ]
        query = cands.queries[int(ukeys[first[ti]] // max(len(cands.docs), 1))].as_py()
        topics.append((runs_t, truth, rel_all.get(query, 0)))
    return topics


def simulate(topics, prior, budget, stop):
    state = mtc.MapJudging([r for r, _, _ in topics], [len(t) for _, t, _ in topics])
    pooled = int(state.sizes.sum())
    limit, refit_every, judged = int(budget * pooled), max(1, pooled // 20), 0
    while True:
        if prior == "ranks" and judged % refit_every == 0 and judged:
            fitted = mtc.rank_prior(state.ranks, state.judged)
            if fitted is not None:
                state = state.with_prior(fitted)
        means, var = state.moments()
        risks = mtc.sign_change_probabilities(means, var)
        open_ = risks >= stop
        if not open_.any() or judged >= limit:
            return judged, pooled, means, risks
        state.set_open(open_)
        t, doc = state.next_judgment()
        if t < 0:
            return judged, pooled, means, risks
        state.judge(t, doc, int(topics[t][1][doc]))
        judged += 1


def depth_pooling(topics, judged):
    depth, spent = 0, 0
    deepest = max(len(r) for runs, _, _ in topics for r in runs)
    while spent < judged and depth < deepest:
        depth += 1
        spent = sum(
            len(np.unique(np.concatenate([r[:depth] for r in runs]))) for runs, _, _ in topics
        )
    maps = []
    for runs, truth, _ in topics:
        seen = np.zeros(len(truth))
        seen[np.unique(np.concatenate([r[:depth] for r in runs]))] = 1
        maps.append(_ap(runs, truth * seen, int((truth * seen).sum())))
    return depth, spent, np.array(maps).mean(axis=0)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--collection", choices=["generated", "realistic", "demo"], default="generated")
    p.add_argument("--topics", type=int, default=25)
    p.add_argument("--runs", type=int, default=6)
    p.add_argument("--depth", type=int, default=50)
    p.add_argument("--seeds", default="1-5")
    p.add_argument("--prior", choices=["uniform", "ranks"], default="uniform")
    p.add_argument("--budget", type=float, default=1.0, help="share of the pool (default 1)")
    p.add_argument("--stop", type=float, default=0.05)
    p.add_argument("--demo-dir", default="sample-collection")
    p.add_argument(
        "--dir",
        help="a collection on disk instead: DIR/qrels.txt and every file of DIR/runs/ "
        "(e.g. a TREC track's qrels and submitted runs)",
    )
    args = p.parse_args()
    lo, _, hi = args.seeds.partition("-")
    on_file = args.collection == "demo" or args.dir
    seeds = range(int(lo), int(hi or lo) + 1) if not on_file else [0]
    totals = np.zeros(8)
    for seed in seeds:
        if args.dir:
            runs = sorted(str(path) for path in Path(args.dir, "runs").iterdir())
            topics = on_disk(f"{args.dir}/qrels.txt", runs, args.depth)
        elif args.collection == "demo":
            topics = demo(args.demo_dir, args.depth)
        else:
            make = generated if args.collection == "generated" else realistic
            topics = make(args.topics, args.runs, args.depth, seed)
        start = time.perf_counter()
        judged, pooled, means, risks = simulate(topics, args.prior, args.budget, args.stop)
        seconds = time.perf_counter() - start
        full = np.array([_ap(runs, t, r) for runs, t, r in topics])
        depth, spent, shallow = depth_pooling(topics, judged)
        n_runs = full.shape[1]
        sig = ok = ok_depth = decided = decided_ok = ties = 0
        for index, (a, b) in enumerate(itertools.combinations(range(n_runs), 2)):
            diff = full[:, a] - full[:, b]
            if risks[index] < args.stop:  # MTC's own claim: right with >= 1 - stop?
                decided += 1
                decided_ok += np.sign(means[index]) == np.sign(diff.mean())
                ties += diff.mean() == 0.0
            if np.any(diff != 0) and stats.ttest_rel(full[:, a], full[:, b]).pvalue < 0.05:
                sign = np.sign(diff.mean())
                sig += 1
                ok += np.sign(means[index]) == sign
                ok_depth += np.sign(shallow[a] - shallow[b]) == sign
        totals += (sig, ok, judged, pooled, ok_depth, decided, decided_ok, ties)
        print(
            f"seed {seed}: MTC {ok}/{sig} significant pairs correct with {judged}/{pooled} "
            f"= {judged / pooled:.3f} of the pool judged ({seconds:.1f} s); "
            f"depth-{depth} pooling ({spent / pooled:.3f}): {ok_depth}/{sig}; "
            f"pairs MTC calls decided: {decided_ok}/{decided} right ({ties} exact ties)"
        )
    sig, ok, judged, pooled, ok_depth, decided, decided_ok, ties = totals
    print(
        f"all: MTC {ok:.0f}/{sig:.0f} = {ok / max(sig, 1):.3f} correct with "
        f"{judged / pooled:.3f} judged; depth pooling {ok_depth:.0f}/{sig:.0f}; "
        f"decided pairs right {decided_ok:.0f}/{decided:.0f} ({ties:.0f} exact ties)"
    )


if __name__ == "__main__":
    main()
