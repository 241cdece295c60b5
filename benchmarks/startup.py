"""Start-up of every command: ``--help`` and the small jobs, as whole processes.

Usage (from the repository root)::

    PYTHONPATH=src python benchmarks/startup.py --repeat 7 [--before OLD/src] [--only TEXT] [--cpu]

Times ``cranfield COMMAND --help`` for every subcommand and the small jobs of issue 39
(``eval`` of a one-line run, ``ab`` on 8 rows, ``interleave`` of two runs, a 2-run
``report``, ``agreement`` of two assessors' qrels, every kind of ``plot`` as SVG and
``plot pr`` as PNG and PDF) in fresh processes, through the console script
(``cranfield``, as a user starts it; ``python -m cranfield`` where it is not
installed). Each figure is the best of ``--repeat`` runs (the least disturbed by other
processes on a shared machine) with the median beside it, each tree byte-compiled
first (``--before`` a compiled copy of it); the goals are 0.1 s for
``--help`` and 0.5 s for a small job. What each command imports is guarded by
``tests/cli/test_command_imports.py`` (module sets, not times); this script measures.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

HELP_GOAL, JOB_GOAL = 0.1, 0.5
PLOT_KINDS = ("pr", "avg", "delta", "dist", "depth", "coverage", "asl", "swap")


def command() -> list[str]:
    """The console script beside this interpreter, else ``python -m cranfield``."""
    script = Path(sys.executable).with_name("cranfield")
    return [str(script)] if script.exists() else [sys.executable, "-m", "cranfield"]


def small_jobs(folder: Path) -> dict[str, list[str]]:
    """The small jobs on files written into ``folder``."""
    from cranfield import sample

    qrels, a, b, *_ = (str(p) for p in sample.write(folder / "sample"))
    units = folder / "units.csv"
    units.write_text("v,ctr\nA,0.10\nA,0.12\nA,0.09\nA,0.11\nB,0.13\nB,0.12\nB,0.14\nB,0.15\n")
    alice, bob = folder / "alice.qrels", folder / "bob.qrels"
    lines = Path(qrels).read_text().splitlines()[:200]
    alice.write_text("".join(line + "\n" for line in lines))
    flipped = [
        " ".join([*p[:3], str(1 - int(p[3]) if i % 7 == 0 else p[3])])
        for i, p in enumerate(line.split() for line in lines)
    ]
    bob.write_text("".join(line + "\n" for line in flipped))
    out = folder / "out"
    out.mkdir()
    one_qrels, one_run = folder / "one.qrels", folder / "one.run"
    one_qrels.write_text("1 0 d1 1\n")
    one_run.write_text("1 Q0 d1 1 1.0 r\n")
    return (
        {
            # the fixed cost every `eval` pays before its engine starts
            "eval (one line)": ["eval", str(one_qrels), str(one_run)],
            "ab (8 rows)": ["ab", str(units), "--metric", "ctr", "--variant-column", "v"],
            "interleave (2 runs)": ["interleave", a, b, "--qrels", qrels],
            "report (2 runs)": ["report", qrels, a, b, "-o", str(out / "report.html")],
            "agreement (2 assessors)": ["agreement", str(alice), str(bob)],
        }
        | {  # every kind of figure as SVG (cranfield's own renderer); PNG and PDF of it
            f"plot {kind} (2 runs)": [
                "plot",
                kind,
                qrels,
                a,
                b,
                "-c",
                "-o",
                str(out / f"{kind}.svg"),
            ]
            for kind in PLOT_KINDS
        }
        | {
            f"plot pr .{fmt} (2 runs)": ["plot", "pr", qrels, a, b, "-o", str(out / f"pr.{fmt}")]
            for fmt in ("png", "pdf")
        }
    )


def compiled(src: str, folder: Path, copy: bool) -> str:
    """The source tree ``src`` byte-compiled, as an installed package is: the machine may
    set ``PYTHONDONTWRITEBYTECODE``, which would make every timed process compile
    cranfield again (about 0.1 s of a small job). ``copy``: compile a copy made in
    ``folder`` (a tree that is not ours to write into)."""
    if copy:
        target = folder / f"src{len(list(folder.glob('src*')))}"
        shutil.copytree(src, target, ignore=shutil.ignore_patterns("__pycache__"))
        src = str(target)
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(Path(src) / "cranfield")],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return src


def timed(argv: list[str], repeat: int, src: str, cpu: bool = False) -> tuple[float, float]:
    """(best, median) wall time of ``argv`` over ``repeat`` runs with cranfield from
    ``src``; each must succeed. ``cpu``: the process's CPU time (user + system, from
    ``getrusage(RUSAGE_CHILDREN)``) instead, which waiting for a busy machine's cores
    does not lengthen."""
    env = dict(os.environ, PYTHONPATH=src)
    times = []
    for _ in range(repeat):
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, env=env)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        busy = after.ru_utime - used.ru_utime + after.ru_stime - used.ru_stime
        times.append(busy if cpu else wall)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv)}: status {done.returncode}\n{done.stderr.decode()}")
    return min(times), statistics.median(times)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=7, help="runs of each job (default 7)")
    p.add_argument("--before", help="a cranfield src directory to time beside this one")
    p.add_argument(
        "--only",
        metavar="TEXT",
        help="time only the commands and jobs whose label contains TEXT (e.g. 'plot')",
    )
    p.add_argument(
        "--cpu",
        action="store_true",
        help="CPU time (user + system) of each process instead of wall time: steadier "
        "on a loaded machine (it leaves out waiting for a core)",
    )
    a = p.parse_args()
    from cranfield.cli.main import SUBCOMMANDS

    base = command()
    folder = Path(tempfile.mkdtemp(prefix="cranfield-startup-"))
    try:
        sources = [compiled(str(ROOT / "src"), folder, copy=False)]
        sources += [compiled(a.before, folder, copy=True)] if a.before else []
        jobs = [([sys.executable, "-c", "pass"], "`python -c pass` (the interpreter)", None)]
        jobs += [([*base, n, "--help"], f"`{n} --help`", HELP_GOAL) for n in SUBCOMMANDS]
        jobs += [([*base, *argv], label, JOB_GOAL) for label, argv in small_jobs(folder).items()]
        if a.only:
            jobs = jobs[:1] + [job for job in jobs[1:] if a.only in job[1]]
        load = os.getloadavg()[0]
        rows = []
        for argv, label, goal in jobs:
            # this tree and the one before, one after the other for each job
            rows.append((label, goal, [timed(argv, a.repeat, src, a.cpu) for src in sources]))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    what = "CPU time (user + system)" if a.cpu else "wall time"
    print(f"load average at the start: {load:.1f}; {what}, best / median of {a.repeat} runs (s)\n")
    head = "| command | goal | best | median |" + (" before: best | median |" if a.before else "")
    print(head)
    print("|---|---:|---:|---:|" + ("---:|---:|" if a.before else ""))
    for label, goal, results in rows:
        cells = " | ".join(f"{best:.3f} | {median:.3f}" for best, median in results)
        print(f"| {label} | {'' if goal is None else goal} | {cells} |")


if __name__ == "__main__":
    main()
