"""Time ``cranfield pool mtc`` (a judging order by minimal test collections) on generated
runs: T topics x R runs x depth D over 1000 documents a topic (5% relevant), half the
pool judged in ``--qrels`` for the continuation; and the library's full simulation
(``mtc.rank_runs_map``: judging one document at a time until every pair is decided).

Usage: PYTHONPATH=src python benchmarks/mtc_plan.py [topics] [runs] [depth]
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from cranfield.pooling import mtc


def main(n_topics: int = 50, n_runs: int = 20, depth: int = 100) -> None:
    rng = np.random.default_rng(1)
    topics, lines, qrels = [], [[] for _ in range(n_runs)], []
    for t in range(n_topics):
        truth = (rng.random(1000) < 0.05).astype(int)
        runs = [
            np.argsort(-(truth * s + rng.random(1000)))[:depth] for s in rng.uniform(0, 2, n_runs)
        ]
        for a, run in enumerate(runs):
            lines[a] += [f"{t} Q0 d{d} {r + 1} {depth - r} run{a}" for r, d in enumerate(run)]
        pool = np.unique(np.concatenate(runs))
        qrels += [f"{t} 0 d{d} {truth[d]}" for d in pool[: len(pool) // 2]]
        remap = np.full(1000, -1)
        remap[pool] = np.arange(len(pool))
        topics.append(([remap[r] for r in runs], truth[pool]))
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for a, ls in enumerate(lines):
            paths.append(os.path.join(tmp, f"run{a}.txt"))
            with open(paths[-1], "w") as f:
                f.write("\n".join(ls) + "\n")
        with open(os.path.join(tmp, "qrels"), "w") as f:
            f.write("\n".join(qrels) + "\n")
        for extra in ([], ["--qrels", os.path.join(tmp, "qrels")]):
            start = time.perf_counter()
            cmd = [sys.executable, "-m", "cranfield", "pool", "mtc", *paths, "-k", str(depth)]
            done = subprocess.run(
                [*cmd, *extra, "-o", os.path.join(tmp, "order")], capture_output=True, text=True
            )
            took = time.perf_counter() - start
            print(
                f"pool mtc {' '.join(extra[:1]) or '(no judgments)'}: {took:.1f} s; {done.stderr.strip()}"
            )
    start = time.perf_counter()
    judged, _, _ = mtc.rank_runs_map(topics)
    print(
        f"rank_runs_map: {judged} judgments of {sum(len(t) for _, t in topics)} in {time.perf_counter() - start:.1f} s"
    )


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:4]))
