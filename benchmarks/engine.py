"""Time the workloads of issue 21 (the compiled engine): cranfield against trec_eval 10.0.

Each job runs as a whole process (interpreter start, imports, reading, evaluation,
output to /dev/null); the table gives the median wall time of ``--repeat`` runs and
the largest peak resident set of them. With ``--before SRC`` the cranfield jobs also run
with ``PYTHONPATH=SRC`` (another checkout's ``src``, e.g. main before the engine) in the
same session, alternating, so both see the same machine load::

    git archive main src | tar -x -C /tmp/before
    PYTHONPATH=src python benchmarks/engine.py --trec-eval /tmp/te/trec_eval \\
        --before /tmp/before/src --repeat 5

Build trec_eval 10.0 with ``cp -r ../shared/reference/trec_eval-10.0 /tmp/te && make -C
/tmp/te CFLAGS='-O2 -I. -DVERSIONID=\\"10.0-rc3\\"' trec_eval``. Data come from
``generate.py`` (deterministic) under benchmarks/data/.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

from generate import DATA, generate, make_collection

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
FIVE = ["AP", "nDCG@10", "P@10", "R@100", "RR"]
FIVE_TE = ["map", "ndcg_cut.10", "P.10", "recall.100", "recip_rank"]
SIX = ["AP", "nDCG@10", "P@10", "RR", "R@100", "bpref"]
SIX_TE = ["map", "ndcg_cut.10", "P.10", "recip_rank", "recall.100", "bpref"]


def seventeen() -> tuple[Path, list[Path]]:
    """17 runs of 50 queries x 1,000 documents (the data of report.py's 17-run job)."""
    target = DATA / "report-17-50x1000"
    runs = [target / f"run{i}.txt" for i in range(1, 18)]
    if not all(p.exists() for p in runs):
        target.mkdir(parents=True, exist_ok=True)
        qrels, run_bytes = make_collection(50, 1000, runs=17, seed=17)
        (target / "qrels.txt").write_bytes(qrels)
        for path, data in zip(runs, run_bytes, strict=True):
            path.write_bytes(data)
    return target / "qrels.txt", runs


def two_queries() -> tuple[Path, Path]:
    target = DATA / "two-queries"
    target.mkdir(parents=True, exist_ok=True)
    (target / "qrels.txt").write_text("1 0 a 1\n1 0 b 0\n2 0 c 2\n")
    (target / "run.txt").write_text("1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n2 Q0 c 1 1.0 r\n")
    return target / "qrels.txt", target / "run.txt"


def timed(argv: list[str], env: dict) -> tuple[float, float]:
    """Wall seconds and peak RSS (GB) of one process (the largest of a shell loop's).

    The peak comes from GNU time (``/usr/bin/time -f %M``), whose child is forked from a
    small process: a child forked from this one (which imported NumPy to generate the
    data) would start its peak-RSS counter at this process's size.
    """
    start = time.perf_counter()
    done = subprocess.run(
        ["/usr/bin/time", "-f", "%M", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"failed ({done.returncode}): {shlex.join(argv)}\n{done.stderr}")
    return wall, int(done.stderr.split()[-1]) / 1e6


PYTHON = sys.executable  # the interpreter that runs cranfield (--python)


def cranfield(*args) -> list[str]:
    return [PYTHON, "-m", "cranfield", *map(str, args)]


def jobs(trec_eval: str | None) -> list[tuple[str, list[str] | None, list[str]]]:
    """(workload, trec_eval command or None, cranfield arguments)."""
    one = generate("dense-100x1000", 100, 1000)
    big = generate("dense-7000x1000", 7000, 1000)
    q17, runs17 = seventeen()
    q2, r2 = two_queries()
    te = trec_eval
    out = [
        (
            "one run, 100k lines, `-q -m all_trec`",
            te and [te, "-q", "-m", "all_trec", str(one / "qrels.txt"), str(one / "run1.txt")],
            ["trec_eval", "-q", "-m", "all_trec", one / "qrels.txt", one / "run1.txt"],
        ),
        (
            "one run, 100k lines, AP (`eval -m AP`; trec_eval `-m map`)",
            te and [te, "-m", "map", str(one / "qrels.txt"), str(one / "run1.txt")],
            ["eval", one / "qrels.txt", one / "run1.txt", "-m", "AP"],
        ),
        (
            "17 runs x 50k lines, 6 measures (trec_eval in a loop; cranfield one call)",
            te
            and [
                "sh",
                "-c",
                "for r in "
                + " ".join(shlex.quote(str(r)) for r in runs17)
                + f"; do {shlex.quote(te)} "
                + " ".join(f"-m {m}" for m in SIX_TE)
                + f" {shlex.quote(str(q17))} $r; done",
            ],
            ["eval", q17, *runs17, "-m", *SIX],
        ),
        (
            "7M-line run, 5 measures",
            te
            and [
                te,
                *(a for m in FIVE_TE for a in ("-m", m)),
                str(big / "qrels.txt"),
                str(big / "run1.txt"),
            ],
            ["eval", big / "qrels.txt", big / "run1.txt", "-m", *FIVE],
        ),
        (
            "7M-line run, `-m all_trec`",
            None,
            ["trec_eval", "-m", "all_trec", big / "qrels.txt", big / "run1.txt"],
        ),
        ("2-query evaluation, cold process", None, ["eval", q2, r2, "-m", "AP"]),
    ]
    return out


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trec-eval", default=os.environ.get("TREC_EVAL"), help="trec_eval 10.0 binary")
    p.add_argument("--before", help="a cranfield src directory to time beside this one")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--out", default=str(HERE / "results" / "engine.md"))
    p.add_argument(
        "--python",
        default=sys.executable,
        help="the interpreter that runs cranfield (default: this one); its bare start-up "
        "time is measured and reported, as it is part of every cranfield job",
    )
    a = p.parse_args(argv)
    global PYTHON
    PYTHON = a.python
    sides = [("after", str(SRC))] + ([("before", a.before)] if a.before else [])
    for _, src in sides:  # compile the packages once, as installed packages are
        subprocess.run([sys.executable, "-m", "compileall", "-q", src], check=True)
    rows = []
    envs = {name: dict(os.environ, PYTHONPATH=src, OPENBLAS_NUM_THREADS="1") for name, src in sides}
    with open("/proc/loadavg") as fh:
        load_before = fh.read().split()[:3]
    for title, te, args in jobs(a.trec_eval):
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in [*envs, "trec_eval"]}
        for _ in range(a.repeat):
            for name, env in envs.items():
                times[name].append(timed(cranfield(*args), env))
            if te:
                times["trec_eval"].append(timed(te, dict(os.environ)))
        cells = {}
        for name, got in times.items():
            if got:
                cells[name] = (statistics.median(w for w, _ in got), max(m for _, m in got))
        rows.append((title, cells))
        print(title, {k: f"{w:.3f}s {m:.2f}GB" for k, (w, m) in cells.items()}, flush=True)
    imports = {}
    for name, env in envs.items():
        walls = [timed([PYTHON, "-c", "import cranfield"], env)[0] for _ in range(a.repeat)]
        imports[name] = statistics.median(walls)
    bare = statistics.median(timed([PYTHON, "-c", "pass"], {})[0] for _ in range(a.repeat))
    with open("/proc/loadavg") as fh:
        load_after = fh.read().split()[:3]
    lines = [
        f"Medians of {a.repeat} runs, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
        f"load average before {' '.join(load_before)}, after {' '.join(load_after)} (2 cores, shared).",
        f"Interpreter: `{PYTHON}`; `python -c pass` alone takes {bare:.3f} s.",
        "",
        "| workload | trec_eval 10.0 s | cranfield s | peak GB | cranfield vs trec_eval |"
        + (" before s | before peak GB |" if a.before else ""),
        "|---|---:|---:|---:|---:|" + ("---:|---:|" if a.before else ""),
    ]
    for title, cells in rows:
        te = cells.get("trec_eval")
        w, m = cells["after"]
        ratio = ""
        if te:
            ratio = f"{te[0] / w:.1f}x faster" if te[0] >= w else f"{w / te[0]:.1f}x slower"
        line = f"| {title} | {te[0]:.3f} | " if te else f"| {title} | – | "
        line += f"{w:.3f} | {m:.2f} | {ratio} |"
        if a.before:
            bw, bm = cells["before"]
            line += f" {bw:.3f} | {bm:.2f} |"
        lines.append(line)
    lines.append(
        "| `python -c 'import cranfield'` | – | "
        + f"{imports['after']:.3f} | | |"
        + (f" {imports['before']:.3f} | |" if a.before else "")
    )
    text = "\n".join(lines) + "\n"
    Path(a.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
