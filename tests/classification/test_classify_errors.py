"""Bad input and bad parameters: clear errors; undefined ratios: NaN with a warning."""

import math

import numpy as np
import pytest

from cranfield.classification import (
    BinaryConfusion,
    ConfusionMatrix,
    UndefinedRatioWarning,
    average_precision,
    classification_report,
    log_loss,
    mse,
    roc_auc,
    roc_curve,
    roc_table,
    select_threshold,
)
from cranfield.classification import rates as R
from cranfield.errors import InputError, ParameterError


def test_length_mismatch():
    with pytest.raises(InputError, match="3 items but predicted has 2"):
        BinaryConfusion.from_labels([1, 0, 1], [1, 0])
    with pytest.raises(InputError, match="truth has 3 items but scores has 2"):
        roc_auc([1, 0, 1], [0.2, 0.4])
    with pytest.raises(InputError, match="items"):
        ConfusionMatrix.from_labels(["a"], ["a", "b"])
    with pytest.raises(InputError, match="items"):
        log_loss([1, 0], [0.3])
    with pytest.raises(InputError, match="items"):
        mse([1.0], [1.0, 2.0])


@pytest.mark.parametrize("truth", [[1, 1, 1], [0, 0], ["P", "P"]])
def test_single_class_truth_for_auc(truth):
    scores = np.linspace(0, 1, len(truth))
    with pytest.raises(InputError, match="only one class"):
        roc_auc(truth, scores, positive=truth[0] if truth[0] == "P" else None)
    with pytest.raises(InputError, match="only one class"):
        classification_report(truth, scores=scores, positive="P" if truth[0] == "P" else None)


def test_average_precision_without_positives():
    with pytest.raises(InputError, match="no positive"):
        average_precision([0, 0, 0], [0.1, 0.2, 0.3])


def test_non_numeric_scores():
    with pytest.raises(InputError, match="item 1: score 'high' is not a number"):
        roc_curve([1, 0], ["0.3", "high"])
    with pytest.raises(InputError, match="not finite"):
        roc_table([1, 0], [0.3, np.nan])


def test_unknown_positive_label():
    with pytest.raises(InputError, match="unknown positive label 'spam'"):
        BinaryConfusion.from_labels(["a", "b"], ["a", "a"], positive="spam")
    with pytest.raises(InputError, match="unknown positive label"):
        select_threshold([1, 0], [0.2, 0.1], positive=7)
    with pytest.raises(InputError, match="cannot tell which label is positive"):
        BinaryConfusion.from_labels(["a", "b"], ["a", "a"])


def test_unknown_class():
    cm = ConfusionMatrix.from_labels(["a", "b"], ["a", "a"])
    with pytest.raises(InputError, match="unknown class 'c'"):
        cm.one_vs_rest("c")
    with pytest.raises(InputError, match="label 'c', which is not one of"):
        ConfusionMatrix.from_labels(["a", "c"], ["a", "a"], labels=["a", "b"])


def test_bad_parameters_name_the_parameter():
    with pytest.raises(ParameterError, match="invalid value for zero_division"):
        R.tpr(0, 0, 0, 0, zero_division="zero")
    with pytest.raises(ParameterError, match="invalid value for beta"):
        R.fbeta(1, 1, 1, 1, beta=0)
    with pytest.raises(ParameterError, match="invalid value for orientation"):
        BinaryConfusion.from_counts(1, 2, 3, 4).table("sideways")
    with pytest.raises(ParameterError, match="invalid value for by"):
        select_threshold([1, 0], [0.2, 0.1], "magic")
    with pytest.raises(ParameterError, match="invalid value for min_specificity"):
        select_threshold([1, 0], [0.2, 0.1], "sensitivity_at_specificity", min_specificity=1.5)
    with pytest.raises(ParameterError, match="invalid value for tp"):
        BinaryConfusion.from_counts(-1, 0, 0, 0)
    with pytest.raises(ParameterError, match="invalid value for delta"):
        log_loss([1], [0.5], delta=0.7)
    with pytest.raises(ParameterError, match="invalid value for average"):
        ConfusionMatrix.from_labels([1], [1]).precision_recall_fscore(average="median")
    with pytest.raises(InputError, match=r"probabilities must be finite numbers in \[0, 1\]"):
        log_loss([1], [1.5])


def test_undefined_ratio_is_nan_with_warning_naming_it():
    cm = BinaryConfusion.from_counts(0, 0, 5, 5)
    with pytest.warns(UndefinedRatioWarning, match=r"PPV \(precision\) is undefined \(0/0\)"):
        assert math.isnan(cm.rate("PPV"))
    with pytest.warns(UndefinedRatioWarning, match="MCC"):
        assert math.isnan(cm.rate("MCC"))
    assert cm.rate("PPV", zero_division=0.0) == 0.0
    assert cm.rate("PPV", zero_division=1.0) == 1.0
    # a positive number over zero is not undefined: LR+ = TPR / 0 = inf
    assert BinaryConfusion.from_counts(3, 0, 1, 4).rate("LR+") == math.inf
    with pytest.warns(UndefinedRatioWarning, match="FPR"):
        fpr, _, _ = roc_curve([1, 1], [0.5, 0.4])
    assert np.isnan(fpr).all()
