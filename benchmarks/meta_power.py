"""Time discriminative power (``cranfield meta power``): 6 measures x 100 runs x 50 topics,
1,000 bootstrap resamples and 1,000 randomised Tukey HSD shuffles per measure.

Writes a per-query score table (run, query, one column per measure; scores drawn with
NumPy ``default_rng(seed)``: a run effect plus topic noise, clipped to [0, 1]) into
``benchmarks/data/meta/`` (ignored by git), then times the whole command as a process
(interpreter start, imports, reading, 4,950 pairs x 1,000 resamples x 6 measures for
each test, output), the best of ``--repeat`` runs:

    PYTHONPATH=src python benchmarks/meta_power.py --repeat 3
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MEASURES = ("AP", "nDCG@10", "P@10", "R@100", "RR", "Bpref")


def write_scores(path: Path, runs: int, topics: int, seed: int) -> None:
    import numpy as np

    rng = np.random.default_rng(seed)
    lines = ["run,query," + ",".join(MEASURES)]
    effect = rng.random(runs) * 0.3
    hardness = rng.random(topics) * 0.5
    cols = [
        np.clip(effect[:, None] + hardness[None, :] + rng.normal(0, 0.15, (runs, topics)), 0, 1)
        for _ in MEASURES
    ]
    for r in range(runs):
        for t in range(topics):
            lines.append(f"run{r:03d},q{t:03d}," + ",".join(repr(float(c[r, t])) for c in cols))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--topics", type=int, default=50)
    ap.add_argument("--samples", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    path = HERE / "data" / "meta" / f"scores-{args.runs}x{args.topics}.csv"
    if not path.exists():
        write_scores(path, args.runs, args.topics, args.seed)
    cmd = [
        sys.executable,
        "-m",
        "cranfield",
        "meta",
        "power",
        "--from-per-query",
        str(path),
        "--samples",
        str(args.samples),
        "-f",
        "json",
    ]
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=os.environ.copy())
        times.append(time.perf_counter() - start)
    print(
        f"meta power: {len(MEASURES)} measures x {args.runs} runs x {args.topics} topics, "
        f"{args.samples} samples, bootstrap + randomised Tukey HSD: best {min(times):.2f} s, "
        f"median {sorted(times)[len(times) // 2]:.2f} s of {args.repeat}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
