"""``cranfield sample_eval``: TREC's ``sample_eval.pl`` (xinfAP, infNDCG and the inferred
precisions of a stratified sample of judgments), the same output byte for byte."""

from __future__ import annotations

import argparse

from ._args import add_ci, add_output


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = (
        "Estimates from sampled judgments as TREC's sample_eval.pl prints them (Yilmaz, "
        "Kanoulas & Aslam, SIGIR 2008): infAP (xinfAP), infNDCG, iprec@rec, iP10, iP50, "
        "iP1000, inum_rel_ret, inum_rel, num_ret. The qrels have five columns: topic "
        "iteration docno stratum relevance (-1: pooled, not judged). docs/sampling.md."
    )
    parser.add_argument("qrels", help="sampled qrels: topic iteration docno stratum relevance")
    parser.add_argument("run", help="a TREC run: topic Q0 docno rank score runid")
    parser.add_argument("-q", action="store_true", help="each topic's values first")
    parser.add_argument(
        "--statap",
        action="store_true",
        help="also statAP and statPC@10 (Aslam, Pavlu & Yilmaz 2006), after sample_eval's "
        "lines; needs six-column qrels (the inclusion probability last: "
        "'cranfield pool sampled --probabilities')",
    )
    add_ci(
        parser,
        "'lo hi': of the mean over topics (topics as sampling units) of infAP and infNDCG, "
        "and with --statap of statAP and statPC@10; with -q per topic too (infAP and "
        "infNDCG: a stratified jackknife; statAP, statPC@10: Horvitz-Thompson); needs "
        "SciPy (the stats extra)",
    )
    add_output(parser, via_stdout=True)


def run(args: argparse.Namespace) -> int:
    from ..core.sampled import evaluate_sampled, sample_eval_text
    from ._output import deliver

    result = evaluate_sampled(args.qrels, args.run, statap=args.statap, variances=args.ci)
    text = sample_eval_text(result, args.q)
    if args.statap or args.ci:
        from ..judgments.intervals import extra_text

        text += extra_text(result, args.q, args.ci)
    deliver(text, None)
    return 0
