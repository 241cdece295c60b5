"""``cranfield classify``: evaluate a classifier from CSV, TSV or Parquet columns."""

from __future__ import annotations

import argparse

from ..classification.thresholds import CRITERIA as _CRITERIA

HELP = "evaluate a classifier: confusion matrix, rates, ROC, thresholds"


def _zero_division(text: str):
    if text == "warn":
        return text
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected 'warn' or a number, got {text!r}") from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "truth", metavar="TRUTH", help="file with the true labels (csv, tsv, parquet)"
    )
    parser.add_argument(
        "predictions",
        metavar="PREDICTIONS",
        nargs="?",
        help="file with the predicted labels or scores; omit it when TRUTH holds both columns",
    )
    parser.add_argument(
        "--truth-column", help="column of true labels (default: the first column of TRUTH)"
    )
    parser.add_argument(
        "--pred-column",
        help="column of predictions (default: the first column of PREDICTIONS, "
        "or the second column of TRUTH when PREDICTIONS is omitted)",
    )
    parser.add_argument(
        "--labels",
        help="comma-separated classes in display order (multi-class report); "
        "every label in the data must be listed",
    )
    parser.add_argument(
        "--scores", action="store_true", help="the predictions are scores (higher = more positive)"
    )
    parser.add_argument("--positive", metavar="LABEL", help="the positive label of a binary task")
    parser.add_argument(
        "--threshold-by",
        choices=_CRITERIA,
        default="accuracy",
        help="how to choose the threshold for --scores (default: accuracy)",
    )
    parser.add_argument("--beta", type=float, default=1.0, help="beta of F-beta (default 1)")
    parser.add_argument("--min-specificity", type=float, default=0.9)
    parser.add_argument("--min-sensitivity", type=float, default=0.9)
    parser.add_argument("--cost-fp", type=float, default=1.0, help="cost of a false positive")
    parser.add_argument("--cost-fn", type=float, default=1.0, help="cost of a false negative")
    parser.add_argument(
        "--roc-table",
        action="store_true",
        help="with --scores, also print the ROC table "
        "(threshold, TP, FP, FN, TN, TPR, FPR, ACC per score; Fawcett 2006)",
    )
    parser.add_argument("--format", choices=("text", "markdown", "json", "html"), default="text")
    parser.add_argument(
        "--orientation",
        choices=("predicted-rows", "actual-rows"),
        default="predicted-rows",
        help="predicted condition in rows (Fawcett 2006's layout, default) or actual in rows",
    )
    parser.add_argument(
        "--zero-division",
        type=_zero_division,
        default="warn",
        help="value of an undefined 0/0 rate: 'warn' (nan, the default) or a number",
    )


def run(args: argparse.Namespace) -> int:
    import warnings

    from ..classification import io, rates
    from ..classification.report import classification_report
    from ..errors import InputError

    truth_table = io.read_table(args.truth)
    truth_col = io.pick_column(truth_table, args.truth, args.truth_column, 0, "truth")
    truth = io.labels_column(truth_table, args.truth, truth_col)
    if args.predictions is None:
        pred_path, pred_table = args.truth, truth_table
        pred_col = io.pick_column(truth_table, args.truth, args.pred_column, 1, "pred")
    else:
        pred_path, pred_table = args.predictions, io.read_table(args.predictions)
        pred_col = io.pick_column(pred_table, pred_path, args.pred_column, 0, "pred")
        if pred_table.num_rows != truth_table.num_rows:
            raise InputError(
                f"{args.truth} has {truth_table.num_rows} rows but {pred_path} has "
                f"{pred_table.num_rows}"
            )
    labels = None if args.labels is None else args.labels.split(",")
    if labels is not None:
        io.check_labels(truth, labels, args.truth, truth_col)
    if args.scores:
        values = {"scores": io.scores_column(pred_table, pred_path, pred_col)}
    else:
        values = {"predicted": io.labels_column(pred_table, pred_path, pred_col)}
        if labels is not None:
            io.check_labels(values["predicted"], labels, pred_path, pred_col)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rates.UndefinedRatioWarning)  # shown as nan
        report = classification_report(
            truth,
            **values,
            positive=args.positive,
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
