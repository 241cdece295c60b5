"""Rank fusion: ``cranfield fuse`` against ranx (numba, warm), end to end, as processes.

Three tasks on runs of ``--queries`` x 100 documents (``generate.py``, dense profile):
CombMNZ (min-max) and RRF of 5 runs written to a TREC file, and a grid search of the
weights of 3 runs (wsum, min-max, step 0.1: 66 weight vectors) on nDCG@10 followed by
the fused run. Each tool reads the files, fuses and writes the fused run; ranx is run
once untimed first so that numba's cache is warm. Wall time is the best of
``--repeat`` runs; peak memory the largest resident set of the process.

    PYTHONPATH=src python benchmarks/fusion.py --queries 10000 --repeat 3
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import generate  # noqa: E402

RANX = """
import sys
from ranx import Qrels, Run, fuse, optimize_fusion
task, out, qrels, *paths = sys.argv[1:]
runs = [Run.from_file(p, kind="trec") for p in paths]
if task == "grid":
    q = Qrels.from_file(qrels, kind="trec")
    best = optimize_fusion(q, runs, norm="min-max", method="wsum", metric="ndcg@10",
                           step=0.1, show_progress=False)
    fused = fuse(runs, norm="min-max", method="wsum", params=best)
else:
    fused = fuse(runs, norm="min-max" if task == "combmnz" else None,
                 method="mnz" if task == "combmnz" else "rrf")
fused.save(out, kind="trec")
"""


def command(tool: str, task: str, data: Path, out: str) -> list[str]:
    runs = [str(data / f"run{i}.txt") for i in range(1, 6 if task != "grid" else 4)]
    qrels = str(data / "qrels.txt")
    if tool == "ranx":
        return [sys.executable, "-c", RANX, task, out, qrels, *runs]
    base = [sys.executable, "-m", "cranfield", "fuse", *runs, "-o", out]
    if task == "grid":
        return [*base, "--method", "wsum", "--optimise", "nDCG@10", "--qrels", qrels]
    return [*base, "--method", task]


def timed(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, peak RSS of the children in MB)."""
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return wall, peak


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--queries", type=int, default=10_000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--tasks", nargs="+", default=["combmnz", "rrf", "grid"])
    p.add_argument("--no-ranx", action="store_true")
    a = p.parse_args(argv)
    data = generate(f"fusion-{a.queries}x100", a.queries, 100, runs=5)
    env_note = os.environ.get("PYTHONPATH", "")
    print(f"runs: 5 x {a.queries * 100:,} lines ({data}); PYTHONPATH={env_note}")
    print("| task | cranfield (s) | ranx (s) | speed-up |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for task in a.tasks:
            times = {}
            for tool in ["cranfield"] + ([] if a.no_ranx else ["ranx"]):
                out = str(Path(tmp) / f"{tool}-{task}.txt")
                cmd = command(tool, task, data, out)
                if tool == "ranx":
                    timed(cmd)  # numba's cache warm
                times[tool] = min(timed(cmd)[0] for _ in range(a.repeat))
            ranx = times.get("ranx")
            speed = f"{ranx / times['cranfield']:.1f}x" if ranx else "-"
            shown = f"{ranx:.2f}" if ranx else "not run"
            print(f"| {task} | {times['cranfield']:.2f} | {shown} | {speed} |", flush=True)


if __name__ == "__main__":
    main()
