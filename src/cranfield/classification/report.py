"""One evaluation report of a classifier: what ``cranfield classify`` prints.

:func:`classification_report` decides what to compute from its inputs:

- scores: ROC AUC, average precision, log-loss and Brier score when the scores are
  probabilities (all in [0, 1]), and the binary confusion matrix with every rate at a
  threshold: a fixed one (``threshold``; 0.5 by default for probabilities) or one
  chosen on the evaluated data by a criterion (``threshold_by``; optimistic, and said
  so in the output), plus, on request, the ROC table (Fawcett 2006);
- labels with a positive label (given, or 1/True of a {0, 1}-like pair): the binary
  confusion matrix with every rate;
- other labels: the K x K confusion matrix, accuracy, per-class rates and averages.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from . import rates as R
from ._labels import as_labels, check_same_length, class_list, infer_positive
from .confusion import BinaryConfusion, ConfusionMatrix
from .losses import brier_score, log_loss
from .render import (
    check_format,
    fmt_value,
    render_binary,
    render_multiclass,
    render_pairs,
    render_roc_table,
)
from .roc import as_scores, average_precision, binary_truth, roc_auc, roc_table
from .thresholds import ThresholdChoice, fixed_threshold, select_threshold

#: The threshold used for probabilities when none is given or chosen.
DEFAULT_PROBABILITY_THRESHOLD = 0.5


@dataclass
class ClassificationReport:
    """The computed results; :meth:`render` and :meth:`to_dict` present them."""

    kind: str  # "binary", "multiclass" or "scores"
    binary: BinaryConfusion | None = None
    multiclass: ConfusionMatrix | None = None
    threshold: ThresholdChoice | None = None
    scores: dict[str, float] = field(default_factory=dict)
    roc: object = None
    beta: float = 1.0
    zero_division: R.ZeroDivision = "warn"

    def to_dict(self) -> dict:
        """A JSON-ready dict (NaN becomes null, infinities the strings "inf"/"-inf")."""
        out: dict = {"kind": self.kind}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", R.UndefinedRatioWarning)
            if self.binary is not None:
                b = self.binary
                out["positive"] = b.positive
                out["counts"] = {"TP": b.tp, "FP": b.fp, "FN": b.fn, "TN": b.tn}
                out["rates"] = b.rates(self.zero_division, self.beta)
            if self.threshold is not None:
                t = self.threshold
                out["threshold"] = {"threshold": t.threshold, "rule": "score >= threshold"}
                if t.criterion == "fixed":
                    out["threshold"]["chosen_on_evaluated_data"] = False
                else:
                    out["threshold"].update(
                        criterion=t.criterion, value=t.value, chosen_on_evaluated_data=True
                    )
            if self.scores:
                out["scores"] = dict(self.scores)
            if self.multiclass is not None:
                cm = self.multiclass
                p, r, f, s = cm.precision_recall_fscore(self.beta, None, self.zero_division)
                out["labels"] = list(cm.labels)
                out["matrix_actual_rows"] = cm.counts.tolist()
                out["accuracy"] = cm.accuracy(self.zero_division)
                out["error_rate"] = cm.error_rate(self.zero_division)
                out["kappa"] = cm.cohen_kappa(self.zero_division)
                out["MCC"] = cm.mcc(self.zero_division)
                out["per_class"] = {
                    str(lab): {"support": int(s[i]), "precision": p[i], "recall": r[i], "f": f[i]}
                    for i, lab in enumerate(cm.labels)
                }
                out["averages"] = {
                    a: dict(
                        zip(
                            ("precision", "recall", "f", "support"),
                            cm.precision_recall_fscore(self.beta, a, self.zero_division),
                            strict=True,
                        )
                    )
                    for a in ("macro", "micro", "weighted")
                }
            if self.roc is not None:
                out["roc_table"] = {k: v.tolist() for k, v in self.roc.columns().items()}
        return _jsonable(out)

    def render(self, fmt: str = "text", orientation: str = "actual_rows") -> str:
        """The report as ``text``, ``markdown``, ``html`` or ``json``.

        ``orientation``: ``"actual_rows"`` (scikit-learn's layout, the default) or
        ``"predicted_rows"`` (the textbook layout); each table's corner says which.
        """
        if fmt == "json":
            from ..output import dumps_json

            return dumps_json(self.to_dict())
        check_format(fmt)
        parts = []
        if self.scores or self.threshold is not None:
            pairs = [(name, fmt_value(v)) for name, v in self.scores.items()]
            if self.threshold is not None:
                t = self.threshold
                if t.criterion == "fixed":
                    pairs.append(
                        ("threshold T (fixed; positive if score >= T)", f"{t.threshold:g}")
                    )
                else:
                    pairs += [
                        (
                            f"threshold T chosen on the evaluated data by {t.criterion} "
                            "(optimistic; positive if score >= T)",
                            f"{t.threshold:g}",
                        ),
                        (f"{t.criterion} at T", fmt_value(t.value)),
                    ]
            parts.append(render_pairs(pairs, fmt))
        if self.binary is not None:
            parts.append(
                render_binary(self.binary, fmt, orientation, self.zero_division, self.beta)
            )
        if self.multiclass is not None:
            parts.append(
                render_multiclass(self.multiclass, fmt, orientation, self.zero_division, self.beta)
            )
        if self.roc is not None:
            parts.append(render_roc_table(self.roc, fmt))
        return "\n\n".join(parts)


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_jsonable(v) for v in x]
    if hasattr(x, "item") and not isinstance(x, str):
        x = x.item()
    if isinstance(x, float):
        if math.isnan(x):
            return None
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
    return x


def classification_report(
    truth,
    predicted=None,
    *,
    scores=None,
    positive=None,
    threshold: float | None = None,
    threshold_by: str | None = None,
    with_roc_table: bool = False,
    beta: float = 1.0,
    min_specificity: float = 0.9,
    min_sensitivity: float = 0.9,
    cost_fp: float = 1.0,
    cost_fn: float = 1.0,
    zero_division: R.ZeroDivision = "warn",
    labels=None,
) -> ClassificationReport:
    """Evaluate predicted labels (``predicted``) or scores (``scores``) against ``truth``.

    ``labels`` fixes the classes and their order in a multi-class report.

    With scores, the confusion matrix is taken at a threshold T (positive when
    score >= T): ``threshold`` fixes it; ``threshold_by`` chooses it on these very data
    by a criterion of :func:`select_threshold` (an optimistic estimate, and the report
    says so); with neither, T = 0.5 when every score is a probability in [0, 1], and
    other scores are an error. Probabilities also get log-loss and the Brier score.
    """
    R.check_zero_division(zero_division)
    R.check_beta(beta)
    t = as_labels(truth, "truth")
    if (predicted is None) == (scores is None):
        raise InputError("give exactly one of predicted labels or scores")
    if scores is not None:
        s = as_scores(scores)
        check_same_length(t, s, "truth", "scores")
        _, pos = binary_truth(t, positive)
        if threshold is not None and threshold_by is not None:
            raise InputError("give a fixed threshold or a criterion to choose one, not both")
        probabilities = bool(len(s)) and bool(np.all((s >= 0) & (s <= 1)))
        if threshold is None and threshold_by is None:
            if not probabilities:
                raise InputError(
                    "the scores are not probabilities in [0, 1]; give a fixed threshold "
                    "(--threshold T) or choose one on these data (--threshold-by CRITERION)"
                )
            threshold = DEFAULT_PROBABILITY_THRESHOLD
        # ROC analysis needs both classes: roc_auc raises a clear InputError otherwise
        found = {
            "ROC AUC": roc_auc(t, s, positive),
            "average precision": average_precision(t, s, positive),
        }
        if probabilities:
            found["log-loss"] = log_loss(t, s, positive=pos)
            found["Brier score"] = brier_score(t, s, positive=pos)
        if threshold is not None:
            choice = fixed_threshold(t, s, threshold, positive=positive)
        else:
            choice = select_threshold(
                t,
                s,
                threshold_by,
                positive=positive,
                beta=beta,
                min_specificity=min_specificity,
                min_sensitivity=min_sensitivity,
                cost_fp=cost_fp,
                cost_fn=cost_fn,
            )
        c = choice.confusion
        binary = BinaryConfusion(c.tp, c.fp, c.fn, c.tn, pos)
        roc = roc_table(t, s, pos, zero_division) if with_roc_table else None
        return ClassificationReport("scores", binary, None, choice, found, roc, beta, zero_division)
    p = as_labels(predicted, "predicted")
    check_same_length(t, p, "truth", "predicted")
    present = class_list(t, p)
    binary_pos = None
    if positive is not None:
        binary_pos = infer_positive(present, positive)
    elif labels is None:
        try:
            binary_pos = infer_positive(present)
        except InputError:
            binary_pos = None
    if binary_pos is not None:
        cm = BinaryConfusion.from_labels(t, p, binary_pos)
        return ClassificationReport("binary", cm, beta=beta, zero_division=zero_division)
    cm = ConfusionMatrix.from_labels(t, p, labels if labels is None else list(labels))
    return ClassificationReport("multiclass", None, cm, beta=beta, zero_division=zero_division)
