"""``cranfield cwl``: cwl_eval's evaluation (C/W/L measures), its output column for
column (see :mod:`cranfield.core.cwl_eval`)."""

from __future__ import annotations

import argparse

from ._args import add_output, add_refused

_EPILOG = """\
As cwl_eval 1.0.12 (Azzopardi, Thomas & Moffat 2019): QRELS holds gains (real numbers
in [--min_gain, --max_gain]); a topic is a block of consecutive RUN lines, ranked in
file order; each metric prints EU, ETU, EC, ETC and ED (expected utility per item and
in total, expected cost per item and in total, expected depth), with -r their
residuals. Metrics files hold one ClassName(params) a line (PrecisionCWLMetric(10),
RBPCWLMetric(0.8), INSTCWLMetric(1.0), BPMDCWLMetric(1,10,1.0,1.0,0.5), ...). Costs are
read per element type (-c: element_type cost, the type in RUN's second column) or per
document (--doc-costs: topic document cost); an item without one costs --max_cost
(worst case) or --min_cost (best case). The same measures are in the measure
language: INST(T=2), cwl_RBP(theta=0.8, of='ETU'), TBG(residual=True), ..."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = _EPILOG
    parser.add_argument("gain_file", metavar="QRELS", help="TREC qrels whose values are gains")
    parser.add_argument("result_file", metavar="RUN", help="TREC run (ranked in file order)")
    parser.add_argument(
        "-m", "--metrics_file", metavar="FILE", help="cwl_eval metrics file (default: its 16)"
    )
    parser.add_argument(
        "--doc-costs", metavar="FILE", help="per-document costs: topic document cost rows"
    )
    parser.add_argument(
        "-c",
        "--cost_file",
        metavar="FILE",
        help="cwl_eval's cost file: element_type cost rows (the run's second column)",
    )
    parser.add_argument("-n", "--colnames", action="store_true", help="print a header row")
    parser.add_argument("-r", "--residuals", action="store_true", help="add the residuals")
    for flag, default, what in (
        ("--max_gain", "1.0", "largest gain; an unjudged item's gain in the best case"),
        ("--min_gain", "0.0", "smallest gain; an unjudged item's gain in the worst case"),
        ("--max_cost", "1.0", "an item's cost in the worst case without a cost"),
        ("--min_cost", "1.0", "an item's cost in the best case without a cost"),
    ):
        parser.add_argument(flag, default=default, help=f"{what} (default {default})")
    parser.add_argument(
        "--max_depth", default="1000", help="rankings cut or completed to this depth (1000)"
    )
    add_refused(parser, "-b", "cranfield writes no BibTeX: docs/cwl.md lists the references")
    add_output(parser, via_stdout=True)


def run(args: argparse.Namespace) -> int:
    from ..core import cwl_eval
    from ._common import number

    big = 1e300
    bounds = {
        name: number(getattr(args, name), f"--{name}", float, -big, big)
        for name in ("max_gain", "min_gain", "max_cost", "min_cost")
    }
    depth = number(args.max_depth, "--max_depth", int, 1, 10_000_000)
    metrics = cwl_eval.read_metrics(args.metrics_file) if args.metrics_file else None
    topics, metrics, values = cwl_eval.evaluate(
        args.gain_file,
        args.result_file,
        metrics,
        costs=args.doc_costs,
        type_costs=args.cost_file,
        residuals=args.residuals,
        max_depth=depth,
        **bounds,
    )
    text = cwl_eval.render(
        topics, metrics, values, residuals=args.residuals, colnames=args.colnames
    )
    from ._output import deliver

    deliver(text, None)
    return 0
