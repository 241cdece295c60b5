"""Losses of probabilistic classifiers and regressors.

Log-loss clips probabilities to [delta, 1 - delta] before taking logarithms,
``y_hat = max(delta, min(1 - delta, y))`` with delta = 1e-15 by default, for numerical
stability. Logarithms are natural.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Real

import numpy as np

from ..errors import InputError, ParameterError
from ._labels import as_labels, class_list, encode, infer_positive, positive_mask


def _check_delta(delta) -> float:
    if isinstance(delta, bool) or not isinstance(delta, Real) or not 0 <= delta < 0.5:
        raise ParameterError("delta", "a number in [0, 0.5)", delta)
    return float(delta)


def _probabilities(proba, name: str = "probabilities") -> np.ndarray:
    try:
        arr = np.asarray(proba, dtype=float)
    except (TypeError, ValueError):
        raise InputError("probabilities must be numbers", source=name) from None
    if not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(arr > 1):
        raise InputError("probabilities must be finite numbers in [0, 1]", source=name)
    return arr


def cross_entropy(p, q, delta: float = 1e-15) -> float:
    """Cross-entropy H(p, q) = -sum_e p_e log q_e of two distributions."""
    p, q = _probabilities(p, "p"), _probabilities(q, "q")
    if p.shape != q.shape:
        raise InputError(f"p has shape {p.shape} but q has shape {q.shape}")
    q = np.clip(q, _check_delta(delta), 1 - delta)
    return float(-np.sum(p * np.log(q)))


def log_loss(
    truth,
    proba,
    *,
    labels: Sequence | None = None,
    positive=None,
    delta: float = 1e-15,
    normalize: bool = True,
) -> float:
    """Log-loss (cross-entropy) of predicted probabilities.

    Binary: ``proba`` is 1-D, the probability of the positive class;
    loss_i = -(c_i log y_i + (1 - c_i) log(1 - y_i)). Examples: c = 1 and y = 0.5, 0.9,
    0.1 give 0.693147, 0.105361, 2.302585.

    Multi-class: ``proba`` is n x K, column k the probability of ``labels[k]``
    (default: the sorted classes of ``truth``); loss_i = -log y_i,true.

    Returns the mean over items (``normalize=True``) or the sum.
    """
    delta = _check_delta(delta)
    q = _probabilities(proba)
    t = as_labels(truth, "truth")
    if len(q) != len(t):
        raise InputError(f"truth has {len(t)} items but probabilities has {len(q)}")
    if len(t) == 0:
        raise InputError("log-loss of no items is undefined")
    q = np.clip(q, delta, 1 - delta)
    if q.ndim == 1:
        classes = class_list(t) if labels is None else list(labels)
        pos = infer_positive(classes, positive)
        c = positive_mask(t, classes, pos, "truth")
        losses = -np.where(c, np.log(q), np.log1p(-q))
    elif q.ndim == 2:
        classes = class_list(t) if labels is None else list(labels)
        if q.shape[1] != len(classes):
            raise InputError(
                f"probabilities have {q.shape[1]} columns but there are {len(classes)} classes "
                f"{classes!r}; pass labels= to name the columns"
            )
        codes = encode(t, classes, "truth")
        losses = -np.log(q[np.arange(len(t)), codes])
    else:
        raise InputError(f"probabilities must be 1-D or 2-D, got shape {q.shape}")
    return float(np.mean(losses) if normalize else np.sum(losses))


def brier_score(truth, proba, *, positive=None, labels: Sequence | None = None) -> float:
    """Brier (1950) score of binary probabilities: (1/n) sum_i (y_i - c_i)^2.

    ``proba`` holds y_i, the predicted probability of the positive class, and c_i is 1
    for a positive item, 0 otherwise (scikit-learn's ``brier_score_loss``). Lower is
    better; 0.25 for always predicting 0.5.
    """
    q = _probabilities(proba)
    t = as_labels(truth, "truth")
    if q.ndim != 1:
        raise InputError(f"probabilities must be 1-D, got shape {q.shape}")
    if len(q) != len(t):
        raise InputError(f"truth has {len(t)} items but probabilities has {len(q)}")
    if len(t) == 0:
        raise InputError("the Brier score of no items is undefined")
    classes = class_list(t) if labels is None else list(labels)
    pos = infer_positive(classes, positive)
    c = positive_mask(t, classes, pos, "truth")
    return float(np.mean((q - c) ** 2))


def one_vs_rest_log_loss(indicators, proba, delta: float = 1e-15) -> float:
    """The one-vs-rest log-loss P summed over instances x and classes k.

    P = -sum_x sum_k (c_k(x) log y_k(x) + (1 - c_k(x)) log(1 - y_k(x))), with
    ``indicators`` the 0/1 memberships c_k(x) and ``proba`` the y_k(x) (same shape).
    """
    c = _probabilities(indicators, "indicators")
    y = _probabilities(proba)
    if c.shape != y.shape:
        raise InputError(f"indicators have shape {c.shape} but probabilities {y.shape}")
    if not np.isin(c, (0, 1)).all():
        raise InputError("indicators must be 0 or 1", source="indicators")
    y = np.clip(y, _check_delta(delta), 1 - delta)
    return float(-np.sum(c * np.log(y) + (1 - c) * np.log1p(-y)))


def _pair(truth, predicted) -> tuple[np.ndarray, np.ndarray]:
    out = []
    for name, values in (("truth", truth), ("predicted", predicted)):
        try:
            arr = np.asarray(values, dtype=float)
        except (TypeError, ValueError):
            raise InputError("values must be numbers", source=name) from None
        if arr.ndim != 1 or not np.all(np.isfinite(arr)):
            raise InputError("expected a 1-D sequence of finite numbers", source=name)
        out.append(arr)
    if len(out[0]) != len(out[1]):
        raise InputError(f"truth has {len(out[0])} items but predicted has {len(out[1])}")
    if len(out[0]) == 0:
        raise InputError("an error of no items is undefined")
    return out[0], out[1]


def mse(truth, predicted) -> float:
    """Mean squared error (1/N) sum (Y_hat_i - Y_i)^2."""
    y, yhat = _pair(truth, predicted)
    return float(np.mean((yhat - y) ** 2))


def rmse(truth, predicted) -> float:
    """Root mean squared error sqrt(MSE)."""
    return float(np.sqrt(mse(truth, predicted)))


def mae(truth, predicted) -> float:
    """Mean absolute error (1/N) sum |Y_hat_i - Y_i|."""
    y, yhat = _pair(truth, predicted)
    return float(np.mean(np.abs(yhat - y)))
