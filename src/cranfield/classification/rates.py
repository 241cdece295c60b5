"""Rates of a binary confusion matrix, vectorised over arrays of counts.

Every function takes the four cells ``tp, fp, fn, tn`` (scalars or equally shaped
arrays) and returns a float array of the same shape. The definitions are those of
Fawcett (2006) and Powers (2011):

======  =========================  ==========================================
name    aliases                    formula
======  =========================  ==========================================
TPR     sensitivity, recall        TP / P,              P = TP + FN
FNR     miss rate                  FN / P = 1 - TPR
TNR     specificity                TN / N,              N = FP + TN
FPR     fall-out                   FP / N = 1 - TNR
PPV     precision                  TP / (TP + FP)
FDR                                FP / (TP + FP) = 1 - PPV
NPV                                TN / (TN + FN)
FOR     false omission rate        FN / (TN + FN) = 1 - NPV
ACC     accuracy                   (TP + TN) / (P + N)
ERR     error rate                 (FP + FN) / (P + N) = 1 - ACC
prevalence                         P / (P + N)
F1                                 2 TP / (2 TP + FP + FN)
F-beta                             (1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP)
BA      balanced accuracy          (TPR + TNR) / 2
MCC     Matthews correlation       (TP TN - FP FN) / sqrt(T F P N)
BM      informedness               TPR + TNR - 1   (Youden's J)
MK      markedness                 PPV + NPV - 1
LR+     positive likelihood ratio  TPR / FPR
LR-     negative likelihood ratio  FNR / TNR
DOR     diagnostic odds ratio      LR+ / LR- = (TP TN) / (FP FN)
kappa   Cohen's kappa              2 (TP TN - FN FP) / ((TP+FP)(FP+TN) + (TP+FN)(FN+TN))
======  =========================  ==========================================

A ratio whose numerator and denominator are both 0 is undefined. By default it is
NaN and an :class:`UndefinedRatioWarning` names the ratio; ``zero_division`` set to
a number returns that number instead, silently. A positive number over 0 (only
possible for LR+, LR- and DOR) is ``inf``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from numbers import Real

from .._lazy import lazy
from ..errors import ParameterError

np = lazy("numpy", __name__, "np")

ZeroDivision = str | float


class UndefinedRatioWarning(RuntimeWarning):
    """A ratio was 0/0; the warning names it and what was returned."""


def check_zero_division(zero_division: ZeroDivision) -> ZeroDivision:
    """Validate ``zero_division``: ``"warn"`` or a number (NaN allowed)."""
    if isinstance(zero_division, str) and zero_division == "warn":
        return zero_division
    if isinstance(zero_division, Real) and not isinstance(zero_division, bool):
        return float(zero_division)
    raise ParameterError(
        "zero_division", '"warn" or a number such as 0.0, 1.0 or nan', zero_division
    )


def check_beta(beta: float) -> float:
    """Validate the F-beta weight: a finite number > 0."""
    if isinstance(beta, bool) or not isinstance(beta, Real) or not (0 < beta < np.inf):
        raise ParameterError("beta", "a finite number > 0", beta)
    return float(beta)


def safe_divide(num, den, name: str, zero_division: ZeroDivision = "warn") -> np.ndarray:
    """``num / den`` elementwise; 0/0 is NaN with a warning or ``zero_division``."""
    zero_division = check_zero_division(zero_division)
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.true_divide(num, den)
    undefined = (den == 0) & (num == 0)
    if np.any(undefined):
        if zero_division == "warn":
            warnings.warn(
                f"{name} is undefined (0/0); returning nan. "
                "Pass zero_division=<number> to choose a value.",
                UndefinedRatioWarning,
                stacklevel=3,
            )
            fill = np.nan
        else:
            fill = zero_division
        out = np.where(undefined, fill, out)
    return out if out.ndim else out[()]


def _cells(tp, fp, fn, tn):
    return tuple(np.asarray(x, dtype=float) for x in (tp, fp, fn, tn))


def tpr(tp, fp, fn, tn, zero_division: ZeroDivision = "warn"):
    """True positive rate (sensitivity, recall): TP / P."""
    tp, fp, fn, tn = _cells(tp, fp, fn, tn)
    return safe_divide(tp, tp + fn, "TPR (recall)", zero_division)


def fnr(tp, fp, fn, tn, zero_division: ZeroDivision = "warn"):
    """False negative rate (miss rate): FN / P = 1 - TPR."""
    tp, fp, fn, tn = _cells(tp, fp, fn, tn)
    return safe_divide(fn, tp + fn, "FNR", zero_division)


def tnr(tp, fp, fn, tn, zero_division: ZeroDivision = "warn"):
    """True negative rate (specificity): TN / N."""
    tp, fp, fn, tn = _cells(tp, fp, fn, tn)
    return safe_divide(tn, fp + tn, "TNR (specificity)", zero_division)


def fpr(tp, fp, fn, tn, zero_division: ZeroDivision = "warn"):
    """False positive rate (fall-out): FP / N = 1 - TNR."""
    tp, fp, fn, tn = _cells(tp, fp, fn, tn)
    return safe_divide(fp, fp + tn, "FPR (fall-out)", zero_division)


def ppv(tp, fp, fn, tn, zero_division: ZeroDivision = "warn"):
    """Positive predictive value (precision): TP / (TP + FP)."""
    tp, fp, fn, tn = _cells(tp, fp, fn, tn)
    return safe_divide(tp, tp + fp, "PPV (precision)", zero_division)


def fdr(tp, fp, fn, tn, zero_division: ZeroDivision = "warn"):
    """False discovery rate: FP / (TP + FP) = 1 - PPV."""
    tp, fp, fn, tn = _cells(tp, fp, fn, tn)
    return safe_divide(fp, tp + fp, "FDR", zero_division)


def npv(tp, fp, fn, tn, zero_division: ZeroDivision = "warn"):
    """Negative predictive value: TN / (TN + FN)."""
    tp, fp, fn, tn = _cells(tp, fp, fn, tn)
    return safe_divide(tn, tn + fn, "NPV", zero_division)


def false_omission_rate(tp, fp, fn, tn, zero_division: ZeroDivision = "warn"):
    """False omission rate: FN / (TN + FN) = 1 - NPV."""
    tp, fp, fn, tn = _cells(tp, fp, fn, tn)
    return safe_divide(fn, tn + fn, "FOR", zero_division)


def accuracy(tp, fp, fn, tn, zero_division: ZeroDivision = "warn"):
    """Accuracy: (TP + TN) / (P + N)."""
    tp, fp, fn, tn = _cells(tp, fp, fn, tn)
    return safe_divide(tp + tn, tp + fp + fn + tn, "ACC", zero_division)


def error_rate(tp, fp, fn, tn, zero_division: ZeroDivision = "warn"):
    """Error (misclassification) rate: (FP + FN) / (P + N) = 1 - ACC."""
    tp, fp, fn, tn = _cells(tp, fp, fn, tn)
    return safe_divide(fp + fn, tp + fp + fn + tn, "ERR", zero_division)


def prevalence(tp, fp, fn, tn, zero_division: ZeroDivision = "warn"):
    """Prevalence: P / (P + N)."""
    tp, fp, fn, tn = _cells(tp, fp, fn, tn)
    return safe_divide(tp + fn, tp + fp + fn + tn, "prevalence", zero_division)


def fbeta(tp, fp, fn, tn, beta: float = 1.0, zero_division: ZeroDivision = "warn"):
    """F-beta: (1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP).

    The weighted harmonic mean of precision and recall (van Rijsbergen); beta = 1 is
    F1 = 2 TP / (2 TP + FP + FN). Undefined only when TP = FP = FN = 0.
    """
    beta = check_beta(beta)
    tp, fp, fn, tn = _cells(tp, fp, fn, tn)
    b2 = beta * beta
    name = "F1" if beta == 1 else f"F{beta:g}"
    return safe_divide((1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp, name, zero_division)


def f1(tp, fp, fn, tn, zero_division: ZeroDivision = "warn"):
    """F1 = 2 TP / (2 TP + FP + FN)."""
    return fbeta(tp, fp, fn, tn, 1.0, zero_division)


def balanced_accuracy(tp, fp, fn, tn, zero_division: ZeroDivision = "warn"):
    """Balanced accuracy: (TPR + TNR) / 2."""
    return (tpr(tp, fp, fn, tn, zero_division) + tnr(tp, fp, fn, tn, zero_division)) / 2


def informedness(tp, fp, fn, tn, zero_division: ZeroDivision = "warn"):
    """Bookmaker informedness (Youden's J): TPR + TNR - 1 (Powers 2011)."""
    return tpr(tp, fp, fn, tn, zero_division) + tnr(tp, fp, fn, tn, zero_division) - 1


def markedness(tp, fp, fn, tn, zero_division: ZeroDivision = "warn"):
    """Markedness: PPV + NPV - 1 (Powers 2011)."""
    return ppv(tp, fp, fn, tn, zero_division) + npv(tp, fp, fn, tn, zero_division) - 1


def mcc(tp, fp, fn, tn, zero_division: ZeroDivision = "warn"):
    """Matthews correlation coefficient (Matthews 1975).

    MCC = (TP TN - FP FN) / sqrt((TP + FP)(TP + FN)(TN + FP)(TN + FN)). When a
    margin is 0 the numerator is 0 as well and MCC is 0/0.
    """
    tp, fp, fn, tn = _cells(tp, fp, fn, tn)
    num = tp * tn - fp * fn
    den = np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    # a zero margin forces num == 0; make that exact for safe_divide
    num = np.where(den == 0, 0.0, num)
    return safe_divide(num, den, "MCC", zero_division)


def positive_likelihood_ratio(tp, fp, fn, tn, zero_division: ZeroDivision = "warn"):
    """LR+ = TPR / FPR (inf when FPR = 0 < TPR)."""
    return safe_divide(
        tpr(tp, fp, fn, tn, zero_division), fpr(tp, fp, fn, tn, zero_division), "LR+", zero_division
    )


def negative_likelihood_ratio(tp, fp, fn, tn, zero_division: ZeroDivision = "warn"):
    """LR- = FNR / TNR (inf when TNR = 0 < FNR)."""
    return safe_divide(
        fnr(tp, fp, fn, tn, zero_division), tnr(tp, fp, fn, tn, zero_division), "LR-", zero_division
    )


def diagnostic_odds_ratio(tp, fp, fn, tn, zero_division: ZeroDivision = "warn"):
    """DOR = LR+ / LR- = (TP TN) / (FP FN) (Glas et al. 2003)."""
    tp, fp, fn, tn = _cells(tp, fp, fn, tn)
    return safe_divide(tp * tn, fp * fn, "DOR", zero_division)


def cohen_kappa(tp, fp, fn, tn, zero_division: ZeroDivision = "warn"):
    """Cohen's (1960) kappa of the 2x2 table: (p_o - p_e) / (1 - p_e).

    p_o = (TP + TN) / n is the observed agreement and
    p_e = ((TP + FP)(TP + FN) + (FN + TN)(FP + TN)) / n^2 the agreement expected from
    the margins; multiplied out, kappa = 2 (TP TN - FN FP) / ((TP + FP)(FP + TN) +
    (TP + FN)(FN + TN)). Undefined (0/0) when both raters put every item in one class.
    """
    tp, fp, fn, tn = _cells(tp, fp, fn, tn)
    num = 2 * (tp * tn - fn * fp)
    den = (tp + fp) * (fp + tn) + (tp + fn) * (fn + tn)
    return safe_divide(num, den, "Cohen's kappa", zero_division)


# canonical name -> (function, long name); the order is the report order
RATES: dict[str, tuple[Callable, str]] = {
    "TPR": (tpr, "true positive rate, sensitivity, recall"),
    "FNR": (fnr, "false negative rate, miss rate"),
    "TNR": (tnr, "true negative rate, specificity"),
    "FPR": (fpr, "false positive rate, fall-out"),
    "PPV": (ppv, "positive predictive value, precision"),
    "FDR": (fdr, "false discovery rate"),
    "NPV": (npv, "negative predictive value"),
    "FOR": (false_omission_rate, "false omission rate"),
    "ACC": (accuracy, "accuracy"),
    "ERR": (error_rate, "error rate, misclassification rate"),
    "prevalence": (prevalence, "prevalence"),
    "F1": (f1, "F1 score"),
    "BA": (balanced_accuracy, "balanced accuracy"),
    "MCC": (mcc, "Matthews correlation coefficient"),
    "BM": (informedness, "bookmaker informedness, Youden's J"),
    "MK": (markedness, "markedness"),
    "LR+": (positive_likelihood_ratio, "positive likelihood ratio"),
    "LR-": (negative_likelihood_ratio, "negative likelihood ratio"),
    "DOR": (diagnostic_odds_ratio, "diagnostic odds ratio"),
    "kappa": (cohen_kappa, "Cohen's kappa"),
}

ALIASES: dict[str, str] = {
    "sensitivity": "TPR",
    "recall": "TPR",
    "hit_rate": "TPR",
    "miss_rate": "FNR",
    "specificity": "TNR",
    "fall_out": "FPR",
    "fallout": "FPR",
    "precision": "PPV",
    "accuracy": "ACC",
    "error_rate": "ERR",
    "balanced_accuracy": "BA",
    "informedness": "BM",
    "youden": "BM",
    "markedness": "MK",
    "f1": "F1",
    "mcc": "MCC",
    "cohen_kappa": "kappa",
}


def canonical_rate(name: str) -> str:
    """The canonical name of a rate given by name or alias (case-insensitive)."""
    if name in RATES:
        return name
    lowered = name.lower().replace("-", "_").replace(" ", "_")
    for key in RATES:
        if key.lower() == name.lower():
            return key
    if lowered in ALIASES:
        return ALIASES[lowered]
    allowed = ", ".join(list(RATES) + sorted(ALIASES))
    raise ParameterError("rate", f"one of {allowed}", name)
