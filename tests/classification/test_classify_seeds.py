"""The seeds' worked examples as tests (seeds 000, 001, 003, 004)."""

import math

import numpy as np
import pytest

from cranfield.classification import (
    BinaryConfusion,
    ConfusionMatrix,
    UndefinedRatioWarning,
    log_loss,
    multilabel_precision_recall,
    render_binary,
    roc_table,
    select_threshold,
)


def labels_from_table(table, labels):
    """Expand a predicted-rows count table (the seeds' layout) into label arrays."""
    truth, pred = [], []
    for i, row in enumerate(table):  # predicted class
        for j, count in enumerate(row):  # actual class
            truth += [labels[j]] * count
            pred += [labels[i]] * count
    return np.array(truth), np.array(pred)


def test_cancer_test_seed_000_001():
    cm = BinaryConfusion.from_counts(tp=20, fp=180, fn=10, tn=1820)
    assert (cm.p, cm.n, cm.predicted_positive, cm.predicted_negative) == (30, 2000, 200, 1830)
    assert cm.total == 2030
    r = cm.rates()
    assert r["PPV"] == pytest.approx(0.10)  # 20/200 = 10%
    assert r["NPV"] == pytest.approx(1820 / 1830)  # 99.5%
    assert round(100 * r["NPV"], 1) == 99.5
    assert round(100 * r["TPR"]) == 67  # 20/30
    assert r["TNR"] == pytest.approx(0.91)  # 1820/2000
    assert round(100 * r["ACC"], 1) == 90.6  # 1840/2030
    assert r["FDR"] == pytest.approx(0.90)  # 1 - PPV = 90%
    assert round(100 * r["FOR"], 1) == 0.5  # 1 - NPV = 0.5%
    assert r["prevalence"] == pytest.approx(30 / 2030)  # 1.4%
    assert r["ERR"] == pytest.approx(1 - r["ACC"])
    assert r["FNR"] == pytest.approx(1 - r["TPR"])
    assert r["FPR"] == pytest.approx(1 - r["TNR"])


def test_cancer_always_no_oracle_seed_000():
    # "an oracle that always predicts No": ACC 2000/2030 = 98.5%, PPV = 0%, NPV = 98.5%
    cm = BinaryConfusion.from_counts(tp=0, fp=0, fn=30, tn=2000)
    assert round(100 * cm.rate("ACC"), 1) == 98.5
    assert cm.rate("PPV", zero_division=0.0) == 0.0
    assert round(100 * cm.rate("NPV"), 1) == 98.5
    assert cm.rate("TPR") == 0.0
    assert cm.rate("TNR") == 1.0
    with pytest.warns(UndefinedRatioWarning, match="PPV"):
        assert math.isnan(cm.rate("precision"))


def test_virus_test_seed_001():
    cm = BinaryConfusion.from_counts(tp=595, fp=4965, fn=105, tn=94335)
    assert (cm.p, cm.n, cm.predicted_positive, cm.predicted_negative) == (700, 99300, 5560, 94440)
    assert cm.total == 100_000
    assert round(100 * cm.rate("accuracy")) == 95
    assert round(100 * cm.rate("precision")) == 11
    assert round(100 * cm.rate("specificity")) == 95
    assert round(100 * cm.rate("sensitivity")) == 85
    assert round(100 * cm.rate("prevalence"), 1) == 0.7


