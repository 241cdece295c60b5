"""The Dask engine against the local engine: wall time, per-worker peak memory, bytes
moved, and the throughput of one partition (the input of docs/scaling.md).

For each size (millions of run lines, 1,000 documents per query) the data are
generated at run time into ``--data`` (default ``/tmp/cranfield-dask-bench``; never
in the repository) with ``benchmarks/generate.py``'s dense profile: the run as
partitions of ``--partition`` queries each (one TREC file per partition) and one
qrels file. Measured, five measures (AP nDCG@10 P@10 R@100 RR):

* ``local``: ``cranfield eval QRELS RUN`` as a process on the whole run (the
  partitions concatenated; streamed when it would not fit, as the command decides);
  wall time and peak RSS;
* ``partition``: one partition evaluated in this process by the function the workers
  run (lines/s), and the pickled size of what it sends back (bytes moved per
  partition);
* ``dask N``: a ``LocalCluster`` of N single-threaded worker processes (started
  outside the timing; its start-up is reported apart), ``evaluate(engine="dask")``
  on the partition directory; wall time, peak RSS of every worker, and whether the
  per-query values and means equal the local engine's (they must, bit for bit).

Usage::

    PYTHONPATH=src python benchmarks/dask.py --sizes 7 21 --workers 1 2
    PYTHONPATH=src python benchmarks/dask.py --sizes 70 --workers 1 2 --no-local-file
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import pickle
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# this file is called dask.py: keep its directory off the path so `import dask` finds Dask
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

MEASURES = ["AP", "nDCG@10", "P@10", "R@100", "RR"]
DEPTH = 1000


def _generator():
    spec = importlib.util.spec_from_file_location("bench_generate", HERE / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_data(root: Path, millions: int, per_part: int, whole: bool) -> tuple[Path, Path, Path]:
    """(qrels, partition directory, whole run file) for ``millions`` x 1M lines."""
    gen = _generator()
    target = root / f"{millions}M-{per_part}"
    parts = target / "run"
    stamp = target / "done"
    if not stamp.exists():
        parts.mkdir(parents=True, exist_ok=True)
        queries = millions * 1_000_000 // DEPTH
        with open(target / "qrels.txt", "wb") as qfh:
            for b, start in enumerate(range(0, queries, per_part)):
                n = min(per_part, queries - start)
                qrels, (run,) = gen.make_collection(
                    n, DEPTH, "dense", 27, 1, seed=b + 1, first_qid=1_000_000 + start
                )
                qfh.write(qrels)
                (parts / f"part-{b:05d}.txt").write_bytes(run)
        stamp.write_text("ok\n")
    whole_file = target / "whole.txt"
    if whole and not whole_file.exists():
        with open(whole_file, "wb") as out:
            for p in sorted(parts.iterdir()):
                out.write(p.read_bytes())
    return target / "qrels.txt", parts, whole_file


LAUNCHER = r"""
import json, os, subprocess, sys, time
for line in sys.stdin:
    cmd = json.loads(line)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    print(json.dumps([wall, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime, status]))
    sys.stdout.flush()
