"""Learning-to-rank speed: objective evaluations per second, a full MGA run, and the
boosted baseline on the same data (docs/ltr.md; results in benchmarks/README.md).

Data are generated at run time (never stored): a fold of LETOR 4.0 MQ2008 size,
470 queries and about 9,000 documents with 46 features, query lengths drawn from a
long-tailed distribution (5 to 121 documents, as MQ2008's), labels 0-2 from a noisy
linear scorer. Run from the project root:

    PYTHONPATH=src python benchmarks/ltr.py                 # all three parts
    PYTHONPATH=src python benchmarks/ltr.py --part objective --population 200
    PYTHONPATH=src python benchmarks/ltr.py --part read     # a LETOR file of MQ2007 size
    PYTHONPATH=src python benchmarks/ltr.py --part objective --backend general,engine,engine-scores
    PYTHONPATH=src python benchmarks/ltr.py --part train --methods mga --backend general,engine
    PYTHONPATH=src python benchmarks/ltr.py --part kernels --objective nDCG@10,AP,ERR@10
    PYTHONPATH=src python benchmarks/ltr.py --write-wide DIR  # the wide files of issue 30
    PYTHONPATH=src python benchmarks/ltr.py --part sparse    # dense vs sparse layout
    PYTHONPATH=src python benchmarks/ltr.py --part model --repeat 5  # a 10M-weight model file
    PYTHONPATH=src python benchmarks/ltr.py --part train --methods mga,lightgbm --scale 10
    PYTHONPATH=src python benchmarks/ltr.py --part train --methods mga:subsample=0.25 --scale 10
    PYTHONPATH=src python benchmarks/ltr.py --part train --methods mga --scale 10 --seeds 0,1,2,3

``--backend`` runs the objective on the general path (``general``, formerly ``numpy``:
NumPy ranks, cranfield's evaluator measures; the path before the compiled kernel), the
engine's kernel scoring and ranking block by block (``engine``, the default path) or ranking a whole score matrix computed first (``engine-scores``). Timings are
the median of ``--repeat`` runs, wall-clock and the process's CPU time (all threads;
far less sensitive to the machine's load), single-threaded BLAS, the kernel's own
threads as it chooses, with the machine's load average after each part.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np


def mq2008_like(seed: int = 0, queries: int = 470, features: int = 46):
    """(train, test, weights): two folds of MQ2008 size from one linear scorer."""
    from cranfield.ltr.data import from_arrays

    w = np.random.default_rng(12345).normal(size=features)

    def part(s):
        rng = np.random.default_rng(s)
        sizes = np.clip(np.round(rng.lognormal(np.log(15), 0.6, queries)), 5, 121).astype(int)
        n = int(sizes.sum())
        x = rng.random((n, features))
        latent = x @ w + 0.5 * rng.normal(size=n)
        qids = np.repeat(np.arange(queries), sizes).astype(str)
        starts = np.repeat(np.cumsum(sizes) - sizes, sizes)
        order = np.lexsort((latent, qids.astype(int)))
        rank = np.empty(n, dtype=np.int64)
        rank[order] = np.arange(n) - starts[order]
        frac = rank / np.repeat(sizes, sizes)
        labels = np.where(frac >= 0.9, 2, np.where(frac >= 0.75, 1, 0))
        return from_arrays(x, labels, qids, source=f"mq2008-like{s}")

    return part(seed), part(seed + 1), w


def bench_read(repeat: int) -> None:
    """Read a LETOR file of MQ2007 size (70,000 lines x 46 features, written to a
    temporary directory first, not timed)."""
    import tempfile
    from pathlib import Path

    from cranfield.ltr.readers import read

    rng = np.random.default_rng(0)
    n, f = 70_000, 46
    x = rng.random((n, f))
    labels = rng.integers(0, 3, n)
    cols = " ".join(f"{j + 1}:%.6f" for j in range(f))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "train.txt"
        with open(path, "w") as fh:
            for i in range(n):
                fh.write(
                    f"{labels[i]} qid:{10000 + i // 41} "
                    + cols % tuple(x[i])
                    + f" #docid = GX{i:07d} inc = 1 prob = 0.5\n"
                )
        size = path.stat().st_size
        t, c, data = timed(repeat, lambda: read(path))
    print(
        f"read LETOR file: {n} lines x {f} features ({size / 2**20:.0f} MiB), "
        f"{data.num_queries} queries: {t:.2f} s (CPU {c:.2f} s); {load()}"
    )


def bench_model(repeat: int, features: int = 10_000_000) -> None:
    """Save and load a linear model of ``features`` normal weights (issue 39: sparse
    data's models), the file in a temporary directory; checks the weights come back
    to the bit."""
    import tempfile
    from pathlib import Path

    from cranfield.ltr.model import Model

    w = np.random.default_rng(0).normal(size=features)
    model = Model("random-search", features, weights=w)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.json"
        ts, cs, _ = timed(repeat, lambda: model.save(path))
        size = path.stat().st_size
        tl, cl, back = timed(repeat, lambda: Model.load(path))
    assert back.weights.tobytes() == w.tobytes()
    print(
        f"model of {features:,} weights ({size / 2**20:.0f} MiB): save {ts:.2f} s "
        f"(CPU {cs:.2f} s), load {tl:.2f} s (CPU {cl:.2f} s), weights bit-exact; {load()}"
    )


def timed(repeat: int, f):
    """(median wall time, median CPU time of this process -- every thread's -- and the
    last result) of ``repeat`` runs. The CPU time hardly depends on the machine's load;
    the wall time does."""
    times, cpu = [], []
    out = None
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        out = f()
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return statistics.median(times), statistics.median(cpu), out


def load() -> str:
    return "load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def bench_objective(
    data, population: int, repeat: int, backends, objective: str, threads: int | None
) -> None:
    from cranfield.ltr.objective import Objective
    from cranfield.ltr.rankers import single_threaded_blas

    prepared = data.normalised("query")
    w = np.random.default_rng(0).normal(size=(population, data.num_features))
    w /= np.linalg.norm(w, axis=1, keepdims=True)
    singles = 200
    for backend in backends:
        obj = Objective(prepared, objective, backend=backend)
        if threads and obj.kernel is not None:
            obj._threads = threads
        with single_threaded_blas():
            obj(w)  # warm
            t, c, _ = timed(repeat, lambda o=obj: o(w))
            t1, c1, _ = timed(repeat, lambda o=obj: [o(w[i % population]) for i in range(singles)])
        print(
            f"objective {objective} [{backend}{f', {threads} threads' if threads else ''}], "
            f"{data.num_docs} docs x {data.num_features} "
            f"features, {data.num_queries} queries: batch of {population}: {t * 1e3:.1f} ms = "
            f"{population / t:,.0f} evaluations/s (CPU {c * 1e3:.1f} ms); one at a time: "
            f"{singles / t1:,.0f} evaluations/s ({t1 / singles * 1e6:.0f} us each, CPU "
            f"{c1 / singles * 1e6:.0f} us); {load()}"
        )


def bench_kernels(data, population: int, repeat: int, objective: str) -> None:
    """rust/ltr's own measure kernels against the engine's (rust/eval), on the same
    population: why the LTR kernel keeps its copy of ten measures (issue 31).

    ``ltr`` times the LTR kernel on a score matrix (ranking each (individual, query)
    and computing the measure, in Rust); ``engine`` times only the engine's measure
    kernels (``Measure.compute``, as ``evaluate`` runs them) on the same rankings
    already ranked and laid out as one JudgedRun (building it, not timed, is more work
    again). Both on one thread; CPU times.
    """
    from cranfield.ltr.objective import Objective
    from cranfield.ltr.rankers import single_threaded_blas

    prepared = data.normalised("query")
    w = np.random.default_rng(0).normal(size=(population, data.num_features))
    w /= np.linalg.norm(w, axis=1, keepdims=True)
    fast = Objective(prepared, objective, backend="engine-scores")
    layout, term = fast.layout, fast.terms[0]
    scores = layout.scores(w)
    ranked = layout.ranked_labels(w, fast.depth)
    jr = layout.judged_run(ranked, fast.depth)
    with single_threaded_blas():
        _, ltr, _ = timed(repeat, lambda: fast.kernel.evaluate(scores, 1))
        _, eng, _ = timed(repeat, lambda: term.measure.compute(jr))
    print(
        f"kernels {objective}, {population} individuals x {data.num_queries} queries: "
        f"ltr {ltr * 1e3:.1f} ms (ranking included), engine {eng * 1e3:.1f} ms (measures "
        f"only, {len(jr.labels):,} ranked labels), ratio {eng / ltr:.1f}; {load()}"
    )


def bench_training(train, test, w, budget: int, repeat: int, methods, backends, seeds=(0,)) -> None:
    from cranfield.ltr.objective import Objective
    from cranfield.ltr.rankers import train as fit

    truth = Objective(test, "nDCG@10")(w)[0]
    print(f"generating weights: test nDCG@10 {truth:.4f}")
    runs = [(m, b, s) for m in methods for b in backends for s in seeds]
    for method, backend, seed in runs:
        if method.startswith("lightgbm-threads"):
            bench_lightgbm_threads(train, test, repeat, method)
            continue
        Objective.default_backend = backend
        name, _, given = method.partition(":")  # mga:subsample=0.25+population=100
        params = {k: float(v) if "." in v else int(v) for k, v in _pairs(given)}
        try:
            t, c, model = timed(
                repeat,
                lambda n=name, p=params, s=seed: fit(train, n, budget=budget, seed=s, params=p),
            )
        except ImportError as exc:
            print(f"{method}: not measured ({exc})")
            continue
        finally:
            Objective.default_backend = "auto"
        method = f"{method} [{backend}]" + (f" seed {seed}" if len(seeds) > 1 else "")
        prepared = model.prepare(test)
        from cranfield.ltr.protocol import evaluate_scores

        value = evaluate_scores(prepared, model.scores(test), ["nDCG@10"]).aggregate["nDCG@10"]
        evals = model.parameters.get("evaluations", "-")
        print(
            f"{method}: {t:.2f} s (CPU {c:.2f} s; evaluations {evals}), "
            f"training {model.train_value:.4f}, "
            f"test nDCG@10 {value:.4f}; {load()}"
        )


def _pairs(text: str):
    """``key=value`` pairs joined by "+" (a method's parameters)."""
    return [item.split("=", 1) for item in text.split("+") if item]


def bench_lightgbm_threads(train, test, repeat: int, method: str) -> None:
    """``fit(train, "lightgbm")`` (lambdarank, 100 trees, 31 leaves, the same data and
    options) on LightGBM's default threads (``lightgbm-threads``: OpenMP's, one per
    CPU) or on N (``lightgbm-threadsN``) instead of cranfield's 1: the peer as a user
    would run it."""
    from cranfield.ltr.boosting import _lightgbm
    from cranfield.ltr.protocol import evaluate_scores
    from cranfield.ltr.rankers import train as fit

    lgb = _lightgbm()
    threads = int(method[len("lightgbm-threads") :] or 0)
    plain = lgb.train

    def threaded(options, *a, **k):
        return plain({**options, "num_threads": threads}, *a, **k)

    lgb.train = threaded
    try:
        t, c, model = timed(repeat, lambda: fit(train, "lightgbm", seed=0))
    finally:
        lgb.train = plain
    value = evaluate_scores(model.prepare(test), model.scores(test), ["nDCG@10"])
    print(
        f"{method} [{threads or 'default'} threads]: {t:.2f} s (CPU {c:.2f} s), "
        f"training {model.train_value:.4f}, test nDCG@10 {value.aggregate['nDCG@10']:.4f}; "
        f"{load()}"
    )


def bench_simplex(repeat: int, features: int = 46, budget: int = 4000) -> None:
    """The Nelder-Mead loop's own Python steps (``cranfield.ltr.simplex.minimise``):
    ``budget`` evaluations of a cheap piecewise-constant objective on ``features``
    weights, as MGA's simplex phase runs it (adaptive coefficients), timed with the
    objective's time taken out."""
    from cranfield.ltr import simplex

    rng = np.random.default_rng(0)
    c = rng.normal(size=features)
    spent = [0.0]

    def values(points):
        start = time.perf_counter()
        out = -np.round(points @ c, 2)
        spent[0] += time.perf_counter() - start
        return out

    start_point = np.full(features, 0.1)
    sim = np.vstack((start_point, start_point + 0.1 * np.eye(features)))
    best, evaluations = float("inf"), 0
    for _ in range(repeat):
        spent[0] = 0.0
        t = time.perf_counter()
        calls = simplex.minimise(values, sim, budget, xatol=1e-8, fatol=1e-12, adaptive=True)
        best = min(best, time.perf_counter() - t - spent[0])
        evaluations = calls
    print(
        f"simplex steps, {features} weights, {evaluations} evaluations: {best:.3f} s of "
        f"Python (best of {repeat}), {best / evaluations * 1e6:.0f} us an evaluation"
    )


def write_wide(folder: str) -> None:
    """The sparse files of issue 30 §4 (deterministic): ``wide-20000.txt`` (200
    documents of 20 queries, 20,000 features, 30 non-zeros a line) and
    ``index-100000.txt`` (two documents of one query, feature index 100,000)."""
    from pathlib import Path

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    lines = []
    for q in range(20):
        for _ in range(10):
            idx = np.sort(rng.choice(20_000, 30, replace=False)) + 1
            pairs = " ".join(f"{j}:{rng.random():.4f}" for j in idx)
            lines.append(f"{rng.integers(0, 3)} qid:{q} {pairs}")
    (out / "wide-20000.txt").write_text("\n".join(lines) + "\n")
    (out / "index-100000.txt").write_text("1 qid:1 1:0.5 100000:1.0\n0 qid:1 2:0.3 100000:0.5\n")


SPARSE_CHILD = """
import sys, time
import numpy as np
from cranfield.ltr.objective import Objective
from cranfield.ltr.readers import read_svmlight
path, layout, population, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
t = time.process_time()
data = read_svmlight(path, layout=layout).normalised("query")
read = time.process_time() - t
obj = Objective(data, "nDCG@10")
w = np.random.default_rng(0).normal(size=(population, data.num_features))
obj(w)
t = time.process_time()
for _ in range(repeat):
    obj(w)
per_second = population * repeat / (time.process_time() - t)
print(f"{read:.3f} {per_second:.0f} {type(data.features).__name__}")
"""


def bench_sparse(population: int, repeat: int) -> None:
    """Dense against sparse rows, each in a child process (its peak resident memory
    from ``wait4``): reading (and query normalisation) CPU seconds, objective
    evaluations per CPU second, peak MiB. The ``dense`` layout is the reader before
    sparse rows (the same code path); ``auto`` is the default now."""
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    rng = np.random.default_rng(0)
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        # a dense LETOR file (MQ2008 size): auto must stay dense and as fast
        small = Path(tmp) / "dense-46.txt"
        n, f = 9_000, 46
        x = rng.random((n, f))
        cols = " ".join(f"{j + 1}:%.6f" for j in range(f))
        with open(small, "w") as fh:
            for i in range(n):
                fh.write(f"{rng.integers(0, 3)} qid:{i // 19} " + cols % tuple(x[i]) + "\n")
        cases.append(("9,000 docs x 46 features, full", small, ("dense", "auto")))
        for docs, features in ((5_000, 5_000), (2_000, 20_000)):
            path = Path(tmp) / f"sparse-{features}.txt"
            with open(path, "w") as fh:
                for i in range(docs):
                    idx = np.unique(rng.integers(0, features, 30)) + 1
                    pairs = " ".join(
                        f"{j}:{v:.4f}" for j, v in zip(idx, rng.random(len(idx)), strict=True)
                    )
                    fh.write(f"{rng.integers(0, 3)} qid:{i // 20} {pairs}\n")
            what = f"{docs:,} docs x {features:,} features, 30 values a row"
            cases.append((what, path, ("dense", "sparse")))
        env = {**os.environ}
        for what, path, layouts in cases:
            for layout in layouts:
                child = subprocess.Popen(
                    [sys.executable, "-c", SPARSE_CHILD, str(path), layout, str(population),
                     str(repeat)],
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True,
                )  # fmt: skip
                out = child.stdout.read()
                err = child.stderr.read()
                _, status, usage = os.wait4(child.pid, 0)
                if os.waitstatus_to_exitcode(status) != 0:
                    line = (err.strip().splitlines() or ["?"])[-1]
                    print(
                        f"{what}, {layout}: failed ({line}); peak {usage.ru_maxrss / 1024:.0f} MiB"
                    )
                    continue
                read, per_second, kind = out.split()
                print(
                    f"{what}, layout {layout} ({kind}): read+normalise {float(read):.2f} s CPU, "
                    f"{float(per_second):,.0f} evaluations/CPU s, peak {usage.ru_maxrss / 1024:.0f} MiB"
                )
    print(load())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--write-wide", metavar="DIR", help="write the wide files and stop")
    p.add_argument(
        "--part",
        choices=("all", "read", "objective", "kernels", "train", "sparse", "model", "simplex"),
        default="all",
    )
    p.add_argument(
        "--features", type=int, default=10_000_000, help="weights of the model (--part model)"
    )
    p.add_argument("--population", type=int, default=200)
    p.add_argument("--budget", type=int, default=16_000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument(
        "--methods",
        default="mga,ga,coordinate-ascent,lightgbm",
        help="comma-separated; a method's parameters after ':' joined by '+', e.g. "
        "mga:subsample=0.25+population=100; lightgbm-threads[N]: LightGBM on N (or its "
        "default) threads",
    )
    p.add_argument(
        "--backend", default="engine", help="comma-separated: general,engine,engine-scores"
    )
    p.add_argument("--objective", default="nDCG@10")
    p.add_argument(
        "--scale",
        type=int,
        default=1,
        help="queries per part as a multiple of MQ2008's 470 (10: ~84,000 documents)",
    )
    p.add_argument("--train-repeat", type=int, default=1)
    p.add_argument(
        "--seeds", default="0", help="comma-separated seeds of the trainings (--part train)"
    )
    p.add_argument(
        "--threads", type=int, help="the kernel's threads (default: the CPUs, at most 8)"
    )
    args = p.parse_args()
    if args.write_wide:
        write_wide(args.write_wide)
        return
    backends = args.backend.split(",")
    if args.part == "sparse":
        bench_sparse(50, args.repeat)
        return
    if args.part == "model":
        bench_model(args.repeat, args.features)
        return
    if args.part == "simplex":
        bench_simplex(args.repeat)
        return
    if args.part in ("all", "read"):
        bench_read(args.repeat)
    train, test, w = mq2008_like(queries=470 * args.scale)
    if args.part in ("all", "objective"):
        bench_objective(train, args.population, args.repeat, backends, args.objective, args.threads)
    if args.part in ("all", "kernels"):
        for name in args.objective.split(","):
            bench_kernels(train, args.population, args.repeat, name)
    if args.part in ("all", "train"):
        bench_training(
            train,
            test,
            w,
            args.budget,
            args.train_repeat,
            args.methods.split(","),
            backends,
            [int(s) for s in args.seeds.split(",")],
        )


if __name__ == "__main__":
    main()
