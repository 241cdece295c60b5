"""Confusion matrices: binary (2x2) and multi-class (K x K), and multi-label precision.

Orientation. The textbook layout (Fawcett 2006) puts the *predicted* condition in rows
and the *actual* condition in columns; scikit-learn transposes that
(``M[i, j]`` = items of actual class i assigned to class j). Internally
:class:`ConfusionMatrix` stores ``counts[i, j]`` = actual ``labels[i]``, predicted
``labels[j]`` (scikit-learn's layout, so ``counts`` equals
``sklearn.metrics.confusion_matrix``); :meth:`ConfusionMatrix.table` and the
renderers give either orientation.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .._lazy import lazy
from .._record import Record
from ..errors import InputError, ParameterError, shown
from . import rates as R
from ._labels import (
    as_labels,
    check_same_length,
    class_list,
    encode,
    infer_positive,
    positive_mask,
)

np = lazy("numpy", __name__, "np")

ORIENTATIONS = ("predicted_rows", "actual_rows")


def check_orientation(orientation: str) -> str:
    if orientation not in ORIENTATIONS:
        raise ParameterError("orientation", " or ".join(map(repr, ORIENTATIONS)), orientation)
    return orientation


class BinaryConfusion(Record):
    """A 2x2 confusion matrix: the counts TP, FP, FN, TN.

    Build it with :meth:`from_labels` or :meth:`from_counts`. Every rate of
    :mod:`cranfield.classification.rates` is available by name through
    :meth:`rate` (``cm.rate("precision")``) or all at once through :meth:`rates`.
    """

    __slots__ = ("tp", "fp", "fn", "tn", "positive")
    tp: int
    fp: int
    fn: int
    tn: int
    positive: object

    _defaults = {"positive": None}

    @classmethod
    def from_counts(cls, tp: int, fp: int, fn: int, tn: int, positive=None) -> BinaryConfusion:
        """From the four cells; each must be a non-negative integer."""
        cells = {"tp": tp, "fp": fp, "fn": fn, "tn": tn}
        for name, value in cells.items():
            if isinstance(value, bool) or not float(value).is_integer() or value < 0:
                raise ParameterError(name, "a non-negative integer count", value)
        return cls(int(tp), int(fp), int(fn), int(tn), positive)

    @classmethod
    def from_labels(cls, truth, predicted, positive=None) -> BinaryConfusion:
        """Count TP, FP, FN, TN from actual and predicted labels.

        ``positive`` is the positive label; every other label is negative (the
        one-vs-rest collapse). When omitted, labels drawn from {0, 1},
        {-1, 1} or {False, True} make 1/True positive; other labels need it.
        """
        t = as_labels(truth, "truth")
        p = as_labels(predicted, "predicted")
        check_same_length(t, p, "truth", "predicted")
        labels = class_list(t, p)
        pos = infer_positive(labels, positive)
        ti = positive_mask(t, labels, pos, "truth")
        pi = positive_mask(p, labels, pos, "predicted")
        tp = int(np.count_nonzero(ti & pi))
        fp = int(np.count_nonzero(~ti & pi))
        fn = int(np.count_nonzero(ti & ~pi))
        return cls(tp, fp, fn, len(t) - tp - fp - fn, pos)

    # margins: P, N actual; "Yes"/"No" predicted
    @property
    def p(self) -> int:
        """Actual positives P = TP + FN."""
        return self.tp + self.fn

    @property
    def n(self) -> int:
        """Actual negatives N = FP + TN."""
        return self.fp + self.tn

    @property
    def predicted_positive(self) -> int:
        """Predicted positives ("Yes", T) = TP + FP."""
        return self.tp + self.fp

    @property
    def predicted_negative(self) -> int:
        """Predicted negatives ("No", F) = FN + TN."""
        return self.fn + self.tn

    @property
    def total(self) -> int:
        return self.tp + self.fp + self.fn + self.tn

    def rate(self, name: str, zero_division: R.ZeroDivision = "warn", beta: float | None = None):
        """One rate by name or alias: ``"TPR"``, ``"recall"``, ``"MCC"``, ``"F2"`` ..."""
        if beta is not None or (name[:1] in "Ff" and name[1:].replace(".", "", 1).isdigit()):
            b = beta if beta is not None else float(name[1:])
            return float(R.fbeta(self.tp, self.fp, self.fn, self.tn, b, zero_division))
        fn = R.RATES[R.canonical_rate(name)][0]
        return float(fn(self.tp, self.fp, self.fn, self.tn, zero_division))

    def rates(self, zero_division: R.ZeroDivision = "warn", beta: float = 1.0) -> dict[str, float]:
        """All rates of :data:`rates.RATES` (plus F-beta when beta != 1), in report order."""
        out = {
            name: float(fn(self.tp, self.fp, self.fn, self.tn, zero_division))
            for name, (fn, _) in R.RATES.items()
        }
        if beta != 1.0:
            out[f"F{beta:g}"] = float(
                R.fbeta(self.tp, self.fp, self.fn, self.tn, beta, zero_division)
            )
        return out

    def table(self, orientation: str = "predicted_rows") -> np.ndarray:
        """The 2x2 counts: ``[[TP, FP], [FN, TN]]`` (predicted rows) or its transpose."""
        core = np.array([[self.tp, self.fp], [self.fn, self.tn]], dtype=np.int64)
        return core if check_orientation(orientation) == "predicted_rows" else core.T


class ConfusionMatrix(Record):
    """A K x K confusion matrix with class labels of any hashable type.

    ``counts[i, j]`` is the number of items of actual class ``labels[i]`` predicted
    as ``labels[j]`` (scikit-learn's layout); :meth:`table` gives the textbook
    layout (predicted in rows) by default.
    """

    __slots__ = ("labels", "counts")
    labels: tuple
    counts: np.ndarray

    @classmethod
    def from_labels(cls, truth, predicted, labels: Sequence | None = None) -> ConfusionMatrix:
        """Count actual-by-predicted pairs; ``labels`` fixes the classes and their order."""
        t = as_labels(truth, "truth")
        p = as_labels(predicted, "predicted")
        check_same_length(t, p, "truth", "predicted")
        if labels is None:
            labels = class_list(t, p)
        else:
            labels = list(labels)
            if len(set(labels)) != len(labels) or not labels:
                raise ParameterError("labels", "a non-empty sequence of distinct labels", labels)
        k = len(labels)
        ti = encode(t, labels, "truth")
        pi = encode(p, labels, "predicted")
        counts = np.bincount(ti * k + pi, minlength=k * k).reshape(k, k)
        return cls(tuple(labels), counts)

    @classmethod
    def from_array(
        cls, table, labels: Sequence | None = None, orientation: str = "actual_rows"
    ) -> ConfusionMatrix:
        """From a K x K table of counts in the given orientation."""
        arr = np.asarray(table)
        if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] == 0:
            raise InputError(f"expected a non-empty square table of counts, got shape {arr.shape}")
        if not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(arr != np.round(arr)):
            raise InputError("confusion-matrix counts must be non-negative integers")
        arr = arr.astype(np.int64)
        if check_orientation(orientation) == "predicted_rows":
            arr = arr.T
        labels = tuple(range(arr.shape[0])) if labels is None else tuple(labels)
        if len(labels) != arr.shape[0]:
            raise InputError(f"{len(labels)} labels for a {arr.shape[0]}x{arr.shape[0]} table")
        return cls(labels, arr)

    def table(self, orientation: str = "predicted_rows") -> np.ndarray:
        """Counts with predicted classes in rows (textbook) or actual classes in rows."""
        return self.counts.T if check_orientation(orientation) == "predicted_rows" else self.counts

    @property
    def total(self) -> int:
        return int(self.counts.sum())

    @property
    def support(self) -> np.ndarray:
        """Actual items per class (column totals in the textbook layout)."""
        return self.counts.sum(axis=1)

    def accuracy(self, zero_division: R.ZeroDivision = "warn") -> float:
        """Sum of the diagonal over all items (e.g. (13+15+57)/100 = 85%)."""
        return float(R.safe_divide(np.trace(self.counts), self.total, "ACC", zero_division))

    def error_rate(self, zero_division: R.ZeroDivision = "warn") -> float:
        """1 - accuracy: off-diagonal items over all items."""
        off = self.total - np.trace(self.counts)
        return float(R.safe_divide(off, self.total, "ERR", zero_division))

    def cohen_kappa(self, zero_division: R.ZeroDivision = "warn") -> float:
        """Cohen's (1960) kappa: (p_o - p_e) / (1 - p_e).

        p_o = sum_k C_kk / n (accuracy), p_e = sum_k t_k p_k / n^2 with t_k the actual
        and p_k the predicted count of class k. Equals scikit-learn's
        ``cohen_kappa_score`` (unweighted); 0/0 when p_e = 1 (one class on both sides).
        """
        n = float(self.total)
        t = self.counts.sum(axis=1).astype(float)
        p = self.counts.sum(axis=0).astype(float)
        # multiplied by n^2: (n * trace - sum t p) / (n^2 - sum t p), exact in integers
        agree = float(np.dot(t, p))
        num = n * float(np.trace(self.counts)) - agree
        return float(R.safe_divide(num, n * n - agree, "Cohen's kappa", zero_division))

    def mcc(self, zero_division: R.ZeroDivision = "warn") -> float:
        """Multi-class Matthews correlation coefficient (Gorodkin 2004's R_K).

        MCC = (c s - sum_k p_k t_k) / sqrt((s^2 - sum_k p_k^2)(s^2 - sum_k t_k^2)), with
        c = trace (correct items), s = n, t_k actual and p_k predicted counts of class
        k; the binary MCC for two classes. 0/0 when either side puts every item in one
        class (scikit-learn's ``matthews_corrcoef`` returns 0.0 there:
        ``zero_division=0``).
        """
        s = float(self.total)
        t = self.counts.sum(axis=1).astype(float)
        p = self.counts.sum(axis=0).astype(float)
        num = float(np.trace(self.counts)) * s - float(np.dot(t, p))
        den = np.sqrt((s * s - float(np.dot(p, p))) * (s * s - float(np.dot(t, t))))
        return float(R.safe_divide(0.0 if den == 0 else num, den, "MCC", zero_division))

    def one_vs_rest_counts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Arrays TP, FP, FN, TN per class: each class against all others."""
        tp = np.diag(self.counts).astype(np.int64)
        fp = self.counts.sum(axis=0) - tp
        fn = self.counts.sum(axis=1) - tp
        tn = self.total - tp - fp - fn
        return tp, fp, fn, tn

    def one_vs_rest(self, label) -> BinaryConfusion:
        """Collapse to the binary matrix "in class" vs "not in class"."""
        matches = [i for i, lab in enumerate(self.labels) if lab == label]
        if not matches:
            raise InputError(
                f"unknown class {shown(label)}; the classes are {shown(list(self.labels))}"
            )
        i = matches[0]
        tp, fp, fn, tn = (int(x[i]) for x in self.one_vs_rest_counts())
        return BinaryConfusion(tp, fp, fn, tn, self.labels[i])

    def per_class(
        self, names: Iterable[str] = ("PPV", "TPR", "F1"), zero_division: R.ZeroDivision = "warn"
    ) -> dict[str, np.ndarray]:
        """Rates per class (one-vs-rest), as arrays aligned with :attr:`labels`."""
        cells = self.one_vs_rest_counts()
        out = {}
        for name in names:
            key = R.canonical_rate(name)
            out[key] = R.RATES[key][0](*cells, zero_division=zero_division)
        return out

    def precision_recall_fscore(
        self,
        beta: float = 1.0,
        average: str | None = None,
        zero_division: R.ZeroDivision = "warn",
    ):
        """Precision, recall, F-beta and support, per class or averaged.

        ``average``: ``None`` (per class), ``"macro"`` (unweighted mean of the
        per-class values; Manning et al. 2008, ch. 13.6), ``"micro"`` (ratios of the summed counts:
        sum |C'_i ∩ C_i| / sum |C'_i|), ``"weighted"`` (mean weighted by
        support). Undefined per-class values are NaN (with a warning) unless
        ``zero_division`` gives a number, and NaN propagates into averages.
        """
        beta = R.check_beta(beta)
        tp, fp, fn, tn = self.one_vs_rest_counts()
        support = tp + fn
        if average == "micro":
            t, f_p, f_n = tp.sum(), fp.sum(), fn.sum()
            p = R.safe_divide(t, t + f_p, "micro precision", zero_division)
            r = R.safe_divide(t, t + f_n, "micro recall", zero_division)
            f = R.fbeta(t, f_p, f_n, 0, beta, zero_division)
            return float(p), float(r), float(f), int(support.sum())
        p = R.ppv(tp, fp, fn, tn, zero_division)
        r = R.tpr(tp, fp, fn, tn, zero_division)
        f = R.fbeta(tp, fp, fn, tn, beta, zero_division)
        if average is None:
            return p, r, f, support
        if average == "macro":
            return float(np.mean(p)), float(np.mean(r)), float(np.mean(f)), int(support.sum())
        if average == "weighted":
            w = support.sum()
            if w == 0:
                raise InputError("weighted average is undefined: no item has a listed class")
            return (
                float(np.dot(p, support) / w),
                float(np.dot(r, support) / w),
                float(np.dot(f, support) / w),
                int(w),
            )
        raise ParameterError("average", "None, 'macro', 'micro' or 'weighted'", average)


def multilabel_precision_recall(
    truth, predicted, zero_division: R.ZeroDivision = "warn"
) -> tuple[np.ndarray, np.ndarray]:
    """Per-instance precision and recall of a multi-label classifier (Godbole & Sarawagi 2004).

    For each instance d with true classes C_d and predicted classes C'_d:
    precision = |C'_d ∩ C_d| / |C'_d|, recall = |C'_d ∩ C_d| / |C_d|.

    ``truth`` and ``predicted`` are either binary indicator matrices (n x K) or
    sequences of label sets of equal length. Their mean is scikit-learn's
    ``average="samples"``.
    """
    t, p = _indicators(truth, predicted)
    inter = np.count_nonzero(t & p, axis=1)
    precision = R.safe_divide(inter, np.count_nonzero(p, axis=1), "precision", zero_division)
    recall = R.safe_divide(inter, np.count_nonzero(t, axis=1), "recall", zero_division)
    return np.atleast_1d(precision), np.atleast_1d(recall)


def _indicators(truth, predicted) -> tuple[np.ndarray, np.ndarray]:
    def is_matrix(x):
        return isinstance(x, np.ndarray) and x.ndim == 2

    if is_matrix(truth) and is_matrix(predicted):
        if truth.shape != predicted.shape:
            raise InputError(
                f"truth has shape {truth.shape} but predicted has shape {predicted.shape}"
            )
        for name, m in (("truth", truth), ("predicted", predicted)):
            if not np.isin(m, (0, 1)).all():
                raise InputError("indicator matrix must hold only 0 and 1", source=name)
        return truth.astype(bool), predicted.astype(bool)
    truth, predicted = list(truth), list(predicted)
    if len(truth) != len(predicted):
        raise InputError(f"truth has {len(truth)} items but predicted has {len(predicted)}")
    classes = class_list(*(np.array(list(s), dtype=object) for s in truth + predicted))
    index = {c: i for i, c in enumerate(classes)}
    shape = (len(truth), len(classes))
    t = np.zeros(shape, dtype=bool)
    p = np.zeros(shape, dtype=bool)
    for row, (ts, ps) in enumerate(zip(truth, predicted, strict=True)):  # sets have no array form
        t[row, [index[c] for c in ts]] = True
        p[row, [index[c] for c in ps]] = True
    return t, p
