"""`cranfield classify` run through the dispatcher: output and exit codes."""

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cranfield.cli.main import main

FAWCETT_CLASS = "P P N P P P N N P N P N P N N N P N P N".split()
FAWCETT_SCORE = [0.9, 0.8, 0.7, 0.6, 0.55, 0.54, 0.53, 0.52, 0.51, 0.505]
FAWCETT_SCORE += [0.4, 0.39, 0.38, 0.37, 0.36, 0.35, 0.34, 0.33, 0.30, 0.1]


def write(path, header, rows, sep=","):
    path.write_text(sep.join(header) + "\n" + "".join(sep.join(map(str, r)) + "\n" for r in rows))
    return str(path)


@pytest.fixture
def roc_csv(tmp_path):
    return write(
        tmp_path / "roc.csv", ["class", "score"], zip(FAWCETT_CLASS, FAWCETT_SCORE, strict=True)
    )


def run(capsys, *argv):
    code = main(["classify", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_scores_one_file_text(capsys, roc_csv):
    code, out, err = run(
        capsys, roc_csv, "--scores", "--positive", "P", "--roc-table", "--threshold-by", "accuracy"
    )
    assert code == 0 and err == ""
    chosen = next(line for line in out.splitlines() if line.startswith("threshold T chosen"))
    assert "on the evaluated data by accuracy (optimistic" in chosen
    assert chosen.split()[-1] == "0.54"
    assert "TP=5" in out and "FP=1" in out and "FN=5" in out and "TN=9" in out
    assert "ACC = 70.00%" in out
    # the ROC table's highlighted row
    assert any(
        line.split() == ["P", "0.54", "5", "1", "5", "9", "50.00%", "10.00%", "70.00%"]
        for line in out.splitlines()
    )


def test_scores_json_two_files_and_named_columns(capsys, tmp_path):
    truth = write(tmp_path / "truth.tsv", ["id", "gold"], enumerate(FAWCETT_CLASS), sep="\t")
    table = pa.table({"s": FAWCETT_SCORE})
    pq.write_table(table, tmp_path / "pred.parquet")
    code, out, _ = run(
        capsys,
        truth,
        str(tmp_path / "pred.parquet"),
        "--truth-column",
        "gold",
        "--scores",
        "--positive",
        "P",
        "--threshold-by",
        "youden",
        "--format",
        "json",
    )
    assert code == 0
    report = json.loads(out)
    assert report["kind"] == "scores"
    assert report["threshold"]["criterion"] == "youden"
    c = report["counts"]
    assert report["threshold"]["value"] == pytest.approx(
        c["TP"] / (c["TP"] + c["FN"]) + c["TN"] / (c["TN"] + c["FP"]) - 1
    )
    assert 0 < report["scores"]["ROC AUC"] < 1


def test_labels_binary_markdown_and_orientation(capsys, tmp_path):
    rows = [(1, 1)] * 20 + [(0, 1)] * 180 + [(1, 0)] * 10 + [(0, 0)] * 1820
    path = write(tmp_path / "cancer.csv", ["truth", "pred"], rows)
    code, out, _ = run(capsys, path, "--format", "markdown", "--orientation", "predicted-rows")
    assert code == 0
    assert "| Predicted 1 (200) | TP=20 | FP=180 | PPV = 10.00% | FDR = 90.00% |" in out
    assert out.startswith("| rows: predicted, columns: actual (n=2030) |")
    # actual classes in rows is the default (scikit-learn's layout)
    for argv in ([], ["--orientation", "actual-rows"]):
        code, out, _ = run(capsys, path, "--format", "markdown", *argv)
        assert "| Actual 1 (P=30) | TP=20 | FN=10 | TPR = 66.67% | FNR = 33.33% |" in out
        assert out.startswith("| rows: actual, columns: predicted (n=2030) |")


def test_labels_multiclass_html(capsys, tmp_path):
    table = [[13, 4, 2], [2, 15, 1], [5, 1, 57]]
    names = ["Woman", "Man", "Child"]
    rows = [(names[j], names[i]) for i in range(3) for j in range(3) for _ in range(table[i][j])]
    path = write(tmp_path / "people.csv", ["actual", "recognized"], rows)
    code, out, _ = run(capsys, path, "--format", "html", "--orientation", "predicted-rows")
    assert code == 0
    assert out.count("<table>") == 3
    # classes in sorted order: Child, Man, Woman
    assert "<th>Predicted Woman (19)</th><td>2</td><td>4</td><td>13</td>" in out
    code, out, _ = run(capsys, path, "--format", "json")
    report = json.loads(out)
    assert report["accuracy"] == pytest.approx(0.85)
    assert report["per_class"]["Woman"]["precision"] == pytest.approx(13 / 19)


def test_undefined_rate_is_null_in_json(capsys, tmp_path):
    path = write(tmp_path / "no.csv", ["t", "p"], [(1, 0), (0, 0)])
    code, out, _ = run(capsys, path, "--format", "json")
    assert code == 0
    assert json.loads(out)["rates"]["PPV"] is None
    code, out, _ = run(capsys, path, "--format", "json", "--zero-division", "0")
    assert json.loads(out)["rates"]["PPV"] == 0.0


def assert_one_line_error(capsys, argv, *fragments):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("cranfield classify: error: ")
    for fragment in fragments:
        assert fragment in err


def test_error_non_numeric_score_names_file_and_line(capsys, tmp_path):
    path = write(tmp_path / "bad.csv", ["t", "s"], [(1, 0.5), (0, "high"), (1, 0.2)])
    assert_one_line_error(capsys, [path, "--scores"], f"{path}:3:", "'high'", "'s'")


def test_error_non_numeric_score_parquet_names_row(capsys, tmp_path):
    pq.write_table(pa.table({"t": [1, 0], "s": ["0.1", "x"]}), tmp_path / "b.parquet")
    path = str(tmp_path / "b.parquet")
    assert_one_line_error(capsys, [path, "--scores"], path, "row 2", "'x'")


def test_error_unknown_positive(capsys, roc_csv):
    assert_one_line_error(
        capsys, [roc_csv, "--scores", "--positive", "X"], "unknown positive label 'X'"
    )


def test_error_single_class_truth(capsys, tmp_path):
    path = write(tmp_path / "one.csv", ["t", "s"], [(1, 0.5), (1, 0.2)])
    assert_one_line_error(capsys, [path, "--scores"], "only one class")


def test_error_row_count_mismatch_and_missing_column(capsys, tmp_path):
    a = write(tmp_path / "a.csv", ["t"], [(1,), (0,)])
    b = write(tmp_path / "b.csv", ["p"], [(1,)])
    assert_one_line_error(capsys, [a, b], "2 rows", "1")
    assert_one_line_error(capsys, [a, b, "--pred-column", "nope"], "no pred column 'nope'")
    assert_one_line_error(capsys, [a], "expected a pred column at position 2")


def test_error_empty_label_and_missing_file(capsys, tmp_path):
    path = write(tmp_path / "e.csv", ["t", "p"], [(1, 1), ("", 0)])
    assert_one_line_error(capsys, [path], f"{path}:3:", "empty label")
    assert_one_line_error(capsys, [str(tmp_path / "missing.csv")], "missing.csv")


def test_labels_option_orders_classes_and_checks_them(capsys, tmp_path):
    rows = [("Woman", "Woman"), ("Man", "Child"), ("Child", "Child")]
    path = write(tmp_path / "p.csv", ["a", "r"], rows)
    code, out, _ = run(
        capsys, path, "--header", "--labels", "Woman,Man,Child", "--orientation", "predicted-rows"
    )
    assert code == 0
    assert out.splitlines()[0].split()[5:8] == ["Actual", "Woman", "(1)"]
    assert_one_line_error(
        capsys, [path, "--header", "--labels", "Woman,Child"], f"{path}:3:", "'Man'"
    )
