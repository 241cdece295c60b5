"""Classifier evaluation: confusion matrices, every rate, ROC, thresholds, losses.

Definitions follow Fawcett (2006), Powers (2011) and Manning, Raghavan & Schütze
(2008); see ``docs/classification.md``. Core computations use NumPy only.
"""

from __future__ import annotations

from .._lazy import exports

_EXPORTS = {  # name -> the submodule that defines it, imported on first use
    "as_numbers_if_numeric": "_labels",
    "BinaryConfusion": "confusion",
    "ConfusionMatrix": "confusion",
    "multilabel_precision_recall": "confusion",
    "brier_score": "losses",
    "cross_entropy": "losses",
    "log_loss": "losses",
    "mae": "losses",
    "mse": "losses",
    "one_vs_rest_log_loss": "losses",
    "rmse": "losses",
    "RATES": "rates",
    "UndefinedRatioWarning": "rates",
    "render_binary": "render",
    "render_multiclass": "render",
    "render_roc_table": "render",
    "ClassificationReport": "report",
    "classification_report": "report",
    "RocTable": "roc",
    "average_precision": "roc",
    "precision_recall_curve": "roc",
    "roc_auc": "roc",
    "roc_curve": "roc",
    "roc_table": "roc",
    "CRITERIA": "thresholds",
    "ThresholdChoice": "thresholds",
    "fixed_threshold": "thresholds",
    "select_threshold": "thresholds",
}

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

exports(__name__, _EXPORTS)
