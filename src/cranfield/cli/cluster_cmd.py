"""``cranfield cluster``: evaluate a clustering against gold-standard classes."""

from __future__ import annotations

import argparse

from ._args import add_digits, add_format, add_header, add_output, digits_value

_EPILOG = """\
files: .csv/.tsv/.tab (gzipped too), Parquet or Arrow (by content); anything else is
plain text with one
label per line (np.savetxt, cut -f2). Whether a text file's first line is a header is
told from the data (a cell that is not a number or label found below it); when it cannot
be told, cranfield asks for --header or --no-header instead of guessing. Without a
header, columns are named 1, 2, ... One file with two label columns may be given alone.
Rows are matched by position, or by --id-column.
measures: purity, inverse purity, entropies, mutual information (nats), NMI, adjusted
mutual information (Vinh et al. 2010), homogeneity, completeness, V-measure (Rosenberg &
Hirschberg 2007), Rand index, adjusted Rand index, pair-counting TP/FP/FN/TN, precision,
recall, F-beta, Fowlkes-Mallows (1983)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ..clustering import AVERAGE_METHODS, OUTPUT_FORMATS

    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = _EPILOG
    parser.add_argument("truth", metavar="TRUTH", help="gold-standard classes (or both columns)")
    parser.add_argument(
        "assignment", metavar="ASSIGNMENT", nargs="?", help="cluster of each item (optional)"
    )
    parser.add_argument("--truth-column", metavar="COL", help="truth column name or 1-based number")
    parser.add_argument(
        "--assignment-column", metavar="COL", help="assignment column name or 1-based number"
    )
    parser.add_argument("--id-column", metavar="COL", help="match rows of the two files by this id")
    add_header(parser)
    parser.add_argument(
        "--beta", type=float, default=1.0, help="beta of pair-counting F (>1 weights recall)"
    )
    parser.add_argument(
        "--average-method",
        choices=AVERAGE_METHODS,
        default="arithmetic",
        help="NMI and AMI normalisation (default: arithmetic, as in IIR ch. 16 and scikit-learn)",
    )
    parser.add_argument(
        "--zero-division",
        type=float,
        default=0.0,
        help="value of pair precision/recall/F when undefined (default 0)",
    )
    parser.add_argument("--table", action="store_true", help="also print the contingency table")
    add_format(parser, OUTPUT_FORMATS, "text")
    add_digits(parser)
    add_output(parser, via_stdout=True)


def run(args: argparse.Namespace) -> int:
    from ..clustering import evaluate_clustering, format_scores
    from ..label_files import read_label_pair

    digits = digits_value(args)  # checked before the files are read
    truth, assignment = read_label_pair(
        args.truth,
        args.assignment,
        truth_column=args.truth_column,
        assignment_column=args.assignment_column,
        id_column=args.id_column,
        header=args.header,
    )
    scores = evaluate_clustering(
        truth,
        assignment,
        beta=args.beta,
        average_method=args.average_method,
        zero_division=args.zero_division,
    )
    print(format_scores(scores, args.format, digits=digits, table=args.table))
    return 0
