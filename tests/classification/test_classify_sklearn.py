"""Differential tests against scikit-learn (test-only dependency) on generated cases.

Cases include ties (scores drawn from a few values), single-class predictions,
classes absent from the predictions, string and integer labels.
"""

import warnings

import numpy as np
import pytest
from sklearn import metrics as skm

from cranfield.classification import (
    BinaryConfusion,
    ConfusionMatrix,
    UndefinedRatioWarning,
    average_precision,
    log_loss,
    mae,
    mse,
    multilabel_precision_recall,
    precision_recall_curve,
    rmse,
    roc_auc,
    roc_curve,
    roc_table,
    select_threshold,
)

SEEDS = range(25)
FEW_SEEDS = range(12)  # for the brute-force oracles (one sklearn call per threshold)


def binary_case(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 60))
    y = rng.integers(0, 2, n)
    if y.min() == y.max():  # ROC needs both classes
        y[0] = 1 - y[0]
    levels = int(rng.integers(2, 12))  # few levels -> many ties
    if seed % 3 == 0:
        s = rng.normal(size=n) + y  # continuous, few ties
    else:
        s = rng.integers(0, levels, n) / levels + 0.3 * y * rng.integers(0, 2, n)
    return y, s


def multiclass_case(seed):
    rng = np.random.default_rng(1000 + seed)
    k = int(rng.integers(2, 6))
    names = np.array(["cat", "dog", "eel", "fox", "gnu"][:k]) if seed % 2 else np.arange(k) * 10
    n = int(rng.integers(1, 80))
    t = names[rng.integers(0, k, n)]
    p = np.where(rng.random(n) < 0.6, t, names[rng.integers(0, k, n)])
    if seed % 5 == 0:
        p[:] = p[0]  # a single predicted class: precision undefined for the others
    return t, p, list(names)


