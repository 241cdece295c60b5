"""How `cranfield eval` scales with the machine's cores: the 7M-line run (benchmarks/
run.py's dense 7,000 x 1,000 collection) timed as a whole process pinned to one core
and on all cores, alternating, and the serial share that Amdahl's law gives for the
two times::

    PYTHONPATH=src python benchmarks/cores.py --repeat 7 [--calibrate]

With ``T1`` the one-core time and ``TN`` the time on ``N`` cores, ``TN / T1 = s + (1 -
s) / N``, so the serial share is ``s = (N TN / T1 - 1) / (N - 1)`` (on two cores,
``2 T2 / T1 - 1``). The pinned process is started under ``os.sched_setaffinity`` (every
thread it starts inherits the one core). Best and median of ``--repeat`` runs; the
share is given for both. The machine's load at the start and the end is printed: on a
shared machine the figures hold only when it is low.

``--in-process`` times the evaluation alone: one process per setting, pinned or not,
imports cranfield, evaluates once (the page cache, the engine's thread pool) and then
times ``cranfield.evaluate(qrels, run)`` ``--repeat`` times, so the interpreter's start,
the imports and the process's exit (whose unmapping of the run's memory is serial too)
are left out of both times.

The share is then split in two: the share of the cores' time the ``N``-core runs left
idle (``1 - CPU / (N wall)``: the serial parts and the imbalance between threads, what
the program does not run in parallel), and how much CPU time the same work took on
``N`` cores against one (contention for caches, memory and the kernel's locks, starting
threads, merging their results): ``N TN / T1 = (CPU_N / CPU_1) / (1 - idle)`` when the
pinned run's wall time is its CPU time.

``--calibrate`` also measures what the machine itself allows: the same command run as
one process per core at once, each pinned to its own core, against one alone. Those
processes share nothing but the machine (caches, memory bandwidth, the host), so the
share that Amdahl's formula gives for them (``T_together / T_alone`` in place of
``N TN / T1``: N runs' work in ``T_together``) is the floor no program reaches below on
this machine.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from generate import generate

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"


def warm(paths) -> None:
    """Read the inputs, so that every timed run finds them in the page cache: the
    benchmark machine's kernel reclaims cold pages (DAMON) within seconds, and a run
    that reads part of the 7M-line file from disk waits with its cores idle."""
    for path in paths:
        with open(path, "rb") as fh:
            while fh.read(8 << 20):
                pass


def timed(argv: list[str], cores: set[int] | None) -> tuple[float, float]:
    """Wall and CPU seconds of one run of `argv`, pinned to `cores` when given."""
    env = dict(os.environ, PYTHONPATH=str(SRC))
    pin = (lambda: os.sched_setaffinity(0, cores)) if cores else None
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, check=True, env=env, preexec_fn=pin)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu


IN_PROCESS = """
import json, sys, time
from cranfield import evaluate
qrels, run, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
evaluate(qrels, run)
walls, cpus = [], []
for _ in range(repeat):
    start, used = time.perf_counter(), time.process_time()
    evaluate(qrels, run)
    walls.append(time.perf_counter() - start)
    cpus.append(time.process_time() - used)
print(json.dumps([walls, cpus]))
"""


def in_process(qrels: Path, run: Path, repeat: int, cores: set[int] | None):
    """``repeat`` (wall, CPU) seconds of ``cranfield.evaluate`` in one warm process,
    pinned to ``cores`` when given."""
    import json

    env = dict(os.environ, PYTHONPATH=str(SRC))
    pin = (lambda: os.sched_setaffinity(0, cores)) if cores else None
    done = subprocess.run(
        [sys.executable, "-c", IN_PROCESS, str(qrels), str(run), str(repeat)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        preexec_fn=pin,
    )
    walls, cpus = json.loads(done.stdout.splitlines()[-1])
    return list(zip(walls, cpus, strict=True))


def at_once(argv: list[str], cores: list[int]) -> float:
    """Wall seconds of one process per core started together, each pinned to its core,
    until the last ends."""
    env = dict(os.environ, PYTHONPATH=str(SRC))
    start = time.perf_counter()
    procs = [
        subprocess.Popen(
            argv,
            stdout=subprocess.DEVNULL,
            env=env,
            preexec_fn=lambda c=c: os.sched_setaffinity(0, {c}),
        )
        for c in cores
    ]
    if any(p.wait() for p in procs):
        sys.exit("cores.py: a run failed")
    return time.perf_counter() - start


def serial_share(one: float, many: float, n: int) -> float:
    """Amdahl's serial share from the one-core and the `n`-core times."""
    return (n * many / one - 1) / (n - 1)


