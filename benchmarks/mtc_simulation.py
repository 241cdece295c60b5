"""MTC on a generated collection with complete judgments (Carterette et al. 2006).

25 topics, 6 runs of 50 documents over 200 documents per topic, 10% relevant. MTC
(``rank_runs_map``) judges until every run pair's MAP-difference sign-change probability
is below 0.05. Among the pairs significantly different under complete judgments (paired
t-test, p < 0.05, SciPy), it reports the share MTC orders correctly and the share of the
depth-50 pool judged; depth-k pooling with at least as many judgments (unjudged =
non-relevant) is shown for comparison.
Usage: PYTHONPATH=src python benchmarks/mtc_simulation.py [topics] [seed]
"""

import itertools
import sys

import numpy as np
from scipy import stats

from cranfield.pooling import mtc


def _ap(runs, truth):
    return [
        mtc.moments(mtc.coefficients(r, r[:0], len(truth)), truth)[0] / max(truth.sum(), 1)
        for r in runs
    ]


def main(n_topics: int = 25, seed: int = 1) -> None:
    rng = np.random.default_rng(seed)
    topics = []
    for _ in range(n_topics):
        n = 200
        truth = (rng.random(n) < 0.1).astype(int)
        runs = [np.argsort(-(truth * s + rng.random(n)))[:50] for s in np.linspace(0.0, 2.0, 6)]
        pool = np.unique(np.concatenate(runs))
        remap = np.full(n, -1)
        remap[pool] = np.arange(len(pool))
        topics.append(([remap[r] for r in runs], truth[pool]))
    judged, means, _ = mtc.rank_runs_map(topics)
    full = np.array([_ap(runs, t.astype(float)) for runs, t in topics])
    pooled = sum(len(t) for _, t in topics)
    depth, depth_judged = 0, 0
    while depth_judged < judged:
        depth += 1
        depth_judged = sum(
            len(np.unique(np.concatenate([r[:depth] for r in runs]))) for runs, _ in topics
        )
    shallow = []
    for runs, t in topics:
        seen = np.zeros(len(t))
        seen[np.unique(np.concatenate([r[:depth] for r in runs]))] = 1
        shallow.append(_ap(runs, t * seen))
    shallow = np.array(shallow)
    sig = ok_mtc = ok_depth = 0
    for index, (a, b) in enumerate(itertools.combinations(range(6), 2)):
        if stats.ttest_rel(full[:, a], full[:, b]).pvalue < 0.05:
            sign = np.sign(full[:, a].mean() - full[:, b].mean())
            sig += 1
            ok_mtc += np.sign(means[index]) == sign
            ok_depth += np.sign(shallow[:, a].mean() - shallow[:, b].mean()) == sign
    print(
        f"MTC: {ok_mtc}/{sig} significant pairs correct with {judged}/{pooled} = {judged / pooled:.3f} judged"
    )
    print(
        f"depth-{depth}: {ok_depth}/{sig} correct with {depth_judged}/{pooled} = {depth_judged / pooled:.3f}"
    )


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