def test_woman_man_child_seed_000_001():
    labels = ["Woman", "Man", "Child"]
    table = [[13, 4, 2], [2, 15, 1], [5, 1, 57]]  # predicted rows, actual columns
    truth, pred = labels_from_table(table, labels)
    cm = ConfusionMatrix.from_labels(truth, pred, labels=labels)
    assert cm.table("predicted_rows").tolist() == table
    assert cm.table("actual_rows").tolist() == np.array(table).T.tolist()
    assert cm.support.tolist() == [20, 20, 60]
    assert cm.accuracy() == pytest.approx(0.85)  # (13 + 15 + 57) / 100
    assert cm.error_rate() == pytest.approx(0.15)

    woman = cm.one_vs_rest("Woman")
    assert (woman.tp, woman.fp, woman.fn, woman.tn) == (13, 6, 7, 74)
    assert (woman.p, woman.n, woman.predicted_positive, woman.predicted_negative) == (
        20,
        80,
        19,
        81,
    )
    assert round(100 * woman.rate("PPV")) == 68  # 13/19
    assert round(100 * woman.rate("NPV")) == 91  # 74/81
    assert woman.rate("TPR") == pytest.approx(0.65)
    assert woman.rate("TNR") == pytest.approx(0.925)  # 74/80, "93%" in the seed
    assert woman.rate("ACC") == pytest.approx(0.87)
    assert woman.rate("prevalence") == pytest.approx(0.20)

    child = cm.one_vs_rest("Child")
    assert (child.tp, child.fp, child.fn, child.tn) == (57, 6, 3, 34)
    assert (child.predicted_positive, child.predicted_negative) == (63, 37)
    assert child.rate("ACC") == pytest.approx(0.91)
    assert child.rate("prevalence") == pytest.approx(0.60)
    # "precision (68%) and recall (65%) are much lower than for class Child"
    assert child.rate("PPV") > woman.rate("PPV") and child.rate("TPR") > woman.rate("TPR")


def test_seed_004_confusion_matrix_accuracy():
    # M[i, j] = documents of class i assigned to class j
    m = [[5, 0, 0], [1, 3, 0], [1, 2, 4]]
    cm = ConfusionMatrix.from_array(m, orientation="actual_rows")
    assert cm.accuracy() == pytest.approx(12 / 16)
    # micro precision = micro recall = sum |C'_i ∩ C_i| / sum |C'_i| (single-label)
    p, r, _, _ = cm.precision_recall_fscore(average="micro")
    assert p == pytest.approx(12 / 16) and r == pytest.approx(12 / 16)
    # macro precision: mean of per-class precisions 5/7, 3/5, 4/4
    p, r, _, _ = cm.precision_recall_fscore(average="macro")
    assert p == pytest.approx((5 / 7 + 3 / 5 + 1) / 3)
    assert r == pytest.approx((1 + 3 / 4 + 4 / 7) / 3)


def test_seed_004_multilabel_per_instance():
    truth = [{"sports", "politics"}, {"science"}, {"arts", "science"}]
    pred = [{"sports"}, {"science", "arts"}, {"politics"}]
    precision, recall = multilabel_precision_recall(truth, pred)
    assert precision.tolist() == pytest.approx([1.0, 0.5, 0.0])
    assert recall.tolist() == pytest.approx([0.5, 1.0, 0.0])


def test_spam_filter_accuracy_seed_003():
    model = BinaryConfusion.from_counts(tp=5, fp=10, fn=5, tn=90)
    all_ham = BinaryConfusion.from_counts(tp=0, fp=0, fn=10, tn=100)
    assert model.rate("ACC") == pytest.approx(95 / 110)  # 86.4%
    assert all_ham.rate("ACC") == pytest.approx(100 / 110)  # 90.9%, "higher accuracy"
    assert all_ham.rate("ACC") > model.rate("ACC")
    assert all_ham.rate("recall") == 0.0  # "no predictive power"


@pytest.mark.parametrize("p, expected", [(0.5, 0.693147), (0.9, 0.105361), (0.1, 2.302585)])
def test_log_loss_seed_003(p, expected):
    assert round(log_loss([1], [p]), 6) == expected
    assert log_loss([1, 0], [p, 1 - p]) == pytest.approx(expected, abs=5e-7)


def test_log_loss_clipping_delta_seed_000():
    assert log_loss([1], [0.0]) == pytest.approx(-math.log(1e-15))
    assert log_loss([1], [0.0], delta=1e-3) == pytest.approx(-math.log(1e-3))
    assert log_loss([0], [1.0], delta=1e-3) == pytest.approx(-math.log(1e-3))


def test_two_algorithms_one_million_documents_seed_003():
    # 100 relevant documents among 1,000,000; both algorithms find 90 of them
    alg1 = BinaryConfusion.from_counts(tp=90, fp=10, fn=10, tn=1_000_000 - 100 - 10)
    alg2 = BinaryConfusion.from_counts(tp=90, fp=1910, fn=10, tn=1_000_000 - 100 - 1910)
    assert alg1.predicted_positive == 100 and alg2.predicted_positive == 2000
    assert round(alg2.rate("FPR") - alg1.rate("FPR"), 4) == 0.0019
    assert alg1.rate("precision") == pytest.approx(0.9)
    assert alg2.rate("precision") == pytest.approx(0.045)
    assert alg1.rate("precision") - alg2.rate("precision") == pytest.approx(0.855)
    assert alg1.rate("recall") == alg2.rate("recall") == pytest.approx(0.9)


