"""What ML users expect from `classify`: scikit-learn as the oracle, honest thresholds.

Fixed thresholds (0.5 for probabilities), a threshold chosen on the evaluated data named
as such, log-loss and Brier score, Cohen's kappa, multi-class MCC, 4 significant digits,
actual classes in rows by default.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from sklearn import metrics as skm

from cranfield.classification import (
    BinaryConfusion,
    ConfusionMatrix,
    brier_score,
    classification_report,
    log_loss,
)
from cranfield.classification import rates as R
from cranfield.classification.thresholds import fixed_threshold
from cranfield.cli.main import main
from cranfield.errors import InputError


def _cases(seed: int, count: int):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(1, 200))
        k = int(rng.integers(1, 6))
        truth = rng.integers(0, k, n)
        noise = rng.random(n) < rng.random()
        pred = np.where(noise, rng.integers(0, k + int(rng.integers(0, 2)), n), truth)
        yield truth, pred


def test_kappa_and_multiclass_mcc_agree_with_sklearn():
    for truth, pred in _cases(1, 300):
        cm = ConfusionMatrix.from_labels(truth, pred)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # sklearn warns on 0/0 kappa
            kappa = skm.cohen_kappa_score(truth, pred)
        ours = cm.cohen_kappa(zero_division=np.nan)
        if np.isnan(kappa):
            assert np.isnan(ours)
        else:
            assert ours == pytest.approx(kappa, abs=1e-12)
        # scikit-learn's MCC is 0.0 where it is 0/0: zero_division=0 says the same
        assert cm.mcc(zero_division=0.0) == pytest.approx(
            skm.matthews_corrcoef(truth, pred), abs=1e-12
        )
        # actual classes in rows: the matrix is scikit-learn's confusion_matrix
        np.testing.assert_array_equal(
            cm.table("actual_rows"), skm.confusion_matrix(truth, pred, labels=list(cm.labels))
        )
        np.testing.assert_array_equal(cm.table("predicted_rows"), cm.table("actual_rows").T)


def test_binary_kappa_and_mcc_rates_agree_with_sklearn():
    for truth, pred in _cases(2, 200):
        t, p = truth == 1, pred == 1
        b = BinaryConfusion.from_labels(t, p)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            kappa = skm.cohen_kappa_score(t, p)
        ours = b.rate("kappa", zero_division=np.nan)
        assert (np.isnan(ours) and np.isnan(kappa)) or ours == pytest.approx(kappa, abs=1e-12)
        assert b.rate("MCC", zero_division=0.0) == pytest.approx(
            skm.matthews_corrcoef(t, p), abs=1e-12
        )
        assert R.cohen_kappa(b.tp, b.fp, b.fn, b.tn, 0.0) == pytest.approx(
            0.0 if np.isnan(kappa) else kappa, abs=1e-12
        )


def test_log_loss_and_brier_agree_with_sklearn():
    rng = np.random.default_rng(3)
    for _ in range(300):
        n = int(rng.integers(1, 300))
        truth = rng.integers(0, 2, n)
        if rng.random() < 0.5:
            proba = rng.random(n)
        else:  # well-calibrated-ish and ties
            proba = np.round(np.clip(truth * 0.6 + rng.random(n) * 0.4, 0, 1), 1)
        proba = np.clip(proba, 1e-12, 1 - 1e-12)  # both clip at 0 and 1, with different eps
        assert brier_score(truth, proba) == pytest.approx(
            skm.brier_score_loss(truth, proba), abs=1e-12
        )
        assert log_loss(truth, proba) == pytest.approx(
            skm.log_loss(truth, proba, labels=[0, 1]), rel=1e-10
        )
        labels = np.where(truth == 1, "spam", "ham")
        if "spam" not in labels:
            continue  # an absent positive label is an error here, not a silent 0
        assert brier_score(labels, proba, positive="spam") == pytest.approx(
            skm.brier_score_loss(labels, proba, pos_label="spam"), abs=1e-12
        )


def test_fixed_threshold_matches_thresholding_by_hand():
    rng = np.random.default_rng(4)
    for _ in range(200):
        n = int(rng.integers(2, 100))
        truth = rng.integers(0, 2, n)
        scores = np.round(rng.random(n), int(rng.integers(1, 3)))
        t = float(rng.choice(np.r_[scores, rng.random(3), [-1.0, 2.0]]))
        c = fixed_threshold(truth, scores, t).confusion
        (tn, fp), (fn, tp) = skm.confusion_matrix(truth, scores >= t, labels=[0, 1])
        assert (c.tp, c.fp, c.fn, c.tn) == (tp, fp, fn, tn)


def test_report_defaults_to_half_for_probabilities_and_refuses_other_scores():
    truth = [1, 1, 0, 0, 1]
    proba = [0.9, 0.4, 0.6, 0.1, 0.5]
    rep = classification_report(truth, scores=proba)
    assert rep.threshold.criterion == "fixed" and rep.threshold.threshold == 0.5
    b = rep.binary
    assert (b.tp, b.fp, b.fn, b.tn) == (2, 1, 1, 1)
    assert rep.scores["log-loss"] == pytest.approx(skm.log_loss(truth, proba))
    assert rep.scores["Brier score"] == pytest.approx(skm.brier_score_loss(truth, proba))
    with pytest.raises(InputError, match="not probabilities"):
        classification_report(truth, scores=[3.0, -1.0, 0.2, 0.0, 1.5])
    rep = classification_report(truth, scores=[3.0, -1.0, 0.2, 0.0, 1.5], threshold=0.1)
    assert "log-loss" not in rep.scores and (rep.binary.tp, rep.binary.fp) == (2, 1)


# ---------------------------------------------------------------- command line


def run(capsys, *argv):
    code = main(["classify", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def proba_csv(tmp_path):
    rng = np.random.default_rng(5)
    truth = rng.integers(0, 2, 60)
    proba = np.round(np.clip(truth * 0.3 + rng.random(60) * 0.7, 0, 1), 3)
    path = tmp_path / "proba.csv"
    path.write_text("y,p\n" + "".join(f"{t},{p}\n" for t, p in zip(truth, proba, strict=True)))
    return str(path), truth, proba


def test_cli_fixed_threshold_and_losses(capsys, proba_csv):
    path, truth, proba = proba_csv
    code, out, err = run(capsys, path, "--scores", "--format", "json")
    assert code == 0, err
    rep = json.loads(out)
    assert rep["threshold"] == {
        "threshold": 0.5,
        "rule": "score >= threshold",
        "chosen_on_evaluated_data": False,
    }
    (tn, fp), (fn, tp) = skm.confusion_matrix(truth, proba >= 0.5)
    assert rep["counts"] == {"TP": tp, "FP": fp, "FN": fn, "TN": tn}
    assert rep["scores"]["log-loss"] == pytest.approx(skm.log_loss(truth, proba), rel=1e-12)
    assert rep["scores"]["Brier score"] == pytest.approx(skm.brier_score_loss(truth, proba))
    assert rep["rates"]["kappa"] == pytest.approx(skm.cohen_kappa_score(truth, proba >= 0.5))
    assert rep["rates"]["MCC"] == pytest.approx(skm.matthews_corrcoef(truth, proba >= 0.5))
    code, out, _ = run(capsys, path, "--scores", "--threshold", "0.7", "--format", "json")
    (tn, fp), (fn, tp) = skm.confusion_matrix(truth, proba >= 0.7)
    assert json.loads(out)["counts"] == {"TP": tp, "FP": fp, "FN": fn, "TN": tn}
    code, out, _ = run(capsys, path, "--scores")
    assert "threshold T (fixed; positive if score >= T)" in out
    assert "log-loss" in out and "Brier score" in out and "optimistic" not in out


def test_cli_threshold_chosen_on_data_is_named_optimistic(capsys, proba_csv):
    path, _, _ = proba_csv
    code, out, _ = run(capsys, path, "--scores", "--threshold-by", "youden")
    assert code == 0
    assert "chosen on the evaluated data by youden (optimistic" in out
    code, out, _ = run(capsys, path, "--scores", "--threshold-by", "youden", "--format", "json")
    assert json.loads(out)["threshold"]["chosen_on_evaluated_data"] is True


def test_cli_non_probability_scores_need_a_threshold(capsys, tmp_path):
    path = tmp_path / "margins.csv"
    path.write_text("y,s\n1,2.5\n0,-1.0\n1,0.3\n0,-0.2\n")
    code, out, err = run(capsys, str(path), "--scores")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "--threshold" in err
    code, out, _ = run(capsys, str(path), "--scores", "--threshold", "0", "--format", "json")
    assert json.loads(out)["counts"] == {"TP": 2, "FP": 0, "FN": 0, "TN": 2}
    assert "log-loss" not in json.loads(out)["scores"]
    with pytest.raises(SystemExit) as exc:  # argparse's usage error
        run(capsys, str(path), "--scores", "--threshold", "nan")
    assert exc.value.code == 2 and "finite number" in capsys.readouterr().err


def test_cli_multiclass_kappa_mcc_and_orientation_header(capsys, tmp_path):
    rng = np.random.default_rng(6)
    truth = rng.choice(["cat", "dog", "eel"], 80)
    pred = np.where(rng.random(80) < 0.7, truth, rng.choice(["cat", "dog", "eel"], 80))
    path = tmp_path / "mc.csv"
    path.write_text("t,p\n" + "".join(f"{a},{b}\n" for a, b in zip(truth, pred, strict=True)))
    code, out, _ = run(capsys, str(path), "--format", "json")
    rep = json.loads(out)
    assert rep["kappa"] == pytest.approx(skm.cohen_kappa_score(truth, pred), abs=1e-12)
    assert rep["MCC"] == pytest.approx(skm.matthews_corrcoef(truth, pred), abs=1e-12)
    assert rep["matrix_actual_rows"] == skm.confusion_matrix(truth, pred).tolist()
    code, out, _ = run(capsys, str(path))
    lines = out.splitlines()
    assert lines[0].startswith("rows: actual, columns: predicted (n=80)")
    matrix = skm.confusion_matrix(truth, pred)
    assert [int(x) for x in lines[1].split()[-3:]] == matrix[0].tolist()  # actual cat
    kappa_line = next(line for line in lines if line.startswith("Cohen's kappa"))
    assert kappa_line.split()[-1] == f"{skm.cohen_kappa_score(truth, pred):#.4g}"
    code, out, _ = run(capsys, str(path), "--orientation", "predicted-rows")
    assert out.splitlines()[0].startswith("rows: predicted, columns: actual (n=80)")
    assert [int(x) for x in out.splitlines()[1].split()[-3:]] == matrix[:, 0].tolist()


def test_rates_have_four_significant_digits(capsys, tmp_path):
    rows = [(1, 1)] * 20 + [(0, 1)] * 180 + [(1, 0)] * 10 + [(0, 0)] * 1820
    path = tmp_path / "cancer.csv"
    path.write_text("t,p\n" + "".join(f"{a},{b}\n" for a, b in rows))
    code, out, _ = run(capsys, str(path))
    assert "TPR = 66.67%" in out and "FOR = 0.5464%" in out and "ACC = 90.64%" in out
    assert any(
        line.split()[:1] == ["MCC"] and line.split()[-1] == "0.2335" for line in out.splitlines()
    )
    assert any(
        line.split()[:1] == ["MK"] and line.split()[-1] == f"{20 / 200 + 1820 / 1830 - 1:#.4g}"
        for line in out.splitlines()
    )


def test_cli_threshold_without_scores_is_refused(capsys, tmp_path):
    path = tmp_path / "l.csv"
    path.write_text("y,p\n1,1\n0,0\n1,0\n0,0\n")
    for argv in (["--threshold", "0.3"], ["--threshold-by", "youden"]):
        code, out, err = run(capsys, str(path), *argv)
        assert code == 2 and out == "" and err.count("\n") == 1
        assert f"invalid value for {argv[0]}: expected only together with --scores" in err
