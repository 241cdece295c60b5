"""``cranfield classify``: evaluate a classifier from CSV, TSV or Parquet columns."""

from __future__ import annotations

import argparse

from .._lazy import lazy
from ..classification.thresholds import CRITERIA as _CRITERIA
from ..errors import InputError, ParameterError
from ._args import add_format, add_header, add_output

np = lazy("numpy", __name__, "np")


def _zero_division(text: str):
    if text == "warn":
        return text
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected 'warn' or a number, got {text!r}") from None


def _threshold(text: str) -> float:
    import math

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = _EPILOG
    parser.add_argument(
        "truth", metavar="TRUTH", help="file with the true labels (csv, tsv, parquet, txt)"
    )
    parser.add_argument(
        "predictions",
        metavar="PREDICTIONS",
        nargs="?",
        help="file with the predicted labels or scores; omit it when TRUTH holds both columns",
    )
    parser.add_argument(
        "--truth-column",
        help="column of true labels, by name or 1-based number (default: the first of TRUTH)",
    )
    parser.add_argument(
        "--pred-column",
        help="column of predictions, by name or 1-based number (default: the first column "
        "of PREDICTIONS, or the second column of TRUTH when PREDICTIONS is omitted)",
    )
    add_header(parser)
    parser.add_argument(
        "--labels",
        help="comma-separated classes in display order (multi-class report); "
        "every label in the data must be listed",
    )
    parser.add_argument(
        "--scores", action="store_true", help="the predictions are scores (higher = more positive)"
    )
    parser.add_argument("--positive", metavar="LABEL", help="the positive label of a binary task")
    choose = parser.add_mutually_exclusive_group()
    choose.add_argument(
        "--threshold",
        metavar="T",
        type=_threshold,
        help="with --scores, predict positive when score >= T (default 0.5 for "
        "probabilities; other scores need --threshold or --threshold-by)",
    )
    choose.add_argument(
        "--threshold-by",
        choices=_CRITERIA,
        help="with --scores, choose T on the evaluated data by this criterion "
        "(optimistic; the output says so)",
    )
    parser.add_argument("--beta", type=float, default=1.0, help="beta of F-beta (default 1)")
    parser.add_argument("--min-specificity", type=float, default=0.9)
    parser.add_argument("--min-sensitivity", type=float, default=0.9)
    parser.add_argument("--cost-fp", type=float, default=1.0, help="cost of a false positive")
    parser.add_argument("--cost-fn", type=float, default=1.0, help="cost of a false negative")
    parser.add_argument(
        "--roc-table",
        action="store_true",
        help="with --scores, also print the ROC table: class, score, TP, FP, FN, TN, TPR, "
        "FPR, ACC per item (Fawcett 2006)",
    )
    add_format(parser, ("text", "markdown", "json", "html"))
    parser.add_argument(
        "--orientation",
        choices=("actual-rows", "predicted-rows"),
        default="actual-rows",
        help="actual class in rows (scikit-learn's confusion_matrix, the default) or "
        "predicted class in rows (the textbook layout of Fawcett 2006)",
    )
    parser.add_argument(
        "--zero-division",
        type=_zero_division,
        default="warn",
        help="value of an undefined 0/0 rate: 'warn' (nan, the default) or a number",
    )
    add_output(parser, via_stdout=True)


_EPILOG = """\
files: .csv, .tsv/.tab (gzipped too), Parquet or Arrow (by content); anything else is
plain text with one
value per line (np.savetxt, cut -f2). Whether a text file's first line is a header is
told from the data (a cell that is not a number or label found below it); when it
cannot be told, cranfield asks for --header or --no-header instead of guessing.
Labels that are all numbers compare as numbers (1, 1.0 and 1e+00 are one class)."""


def _check_labels(values: np.ndarray, allowed: list[str], table, column: str) -> None:
    """Every value of a label column must be one of ``allowed`` (the error names the line)."""
    from ..label_files import shown

    bad = np.flatnonzero(~np.isin(values.astype(str), np.asarray(allowed, dtype=str)))
    if len(bad):
        source, line, prefix = table.where(int(bad[0]))
        raise InputError(
            f"{prefix}label {shown(str(values[bad[0]]))} in column {shown(column)} is not one of "
            f"{shown(allowed, 200)}",
            source,
            line,
        )


def run(args: argparse.Namespace) -> int:
    import warnings

    from ..classification import as_numbers_if_numeric, rates
    from ..classification.report import classification_report
    from ..label_files import header_hint, read_table

    if not args.scores:
        for option, value in (
            ("--threshold", args.threshold),
            ("--threshold-by", args.threshold_by),
        ):
            if value is not None:  # a threshold ignored in silence would mislead
                raise ParameterError(option, "only together with --scores", value)
    one_file = args.predictions is None
    wanted = [args.truth_column] + ([args.pred_column] if one_file else [])
    truth_table = read_table(
        args.truth, header=args.header, names=tuple(n for n in wanted if n is not None)
    )
    truth_col = truth_table.pick(args.truth_column, 0, "truth")
    if one_file:
        pred_table = truth_table
        pred_col = truth_table.pick(args.pred_column, 1, "pred")
    else:
        names = () if args.pred_column is None else (args.pred_column,)
        pred_table = read_table(args.predictions, header=args.header, names=names)
        pred_col = pred_table.pick(args.pred_column, 0, "pred")
        if pred_table.num_rows != truth_table.num_rows:
            raise InputError(
                f"{args.truth} has {truth_table.num_rows} rows but {args.predictions} has "
                f"{pred_table.num_rows}" + header_hint(truth_table, pred_table, args.header)
            )
    if truth_table.num_rows == 0:
        raise InputError("no labels (the file has a header only)", args.truth)
    truth = truth_table.labels(truth_col)
    labels = None if args.labels is None else args.labels.split(",")
    if labels is not None:
        _check_labels(truth, labels, truth_table, truth_col)
    if args.scores:
        (truth,) = as_numbers_if_numeric(truth)
        values = {"scores": pred_table.scores(pred_col)}
    else:
        predicted = pred_table.labels(pred_col)
        if labels is not None:
            _check_labels(predicted, labels, pred_table, pred_col)
        else:
            truth, predicted = as_numbers_if_numeric(truth, predicted)
        values = {"predicted": predicted}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rates.UndefinedRatioWarning)  # shown as nan
        report = classification_report(
            truth,
            **values,
            positive=args.positive,
            threshold=args.threshold,
            threshold_by=args.threshold_by,
            with_roc_table=args.roc_table,
            beta=args.beta,
            min_specificity=args.min_specificity,
            min_sensitivity=args.min_sensitivity,
            cost_fp=args.cost_fp,
            cost_fn=args.cost_fn,
            zero_division=args.zero_division,
            labels=labels,
        )
        print(report.render(args.format, args.orientation.replace("-", "_")))
    return 0
