"""Unbiasedness and coverage of the sampled estimators, by simulation.

On a generated collection with complete judgments (every pooled document judged), draw
repeated samples of a fraction of the depth pool (``cranfield pool --sample``'s designs,
the library path of ``pool --sample`` -> ``pool sampled`` -> ``sample_eval``), estimate
every run's infAP (xinfAP), infNDCG (uniform design) and statAP (statAP design), and
report per estimator: the mean error against the full-judgment value over all runs,
topics and repetitions (with its standard error), and how often the 95% interval of the
mean over topics (``sample_eval --ci``: topics as sampling units) covers the
full-judgment mean of the same topics; for statAP also the per-topic
(Horvitz-Thompson) intervals' coverage.

The full-judgment value of each estimator is what it gives with every pooled document
judged (rate 1): for statAP trec_eval's AP on the pool's judgments; for infAP and
infNDCG sample_eval's values at rate 1 (AP and nDCG up to sample_eval's smoothing).

    PYTHONPATH=src python benchmarks/sampled_coverage.py --reps 100 --rate 0.2
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import numpy as np  # noqa: E402


def write_collection(directory: Path, seed: int, topics: int, docs: int, runs: int, depth: int):
    """Qrels of every document and ``runs`` runs of ``depth`` documents per topic; the
    runs differ in quality (how strongly relevance raises a document's score)."""
    rng = np.random.default_rng(seed)
    rel = rng.random((topics, docs)) < 0.1
    grades = rel * rng.integers(1, 3, (topics, docs))
    qrels = directory / "qrels"
    qrels.write_text(
        "".join(f"{t + 1} 0 D{d} {grades[t, d]}\n" for t in range(topics) for d in range(docs))
    )
    paths = []
    for r in range(runs):
        lines = []
        for t in range(topics):
            score = rel[t] * rng.normal(0.5 + r * 0.4, 1, docs) + rng.normal(0, 1, docs)
            for k, d in enumerate(np.argsort(-score)[:depth]):
                lines.append(f"{t + 1} Q0 D{d} {k + 1} {score[d]:.6f} run{r}\n")
        path = directory / f"run{r}"
        path.write_text("".join(lines))
        paths.append(str(path))
    return str(qrels), paths


FRACTIONS: dict[str, list[float]] = {}  # per design: the fraction of the pool drawn
STRATA = {"strata": (10, 30, 100), "rates": (0.6, 0.2, 0.1)}


def estimates(directory: Path, runs, pool, qrels, design: str, seed: int, **params):
    """Per run: (infAP, infNDCG, statAP) per topic and statAP's variances, of one draw."""
    from cranfield.core.sampled import evaluate_sampled
    from cranfield.pooling.sampling import join_judgments, sample_pool

    drawn = sample_pool(runs, pool, design, seed, **params)
    FRACTIONS.setdefault(design, []).append(float(drawn.sampled.mean()))
    frame = directory / "frame"
    frame.write_bytes(drawn.frame_bytes())
    sampled = directory / "sampled"
    sampled.write_bytes(join_judgments(str(frame), qrels, probabilities=True))
    out = []
    for run in runs:
        result = evaluate_sampled(str(sampled), run.source, statap=True)
        out.append(
            (
                np.array([e.inf_ap for e in result.topics]),
                np.array([e.inf_ndcg for e in result.topics]),
                np.array([e.stat_ap for e in result.stat]),
                np.array([e.stat_ap_var for e in result.stat]),
            )
        )
    return out


def on_disk(directory: Path, source: Path, depth: int):
    """A collection in files (``source/qrels.txt``, every file of ``source/runs/``: a TREC
    track's qrels and runs) made complete for the depth-``depth`` pool of its runs: a
    pooled document the qrels do not judge is written as judged non-relevant, which is
    how trec_eval counts it, so the full-judgment values are trec_eval's."""
    from cranfield.core.qrels import Qrels
    from cranfield.pooling import build_pool
    from cranfield.pooling.files import read_runs

    paths = sorted(str(p) for p in (source / "runs").iterdir())
    pool = build_pool(read_runs(paths), "depth", k=depth)
    judged = Qrels.read(source / "qrels.txt").to_dict()
    lines = [f"{q} 0 {d} {judged.get(q, {}).get(d, 0)}\n" for q, d in pool.pairs()]
    qrels = directory / "qrels"
    qrels.write_text("".join(lines))
    return str(qrels), paths


def simulate(
    reps: int,
    rate: float,
    topics: int,
    seed: int = 0,
    quiet: bool = False,
    source: Path | None = None,
    depth: int = 100,
) -> dict:
    """The mean errors and coverages (see the module's docstring); ``source``: a
    collection on disk (:func:`on_disk`) instead of a generated one."""
    from cranfield.judgments.intervals import Z95, mean_interval
    from cranfield.pooling import build_pool
    from cranfield.pooling.files import read_runs

    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        if source is None:
            qrels, paths = write_collection(directory, seed, topics, 400, 4, depth)
        else:
            qrels, paths = on_disk(directory, source, depth)
        runs = read_runs(paths)
        pool = build_pool(runs, "depth", k=depth)
        truth = estimates(directory, runs, pool, qrels, "uniform", 0, rate=1.0)
        FRACTIONS.clear()
        errors = {n: [] for n in ("infAP", "infNDCG", "infAP strat.", "infNDCG strat.", "statAP")}
        covered = dict.fromkeys(errors, 0)
        topic_covered = topic_count = 0
        for rep in range(reps):
            uniform = estimates(directory, runs, pool, qrels, "uniform", rep + 1, rate=rate)
            statap = estimates(directory, runs, pool, qrels, "statap", rep + 1, rate=rate)
            strat = estimates(directory, runs, pool, qrels, "stratified", rep + 1, **STRATA)
            for r in range(len(runs)):
                for name, got, full in (
                    ("infAP", uniform[r][0], truth[r][0]),
                    ("infNDCG", uniform[r][1], truth[r][1]),
                    ("infAP strat.", strat[r][0], truth[r][0]),
                    ("infNDCG strat.", strat[r][1], truth[r][1]),
                    ("statAP", statap[r][2], truth[r][2]),
                ):
                    errors[name].append(got - full)
                    lo, hi = mean_interval(list(got))
                    covered[name] += lo <= full.mean() <= hi
                half = Z95 * np.sqrt(statap[r][3])
                topic_covered += int(np.sum(np.abs(statap[r][2] - truth[r][2]) <= half))
                topic_count += len(half)
            if not quiet:
                print(f"\rrepetition {rep + 1}/{reps}", end="", file=sys.stderr)
        if not quiet:
            print(file=sys.stderr)
    n = reps * len(runs)
    result = {}
    for name, errs in errors.items():
        e = np.concatenate(errs)
        # the errors of one sample are correlated (its runs share the drawn documents): the
        # mean error's standard error from the repetitions' means, besides the naive one
        per_rep = [np.concatenate(errs[i : i + len(runs)]).mean() for i in range(0, n, len(runs))]
        result[name] = {
            "mean_error": float(e.mean()),
            "standard_error": float(e.std(ddof=1) / np.sqrt(len(e))),
            "standard_error_reps": float(np.std(per_rep, ddof=1) / np.sqrt(reps))
            if reps > 1
            else float("nan"),
            "coverage": covered[name] / n,
        }
    result["statAP"]["per_topic_coverage"] = topic_covered / topic_count
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--rate", type=float, default=0.2)
    ap.add_argument("--topics", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--collection",
        metavar="DIR",
        help="a collection on disk instead: DIR/qrels.txt and every file of DIR/runs/ (a "
        "pooled document the qrels do not judge counts as non-relevant)",
    )
    ap.add_argument("--depth", type=int, default=100, help="the pool's depth (default 100)")
    args = ap.parse_args()
    source = None if args.collection is None else Path(args.collection)
    result = simulate(args.reps, args.rate, args.topics, args.seed, source=source,
                      depth=args.depth)  # fmt: skip
    drawn = ", ".join(f"{d} {np.mean(v):.1%}" for d, v in FRACTIONS.items())
    what = f"{args.topics} topics, 4 runs" if source is None else str(source)
    print(
        f"{args.reps} samples of a depth-{args.depth} pool, {what}; drawn: "
        f"uniform and statap --rate {args.rate}, stratified --strata 10,30,100 --rate "
        f"0.6,0.2,0.1 (mean fraction of the pool drawn: {drawn})"
    )
    print(f"{'estimator':15} {'mean error':>11} {'(s.e.)':>9} {'(s.e. reps)':>12} {'coverage':>9}")
    for name, r in result.items():
        print(
            f"{name:15} {r['mean_error']:+11.4f} {r['standard_error']:9.4f} "
            f"{r['standard_error_reps']:12.4f} {r['coverage']:9.1%}"
            + (f"   per topic {r['per_topic_coverage']:.1%}" if "per_topic_coverage" in r else "")
        )


if __name__ == "__main__":
    main()