# Seed 001's 20-item ROC example (the data of Fawcett 2006, Fig. 3, cited by the seed)
FAWCETT_CLASS = "P P N P P P N N P N P N P N N N P N P N".split()
FAWCETT_SCORE = [0.9, 0.8, 0.7, 0.6, 0.55, 0.54, 0.53, 0.52, 0.51, 0.505]
FAWCETT_SCORE += [0.4, 0.39, 0.38, 0.37, 0.36, 0.35, 0.34, 0.33, 0.30, 0.1]


def test_roc_table_seed_001_highlighted_row():
    rng = np.random.default_rng(0)
    order = rng.permutation(20)  # the table sorts by score itself
    t = roc_table(np.array(FAWCETT_CLASS)[order], np.array(FAWCETT_SCORE)[order], positive="P")
    assert t.scores.tolist() == sorted(FAWCETT_SCORE, reverse=True)
    row = int(np.flatnonzero(t.scores == 0.54)[0])
    # "TP=5 ... FP=1 ... FN=5 ... TN=9"
    assert (t.tp[row], t.fp[row], t.fn[row], t.tn[row]) == (5, 1, 5, 9)
    assert t.tpr[row] == 0.5 and t.fpr[row] == pytest.approx(0.1)
    assert t.acc[row] == pytest.approx(0.70)
    assert t.acc.max() == pytest.approx(0.70)  # "the row with highest accuracy (70%)"
    assert t.tp[-1] == 10 and t.fp[-1] == 10  # lowest threshold: everything positive


def test_threshold_by_accuracy_seed_001():
    choice = select_threshold(FAWCETT_CLASS, FAWCETT_SCORE, "accuracy", positive="P")
    assert choice.threshold == 0.54
    assert choice.value == pytest.approx(0.70)
    c = choice.confusion
    assert (c.tp, c.fp, c.fn, c.tn) == (5, 1, 5, 9)
    assert c.positive == "P"


def test_roc_table_ties_share_counts():
    t = roc_table([1, 0, 1, 0, 0], [0.8, 0.5, 0.5, 0.5, 0.2])
    # the three items at 0.5 are all at-or-above threshold 0.5
    assert t.tp.tolist() == [1, 2, 2, 2, 2]
    assert t.fp.tolist() == [0, 2, 2, 2, 3]
    assert t.tn.tolist() == [3, 1, 1, 1, 0]


def test_render_binary_seed_layout():
    cm = BinaryConfusion.from_counts(20, 180, 10, 1820, positive="cancer")
    text = render_binary(cm)
    lines = text.splitlines()
    # predicted in rows: the "Predicted cancer" row holds TP, FP, then PPV and FDR
    yes = next(line for line in lines if line.startswith("Predicted cancer"))
    assert yes.split()[3:] == ["TP=20", "FP=180", "PPV", "=", "10.00%", "FDR", "=", "90.00%"]
    no = next(line for line in lines if line.startswith("Predicted not cancer"))
    assert "FN=10" in no and "TN=1820" in no and "NPV = 99.45%" in no and "FOR = 0.5464%" in no
    assert (
        "Actual cancer (P=30)" in lines[0]
        and "rows: predicted, columns: actual (n=2030)" in lines[0]
    )
    assert "TPR = 66.67%" in text and "TNR = 91.00%" in text and "ACC = 90.64%" in text

    t = render_binary(cm, orientation="actual_rows").splitlines()
    actual = next(line for line in t if line.startswith("Actual cancer"))
    assert "TP=20" in actual and "FN=10" in actual and "TPR = 66.67%" in actual
    assert actual.index("TP=20") < actual.index("FN=10")
    md = render_binary(cm, fmt="markdown")
    assert "| Predicted cancer (200) | TP=20 | FP=180 | PPV = 10.00% | FDR = 90.00% |" in md
    html = render_binary(BinaryConfusion.from_counts(1, 2, 3, 4, positive="<b>"), fmt="html")
    assert "<table>" in html and "&lt;b&gt;" in html and "<b>" not in html.replace("<table>", "")
