"""Time the Python API in a loop (issue 39): ``evaluate(qrels, run)`` over many runs,
against pytrec_eval and ranx in the same process, side by side.

Each tool gets its qrels once, as its users prepare them (cranfield ``Qrels.read``,
pytrec_eval a ``RelevanceEvaluator`` on the parsed dict, ranx ``Qrels.from_file``), then
evaluates the runs one call each and takes the five means (AP, nDCG@10, P@10, R@100,
RR). Two patterns:

* ``memory``: the runs are already loaded in each tool's own form (cranfield ``Run``
  objects, pytrec_eval dicts, ranx ``Run`` objects); the loop times the evaluation;
* ``files``: each iteration reads the run's TREC file with the tool's own reader
  (cranfield ``evaluate(qrels, path)``; pytrec_eval has no reader: parsed in Python as
  its users do; ranx ``Run.from_file``) and evaluates it.

The fixed cost of one call is the median time of ``evaluate`` on a one-line run.

``--one-call`` times instead one ``evaluate(qrels, paths, M)`` of all the ``--runs``
run files at once, with the qrels as a ``Qrels`` object (indexed once, before timing)
and as their path, alternating (issue 39's third row: the object was 5x slower than the
path when its qrels were written back to TREC text and parsed again)::

    PYTHONPATH=src python benchmarks/api_loop.py --one-call --runs 16 --lines 100000 --repeat 5
Tools run interleaved, ``--repeat`` times (median wall and CPU time of this process
reported, each with its ratio to cranfield's: on a shared machine the CPU time is the
steadier; ranx's numba functions are compiled by an untimed call first). The means of every tool are checked against
cranfield's (pytrec_eval against ``compat=9``, its float32 scores) before timing::

    PYTHONPATH=src python benchmarks/api_loop.py --runs 100 --lines 2000 20000 --repeat 3

Data: ``generate.make_collection`` (deterministic), 20 queries of 100 or 1,000 ranked
documents (2,000 or 20,000 lines), dense judgments (about 27 per query, grades 0-3),
written under benchmarks/data/api-loop-*.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from generate import DATA, make_collection

FIVE = ["AP", "nDCG@10", "P@10", "R@100", "RR"]
PYTREC = {"map": "AP", "ndcg_cut_10": "nDCG@10", "P_10": "P@10", "recall_100": "R@100"}
PYTREC["recip_rank"] = "RR"
RANX = {"map": "AP", "ndcg@10": "nDCG@10", "precision@10": "P@10", "recall@100": "R@100"}
RANX["mrr"] = "RR"
QUERIES = 20


def collection(lines: int, runs: int, extra: int = 0) -> tuple[Path, list[Path]]:
    """The qrels and ``runs`` run files of ``lines`` lines (20 queries); ``extra``
    more judgments per query of documents no run retrieves (grade 0 or 1), as pooled
    collections have many (TREC-8: about 1,700 judgments per topic)."""
    import numpy as np

    depth = lines // QUERIES
    target = DATA / f"api-loop-{QUERIES}x{depth}-{runs}-{extra}"
    paths = [target / f"run{i}.txt" for i in range(1, runs + 1)]
    if not all(p.exists() for p in paths):
        target.mkdir(parents=True, exist_ok=True)
        qrels, run_bytes = make_collection(QUERIES, depth, runs=runs, seed=39)
        if extra:
            rng = np.random.default_rng(40)
            qids = sorted({line.split()[0].decode() for line in qrels.splitlines()})
            qrels += b"".join(
                f"{q} 0 X{i:07d} {int(rng.random() < 0.1)}\n".encode()
                for q in qids
                for i in range(extra)
            )
        (target / "qrels.txt").write_bytes(qrels)
        for path, data in zip(paths, run_bytes, strict=True):
            path.write_bytes(data)
    return target / "qrels.txt", paths


def trec_dict(path: Path, qrels: bool) -> dict:
    """A TREC file as ``{qid: {docid: value}}``, parsed in Python (pytrec_eval's users)."""
    out: dict = {}
    with open(path) as fh:
        for line in fh:
            f = line.split()
            if qrels:
                out.setdefault(f[0], {})[f[2]] = int(f[3])
            else:
                out.setdefault(f[0], {})[f[2]] = float(f[4])
    return out


class Cranfield:
    name = "cranfield"

    def __init__(self, qrels: Path, runs: list[Path], compat: int = 10):
        from cranfield import Qrels, Run, evaluate

        self.evaluate, self.compat = evaluate, compat
        self.qrels = Qrels.read(qrels)
        self.loaded = [Run.read(p) for p in runs]
        self.paths = [str(p) for p in runs]

    def means(self, run) -> dict:
        return self.evaluate(self.qrels, run, FIVE, compat=self.compat).aggregate()

    def memory(self) -> list:
        return [self.means(run) for run in self.loaded]

    def files(self) -> list:
        return [self.means(path) for path in self.paths]


class PytrecEval:
    name = "pytrec_eval"

    def __init__(self, qrels: Path, runs: list[Path]):
        import pytrec_eval

        measures = {"map", "ndcg_cut.10", "P.10", "recall.100", "recip_rank"}
        self.evaluator = pytrec_eval.RelevanceEvaluator(trec_dict(qrels, True), measures)
        self.loaded = [trec_dict(p, False) for p in runs]
        self.paths = runs

    def means(self, run: dict) -> dict:
        per_query = self.evaluator.evaluate(run)
        n = len(per_query)
        return {PYTREC[k]: sum(v[k] for v in per_query.values()) / n for k in PYTREC}

    def memory(self) -> list:
        return [self.means(run) for run in self.loaded]

    def files(self) -> list:
        return [self.means(trec_dict(path, False)) for path in self.paths]


class Ranx:
    name = "ranx"

    def __init__(self, qrels: Path, runs: list[Path]):
        from ranx import Qrels, Run, evaluate

        self.run_class, self.evaluate = Run, evaluate
        self.qrels = Qrels.from_file(str(qrels), kind="trec")
        self.loaded = [Run.from_file(str(p), kind="trec") for p in runs]
        self.paths = [str(p) for p in runs]
        self.means(self.loaded[0])  # numba compiles (or loads) its functions: untimed

    def means(self, run) -> dict:
        out = self.evaluate(self.qrels, run, list(RANX))
        return {RANX[k]: float(v) for k, v in out.items()}

    def memory(self) -> list:
        return [self.means(run) for run in self.loaded]

    def files(self) -> list:
        return [self.means(self.run_class.from_file(p, kind="trec")) for p in self.paths]


def agree(ours: list, theirs: list, tool: str, tolerance: float) -> float:
    worst = max(abs(a[m] - b[m]) for a, b in zip(ours, theirs, strict=True) for m in FIVE)
    if worst > tolerance:
        raise SystemExit(f"{tool} disagrees with cranfield by {worst:g}")
    return worst


def fixed_cost(qrels: Path, repeat: int = 200) -> dict[str, float]:
    """Median seconds of one ``evaluate`` of a one-line run against the same qrels, by
    cranfield and (when installed) pytrec_eval."""
    from cranfield import Qrels, Run, evaluate

    q = Qrels.read(qrels)
    qid = q.query_ids()[0]
    run = Run.from_dict({qid: {"D0000001": 1.0}})
    calls = {"cranfield": lambda: evaluate(q, run, FIVE).aggregate()}
    try:
        import pytrec_eval
    except ImportError:
        pass
    else:
        measures = {"map", "ndcg_cut.10", "P.10", "recall.100", "recip_rank"}
        ev = pytrec_eval.RelevanceEvaluator(trec_dict(qrels, True), measures)
        calls["pytrec_eval"] = lambda: ev.evaluate({qid: {"D0000001": 1.0}})
    times = timed_calls(calls, repeat)
    return {name: statistics.median(t) for name, t in times.items()}


def timed_calls(calls: dict, repeat: int) -> dict[str, list[float]]:
    """Wall seconds of each of ``calls`` (name -> function), ``repeat`` rounds, interleaved."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(repeat):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    return times


def one_call(lines: int, runs: int, repeat: int, extra: int) -> None:
    """Best and median wall time of one ``evaluate`` of ``runs`` run paths against a
    ``Qrels`` object (indexed before timing) and against the qrels' path, alternating;
    their five means checked equal."""
    from cranfield import Qrels, evaluate

    qrels, paths = collection(lines, runs, extra)
    paths = [str(path) for path in paths]
    by_object = Qrels.read(qrels)
    by_object.index()
    calls = {
        "Qrels object": lambda: evaluate(by_object, paths, FIVE),
        "qrels path": lambda: evaluate(str(qrels), paths, FIVE),
    }
    means = {name: [r.aggregates for r in call().runs] for name, call in calls.items()}
    assert means["Qrels object"] == means["qrels path"]
    times = timed_calls(calls, repeat)
    print(
        f"one evaluate() of {runs} run files x {lines} lines: "
        + ", ".join(
            f"{name} best {min(t):.3f} s, median {statistics.median(t):.3f} s"
            for name, t in times.items()
        ),
        flush=True,
    )


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=100)
    p.add_argument("--lines", type=int, nargs="+", default=[2000, 20000])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument(
        "--extra-judgments",
        type=int,
        default=0,
        help="judgments per query of documents no run retrieves (large pooled qrels)",
    )
    p.add_argument(
        "--tools",
        nargs="+",
        choices=["cranfield", "pytrec_eval", "ranx"],
        default=["cranfield", "pytrec_eval", "ranx"],
        help="the tools to time (cranfield alone: another checkout's, by PYTHONPATH)",
    )
    p.add_argument(
        "--one-call",
        action="store_true",
        help="one evaluate() of every run path: Qrels object against the qrels' path",
    )
    a = p.parse_args(argv)
    if a.one_call:
        for lines in a.lines:
            one_call(lines, a.runs, a.repeat, a.extra_judgments)
        return
    rows = []
    for lines in a.lines:
        qrels, runs = collection(lines, a.runs, a.extra_judgments)
        ours = Cranfield(qrels, runs)
        reference = ours.memory()
        assert ours.files() == reference
        tools, diffs = [ours], {}
        if "pytrec_eval" in a.tools:
            tools.append(PytrecEval(qrels, runs))
            ours9 = Cranfield(qrels, runs, compat=9).memory()
            diffs["pytrec_eval"] = agree(ours9, tools[-1].memory(), "pytrec_eval", 1e-9)
        if "ranx" in a.tools:
            tools.append(Ranx(qrels, runs))
            diffs["ranx"] = agree(reference, tools[-1].memory(), "ranx", 1e-6)
        for pattern in ("memory", "files"):
            times: dict[str, list[float]] = {t.name: [] for t in tools}
            cpu: dict[str, list[float]] = {t.name: [] for t in tools}
            for _ in range(a.repeat):
                for tool in tools:
                    start, start_cpu = time.perf_counter(), time.process_time()
                    getattr(tool, pattern)()
                    times[tool.name].append(time.perf_counter() - start)
                    cpu[tool.name].append(time.process_time() - start_cpu)
            median = {name: statistics.median(t) for name, t in times.items()}
            median_cpu = {name: statistics.median(t) for name, t in cpu.items()}
            rows.append((lines, pattern, median, diffs))
            print(
                f"{a.runs} runs x {lines} lines, {pattern}"
                f"{f', +{a.extra_judgments} judgments per query' if a.extra_judgments else ''}: "
                + ", ".join(
                    f"{n} {s:.3f} s ({s / median['cranfield']:.1f}x; CPU {median_cpu[n]:.3f} s, "
                    f"{median_cpu[n] / median_cpu['cranfield']:.1f}x)"
                    for n, s in median.items()
                ),
                flush=True,
            )
    costs = fixed_cost(collection(a.lines[0], a.runs, a.extra_judgments)[0])
    print(
        "one call on a one-line run (median of 200): "
        + ", ".join(f"{name} {s * 1e3:.3f} ms" for name, s in costs.items())
    )


if __name__ == "__main__":
    main()
