"""Score-based evaluation: the ROC table, ROC curve and AUC, precision-recall curve, AP.

Convention (Fawcett 2006): items are sorted by
score, descending; a threshold T classifies every item with score >= T as
positive ("all items at and above the row's threshold"). Tied scores therefore
always fall on the same side of a threshold: the counts of a tied group are those
after the whole group.
"""

from __future__ import annotations

from .._lazy import lazy
from .._record import Record
from ..errors import InputError
from . import rates as R
from ._labels import _plain, as_labels, check_same_length, class_list, infer_positive, positive_mask

np = lazy("numpy", __name__, "np")


def as_scores(scores, name: str = "scores") -> np.ndarray:
    """A 1-D float array of finite scores, or an InputError naming the bad item."""
    arr = np.asarray(scores)
    if arr.ndim != 1:
        raise InputError(f"expected a 1-D sequence of scores, got shape {arr.shape}", source=name)
    if arr.dtype.kind not in "biuf":
        try:
            arr = arr.astype(float)
        except (TypeError, ValueError):
            bad = next(i for i, v in enumerate(arr) if not _is_number(v))
            raise InputError(
                f"item {bad}: score {_plain(arr[bad])!r} is not a number", source=name
            ) from None
    arr = arr.astype(float)
    bad = np.flatnonzero(~np.isfinite(arr))
    if len(bad):
        raise InputError(f"item {int(bad[0])}: score {arr[bad[0]]} is not finite", source=name)
    return arr


def _is_number(v) -> bool:
    try:
        float(v)
    except (TypeError, ValueError):
        return False
    return True


def binary_truth(truth, positive=None, n: int | None = None) -> tuple[np.ndarray, object]:
    """Boolean "is positive" array from labels, and the positive label used."""
    t = as_labels(truth, "truth")
    if n is not None and len(t) != n:
        raise InputError(f"truth has {len(t)} items but scores has {n}")
    labels = class_list(t)
    pos = infer_positive(labels, positive)
    return positive_mask(t, labels, pos, "truth"), pos


class ThresholdCounts(Record):
    """Confusion counts at every distinct threshold, highest threshold first.

    ``thresholds[k]`` is the k-th highest distinct score; ``tp[k]``, ``fp[k]`` count
    the positives/negatives with score >= ``thresholds[k]``.
    """

    __slots__ = ("thresholds", "tp", "fp", "p", "n", "positive")
    thresholds: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    p: int
    n: int
    positive: object

    _defaults = {"positive": None}

    @property
    def fn(self) -> np.ndarray:
        return self.p - self.tp

    @property
    def tn(self) -> np.ndarray:
        return self.n - self.fp

    def cells(self):
        return self.tp, self.fp, self.fn, self.tn


def _sorted(y: np.ndarray, s: np.ndarray):
    order = np.argsort(-s, kind="stable")
    return order, y[order], s[order]


def threshold_counts(truth, scores, positive=None) -> ThresholdCounts:
    """TP and FP at each distinct score used as threshold (predict positive if >= T)."""
    s = as_scores(scores)
    y, pos = binary_truth(truth, positive, len(s))
    _, ys, ss = _sorted(y, s)
    last = np.flatnonzero(np.r_[ss[1:] != ss[:-1], True]) if len(ss) else np.array([], int)
    ctp = np.cumsum(ys)
    tp = ctp[last] if len(ss) else np.zeros(0, np.int64)
    fp = last + 1 - tp
    p = int(y.sum())
    return ThresholdCounts(ss[last], tp.astype(np.int64), fp.astype(np.int64), p, len(y) - p, pos)


class RocTable(Record):
    """The ROC table (Fawcett 2006): one row per item, sorted by score (descending).

    Each row uses its own score as the threshold T and counts, over all items, TP
    and FP (items with score >= T) and FN and TN (items below T), then TPR, FPR and
    ACC. Items with equal scores share a threshold and hence a row of counts.
    """

    __slots__ = ("labels", "scores", "is_positive", "tp", "fp", "fn", "tn", "tpr", "fpr", "acc")
    labels: np.ndarray
    scores: np.ndarray
    is_positive: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    fn: np.ndarray
    tn: np.ndarray
    tpr: np.ndarray
    fpr: np.ndarray
    acc: np.ndarray

    COLUMNS = ("Class", "Score", "TP", "FP", "FN", "TN", "TPR", "FPR", "ACC")

    def __len__(self) -> int:
        return len(self.scores)

    def columns(self) -> dict[str, np.ndarray]:
        return dict(
            zip(
                self.COLUMNS,
                (self.labels, self.scores, self.tp, self.fp, self.fn, self.tn)
                + (self.tpr, self.fpr, self.acc),
                strict=True,
            )
        )


