"""Time every click model on a simulated log of 1M sessions x 10 ranks.

    PYTHONPATH=src python benchmarks/clicks.py [--sessions 1000000] [--queries 20000]
        [--models gctr,...] [--max-iter 100] [--repeat 3] [--read tsv,jsonl,...]

The log: ``--queries`` queries with Zipf-like frequencies (exponent 1.1), each with 12
candidate documents whose top 10 are shown, in a fixed order for 80% of the sessions
and with two adjacent results swapped for the rest (rankers change little between
impressions); clicks drawn from a DBN with graded attractiveness, satisfaction = the
same values, gamma = 0.9 and no position bias beyond the cascade. Prints one markdown
row per model: fit seconds (wall clock, after the log is built), EM iterations, peak
resident memory increase, training log-likelihood per session and rank. With
``--repeat N`` every model is fitted N times and the median wall-clock and CPU seconds
are printed (CPU time is the process's own: on a shared machine wall-clock time also
counts the waits for a core).

With ``--read KINDS`` the log is first written to a temporary file in each kind and read
back with :func:`cranfield.clicks.read_log`, best of ``--repeat`` (wall and CPU seconds,
peak resident memory), then the models are fitted on what was read (checked equal to the
simulated log). A kind is a format (tsv, csv, jsonl, pyclick, yandex, parquet, arrow:
an Arrow IPC file of record batches of 65,536 rows, Feather's default), ``.gz`` after it
for the file gzip-compressed (level 6), ``-`` before it for the file read from standard
input: ``tsv,tsv.gz,-tsv.gz,arrow``.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from cranfield.clicks import NAMES, fit, read_log
from cranfield.clicks.fitted import FittedClickModel
from cranfield.clicks.log import ClickLog
from cranfield.clicks.models import Params
from cranfield.clicks.simulate import simulate


def make_log(n: int, n_queries: int, seed: int = 0) -> ClickLog:
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, n_queries + 1) ** 1.1
    query = rng.choice(n_queries, size=n, p=weights / weights.sum())
    cand = 12
    docs = query[:, None] * cand + np.arange(10)[None, :]
    swap = rng.random(n) < 0.2
    at = rng.integers(0, 9, n)
    rows = np.nonzero(swap)[0]
    a, b = docs[rows, at[rows]].copy(), docs[rows, at[rows] + 1].copy()
    docs[rows, at[rows]], docs[rows, at[rows] + 1] = b, a
    template = ClickLog(
        query.astype(np.int64),
        docs.astype(np.int64),
        np.zeros(docs.shape, dtype=bool),
        np.array([f"q{i}" for i in range(n_queries)], dtype=object),
        np.array([f"d{i}" for i in range(n_queries * cand)], dtype=object),
    )
    grades = rng.integers(0, 4, n_queries * cand)
    alpha = (np.exp2(grades) - 1) / 8
    pq = np.repeat(np.arange(n_queries), cand)
    gen = FittedClickModel(
        "dbn",
        Params({"attractiveness": alpha, "satisfaction": alpha}, {}, {"gamma": 0.9}),
        template.query_names[pq],
        template.doc_names,
        np.zeros(len(pq), dtype=np.int64),
        np.zeros(len(pq), dtype=np.int64),
        frozenset(template.query_names.tolist()),
    )
    return simulate(gen, template, seed=seed + 1)


def write_log(log: ClickLog, path: Path, fmt: str) -> None:
    """The log in one of the readers' formats (setup, not timed)."""
    k = log.shown.sum(axis=1)
    queries = log.query_names[log.query].tolist()
    docs = [
        row[:n] for row, n in zip(log.doc_names[np.maximum(log.docs, 0)].tolist(), k, strict=True)
    ]
    flags = [row[:n] for row, n in zip(log.clicks.astype(int).tolist(), k, strict=True)]
    if fmt in ("parquet", "arrow"):
        import pyarrow as pa
        import pyarrow.ipc as ipc
        import pyarrow.parquet as pq

        table = pa.table({"query": queries, "docs": docs, "clicks": flags})
        if fmt == "parquet":
            pq.write_table(table, path)
            return
        with ipc.new_file(str(path), table.schema) as out:
            out.write_table(table, max_chunksize=65536)
        return
    with open(path, "w", encoding="utf-8") as out:
        if fmt in ("tsv", "csv"):
            sep = "\t" if fmt == "tsv" else ","
            out.write(f"query{sep}docs{sep}clicks\n")
            for q, d, c in zip(queries, docs, flags, strict=True):
                out.write(f"{q}{sep}{' '.join(d)}{sep}{' '.join(map(str, c))}\n")
        elif fmt == "jsonl":
            for q, d, c in zip(queries, docs, flags, strict=True):
                out.write(json.dumps({"query": q, "docs": d, "clicks": c}) + "\n")
        elif fmt == "pyclick":
            for q, d, c in zip(queries, docs, flags, strict=True):
                clicked = " , ".join(x for x, f in zip(d, c, strict=True) if f)
                out.write(f"{q}\t{','.join(d)} : {clicked};\n")
        elif fmt == "yandex":
            for i, (q, d, c) in enumerate(zip(queries, docs, flags, strict=True)):
                out.write(f"{i}\t0\tQ\t{q}\t0\t" + "\t".join(d) + "\n")
                out.writelines(f"{i}\t1\tC\t{x}\n" for x, f in zip(d, c, strict=True) if f)
        else:
            raise SystemExit(f"unknown format {fmt}")


