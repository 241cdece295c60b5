"""``cranfield aggregate``: one label per topic and document from several assessors."""

from __future__ import annotations

import argparse

from ..errors import ParameterError
from ._args import add_output, add_seed, number, seed_value
from ._judgments import add_input_arguments, load_judgments, note_unjudged
from ._output import deliver, emit

METHODS = ("majority", "mean", "median", "dawid-skene", "mace")
TIES = ("random", "higher", "lower", "abstain")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)
    parser.add_argument("--method", choices=METHODS, default="majority")
    parser.add_argument(
        "--ties",
        choices=TIES,
        default="random",
        help="majority vote: a tie goes to a random tied label, the higher or the lower "
        "label, or no label (the pair is left out); default random",
    )
    add_seed(parser, "tie-breaking draws and MACE restarts")
    parser.add_argument(
        "--tolerance",
        default="1e-5",
        help="Dawid-Skene and MACE: stop when the log-likelihood per judgment changes by "
        "less than this (default 1e-5); 0 runs exactly --max-iterations",
    )
    parser.add_argument(
        "--max-iterations", default="100", help="Dawid-Skene and MACE: iteration cap (default 100)"
    )
    parser.add_argument(
        "--mace-fit",
        choices=("vb", "em"),
        default="vb",
        help="MACE: variational Bayes with Beta(0.5, 0.5) and Dirichlet(10) priors (default) "
        "or EM with smoothing 0.01/labels (Hovy et al. 2013)",
    )
    parser.add_argument(
        "--restarts",
        default="10",
        help="MACE: runs, the first from majority vote, the others from random starts "
        "(--seed); the most likely is kept (default 10)",
    )
    parser.add_argument(
        "--class-priors",
        choices=("learned", "uniform"),
        default="learned",
        help="MACE: estimate the share of each label (default) or keep Hovy et al.'s uniform prior",
    )
    parser.add_argument(
        "--gold",
        metavar="FILE",
        help="qrels of pairs whose label is known: they keep it, and Dawid-Skene and MACE "
        "learn the assessors from them",
    )
    parser.add_argument(
        "--soft",
        action="store_true",
        help="write soft labels: every pair with its expected gain under the posterior, "
        "sum over labels of P(label) * gain(label), as fractional relevance (read it with "
        "cranfield eval --fractional)",
    )
    parser.add_argument(
        "--gains",
        metavar="LABEL=GAIN,...",
        help="with --soft: the gain of each label, e.g. 0=0,1=1,2=3 (default: the label's "
        "value; labels not listed keep their value; needed for a nominal scale)",
    )
    add_output(parser, help="qrels file to write (default: standard output)")
    add_output(
        parser,
        flags=("--posteriors",),
        help="also write a TSV: topic, document, label, votes and the posterior of each label "
        "('-': standard output)",
    )


def _gains(text: str) -> dict[int, float]:
    """``--gains 0=0,1=1,2=3``: label value -> gain (the measure language's pair syntax)."""
    from ..core.declarations import coerce_gains

    try:
        return dict(coerce_gains(text))
    except ValueError:
        raise ParameterError(
            "--gains", "LABEL=GAIN pairs such as 0=0,1=1,2=3 (each label once)", text
        ) from None


def run(args) -> int:
    import sys

    from ..judgments import aggregate

    state = seed_value(args)
    options: dict = {}
    if args.method == "majority":
        options = {"ties": args.ties, "seed": state}
    elif args.method in ("dawid-skene", "mace"):
        options = {
            "tolerance": number(args.tolerance, "--tolerance", float, 0, 1),
            "max_iterations": number(args.max_iterations, "--max-iterations", int, 1, 10**6),
        }
        if args.method == "mace":
            options |= {
                "fit": args.mace_fit,
                "class_priors": args.class_priors,
                "restarts": number(args.restarts, "--restarts", int, 1, 1000),
                "seed": state,
            }
    gains = _gains(args.gains) if args.gains is not None else None
    if gains is not None and not args.soft:
        raise ParameterError("--gains", "only with --soft", args.gains)
    judgments = load_judgments(args)
    result = aggregate(judgments, args.method, gold=args.gold, **options)
    qrels = result.to_qrels(soft=True, gains=gains) if args.soft else result.to_qrels()
    if args.posteriors is not None:
        deliver(result.posterior_table(), args.posteriors)
    if args.output is None or args.output == "-":
        if sys.stdout is None:
            emit("")  # the one clear message about a closed standard output
        qrels.to_trec("-")
    else:
        qrels.to_trec(args.output)
    info = result.info
    if info.get("converged") is False and sys.stderr is not None:
        print(
            f"cranfield aggregate: note: {args.method} stopped at the iteration cap "
            f"({info['max_iterations']}) before converging to {info['tolerance']:g}",
            file=sys.stderr,
        )
    note_unjudged("aggregate", judgments)
    return 0
