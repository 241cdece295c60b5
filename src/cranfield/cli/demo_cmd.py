"""``cranfield demo``: evaluate the bundled sample test collection.

The collection is generated deterministically (40 TREC-style topics with graded
judgments and four runs of different quality); the demo writes it to a directory,
evaluates the runs side by side and shows the equivalent commands.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ._args import add_measures


def demo_measures() -> list[str]:
    """The demo's measures: ``cranfield eval``'s default and Bpref, which shows what
    incomplete judgments do (Buckley & Voorhees 2004)."""
    from ..defaults import DEFAULT_MEASURES

    return [*DEFAULT_MEASURES, "Bpref"]


def add_arguments(p) -> None:
    p.add_argument(
        "--dir",
        default="sample-collection",
        help="where to write the sample files (default: ./sample-collection)",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="write the sample files over edited ones (without it an edited file is refused)",
    )
    add_measures(p, "measures (default: " + " ".join(demo_measures()) + ")")


def run(args) -> int:
    from .. import sample
    from ..core.evaluation import evaluate
    from ..core.qrels import Qrels
    from ..core.run import Run
    from ..output import render

    directory = Path(args.dir)
    paths = sample.write(directory, overwrite=args.force)
    qrels_path, run_paths = paths[0], paths[1:]
    qrels = Qrels.read(qrels_path)
    runs = [Run.read(p) for p in run_paths]
    measures = args.measures or demo_measures()
    results = evaluate(qrels, runs, measures, complete=True)
    out = sys.stdout
    out.write(
        f"Sample collection written to {directory}/: {len(qrels.query_ids())} topics, "
        f"{len(qrels)} judgments, runs: {', '.join(r.name for r in runs)}\n\n"
    )
    out.write(render(results, "text"))
    out.write("\nThe same from the command line:\n")
    out.write(
        f"  cranfield eval {qrels_path} {' '.join(map(str, run_paths))} -m {' '.join(measures)} --complete\n"
    )
    out.write(f"  cranfield trec_eval -c -m all_trec {qrels_path} {run_paths[0]}\n")
    return 0