def time_reads(log: ClickLog, formats: list[str], repeat: int) -> ClickLog:
    """Read the log back in every format; print a row per format; the last log read."""
    print(
        "| format | file (MB) | read (s, best wall) | read (s, best CPU) | peak RSS (MB) "
        "| read alone: wall (s) / peak RSS (MB) |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    read = log
    with tempfile.TemporaryDirectory() as tmp:
        for kind in formats:
            stdin = kind.startswith("-")
            fmt = kind.lstrip("-").removesuffix(".gz")
            path = Path(tmp) / f"log.{fmt}"
            write_log(log, path, fmt)
            if kind.endswith(".gz"):
                with open(path, "rb") as raw, gzip.open(f"{path}.gz", "wb", 6) as out:
                    shutil.copyfileobj(raw, out, 1 << 20)
                path.unlink()
                path = Path(f"{path}.gz")
            walls, cpus = [], []
            for _ in range(repeat):
                read = None
                t, c = time.perf_counter(), time.process_time()
                if stdin:
                    with open(path, "rb") as fh:
                        sys.stdin = io.TextIOWrapper(fh)
                        read = read_log("-", fmt)
                        sys.stdin = sys.__stdin__
                else:
                    read = read_log(path, fmt)
                walls.append(time.perf_counter() - t)
                cpus.append(time.process_time() - c)
            same = read.query_names[read.query].tolist() == log.query_names[log.query].tolist()
            same &= bool((read.clicks == log.clicks).all())
            same &= bool((read.doc_names[read.docs] == log.doc_names[log.docs]).all())
            assert same, f"{fmt}: the log read back differs from the log written"
            size = path.stat().st_size / 1e6
            print(
                f"| {kind} | {size:.0f} | {min(walls):.2f} | {min(cpus):.2f} | {peak_mb():.0f} "
                f"| {read_alone(path, fmt, stdin)} |",
                flush=True,
            )
            path.unlink()
    return read


# (VmHWM, not ru_maxrss: a forked child's ru_maxrss starts at its parent's)
_ALONE = """
import re, sys, time
from cranfield.clicks.log import read_log
t = time.perf_counter()
read_log(sys.argv[1], sys.argv[2])  # ("-": standard input)
wall = time.perf_counter() - t
hwm = re.search(r"VmHWM:\\s*(\\d+)", open("/proc/self/status").read())
print(f"{wall:.2f} / {int(hwm.group(1)) / 1024:.0f}")
"""


def read_alone(path: Path, fmt: str, stdin: bool = False) -> str:
    """Wall time and peak resident memory of a fresh process that only reads the log
    (the reader's own memory, not the simulation's); ``stdin``: from standard input."""
    with open(path, "rb") as fh:
        done = subprocess.run(
            [sys.executable, "-c", _ALONE, "-" if stdin else str(path), fmt],
            stdin=fh if stdin else None,
            capture_output=True,
            text=True,
            check=True,
        )
    return done.stdout.strip()


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=1_000_000)
    ap.add_argument("--queries", type=int, default=20_000)
    ap.add_argument("--models", default=",".join(NAMES))
    ap.add_argument("--max-iter", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--read", default="", help="kinds to write the log in and read back")
    args = ap.parse_args()
    t0 = time.perf_counter()
    log = make_log(args.sessions, args.queries)
    built = time.perf_counter() - t0
    shown = int(log.shown.sum())
    print(
        f"log: {log.n_sessions} sessions x {log.max_rank} ranks, {shown} impressions, "
        f"{int(log.clicks.sum())} clicks, built in {built:.1f} s, peak {peak_mb():.0f} MB"
    )
    if args.read:
        log = time_reads(log, args.read.split(","), args.repeat)
    print(
        "| model | fit (s, median wall) | fit (s, median CPU) | EM iterations | converged "
        "| log-likelihood / (session, rank) |"
    )
    print("|---|---:|---:|---:|---|---:|")
    for name in args.models.split(","):
        walls, cpus = [], []
        for _ in range(args.repeat):
            t, c = time.perf_counter(), time.process_time()
            m = fit(log, name, max_iter=args.max_iter, tol=1e-6)
            walls.append(time.perf_counter() - t)
            cpus.append(time.process_time() - c)
        ll = m.trace[-1] / shown if m.trace else float("nan")
        print(
            f"| {name} | {statistics.median(walls):.2f} | {statistics.median(cpus):.2f} "
            f"| {m.iterations} | {m.converged} | {ll:.4f} |",
            flush=True,
        )
    print(f"peak resident memory: {peak_mb():.0f} MB")


if __name__ == "__main__":
    main()