@pytest.mark.parametrize("seed", SEEDS)
def test_confusion_matrix(seed):
    t, p, names = multiclass_case(seed)
    cm = ConfusionMatrix.from_labels(t, p, labels=names)
    np.testing.assert_array_equal(cm.counts, skm.confusion_matrix(t, p, labels=names))
    np.testing.assert_array_equal(cm.table(), skm.confusion_matrix(t, p, labels=names).T)
    assert cm.accuracy() == pytest.approx(skm.accuracy_score(t, p))
    # without labels: the sorted union of classes, as scikit-learn
    np.testing.assert_array_equal(
        ConfusionMatrix.from_labels(t, p).counts, skm.confusion_matrix(t, p)
    )


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("beta", [0.5, 1.0, 2.0])
def test_precision_recall_fbeta_all_averages(seed, beta):
    t, p, names = multiclass_case(seed)
    cm = ConfusionMatrix.from_labels(t, p, labels=names)
    for zd in (0.0, 1.0):
        ours = cm.precision_recall_fscore(beta, None, zd)
        theirs = skm.precision_recall_fscore_support(
            t, p, beta=beta, labels=names, average=None, zero_division=zd
        )
        for a, b in zip(ours, theirs, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
        for average in ("macro", "micro", "weighted"):
            ours = cm.precision_recall_fscore(beta, average, zd)
            theirs = skm.precision_recall_fscore_support(
                t, p, beta=beta, labels=names, average=average, zero_division=zd
            )
            np.testing.assert_allclose(ours[:3], theirs[:3], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_binary_rates(seed):
    rng = np.random.default_rng(2000 + seed)
    n = int(rng.integers(1, 50))
    t = rng.choice(["yes", "no"], n)
    p = rng.choice(["yes", "no"], n)
    if seed % 7 == 0:
        p[:] = "no"
    cm = BinaryConfusion.from_labels(t, p, positive="yes")
    (tn, fp), (fn, tp) = skm.confusion_matrix(t, p, labels=["no", "yes"])
    assert (cm.tp, cm.fp, cm.fn, cm.tn) == (tp, fp, fn, tn)
    kw = {"pos_label": "yes", "zero_division": 0.0}
    assert cm.rate("precision", zero_division=0.0) == pytest.approx(skm.precision_score(t, p, **kw))
    assert cm.rate("recall", zero_division=0.0) == pytest.approx(skm.recall_score(t, p, **kw))
    assert cm.rate("F1", zero_division=0.0) == pytest.approx(skm.f1_score(t, p, **kw))
    assert cm.rate("F2", zero_division=0.0) == pytest.approx(skm.fbeta_score(t, p, beta=2, **kw))
    assert cm.rate("ACC") == pytest.approx(skm.accuracy_score(t, p))
    assert cm.rate("MCC", zero_division=0.0) == pytest.approx(
        skm.matthews_corrcoef(t, p), abs=1e-12
    )
    if 0 < cm.p < n:  # balanced accuracy is defined with both actual classes
        assert cm.rate("BA") == pytest.approx(skm.balanced_accuracy_score(t, p))
    if cm.fp > 0 and cm.tn > 0 and cm.p > 0:  # LR+ and LR- finite and defined
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lr_pos, lr_neg = skm.class_likelihood_ratios(t, p, labels=["no", "yes"])
        assert cm.rate("LR+") == pytest.approx(lr_pos)
        assert cm.rate("LR-") == pytest.approx(lr_neg)


@pytest.mark.parametrize("seed", SEEDS)
def test_roc_curve_and_auc(seed):
    y, s = binary_case(seed)
    fpr, tpr, thr = roc_curve(y, s)
    sfpr, stpr, sthr = skm.roc_curve(y, s, drop_intermediate=False)
    np.testing.assert_allclose(fpr, sfpr, atol=1e-12)
    np.testing.assert_allclose(tpr, stpr, atol=1e-12)
    np.testing.assert_array_equal(thr, sthr)
    assert roc_auc(y, s) == pytest.approx(skm.roc_auc_score(y, s), abs=1e-12)
    # AUC is the Mann-Whitney probability, ties counting one half
    pos, neg = s[y == 1][:, None], s[y == 0][None, :]
    mw = (np.sum(pos > neg) + 0.5 * np.sum(pos == neg)) / (pos.size * neg.size)
    assert roc_auc(y, s) == pytest.approx(mw, abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_precision_recall_curve_and_average_precision(seed):
    y, s = binary_case(seed)
    precision, recall, thr = precision_recall_curve(y, s)
    sp, sr, st = skm.precision_recall_curve(y, s)
    # scikit-learn: increasing thresholds, plus a final (precision 1, recall 0)
    np.testing.assert_allclose(precision, sp[:-1][::-1], atol=1e-12)
    np.testing.assert_allclose(recall, sr[:-1][::-1], atol=1e-12)
    np.testing.assert_array_equal(thr, st[::-1])
    assert average_precision(y, s) == pytest.approx(skm.average_precision_score(y, s), abs=1e-12)


@pytest.mark.parametrize("seed", FEW_SEEDS)
def test_roc_table_rows_match_confusion_at_threshold(seed):
    y, s = binary_case(seed)
    table = roc_table(y, s)
    assert np.all(np.diff(table.scores) <= 0)
    for i in range(len(table)):
        (tn, fp), (fn, tp) = skm.confusion_matrix(
            y, (s >= table.scores[i]).astype(int), labels=[0, 1]
        )
        assert (table.tp[i], table.fp[i], table.fn[i], table.tn[i]) == (tp, fp, fn, tn)
    assert table.acc == pytest.approx((table.tp + table.tn) / len(y))


def brute_force_threshold(y, s, score_fn, maximise=True):
    """Evaluate every candidate with scikit-learn; first best in decreasing threshold order."""
    candidates = [np.inf] + sorted(set(s.tolist()), reverse=True)
    values = []
    for t in candidates:
        pred = (s >= t).astype(int)
        (tn, fp), (fn, tp) = skm.confusion_matrix(y, pred, labels=[0, 1])
        values.append(score_fn(y, pred, tp, fp, fn, tn))
    values = np.array(values, dtype=float)
    best = np.nanargmax(values if maximise else -values)
    return candidates[best], values[best]


CRITERIA = {
    "accuracy": (lambda y, p, *_: skm.accuracy_score(y, p), True, {}),
    "youden": (lambda y, p, *_: skm.balanced_accuracy_score(y, p) * 2 - 1, True, {}),
    "fbeta": (
        lambda y, p, *_: skm.fbeta_score(y, p, beta=2, zero_division=np.nan),
        True,
        {"beta": 2},
    ),
    "closest": (
        lambda y, p, tp, fp, fn, tn: np.hypot(fp / (fp + tn), 1 - tp / (tp + fn)),
        False,
        {},
    ),
    "cost": (lambda y, p, tp, fp, fn, tn: 1.0 * fp + 5.0 * fn, False, {"cost_fp": 1, "cost_fn": 5}),
}


@pytest.mark.parametrize("seed", FEW_SEEDS)
@pytest.mark.parametrize("criterion", sorted(CRITERIA))
def test_threshold_selection_against_brute_force(seed, criterion):
    y, s = binary_case(seed)
    fn_, maximise, kw = CRITERIA[criterion]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_expected, v_expected = brute_force_threshold(y, s, fn_, maximise)
    choice = select_threshold(y, s, criterion, **kw)
    assert choice.value == pytest.approx(v_expected, abs=1e-12)
    assert choice.threshold == t_expected
    c = choice.confusion
    (tn, fp), (fn, tp) = skm.confusion_matrix(y, (s >= choice.threshold).astype(int), labels=[0, 1])
    assert (c.tp, c.fp, c.fn, c.tn) == (tp, fp, fn, tn)


@pytest.mark.parametrize("seed", FEW_SEEDS)
def test_constrained_thresholds(seed):
    y, s = binary_case(seed)
    sens = select_threshold(y, s, "sensitivity_at_specificity", min_specificity=0.6)
    spec = select_threshold(y, s, "specificity_at_sensitivity", min_sensitivity=0.6)
    candidates = [np.inf] + sorted(set(s.tolist()), reverse=True)
    rows = []
    for t in candidates:
        pred = (s >= t).astype(int)
        rows.append((skm.recall_score(y, pred), skm.recall_score(y, pred, pos_label=0), t))
    feasible = [r for r in rows if r[1] >= 0.6]
    assert sens.value == max(r[0] for r in feasible)
    assert sens.confusion.rate("TNR") >= 0.6
    feasible = [r for r in rows if r[0] >= 0.6]
    assert spec.value == max(r[1] for r in feasible)
    assert spec.confusion.rate("TPR") >= 0.6


@pytest.mark.parametrize("seed", SEEDS)
def test_log_loss(seed):
    rng = np.random.default_rng(3000 + seed)
    n = int(rng.integers(1, 40))
    y = rng.integers(0, 2, n)
    q = rng.uniform(0.001, 0.999, n)
    assert log_loss(y, q) == pytest.approx(skm.log_loss(y, q, labels=[0, 1]), rel=1e-12)
    assert log_loss(y, q, normalize=False) == pytest.approx(
        skm.log_loss(y, q, labels=[0, 1], normalize=False), rel=1e-12
    )
    k = int(rng.integers(2, 5))
    names = ["a", "b", "c", "d"][:k]
    t = rng.choice(names, n)
    proba = rng.dirichlet(np.ones(k), n)
    proba = np.clip(proba, 1e-6, None)
    proba /= proba.sum(axis=1, keepdims=True)
    assert log_loss(t, proba, labels=names) == pytest.approx(
        skm.log_loss(t, proba, labels=names), rel=1e-10
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_regression_errors(seed):
    rng = np.random.default_rng(4000 + seed)
    n = int(rng.integers(1, 50))
    a, b = rng.normal(size=n), rng.normal(size=n)
    assert mse(a, b) == pytest.approx(skm.mean_squared_error(a, b))
    assert rmse(a, b) == pytest.approx(np.sqrt(skm.mean_squared_error(a, b)))
    assert mae(a, b) == pytest.approx(skm.mean_absolute_error(a, b))


@pytest.mark.parametrize("seed", SEEDS)
def test_multilabel_samples_average(seed):
    rng = np.random.default_rng(5000 + seed)
    n, k = int(rng.integers(1, 30)), int(rng.integers(2, 6))
    t = (rng.random((n, k)) < 0.4).astype(int)
    p = (rng.random((n, k)) < 0.4).astype(int)
    for zd in (0.0, 1.0):
        precision, recall = multilabel_precision_recall(t, p, zero_division=zd)
        assert precision.mean() == pytest.approx(
            skm.precision_score(t, p, average="samples", zero_division=zd)
        )
        assert recall.mean() == pytest.approx(
            skm.recall_score(t, p, average="samples", zero_division=zd)
        )
    # the same through label sets
    sets_t = [set(np.flatnonzero(r).tolist()) for r in t]
    sets_p = [set(np.flatnonzero(r).tolist()) for r in p]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedRatioWarning)
        a = multilabel_precision_recall(sets_t, sets_p)
        b = multilabel_precision_recall(t, p)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
