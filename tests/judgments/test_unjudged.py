"""The "pooled, not yet judged" grade (-1 in the packages of ``pool assign``) is no
judgment in agreement, assessors and aggregate, as in ``pool merge``."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from cranfield.cli.main import main
from cranfield.errors import InputError
from cranfield.judgments.data import Judgments

DOCS = [f"d{i}" for i in range(20)]
TRUTH = {d: i % 3 for i, d in enumerate(DOCS)}


def _packages(tmp_path):
    """ann and bo judged everything right; cy judged the first half right and left the
    other half at -1 (a half-finished package); gold is the truth."""
    paths = []
    for name, judged in (("ann", 20), ("bo", 20), ("cy", 10)):
        lines = [f"1 0 {d} {TRUTH[d] if i < judged else -1}" for i, d in enumerate(DOCS)]
        path = tmp_path / f"{name}.qrels"
        path.write_text("\n".join(lines) + "\n")
        paths.append(str(path))
    gold = tmp_path / "gold.qrels"
    gold.write_text("".join(f"1 0 {d} {g}\n" for d, g in TRUTH.items()))
    return paths, str(gold)


def test_assessors_does_not_score_unjudged_pairs_against_gold(tmp_path, capsys):
    paths, gold = _packages(tmp_path)
    assert main(["assessors", *paths, "--gold", gold, "--format", "json"]) == 0
    captured = capsys.readouterr()
    rows = {r["assessor"]: r for r in json.loads(captured.out)["assessors"]}
    assert rows["cy"]["judgments"] == 10
    assert rows["cy"]["gold_accuracy"] == 1.0
    assert captured.err == (
        "cranfield assessors: note: 10 negative grade(s) left out: pooled, not yet judged "
        "(as pool merge does)\n"
    )


def test_agreement_counts_judged_grades_only(tmp_path, capsys):
    paths, _ = _packages(tmp_path)
    assert main(["agreement", *paths, "--format", "json", "--bootstrap", "0"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["judgments"] == 50
    assert report["graded"]["overall"]["krippendorff_alpha"] == pytest.approx(1.0)


def test_aggregate_leaves_unjudged_out(tmp_path, capsys):
    paths, _ = _packages(tmp_path)
    # cy left five pairs and one only cy has ("zz": nobody judged it) at -1
    cy = "".join(f"1 0 {d} -1\n" for d in [*DOCS[:5], "zz"]) + "1 0 d5 2\n"
    (tmp_path / "cy.qrels").write_text(cy)
    assert main(["aggregate", *paths, "--method", "majority"]) == 0
    out, err = capsys.readouterr()
    assert sorted(out.splitlines()) == sorted(f"1 0 {d} {TRUTH[d]}" for d in DOCS)
    assert "6 negative grade(s) left out" in err


def test_judgments_table_with_unjudged_rows(tmp_path):
    path = tmp_path / "j.csv"
    path.write_text("topic,document,assessor,label\n1,a,ann,2\n1,b,ann,-1\n1,a,bo, -1\n1,b,bo,x\n")
    with pytest.raises(InputError) as err:  # lines are those of the file, rows skipped
        Judgments.read(path)
    assert err.value.line == 5
    path.write_text("topic,document,assessor,label\n1,a,ann,2\n1,b,ann,-1\n1,a,bo,-1\n")
    j = Judgments.read(path)
    assert (len(j), j.unjudged, j.scale.values) == (1, 2, (2,))
    numeric = Judgments.read(
        pa.table(
            {
                "topic": ["1"] * 2,
                "document": ["a", "b"],
                "assessor": ["x", "x"],
                "label": [1.0, -1.0],
            }
        )
    )
    assert (len(numeric), numeric.unjudged) == (1, 1)
    path.write_text("topic,document,assessor,label\n1,b,ann,-1\n")
    with pytest.raises(InputError, match="not yet judged"):
        Judgments.read(path)


def test_a_declared_negative_grade_is_a_grade(tmp_path):
    path = tmp_path / "j.csv"
    path.write_text("topic,document,assessor,label\n1,a,ann,2\n1,b,ann,-1\n1,a,bo,-2\n")
    j = Judgments.read(path, scale="-1,0,1,2")
    assert (len(j), j.unjudged) == (2, 1)
    assert sorted(j.values().tolist()) == [-1, 2]


def test_a_gold_grade_not_yet_judged_is_no_gold_label(tmp_path, capsys):
    paths, gold = _packages(tmp_path)
    text = open(gold).read().replace("1 0 d19 1", "1 0 d19 -1").replace("1 0 d18 0", "1 0 d18 -1")
    assert text.count(" -1\n") == 2
    (tmp_path / "gold.qrels").write_text(text)
    assert main(["assessors", *paths, "--gold", gold, "--format", "json"]) == 0
    rows = {r["assessor"]: r for r in json.loads(capsys.readouterr().out)["assessors"]}
    assert rows["ann"]["gold_accuracy"] == 1.0  # 18 gold labels, all matched
