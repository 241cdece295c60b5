"""Choosing a decision threshold for a scoring classifier (Fawcett 2006).

Candidates are every distinct score T (predict positive when score >= T, as in the
ROC table) plus T = +inf (predict nothing positive). Each criterion is
evaluated on all candidates at once; ties go to the highest threshold (the most
conservative rule, fewest positive predictions).
"""

from __future__ import annotations

import warnings
from numbers import Real

from .._lazy import lazy
from .._record import Record
from ..errors import InputError, ParameterError
from . import rates as R
from .confusion import BinaryConfusion
from .roc import threshold_counts

np = lazy("numpy", __name__, "np")

CRITERIA = (
    "accuracy",
    "youden",
    "closest",
    "fbeta",
    "sensitivity_at_specificity",
    "specificity_at_sensitivity",
    "cost",
)


class ThresholdChoice(Record):
    """A chosen threshold, the criterion's value there and the confusion matrix there."""

    __slots__ = ("criterion", "threshold", "value", "confusion")
    criterion: str
    threshold: float
    value: float
    confusion: BinaryConfusion


def _unit(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not 0 <= value <= 1:
        raise ParameterError(name, "a number in [0, 1]", value)
    return float(value)


def _cost(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not 0 <= value < np.inf:
        raise ParameterError(name, "a finite number >= 0", value)
    return float(value)


def fixed_threshold(truth, scores, threshold: float, *, positive=None) -> ThresholdChoice:
    """The confusion matrix at a threshold given in advance (positive if score >= T).

    Unlike :func:`select_threshold`, nothing is tuned on the evaluated data, so the
    rates are an honest estimate when T was fixed on other data. ``criterion`` is
    ``"fixed"`` and ``value`` NaN.
    """
    if isinstance(threshold, bool) or not isinstance(threshold, Real) or np.isnan(threshold):
        raise ParameterError("threshold", "a number", threshold)
    c = threshold_counts(truth, scores, positive)
    above = int(np.searchsorted(-c.thresholds, -float(threshold), side="right"))
    tp = int(c.tp[above - 1]) if above else 0
    fp = int(c.fp[above - 1]) if above else 0
    confusion = BinaryConfusion(tp, fp, c.p - tp, c.n - fp, c.positive)
    return ThresholdChoice("fixed", float(threshold), float("nan"), confusion)


def _lexicographic(primary, secondary, feasible) -> np.ndarray:
    """Among feasible candidates with the best ``primary``, rank by ``secondary``."""
    primary = np.where(feasible, primary, np.nan)
    if np.all(np.isnan(primary)):
        return primary
    top = primary == np.nanmax(primary)
    return np.where(top, secondary, np.nan)


def select_threshold(
    truth,
    scores,
    by: str = "accuracy",
    *,
    positive=None,
    beta: float = 1.0,
    min_specificity: float = 0.9,
    min_sensitivity: float = 0.9,
    cost_fp: float = 1.0,
    cost_fn: float = 1.0,
) -> ThresholdChoice:
    """Pick the threshold that optimises one criterion.

    ``by``:

    - ``"accuracy"``: maximum ACC (T = 0.54 in Fawcett's example);
    - ``"youden"``: maximum J = sensitivity + specificity - 1;
    - ``"closest"``: minimum distance sqrt(FPR^2 + (1 - TPR)^2) to the ideal point (0, 1);
    - ``"fbeta"``: maximum F-beta (``beta``);
    - ``"sensitivity_at_specificity"``: maximum TPR with TNR >= ``min_specificity``;
    - ``"specificity_at_sensitivity"``: maximum TNR with TPR >= ``min_sensitivity``;
    - ``"cost"``: minimum expected cost ``cost_fp * FP + cost_fn * FN``.

    ``value`` in the result is the criterion there (the distance for ``closest``,
    the total cost for ``cost``, the optimised rate otherwise).
    """
    if by not in CRITERIA:
        raise ParameterError("by", "one of " + ", ".join(CRITERIA), by)
    c = threshold_counts(truth, scores, positive)
    thresholds = np.r_[np.inf, c.thresholds]
    tp, fp = np.r_[0, c.tp], np.r_[0, c.fp]
    fn, tn = c.p - tp, c.n - fp
    cells = (tp, fp, fn, tn)
    with warnings.catch_warnings():
        # undefined rates are NaN here and simply never win
        warnings.simplefilter("ignore", R.UndefinedRatioWarning)
        if by == "accuracy":
            value = R.accuracy(*cells)
            goal = value
        elif by == "youden":
            value = R.informedness(*cells)
            goal = value
        elif by == "closest":
            value = np.hypot(R.fpr(*cells), 1 - R.tpr(*cells))
            goal = -value
        elif by == "fbeta":
            value = R.fbeta(*cells, beta=R.check_beta(beta))
            goal = value
        elif by == "sensitivity_at_specificity":
            floor = _unit("min_specificity", min_specificity)
            value = R.tpr(*cells)
            goal = _lexicographic(value, R.tnr(*cells), R.tnr(*cells) >= floor)
        elif by == "specificity_at_sensitivity":
            floor = _unit("min_sensitivity", min_sensitivity)
            value = R.tnr(*cells)
            goal = _lexicographic(value, R.tpr(*cells), R.tpr(*cells) >= floor)
        else:
            value = _cost("cost_fp", cost_fp) * fp + _cost("cost_fn", cost_fn) * fn
            goal = -value.astype(float)
    goal = np.asarray(goal, dtype=float)
    if np.all(np.isnan(goal)):
        raise InputError(
            f"threshold criterion {by!r} is undefined for these data "
            f"({c.p} positive, {c.n} negative items)"
        )
    best = int(np.nanargmax(goal))  # first maximum = highest threshold
    confusion = BinaryConfusion(
        int(tp[best]), int(fp[best]), int(fn[best]), int(tn[best]), c.positive
    )
    return ThresholdChoice(by, float(thresholds[best]), float(value[best]), confusion)
