"""C/W/L evaluation: ``cranfield cwl`` against cwl_eval 1.0.12 (``cwl-eval``), both as
whole processes on the same files, with the same numbers.

    PYTHONPATH=src python benchmarks/cwl.py [--topics 20] [--depth 1000] [--repeat 3]
        [--metrics default|all] [--residuals] [--no-cwl-eval] [--out benchmarks/results/cwl.md]

The workload: ``--topics`` topics, each a ranking of ``--depth`` documents (scores
descending), with qrels judging about a third of them (gains 0, 0.25, 0.5 or 1),
written to a temporary directory (NumPy ``default_rng(7)``). ``--metrics default`` is
cwl_eval's 16 metrics (no metrics file); ``all`` every metric class cranfield reads.
Wall time is the best of ``--repeat`` runs for cranfield and one run of cwl_eval
(pure Python: about a second per topic at depth 1000). The two tables are compared as the tests
compare them (tests/cwl_measures/test_cwl_eval_oracle.py): the same rows, and every
number equal or one unit apart in the fourth decimal.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

ALL = [
    "PrecisionCWLMetric(10)",
    "RRCWLMetric()",
    "APCWLMetric()",
    "NDCGCWLMetric(10)",
    "RBPCWLMetric(0.8)",
    "INSTCWLMetric(1.0)",
    "INSQCWLMetric(1.0)",
    "NPVCWLMetric(0.1)",
    "SETCWLMetric(0.5,10)",
    "BPMCWLMetric(1.0,10)",
    "BPMDCWLMetric(1,10,1.0,1.0,0.5)",
    "TBGCWLMetric(224)",
    "UMeasureCWLMetric(1000)",
    "NERReq8CWLMetric(10)",
    "NERReq9CWLMetric(10)",
    "NERReq10CWLMetric(0.9)",
    "NERReq11CWLMetric(1.0)",
]


def write(tmp: str, topics: int, depth: int, metrics: str) -> dict[str, str]:
    rng = np.random.default_rng(7)
    run, qrels = [], []
    for t in range(1, topics + 1):
        docs = rng.permutation(depth * 2)[:depth]
        for r, d in enumerate(docs, 1):
            run.append(f"{t} Q0 D{d} {r} {depth - r} bench\n")
        for d in docs[rng.random(depth) < 0.33]:
            qrels.append(f"{t} 0 D{d} {rng.choice([0, 0.25, 0.5, 1.0])}\n")
    paths = {k: os.path.join(tmp, f"{k}.txt") for k in ("run", "qrels", "metrics")}
    for key, lines in (("run", run), ("qrels", qrels), ("metrics", [m + "\n" for m in ALL])):
        with open(paths[key], "w") as fh:
            fh.writelines(lines)
    if metrics == "default":
        del paths["metrics"]
    return paths


def timed(argv: list[str], cwd: str) -> tuple[float, str]:
    """Wall time and standard output of one process (run in ``cwd``: cwl_eval writes
    its log file, cwl.log, into the working directory)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        os.path.abspath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p
    )
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, cwd=cwd, env=env)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"{argv[1:4]} failed: {proc.stderr.decode()[-500:]}")
    return wall, proc.stdout.decode()


def same(ours: str, theirs: str) -> bool:
    a, b = ours.splitlines(), theirs.splitlines()
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        xs, ys = x.split("\t"), y.split("\t")
        if xs[:2] != ys[:2] or len(xs) != len(ys):
            return False
        for u, v in zip(xs[2:], ys[2:], strict=True):
            if u != v and {u, v} != {"0.0000", "-0.0000"} and abs(float(u) - float(v)) > 1.0001e-4:
                return False
    return True


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--topics", type=int, default=20)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--metrics", choices=("default", "all"), default="default")
    ap.add_argument("--residuals", action="store_true")
    ap.add_argument(
        "--no-cwl-eval",
        action="store_true",
        help="time cranfield only (cwl_eval needs about half a second per topic)",
    )
    ap.add_argument("--out")
    args = ap.parse_args()
    cwl_eval = shutil.which("cwl-eval") or os.path.join(os.path.dirname(sys.executable), "cwl-eval")
    with tempfile.TemporaryDirectory() as tmp:
        paths = write(tmp, args.topics, args.depth, args.metrics)
        extra = ["-r"] if args.residuals else []
        metrics = ["-m", paths["metrics"]] if "metrics" in paths else []
        ours_argv = [sys.executable, "-m", "cranfield", "cwl", paths["qrels"], paths["run"]]
        theirs_argv = [sys.executable, cwl_eval, paths["qrels"], paths["run"]]
        runs = [timed(ours_argv + metrics + extra, tmp) for _ in range(args.repeat)]
        ours_wall = min(r[0] for r in runs)
        if args.no_cwl_eval:
            theirs_wall, theirs_out, agree = float("nan"), "", True
        else:
            theirs_wall, theirs_out = timed(theirs_argv + metrics + extra, tmp)
            agree = same(runs[0][1], theirs_out)
    rows = [
        "| tool | wall (s) | rows | same numbers |",
        "|---|---:|---:|---|",
        f"| cranfield cwl | {ours_wall:.3f} | {len(runs[0][1].splitlines())} | - |",
    ]
    if not args.no_cwl_eval:
        rows.append(
            f"| cwl_eval 1.0.12 | {theirs_wall:.3f} | {len(theirs_out.splitlines())} | "
            f"{'yes' if agree else 'NO'} |"
        )
    text = (
        f"C/W/L evaluation, {args.topics} topics x {args.depth} documents, metrics "
        f"{args.metrics}{', residuals' if args.residuals else ''}"
        + ("" if args.no_cwl_eval else f": cranfield {theirs_wall / ours_wall:.0f}x faster")
        + "\n\n"
        + "\n".join(rows)
        + "\n"
    )
    print(text)
    if args.out:
        with open(args.out, "a") as fh:
            fh.write(text + "\n")
    if not agree:
        sys.exit("the tables differ")


if __name__ == "__main__":
    main()