def roc_table(truth, scores, positive=None, zero_division: R.ZeroDivision = "warn") -> RocTable:
    """Build the ROC table exactly as Fawcett (2006) lays it out (see :class:`RocTable`)."""
    s = as_scores(scores)
    t = as_labels(truth, "truth")
    check_same_length(t, s, "truth", "scores")
    y, _ = binary_truth(t, positive)
    order, ys, ss = _sorted(y, s)
    n_items = len(ss)
    # index of the last item of each item's tie group: counts are taken there
    starts = np.r_[True, ss[1:] != ss[:-1]] if n_items else np.zeros(0, bool)
    ends = np.flatnonzero(np.r_[ss[1:] != ss[:-1], True]) if n_items else np.zeros(0, int)
    group = np.cumsum(starts) - 1
    end = ends[group]
    ctp = np.cumsum(ys)
    tp = ctp[end] if n_items else np.zeros(0, np.int64)
    fp = end + 1 - tp
    p = int(y.sum())
    fn = p - tp
    tn = (n_items - p) - fp
    return RocTable(
        labels=t[order],
        scores=ss,
        is_positive=ys,
        tp=tp,
        fp=fp,
        fn=fn,
        tn=tn,
        tpr=R.tpr(tp, fp, fn, tn, zero_division),
        fpr=R.fpr(tp, fp, fn, tn, zero_division),
        acc=R.accuracy(tp, fp, fn, tn, zero_division),
    )


def roc_curve(
    truth, scores, positive=None, zero_division: R.ZeroDivision = "warn"
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ROC curve points (FPR, TPR, thresholds), one per distinct score.

    The first point is (0, 0) at threshold +inf (nothing predicted positive); the
    others follow the distinct scores in decreasing order, so the curve is the one
    of scikit-learn's ``roc_curve(..., drop_intermediate=False)``.
    """
    c = threshold_counts(truth, scores, positive)
    tp = np.r_[0, c.tp]
    fp = np.r_[0, c.fp]
    fn, tn = c.p - tp, c.n - fp
    return (
        np.atleast_1d(R.fpr(tp, fp, fn, tn, zero_division)),
        np.atleast_1d(R.tpr(tp, fp, fn, tn, zero_division)),
        np.r_[np.inf, c.thresholds],
    )


def roc_auc(truth, scores, positive=None) -> float:
    """Area under the ROC curve (trapezoidal, hence tie-aware).

    Equals the probability that a random positive scores above a random negative,
    ties counting one half (the Mann-Whitney U statistic over P N; Hanley and
    McNeil 1982).
    """
    c = threshold_counts(truth, scores, positive)
    if c.p == 0 or c.n == 0:
        raise InputError(
            "ROC AUC is undefined when the truth has only one class "
            f"({c.p} positive, {c.n} negative items)"
        )
    tp = np.r_[0, c.tp].astype(float)
    fp = np.r_[0, c.fp].astype(float)
    # trapezoids in count space, normalised once: exact for integer counts
    area = np.sum(np.diff(fp) * (tp[1:] + tp[:-1])) / 2
    return float(area / (c.p * c.n))


def precision_recall_curve(
    truth, scores, positive=None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Precision and recall at each distinct score used as threshold.

    Returns ``(precision, recall, thresholds)`` with thresholds decreasing (recall
    non-decreasing). Precision is always defined (at least one item is predicted
    positive at every threshold); recall needs at least one positive item.
    scikit-learn returns the same points in reverse order plus a final (1, 0).
    """
    c = threshold_counts(truth, scores, positive)
    if c.p == 0:
        raise InputError("recall is undefined: the truth has no positive item")
    precision = c.tp / (c.tp + c.fp)
    recall = c.tp / c.p
    return precision, recall, c.thresholds


def average_precision(truth, scores, positive=None) -> float:
    """Average precision AP = sum_k (R_k - R_(k-1)) P_k over distinct thresholds.

    The step-wise (non-interpolated) area under the precision-recall curve, with
    tied scores as one step; the definition of scikit-learn's
    ``average_precision_score``.
    """
    precision, recall, _ = precision_recall_curve(truth, scores, positive)
    return float(np.sum(np.diff(np.r_[0.0, recall]) * precision))