def idle_share(wall: float, cpu: float, n: int) -> float:
    """The share of the `n` cores' time a run left unused: ``1 - CPU / (n wall)``."""
    return 1 - cpu / (n * wall)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--queries", type=int, default=7000, help="queries x 1,000 (default 7000)")
    p.add_argument(
        "--calibrate", action="store_true", help="also one process per core at once (the floor)"
    )
    p.add_argument(
        "--in-process",
        action="store_true",
        help="time cranfield.evaluate in a warm process (no interpreter start or exit)",
    )
    a = p.parse_args(argv)
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        sys.exit("cores.py: this process may use one core only")
    target = generate(f"dense-{a.queries}x1000", a.queries, 1000)
    qrels, run = target / "qrels.txt", target / "run1.txt"
    argv = [sys.executable, "-m", "cranfield", "eval", str(qrels), str(run)]
    # byte-compiled once, so no timed process compiles cranfield
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(SRC)], check=True)
    print(f"load average at the start: {os.getloadavg()[0]:.2f}")
    times: dict[str, list[tuple[float, float]]] = {"one": [], "all": []}
    together: list[float] = []
    timed(argv, None)  # warm the page cache
    inputs = (qrels, run)
    if a.in_process:  # alternating the two processes, each timing half the repeats
        for half in (a.repeat // 2, a.repeat - a.repeat // 2):
            times["one"] += in_process(qrels, run, half, {cores[0]})
            times["all"] += in_process(qrels, run, half, None)
    for _ in range(0 if a.in_process else a.repeat):
        warm(inputs)
        times["one"].append(timed(argv, {cores[0]}))
        warm(inputs)
        times["all"].append(timed(argv, None))
        if a.calibrate:
            warm(inputs)
            together.append(at_once(argv, cores))
    n = len(cores)
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    lines = a.queries * 1000
    what = "`cranfield.evaluate` in a warm process" if a.in_process else "`cranfield eval`"
    print(f"\n{lines:,}-line run, {what} (default measures), {a.repeat} runs each\n")
    print("| cores | wall best s | wall median s | CPU median s |")
    print("|---:|---:|---:|---:|")
    for key, label in (("one", "1"), ("all", str(n))):
        walls = [w for w, _ in times[key]]
        cpus = [c for _, c in times[key]]
        print(
            f"| {label} | {min(walls):.3f} | {statistics.median(walls):.3f} | "
            f"{statistics.median(cpus):.3f} |"
        )
    for name, pick in (("best", min), ("median", statistics.median)):
        one = pick(w for w, _ in times["one"])
        many = pick(w for w, _ in times["all"])
        share = serial_share(one, many, n)
        print(f"\nspeed-up on {n} cores ({name}): {one / many:.2f}x; serial share {share:.0%}")
        if together:
            both = pick(together)
            floor = (both / one - 1) / (n - 1)
            print(
                f"  {n} pinned processes at once: {both:.3f} s for {n} runs' work "
                f"({both / one:.2f}x one run alone); the machine's floor: {floor:.0%}"
            )
    # n T_n / T_1 = (CPU_n / CPU_1) / (1 - idle) when the pinned run's wall time is its
    # CPU time: the share splits into cores left idle (serial parts, imbalance) and the
    # CPU time the same work grows by on n cores (contention, thread start, merging)
    idle = statistics.median(idle_share(w, c, n) for w, c in times["all"])
    growth = statistics.median(c for _, c in times["all"]) / statistics.median(
        c for _, c in times["one"]
    )
    print(
        f"\nwhere the median's share comes from: the {n}-core runs left {idle:.0%} of their "
        f"cores' time idle (median of 1 - CPU / ({n} wall)), and their CPU time was "
        f"{growth - 1:+.0%} the one-core runs' (medians); "
        f"(1 {growth - 1:+.2f}) / (1 - {idle:.2f}) - 1 = {growth / (1 - idle) - 1:.0%}"
    )


if __name__ == "__main__":
    main()
