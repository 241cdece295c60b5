"""Time ``cranfield pool --depth 100`` on 100 runs x 50 topics x 1,000 documents.

Generates deterministic runs (NumPy ``default_rng(seed)``) into
``benchmarks/data/pooling/`` (ignored by git): every topic has a universe of 4,000
document ids; each run retrieves 1,000 of them with scores drawn so that runs share
their top documents partly, and writes them ranked, as systems do (5,000,000 lines in
all). Then times, each as a whole process (interpreter start, imports, reading, pooling,
writing), the best of ``--repeat`` runs:

* ``cranfield pool RUN... --depth 100 -o pool.txt``;
* ``cranfield pool reuse QRELS RUN... --depth 100 -m AP Bpref infAP P@10 nDCG@10``:
  leave-one-group-out over 25 groups of 4 runs, on qrels that judge the depth-100 pool
  (about 30% of the pooled documents relevant, drawn with ``default_rng(seed)``);
* trectools' ``TrecPoolMaker().make_pool(runs, strategy="topX", topX=100)`` with the
  runs read by ``TrecRun`` (if trectools is installed), once;

and compares the two pools: they differ only where documents tie in score at the
cutoff (trec_eval's order, which cranfield follows, breaks ties by doc id descending;
trectools sorts by doc id ascending).

    PYTHONPATH=src python benchmarks/pooling.py --repeat 5
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
DATA = ROOT / "data" / "pooling"

TRECTOOLS = """
import sys
from trectools import TrecPoolMaker, TrecRun
runs = [TrecRun(p) for p in sys.argv[2:]]
pool = TrecPoolMaker().make_pool(runs, strategy="topX", topX=100)
with open(sys.argv[1], "w") as fh:
    for topic in sorted(pool.pool, key=str):
        for doc in sorted(pool.pool[topic]):
            fh.write(f"{topic} {doc}\\n")
"""


def generate(n_runs: int, n_topics: int, n_docs: int, seed: int = 0) -> list[Path]:
    DATA.mkdir(parents=True, exist_ok=True)
    universe = 4 * n_docs
    rng = np.random.default_rng(seed)
    # a shared "true" quality per document, so runs agree partly on their top documents
    quality = rng.normal(size=(n_topics, universe))
    paths = []
    for i in range(n_runs):
        path = DATA / f"run{i + 1:03d}.txt"
        paths.append(path)
        if path.exists():
            continue
        noise = rng.normal(scale=1.5, size=(n_topics, universe))
        scores = quality + noise
        top = np.argsort(-scores, axis=1)[:, :n_docs]
        s = np.round(np.take_along_axis(scores, top, axis=1), 4)
        lines = []
        for t in range(n_topics):  # writing the file, not the timed work
            q = str(401 + t)
            lines.extend(
                f"{q} Q0 D{t:03d}-{d:05d} {r + 1} {v:.4f} sys{i + 1:03d}\n"
                for r, (d, v) in enumerate(zip(top[t], s[t], strict=True))
            )
        path.write_text("".join(lines))
    return paths


def best_of(cmd: list[str], repeat: int) -> list[tuple[float, float]]:
    """(wall seconds, CPU seconds of the child: user + sys) of each run."""
    import resource

    times = []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(cmd, check=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        times.append((wall, cpu))
    return times


def show(label: str, times: list[tuple[float, float]]) -> None:
    wall, cpu = min(times)
    runs = ", ".join(f"{w:.2f}" for w, _ in times)
    print(f"{label}: best {wall:.2f} s wall ({cpu:.2f} s CPU) of {len(times)} [{runs}]")


def read_pairs(path: Path) -> set[tuple[str, str]]:
    with open(path) as fh:
        return {tuple(line.split()) for line in fh if line.strip()}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=100)
    p.add_argument("--topics", type=int, default=50)
    p.add_argument("--docs", type=int, default=1000)
    p.add_argument("--depth", type=int, default=100)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--no-trectools", action="store_true")
    args = p.parse_args(argv)
    paths = [str(x) for x in generate(args.runs, args.topics, args.docs)]
    print(f"{len(paths)} runs x {args.topics} topics x {args.docs} documents, depth {args.depth}")
    out = DATA / "pool-cranfield.txt"
    cmd = [sys.executable, "-m", "cranfield", "pool", *paths, "--depth", str(args.depth)]
    show("cranfield pool", best_of([*cmd, "-o", str(out)], args.repeat))
    qrels, groups = judge_pool(out, len(paths))
    reuse = [sys.executable, "-m", "cranfield", "pool", "reuse", str(qrels), *paths]
    reuse += ["--depth", str(args.depth), "--groups", str(groups), "-o", str(DATA / "reuse.txt")]
    reuse += ["-m", "AP", "Bpref", "infAP", "P@10", "nDCG@10"]
    show("cranfield pool reuse (25 groups, 5 measures)", best_of(reuse, args.repeat))
    if args.no_trectools:
        return
    try:
        import trectools  # noqa: F401
    except ImportError:
        print("trectools: not installed, not measured")
        return
    theirs = DATA / "pool-trectools.txt"
    show(
        "trectools TrecPoolMaker (topX=100)",
        best_of([sys.executable, "-c", TRECTOOLS, str(theirs), *paths], 1),
    )
    mine, other = read_pairs(out), read_pairs(theirs)
    differ = mine ^ other
    print(f"pairs: cranfield {len(mine)}, trectools {len(other)}, in one only {len(differ)}")
    if differ:
        explained = tied_at_cutoff(paths, differ, args.depth)
        print(
            f"of those, {explained} are documents tied in score with the document at rank "
            f"{args.depth} of some run (trec_eval breaks ties by doc id descending, "
            "trectools by doc id ascending)"
        )


def judge_pool(pool: Path, n_runs: int, seed: int = 1) -> tuple[Path, Path]:
    """Qrels judging every pooled pair (grade 1 with probability 0.3, else 0) and a
    groups file putting runs ``sys001..sys004`` in group 1, and so on."""
    pairs = sorted(read_pairs(pool))
    grades = np.random.default_rng(seed).random(len(pairs)) < 0.3
    qrels = DATA / "qrels-pool.txt"
    qrels.write_text(
        "".join(f"{q} 0 {d} {int(g)}\n" for (q, d), g in zip(pairs, grades, strict=True))
    )
    groups = DATA / "groups.tsv"
    groups.write_text("".join(f"sys{i + 1:03d}\tgroup{i // 4 + 1:02d}\n" for i in range(n_runs)))
    return qrels, groups


def tied_at_cutoff(paths: list[str], pairs: set, k: int) -> int:
    """How many of ``pairs`` some run scores equal to its k-th document of the topic
    (the files are written ranked, so line ranks are the files' ranks)."""
    topics = {q for q, _ in pairs}
    explained = set()
    for path in paths:
        scores: dict[str, dict[str, str]] = {}
        kth: dict[str, str] = {}
        with open(path) as fh:
            for line in fh:
                q, _, d, r, s, _ = line.split()
                if q in topics:
                    scores.setdefault(q, {})[d] = s
                    if int(r) == k:
                        kth[q] = s
        for q, d in pairs:
            if q in kth and scores[q].get(d) == kth[q]:
                explained.add((q, d))
    return len(explained)


if __name__ == "__main__":
    main()
