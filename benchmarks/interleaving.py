"""Time interleaving and the interleaving experiment harness.

    PYTHONPATH=src python benchmarks/interleaving.py [--impressions 200000] [--repeat 3]

Part 1: each method interleaves ``--impressions`` impressions of 10 positions drawn over
100 queries (ranking sets), each ranker with 100 candidate documents of 300, and
credits random clicks (20% of positions). Part 2: ``simulate_interleaving`` on a
synthetic collection of 50 queries (30 judged documents each, two runs of 100
documents), 1,000 impressions per query, PBM clicks from the qrels. Prints median
wall-clock and CPU seconds of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from cranfield.core.qrels import Qrels
from cranfield.core.run import Run
from cranfield.online.interleaving import METHODS, credit, interleave
from cranfield.online.simulation import simulate_interleaving


def timed(fn, repeat):
    walls, cpus = [], []
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
    return statistics.median(walls), statistics.median(cpus)


def collection(n_queries=50, seed=0):
    rng = np.random.default_rng(seed)
    qrels, a, b = {}, {}, {}
    for q in range(n_queries):
        docs = [f"d{q}_{i}" for i in range(150)]
        qrels[f"q{q}"] = {d: int(g) for d, g in zip(docs[:30], rng.integers(0, 4, 30), strict=True)}
        a[f"q{q}"] = {d: float(s) for d, s in zip(docs, rng.random(150), strict=True) if s > 0.33}
        b[f"q{q}"] = {d: float(s) for d, s in zip(docs, rng.random(150), strict=True) if s > 0.33}
    return Qrels.from_dict(qrels), Run.from_dict(a, name="a"), Run.from_dict(b, name="b")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--impressions", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    sets = np.argsort(rng.random((100, 2, 300)), axis=2)[:, :, :100]
    which = rng.integers(0, 100, args.impressions)
    print("| method | impressions | interleave (s, wall) | (s, CPU) | credit (s, wall) |")
    print("|---|---:|---:|---:|---:|")
    for method in METHODS:
        inter = interleave(method, sets, 10, which, seed=1)
        clicks = (rng.random(inter.docs.shape) < 0.2) & (inter.docs >= 0)
        wall, cpu = timed(lambda m=method: interleave(m, sets, 10, which, seed=1), args.repeat)
        cw, _ = timed(lambda i=inter, c=clicks: credit(i, c), args.repeat)
        print(f"| {method} | {args.impressions} | {wall:.2f} | {cpu:.2f} | {cw:.3f} |", flush=True)
    qrels, a, b = collection()
    simulate_interleaving([a, b], qrels, impressions=10, seed=1)  # imports, not timed
    print("\n| harness method | queries x impressions | wall (s) | CPU (s) |")
    print("|---|---:|---:|---:|")
    for method in METHODS:
        wall, cpu = timed(
            lambda m=method: simulate_interleaving([a, b], qrels, method=m, seed=1), args.repeat
        )
        print(f"| {method} | 50 x 1000 | {wall:.2f} | {cpu:.2f} |", flush=True)


if __name__ == "__main__":
    main()
