"""Time cranfield and the installed peer tools on the same files, as whole processes.

Usage (from the repository root)::

    PYTHONPATH=src python benchmarks/run.py --sizes 0.7M 7M --repeat 3 --name dense

For every size it generates (once, deterministically) a run and qrels with
``generate.py``, then times each job in a fresh process: wall time (best of
``--repeat``), CPU time (user + sys) and peak resident memory of that run (``wait4``).
It checks that every tool's five means (AP, nDCG@10, P@10, R@100, RR) agree with
cranfield's to 1e-6 and writes a markdown table to ``benchmarks/results/<name>.md``.

trec_eval 9.x semantics (pytrec_eval, ir_measures' default backend) round scores to
float32 before ranking; those tools are compared with ``cranfield eval --compat 9``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import peers  # noqa: E402  (stdlib only: keeps this process small, see run_once)

MEASURES = ["AP", "nDCG@10", "P@10", "R@100", "RR"]
SIZES = {"0.7M": 700, "7M": 7000, "70M": 70000}  # queries of 1,000 documents
TOL = 1e-6


@dataclass
class Timing:
    wall: float
    cpu: float
    rss_gb: float
    stdout: str
    ok: bool
    stderr: str = ""
    median: float | None = None  # median wall time of the repeats


@dataclass
class Row:
    size: str
    job: str
    timing: Timing | None
    note: str = ""
    values: dict | None = None
    reference: str | None = None  # which cranfield row its values are checked against
    extra: dict = field(default_factory=dict)


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    return env


def generate(name: str, queries: int, depth: int, profile: str, runs: int) -> Path:
    """Generate data in a child process (see run_once for why this process stays small)."""
    argv = [sys.executable, str(HERE / "generate.py"), "--name", name, "--queries", str(queries)]
    argv += ["--depth", str(depth), "--profile", profile, "--runs", str(runs)]
    out = subprocess.run(argv, check=True, capture_output=True, text=True)
    return Path(out.stdout.strip())


def run_once(argv: list[str]) -> Timing:
    """Run a command to completion; wall time, CPU time and peak RSS of that process.

    Linux starts a child's peak-RSS counter at its parent's size at fork time, so this
    script imports nothing heavy (the "python -c pass" row shows the floor).
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env=_env(), cwd=ROOT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Timing(
            wall=wall,
            cpu=usage.ru_utime + usage.ru_stime,
            rss_gb=usage.ru_maxrss / 1024**2,  # ru_maxrss is in KiB on Linux
            stdout=out.read().decode("utf-8", "replace"),
            ok=proc.returncode == 0,
            stderr=err.read().decode("utf-8", "replace")[-2000:],
        )


def timed(argv: list[str], repeat: int) -> Timing:
    """Best wall time of ``repeat`` runs (the peak RSS and CPU of that run), and the
    median wall time of all of them."""
    best = None
    walls = []
    for _ in range(repeat):
        t = run_once(argv)
        if not t.ok:
            return t
        walls.append(t.wall)
        if best is None or t.wall < best.wall:
            best = t
    if repeat > 1:
        best.median = statistics.median(walls)
    return best


def cranfield_json(text: str) -> dict:
    return json.loads(text)["runs"][0]["aggregate"]


def cranfield_all_runs(text: str) -> list[dict]:
    return [r["aggregate"] for r in json.loads(text)["runs"]]


def load() -> str:
    try:
        a, b, c = os.getloadavg()
        return f"{a:.2f} {b:.2f} {c:.2f}"
    except OSError:
        return "?"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def versions() -> dict:
    from importlib.metadata import packages_distributions, version

    dists = packages_distributions()
    out = {"python": platform.python_version()}
    for mod in ["numpy", "pyarrow", "pytrec_eval", "ir_measures", "ranx"]:
        for dist in dists.get(mod, [mod]):
            try:
                out[dist] = version(dist)
            except Exception:
                continue
    return out


