"""Speed of Krippendorff's alpha and Dawid-Skene on 1M judgments, against peers.

100,000 topic-document pairs × 10 assessors (every assessor judges every pair), three
labels, simulated by ``cranfield.judgments.simulate_crowd`` (deterministic). Times are
in-process wall times (best of ``--repeat``) of the computation only, after the table is
built: cranfield's ``krippendorff_alpha`` (ordinal and nominal) and ``dawid_skene`` to
convergence (tolerance 1e-5, at most 100 iterations), the ``krippendorff`` package's
``alpha`` on the 10 × 100,000 reliability matrix, and crowd-kit's ``DawidSkene`` on the
long table (same stopping parameters; its rule differs, see docs/judgments.md).

With ``--bootstrap R``, also ``agreement_report`` (graded, ordinal) with and without
its R-replicate percentile bootstrap over pairs; ``--per-item`` assessors of
``--assessors`` judge each pair (default: all of them), on ``--labels`` labels.

Usage::

    PYTHONPATH=src python benchmarks/judgments.py --pairs 100000 --assessors 10
    PYTHONPATH=src python benchmarks/judgments.py --pairs 85864 --assessors 20 \
        --per-item 3 --labels 4 --bootstrap 1000 --no-peers --repeat 3

``--write-workloads DIR`` instead writes the two judgment tables of issue 30 (CSV,
deterministic) for timing the command line with ``/usr/bin/time -v``:
``one-each.csv`` (10^6 assessors with one judgment each, 50 topics × 20,000 documents,
labels 0-2) and ``crowd-2000.csv`` (2,000 assessors judging the same 5 documents, labels
0-1); see benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def best(f, repeat: int):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return min(times), out


def write_workloads(folder: str, assessors: int = 1_000_000) -> None:
    """The two tables of issue 30 §4 (see the module docstring)."""
    from pathlib import Path

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)

    def write(name, topic, doc, assessor, label):
        lines = [
            f"{t},d{d},w{a},{lab}" for t, d, a, lab in zip(topic, doc, assessor, label, strict=True)
        ]
        (out / name).write_text("topic,document,assessor,label\n" + "\n".join(lines) + "\n")

    n = assessors
    write(
        "one-each.csv",
        rng.integers(1, 51, n),
        rng.integers(0, 20_000, n),
        np.arange(n),
        rng.integers(0, 3, n),
    )
    who = np.repeat(np.arange(2000), 5)
    write(
        "crowd-2000.csv",
        np.ones(len(who), int),
        np.tile(np.arange(5), 2000),
        who,
        rng.integers(0, 2, len(who)),
    )


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--write-workloads", metavar="DIR")
    p.add_argument("--pairs", type=int, default=100_000)
    p.add_argument("--assessors", type=int, default=10)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--no-peers", action="store_true")
    p.add_argument("--per-item", type=int, default=None)
    p.add_argument("--labels", type=int, default=3)
    p.add_argument("--bootstrap", type=int, default=0, metavar="R")
    args = p.parse_args()
    if args.write_workloads:
        write_workloads(args.write_workloads)
        return

    from cranfield.judgments import (
        agreement_report,
        dawid_skene,
        krippendorff_alpha,
        simulate_crowd,
    )

    rng = np.random.default_rng(1)
    truth = rng.integers(0, args.labels, args.pairs)
    acc = np.linspace(0.55, 0.9, args.assessors)
    per_item = args.per_item or args.assessors
    t0 = time.perf_counter()
    j = simulate_crowd(truth, acc, labels=args.labels, per_item=per_item, seed=2)
    print(
        f"{len(j):,} judgments ({args.pairs:,} pairs × {per_item} of {args.assessors} "
        f"assessors, {args.labels} labels), built in {time.perf_counter() - t0:.2f} s"
    )
    rows = []
    if args.bootstrap:
        for r in (0, args.bootstrap):
            t, rep = best(lambda r=r: agreement_report(j, replicates=r, seed=3), args.repeat)
            ci = rep["graded"]["overall"].get("ci", {}).get("krippendorff_alpha")
            note = "no bootstrap" if not r else f"alpha 95% CI [{ci[0]:.6f}, {ci[1]:.6f}]"
            rows.append((f"cranfield agreement_report, {r} replicates", t, note))
    for level in ("ordinal", "nominal"):
        t, a = best(lambda lv=level: krippendorff_alpha(j, lv), args.repeat)
        rows.append((f"cranfield krippendorff_alpha ({level})", t, f"alpha={a:.6f}"))
    t, agg = best(lambda: dawid_skene(j), args.repeat)
    rows.append(
        (
            "cranfield dawid_skene",
            t,
            f"{agg.info['iterations']} iterations, converged={agg.info['converged']}",
        )
    )
    if not args.no_peers:
        try:
            import krippendorff

            mat = np.full((j.n_assessors, j.n_items), np.nan)
            mat[j.assessor, j.item] = j.label
            for level in ("ordinal", "nominal"):
                t, a = best(
                    lambda lv=level: krippendorff.alpha(
                        reliability_data=mat, level_of_measurement=lv
                    ),
                    args.repeat,
                )
                rows.append((f"krippendorff.alpha ({level})", t, f"alpha={a:.6f}"))
        except ImportError:
            rows.append(("krippendorff.alpha", float("nan"), "not installed"))
        try:
            import warnings

            import pandas as pd
            from crowdkit.aggregation import DawidSkene

            df = pd.DataFrame({"task": j.item, "worker": j.assessor, "label": j.label})
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t, model = best(lambda: DawidSkene(n_iter=100, tol=1e-5).fit(df), 1)
            same = np.mean(model.labels_.sort_index().to_numpy() == agg.label)
            rows.append(
                (
                    "crowd-kit DawidSkene",
                    t,
                    f"{len(model.loss_history_)} iterations; same label on {same:.4%} of pairs",
                )
            )
        except ImportError:
            rows.append(("crowd-kit DawidSkene", float("nan"), "not installed"))
    print("| computation | seconds | note |\n|---|---|---|")
    for name, t, note in rows:
        print(f"| {name} | {t:.3f} | {note} |")


if __name__ == "__main__":
    main()
