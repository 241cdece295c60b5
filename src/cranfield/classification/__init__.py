"""Classifier evaluation: confusion matrices, every rate, ROC, thresholds, losses.

Definitions follow Fawcett (2006), Powers (2011) and Manning, Raghavan & Schütze
(2008); see ``docs/classification.md``. Core computations use NumPy only.
"""

from __future__ import annotations

from ._labels import as_numbers_if_numeric
from .confusion import BinaryConfusion, ConfusionMatrix, multilabel_precision_recall
from .losses import brier_score, cross_entropy, log_loss, mae, mse, one_vs_rest_log_loss, rmse
from .rates import RATES, UndefinedRatioWarning
from .render import render_binary, render_multiclass, render_roc_table
from .report import ClassificationReport, classification_report
from .roc import (
    RocTable,
    average_precision,
    precision_recall_curve,
    roc_auc,
    roc_curve,
    roc_table,
)
from .thresholds import CRITERIA, ThresholdChoice, fixed_threshold, select_threshold

__all__ = [
    "BinaryConfusion",
    "CRITERIA",
    "ClassificationReport",
    "ConfusionMatrix",
    "RATES",
    "RocTable",
    "ThresholdChoice",
    "UndefinedRatioWarning",
    "as_numbers_if_numeric",
    "average_precision",
    "brier_score",
    "classification_report",
    "cross_entropy",
    "fixed_threshold",
    "log_loss",
    "mae",
    "mse",
    "multilabel_precision_recall",
    "one_vs_rest_log_loss",
    "precision_recall_curve",
    "render_binary",
    "render_multiclass",
    "render_roc_table",
    "rmse",
    "roc_auc",
    "roc_curve",
    "roc_table",
    "select_threshold",
]