def has_module(name: str) -> bool:
    probe = subprocess.run([sys.executable, "-c", f"import {name}"], capture_output=True)
    return probe.returncode == 0


def trec_eval_binary() -> str | None:
    """The trec_eval binary to time: ``--trec-eval PATH``, else ``$TREC_EVAL``, else
    ``trec_eval`` on PATH. Build 10.0 from the reference source with
    ``cp -r ../shared/reference/trec_eval-10.0 /tmp/te && make -C /tmp/te``."""
    chosen = os.environ.get("TREC_EVAL")
    if chosen:
        if not (os.path.isfile(chosen) and os.access(chosen, os.X_OK)):
            raise SystemExit(f"trec_eval binary {chosen!r} is not an executable file")
        return chosen
    return shutil.which("trec_eval")


def bench_size(
    size: str,
    profile: str,
    repeat: int,
    peer_repeat: int,
    tools: list[str],
    ten: bool = True,
    limit_gb: float | None = None,
):
    queries = SIZES[size]
    data = generate(f"{profile}-{queries}x1000", queries, 1000, profile, runs=10 if ten else 1)
    qrels, run1 = str(data / "qrels.txt"), str(data / "run1.txt")
    runs10 = [str(data / f"run{i}.txt") for i in range(1, 11)]
    py = sys.executable
    cf = [py, "-m", "cranfield"]
    rows: list[Row] = []

    def add(job, argv, parse=None, reference=None, rep=repeat, note=""):
        t = timed(argv, rep)
        values = None
        if t.ok and parse is not None:
            values = parse(t.stdout)
        elif not t.ok:
            note = (note + " FAILED: " + t.stderr.strip().splitlines()[-1:][0]).strip()
        rows.append(Row(size, job, t, note, values, reference))
        print(f"[{size}] {job}: {t.wall:.2f} s, {t.rss_gb:.2f} GB", file=sys.stderr)
        return rows[-1]

    five = ["-m", *MEASURES, "-f", "json"]
    add("cranfield eval", [*cf, "eval", qrels, run1, *five], cranfield_json)
    add(
        "cranfield eval --compat 9",
        [*cf, "eval", "--compat", "9", qrels, run1, *five],
        cranfield_json,
    )
    add(
        "cranfield trec_eval -m all_trec",
        [*cf, "trec_eval", "-m", "all_trec", qrels, run1],
        peers._trec_eval_output,
        "cranfield eval",
    ).extra["printed"] = True
    add(
        "cranfield eval --stream",
        [*cf, "eval", "--stream", qrels, run1, *five],
        cranfield_json,
        "cranfield eval",
    )
    if limit_gb:
        cap = ["prlimit", f"--as={int(limit_gb * 2**30)}", "--"]
        add(
            f"cranfield eval, address space <= {limit_gb:g} GiB",
            [*cap, *cf, "eval", qrels, run1, *five],
            cranfield_json,
            "cranfield eval",
        )
        add(
            f"cranfield eval --no-stream (in memory), address space <= {limit_gb:g} GiB",
            [*cap, *cf, "eval", "--no-stream", qrels, run1, *five],
            cranfield_json,
            "cranfield eval",
            note="expected to fail when the run does not fit:",
        )
    if ten:
        job = add(
            "cranfield eval, 10 runs", [*cf, "eval", qrels, *runs10, *five], cranfield_all_runs
        )
        job.extra["runs"] = 10

    trec_eval = trec_eval_binary()
    if trec_eval:
        add(
            "trec_eval (C)",
            [
                trec_eval,
                "-m",
                "map",
                "-m",
                "ndcg_cut.10",
                "-m",
                "P.10",
                "-m",
                "recall.100",
                "-m",
                "recip_rank",
                qrels,
                run1,
            ],
            peers._trec_eval_output,
            "cranfield eval",
            rep=peer_repeat,
        ).extra["printed"] = True
    else:
        rows.append(Row(size, "trec_eval (C)", None, "not found (--trec-eval, $TREC_EVAL, PATH)"))
    for tool, ref, note in [
        ("pytrec_eval", "cranfield eval --compat 9", "parse in Python + evaluate"),
        ("ir_measures", "cranfield eval --compat 9", "default backends"),
        ("ranx", "cranfield eval", "warm JIT cache (a first run was made before timing)"),
    ]:
        if tool not in tools:
            continue
        if not has_module(tool):
            rows.append(Row(size, tool, None, "not installed: not measured"))
            continue
        argv = [py, str(HERE / "peers.py"), tool, qrels, run1]
        if tool == "ranx":
            cold = run_once(argv)  # compiles (or loads) numba's cache
            add(tool, argv, json.loads, ref, rep=peer_repeat, note=note)
            rows[-1].extra["first"] = cold.wall
        else:
            add(tool, argv, json.loads, ref, rep=peer_repeat, note=note)
    return rows


