"""Time ``cranfield report`` against ``cranfield eval`` of the same runs and measures.

A shared task of N runs (50 topics, 1,000 documents per topic, TREC-like judgments,
``generate.make_collection``) is written into ``benchmarks/data/report-<N>/`` (ignored by
git); each command runs as a whole process (interpreter start, reading, evaluation,
output), best of ``--repeat`` for wall-clock time and for CPU time (user + system: on
a shared machine the wall clock also counts waiting for a core), and the report's size
is measured. Prints a markdown table::

    PYTHONPATH=src python benchmarks/report.py --runs 2 17 50 --repeat 3
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from generate import DATA, make_collection

MEASURES = ["AP", "nDCG@10", "P@10", "RR", "R@100", "bpref"]


def collection(n_runs: int, queries: int, depth: int) -> tuple[Path, list[Path]]:
    target = DATA / f"report-{n_runs}-{queries}x{depth}"
    runs = [target / f"run{i}.txt" for i in range(1, n_runs + 1)]
    if not all(p.exists() for p in runs):
        target.mkdir(parents=True, exist_ok=True)
        qrels, run_bytes = make_collection(queries, depth, runs=n_runs, seed=n_runs)
        (target / "qrels.txt").write_bytes(qrels)
        for path, data in zip(runs, run_bytes, strict=True):
            path.write_bytes(data)
    return target / "qrels.txt", runs


def best_time(argv: list[str], repeat: int) -> tuple[float, float]:
    """Best wall-clock time and best CPU time (user + system of the child) in seconds."""
    best_wall = best_cpu = float("inf")
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=os.environ.copy())
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best_wall, best_cpu = min(best_wall, wall), min(best_cpu, cpu)
    return best_wall, best_cpu


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, nargs="+", default=[2, 17, 50])
    p.add_argument("--queries", type=int, default=50)
    p.add_argument("--depth", type=int, default=1000)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args(argv)
    cli = [sys.executable, "-m", "cranfield"]
    print(
        "| runs | `eval` wall (s) | `report` wall (s) | difference wall (s) "
        "| `eval` CPU (s) | `report` CPU (s) | difference CPU (s) | report size (MB) |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in args.runs:
        qrels, runs = collection(n, args.queries, args.depth)
        files = [str(qrels), *map(str, runs)]
        e_wall, e_cpu = best_time([*cli, "eval", *files, "-m", *MEASURES], args.repeat)
        out = qrels.parent / "report.html"
        report = [*cli, "report", *files, "-m", *MEASURES, "-o", str(out)]
        r_wall, r_cpu = best_time(report, args.repeat)
        size = out.stat().st_size / 1e6
        print(
            f"| {n} | {e_wall:.2f} | {r_wall:.2f} | {r_wall - e_wall:.2f} "
            f"| {e_cpu:.2f} | {r_cpu:.2f} | {r_cpu - e_cpu:.2f} | {size:.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
