"""Time ``cranfield report`` against ``cranfield eval`` of the same runs and measures.

A shared task of N runs (50 topics, 1,000 documents per topic, TREC-like judgments,
``generate.make_collection``) is written into ``benchmarks/data/report-<N>/`` (ignored by
git); each command runs as a whole process (interpreter start, reading, evaluation,
output), best of ``--repeat``, and the report's size is measured. Prints a markdown
table::

    PYTHONPATH=src python benchmarks/report.py --runs 2 17 50 --repeat 3
"""

from __future__ import annotations

import argparse
import os
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


def best_time(argv: list[str], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=os.environ.copy())
        best = min(best, time.perf_counter() - start)
    return best


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, nargs="+", default=[2, 17, 50])
    p.add_argument("--queries", type=int, default=50)
    p.add_argument("--depth", type=int, default=1000)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args(argv)
    cli = [sys.executable, "-m", "cranfield"]
    print(
        "| runs | `cranfield eval` (s) | `cranfield report` (s) | difference (s) | report size (MB) |"
    )
    print("|---:|---:|---:|---:|---:|")
    for n in args.runs:
        qrels, runs = collection(n, args.queries, args.depth)
        files = [str(qrels), *map(str, runs)]
        t_eval = best_time([*cli, "eval", *files, "-m", *MEASURES], args.repeat)
        out = qrels.parent / "report.html"
        t_report = best_time([*cli, "report", *files, "-m", *MEASURES, "-o", str(out)], args.repeat)
        size = out.stat().st_size / 1e6
        print(f"| {n} | {t_eval:.2f} | {t_report:.2f} | {t_report - t_eval:.2f} | {size:.2f} |")


if __name__ == "__main__":
    main()