def small_jobs(repeat: int) -> list[Row]:
    data = generate("tiny-2x100", 2, 100, "dense", runs=1)
    py = sys.executable
    rows = []
    for job, argv in [
        ("python -c pass (interpreter start)", [py, "-c", "pass"]),
        ("python -c 'import cranfield'", [py, "-c", "import cranfield"]),
        (
            "python -c 'import numpy, pyarrow.csv, pyarrow.compute' (dependency floor)",
            [py, "-c", "import numpy, pyarrow.csv, pyarrow.compute"],
        ),
        (
            "python -c 'from cranfield import Qrels, Run, evaluate'",
            [py, "-c", "from cranfield import Qrels, Run, evaluate"],
        ),
        (
            "cranfield eval, 2-query run",
            [py, "-m", "cranfield", "eval", str(data / "qrels.txt"), str(data / "run1.txt")],
        ),
    ]:
        t = timed(argv, repeat)
        rows.append(Row("small", job, t))
        print(f"[small] {job}: {t.wall:.3f} s", file=sys.stderr)
    return rows


def check(rows: list[Row]) -> None:
    """Fill each row's note with its largest difference from its cranfield reference."""
    by_job = {(r.size, r.job): r for r in rows}
    for r in rows:
        if r.values is None:
            continue
        if r.job == "cranfield eval, 10 runs":
            single = by_job[(r.size, "cranfield eval")].values
            diff = max(abs(r.values[0][m] - single[m]) for m in MEASURES)
            r.extra["delta"] = diff
            continue
        if r.reference is None:
            continue
        ref = by_job[(r.size, r.reference)].values
        if ref is None:
            continue
        missing = [m for m in MEASURES if m not in r.values]
        if missing:
            r.extra["delta"] = float("nan")
            r.note = (r.note + f" missing {missing}").strip()
            continue
        if r.extra.get("printed"):  # trec_eval text output: 4 decimals
            same = all(f"{r.values[m]:.4f}" == f"{ref[m]:.4f}" for m in MEASURES)
            r.extra["delta"] = 0.0 if same else max(abs(r.values[m] - ref[m]) for m in MEASURES)
            r.note = (r.note + "; printed to 4 decimals: compared as printed").strip("; ")
            continue
        r.extra["delta"] = max(abs(r.values[m] - ref[m]) for m in MEASURES)