"""


class Launcher:
    """A small process, started before this one grows, that runs the timed commands:
    Linux starts a child's peak-RSS counter at its parent's size, so a child of this
    (large) process would report at least this process's size."""

    def __init__(self):
        self.proc = subprocess.Popen(
            [sys.executable, "-c", LAUNCHER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def run(self, cmd: list[str]) -> tuple[float, float, float]:
        """(wall seconds, peak RSS MiB, CPU seconds) of ``cmd``."""
        import json

        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        wall, rss, cpu, status = json.loads(self.proc.stdout.readline())
        if status != 0:
            raise SystemExit(f"{' '.join(cmd)} failed with status {status}")
        return wall, rss, cpu


def run_local(launcher: Launcher, qrels: Path, run: Path, out: Path) -> tuple[float, float, float]:
    """(wall seconds, peak RSS MiB, CPU seconds) of ``cranfield eval`` on the whole run;
    its per-query values in CSV (full precision) are written to ``out``."""
    cmd = [sys.executable, "-m", "cranfield", "eval", str(qrels), str(run), "-m", *MEASURES]
    return launcher.run(cmd + ["-q", "-f", "csv", "-o", str(out)])


def one_partition(qrels, part: Path) -> tuple[float, int, int]:
    """(seconds, lines, pickled bytes sent back) of the worker's task on one partition."""
    from cranfield.core.evaluation import as_measures
    from cranfield.core.results import default_run_name
    from cranfield.distributed.evaluation import _evaluate_partition
    from cranfield.distributed.partitions import partitions

    (p,) = partitions(str(part), default_run_name)
    measures = as_measures(MEASURES)
    from cranfield.core.options import JudgeOptions

    options = JudgeOptions()
    _evaluate_partition(qrels, p, measures, options, False)  # warm: imports, qrels index
    t0 = time.perf_counter()
    answer = _evaluate_partition(qrels, p, measures, options, False)
    seconds = time.perf_counter() - t0
    lines = sum(1 for _ in open(part, "rb"))
    return seconds, lines, len(pickle.dumps(answer, protocol=5))


def _peak_rss_mib() -> tuple[float, float]:
    """(peak RSS MiB, CPU seconds user + system) of this (worker) process; the peak is
    the kernel's high-water mark of this process image (``VmHWM``: ``ru_maxrss`` would
    start from the size of the process that started the worker)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    with open("/proc/self/status") as fh:
        hwm = next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:"))
    return hwm / 1024, usage.ru_utime + usage.ru_stime


def run_dask(qrels, parts: Path, n_workers: int):
    """(start-up s, evaluation s, [(peak RSS MiB, CPU s) per worker], Results); the CPU
    time of a worker counts from its start (the job's tasks and the worker's own
    start-up and idling, a few tenths of a second)."""
    import cranfield
    import distributed
    from cranfield.distributed.cluster import local_cluster

    t0 = time.perf_counter()
    with local_cluster(n_workers) as cluster, distributed.Client(cluster) as client:
        client.wait_for_workers(n_workers)
        started = time.perf_counter() - t0
        t1 = time.perf_counter()
        results = cranfield.evaluate(qrels, parts, MEASURES, engine="dask", client=client)
        seconds = time.perf_counter() - t1
        peaks = sorted(client.run(_peak_rss_mib).values())
    return started, seconds, peaks, results


@contextlib.contextmanager
def running_cluster(n_workers: int):
    """A cluster already running, as a user has one: ``dask scheduler`` and ``dask
    worker --nworkers N --nthreads 1`` as processes of their own; yields its address."""
    import distributed

    bin_dir = Path(sys.executable).parent
    port = 20000 + os.getpid() % 20000
    address = f"tcp://127.0.0.1:{port}"
    quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    scheduler = subprocess.Popen(
        [bin_dir / "dask", "scheduler", "--port", str(port), "--no-dashboard"], **quiet
    )
    workers = subprocess.Popen(
        [bin_dir / "dask", "worker", address, "--nworkers", str(n_workers), "--nthreads", "1"]
        + ["--no-dashboard"],
        **quiet,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with distributed.Client(address, timeout=5) as client:
                    client.wait_for_workers(n_workers, timeout=60)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        yield address
    finally:
        for proc in (workers, scheduler):
            proc.terminate()
            proc.wait(30)


def run_dask_process(launcher, qrels: Path, parts: Path, address: str, out: Path):
    """(wall seconds, peak RSS MiB, CPU seconds) of ``cranfield eval --scheduler
    ADDRESS`` as a process (the client's side: its own CPU, not the workers')."""
    cmd = [sys.executable, "-m", "cranfield", "eval", str(qrels), str(parts), "-m", *MEASURES]
    return launcher.run(cmd + ["-q", "-f", "csv", "-o", str(out), "--scheduler", address])


def model(rows: list[tuple[int, float, float]]) -> None:
    """The break-even model (cranfield.distributed.break_even) fitted to the measured
    (bytes, local s, dask s) of one worker count, printed with its thresholds."""
    import numpy as np

    size, local, dask = (np.array(c, dtype=float) for c in zip(*rows, strict=True))
    local_rate = 1 / np.polyfit(size, local, 1)[0]
    dask_slope, dask_fixed = np.polyfit(size, dask, 1)
    local_fixed = np.polyfit(size, local, 1)[1]
    print(
        f"  fit: local {local_rate / 1e6:.0f} MB/s + {local_fixed:.2f} s; dask "
        f"{1 / dask_slope / 1e6:.0f} MB/s + {dask_fixed:.2f} s (fixed cost difference "
        f"{dask_fixed - local_fixed:.2f} s)"
    )


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[7], help="millions of lines")
    p.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    p.add_argument("--partition", type=int, default=1000, help="queries per partition")
    p.add_argument("--data", type=Path, default=Path("/tmp/cranfield-dask-bench"))
    p.add_argument(
        "--running",
        action="store_true",
        help="time `cranfield eval --scheduler` as a process against a cluster already "
        "running (the fixed cost of a job and the break-even size), best of --repeat",
    )
    p.add_argument("--repeat", type=int, default=3, help="runs of each timing (--running)")
    p.add_argument(
        "--no-local-file",
        action="store_true",
        help="do not write the concatenated run (and do not time the local engine)",
    )
    a = p.parse_args(argv)
    launcher = Launcher()  # before anything large is loaded here
    if a.running:
        return main_running(a, launcher)
    from cranfield.core.qrels import Qrels

    for size in a.sizes:
        t0 = time.perf_counter()
        qrels_path, parts, whole = make_data(a.data, size, a.partition, not a.no_local_file)
        print(f"## {size}M lines ({a.partition} queries per partition)")
        print(f"data ready in {time.perf_counter() - t0:.1f} s: {parts}")
        qrels = Qrels.read(qrels_path)
        first = sorted(parts.iterdir())[0]
        sec, lines, sent = one_partition(qrels, first)
        print(
            f"partition: {lines} lines in {sec:.2f} s ({lines / sec / 1e6:.2f} M lines/s), "
            f"{sent} bytes sent back"
        )
        reference = None
        if not a.no_local_file:
            out = whole.with_name("local.csv")
            wall, rss, cpu = run_local(launcher, qrels_path, whole, out)
            print(
                f"local engine (cranfield eval, whole file): {wall:.1f} s, peak RSS {rss:.0f} "
                f"MiB, CPU {cpu:.1f} s"
            )
            reference = out.read_text()
        from cranfield.output import render

        for n in a.workers:
            started, seconds, peaks, results = run_dask(qrels, parts, n)
            text = render(results, "csv", per_query=True)
            same = "not checked" if reference is None else (
                "byte-identical CSV" if text == reference else "DIFFERENT"
            )  # fmt: skip
            print(
                f"dask {n} worker(s): {seconds:.1f} s (cluster start {started:.1f} s), "
                f"peak RSS per worker {', '.join(f'{m:.0f}' for m, _ in peaks)} MiB, "
                f"CPU per worker {', '.join(f'{c:.1f}' for _, c in peaks)} s; "
                f"results vs local engine: {same}; load average {os.getloadavg()[0]:.1f}"
            )
        sys.stdout.flush()


def main_running(a, launcher) -> None:
    """``--running``: for each worker count, a running cluster; for each size, the local
    engine and ``--engine dask`` as processes, best of ``--repeat`` each, interleaved."""
    data = {size: make_data(a.data, size, a.partition, True) for size in a.sizes}
    for n in a.workers:
        rows = []
        with running_cluster(n) as address:
            print(f"## a running cluster of {n} single-threaded worker(s)")
            for size, (qrels, parts, whole) in data.items():
                local_out, dask_out = whole.with_name("local.csv"), whole.with_name("dask.csv")
                local, dask = [], []
                for _ in range(a.repeat):
                    local.append(run_local(launcher, qrels, whole, local_out))
                    dask.append(run_dask_process(launcher, qrels, parts, address, dask_out))
                same = local_out.read_bytes() == dask_out.read_bytes()
                size_bytes = sum(p.stat().st_size for p in parts.iterdir())
                best_local, best_dask = min(t[0] for t in local), min(t[0] for t in dask)
                rows.append((size_bytes, best_local, best_dask))
                print(
                    f"{size}M lines ({size_bytes / 1e6:.0f} MB): local {best_local:.2f} s "
                    f"(CPU {min(t[2] for t in local):.2f} s), dask {best_dask:.2f} s (client "
                    f"CPU {min(t[2] for t in dask):.2f} s); per-query CSV "
                    f"{'byte-identical' if same else 'DIFFERENT'}; load average "
                    f"{os.getloadavg()[0]:.1f}"
                )
                sys.stdout.flush()
        if len(rows) > 1:
            model(rows)


if __name__ == "__main__":
    main()
