"""MTC on a generated collection with complete judgments (Carterette et al. 2006).

Per topic: 6 runs of 50 documents over a 200-document collection; MTC judges until every
run pair's AP-difference sign-change probability is below 0.05. Reports the share of
pairs whose decided sign equals the sign under complete judgments, and the share of the
union pool that was judged.
Usage: PYTHONPATH=src python benchmarks/mtc_simulation.py [topics] [prior]
"""

import itertools
import sys

import numpy as np

from cranfield.pooling import mtc

PRIOR = float(sys.argv[2]) if len(sys.argv) > 2 else 0.5


def main(topics: int = 20, seed: int = 1) -> None:
    rng = np.random.default_rng(seed)
    correct = pairs = judged = pooled = 0
    for _ in range(topics):
        n = 200
        truth = (rng.random(n) < 0.1).astype(int)
        skill = rng.uniform(0.0, 2.0, size=6)
        runs = [np.argsort(-(truth * s + rng.random(n)))[:50] for s in skill]
        pool = np.unique(np.concatenate(runs))
        remap = np.full(n, -1)
        remap[pool] = np.arange(len(pool))
        local = [remap[r] for r in runs]
        order, means, _ = mtc.rank_runs(local, truth[pool], prior=PRIOR)
        full = truth[pool].astype(float)
        for index, (a, b) in enumerate(itertools.combinations(range(6), 2)):
            real, _ = mtc.moments(mtc.coefficients(local[a], local[b], len(pool)), full)
            if real != 0:
                pairs += 1
                correct += np.sign(means[index]) == np.sign(real)
        judged += len(order)
        pooled += len(pool)
    print(f"pairs decided correctly: {correct}/{pairs} = {correct / pairs:.3f}")
    print(f"judged: {judged}/{pooled} = {judged / pooled:.3f} of the depth-50 pool")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