def table(rows: list[Row]) -> str:
    out = [
        "| size | job | wall s | median s | CPU s | peak RSS GB | wall / cranfield eval "
        "| max abs diff | note |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    base = {r.size: r.timing.wall for r in rows if r.job == "cranfield eval" and r.timing}
    for r in rows:
        if r.timing is None:
            out.append(f"| {r.size} | {r.job} | – | – | – | – | – | – | {r.note} |")
            continue
        t = r.timing
        ratio = f"{t.wall / base[r.size]:.1f}x" if r.size in base and t.ok else ""
        delta = r.extra.get("delta")
        if delta is None:
            dtxt = ""
        else:
            ok = delta <= TOL
            dtxt = f"{delta:.1e}" + ("" if ok else " **DISAGREES**")
            if r.reference:
                dtxt += f" (vs {r.reference})"
        note = r.note
        if "first" in r.extra:
            note += f"; first invocation {r.extra['first']:.1f} s"
        if "runs" in r.extra and r.size in base:
            note += f"; {t.wall / base[r.size]:.1f}x one run for {r.extra['runs']} runs"
        wall, median = (
            "" if x is None else f"{x:.3f}" if x < 1 else f"{x:.2f}" for x in (t.wall, t.median)
        )
        out.append(
            f"| {r.size} | {r.job} | {wall} | {median} | {t.cpu:.2f} | {t.rss_gb:.2f} | {ratio} "
            f"| {dtxt} | {note.strip('; ')} |"
        )
    return "\n".join(out) + "\n"


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sizes", nargs="+", default=["0.7M", "7M"], choices=list(SIZES))
    p.add_argument("--profile", choices=["dense", "sparse"], default="dense")
    p.add_argument("--repeat", type=int, default=3, help="cranfield runs per job (best is kept)")
    p.add_argument("--peer-repeat", type=int, default=1, help="runs per peer tool job")
    p.add_argument("--tools", nargs="*", default=["pytrec_eval", "ir_measures", "ranx"])
    p.add_argument("--name", default=None, help="results/<name>.md (default: the profile)")
    p.add_argument("--no-ten", action="store_true", help="skip the ten-runs job (one run file)")
    p.add_argument(
        "--limit-gb", type=float, help="also time eval under prlimit --as (GiB of address space)"
    )
    p.add_argument("--no-small", action="store_true", help="skip the small jobs")
    p.add_argument(
        "--trec-eval",
        metavar="PATH",
        help="trec_eval binary to time (default: $TREC_EVAL, else trec_eval on PATH)",
    )
    a = p.parse_args(argv)
    if a.trec_eval:
        os.environ["TREC_EVAL"] = a.trec_eval
    cmd = "PYTHONPATH=src python benchmarks/run.py " + " ".join(
        sys.argv[1:] if argv is None else argv
    )
    # byte-compile cranfield once, as an installed package is (the environment may set
    # PYTHONDONTWRITEBYTECODE, which would make every timed process compile it again)
    import importlib.util

    spec = importlib.util.find_spec("cranfield")
    if spec is not None and spec.submodule_search_locations:
        pkg = list(spec.submodule_search_locations)[0]
        subprocess.run([sys.executable, "-m", "compileall", "-q", pkg], check=False)
    load_before = load()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    rows: list[Row] = []
    for size in a.sizes:
        rows += bench_size(
            size, a.profile, a.repeat, a.peer_repeat, a.tools, not a.no_ten, a.limit_gb
        )
    if not a.no_small:
        rows += small_jobs(max(a.repeat, 5))
    check(rows)
    v = versions()
    head = [
        f"# Benchmark: {a.profile} judgments",
        "",
        f"Command: `{cmd.strip()}`",
        "",
        f"- started {started}; machine: {os.cpu_count()} CPUs ({cpu_model()}), "
        f"load average (1/5/15 min) {load_before} before and {load()} after",
        "- versions: " + ", ".join(f"{k} {val}" for k, val in v.items() if val),
        f"- runs of 1,000 documents per query; {a.profile} qrels "
        + (
            "(~27 judgments per query, grades 0-3)"
            if a.profile == "dense"
            else "(1-2 relevant documents per query)"
        ),
        f"- wall time: best of {a.repeat} (cranfield; the median of them too) / "
        f"{a.peer_repeat} (peers); CPU = user +"
        " sys of that process and its children (can exceed wall: Arrow reads with two threads "
        "while a child scans the next run); peak RSS "
        "from wait4",
        f"- agreement: largest absolute difference of the five means from the cranfield row "
        f"named (tolerance {TOL:g})",
        "",
    ]
    text = "\n".join(head) + "\n" + table(rows)
    out = HERE / "results" / f"{a.name or a.profile}.md"
    out.parent.mkdir(exist_ok=True)
    out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
