"""`cranfield measures`, `cranfield curve pr`, the generated reference and the name language."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cranfield.cli.main import main
from cranfield.core.measures import parse
from cranfield.core.measures.docs import render
from cranfield.core.measures.registry import Measure, all_definitions
from cranfield.errors import MeasureError

ROOT = Path(__file__).resolve().parents[2]


def test_docs_measures_md_is_up_to_date():
    committed = (ROOT / "docs" / "measures.md").read_text(encoding="utf-8")
    assert committed == render(), (
        "regenerate: python -m cranfield.core.measures.docs > docs/measures.md"
    )


def test_measures_lists_every_family(capsys):
    assert main(["measures"]) == 0
    out = capsys.readouterr().out
    for d in all_definitions():
        assert any(line.startswith(d.name) for line in out.splitlines()), d.name


def test_measures_shows_one(capsys):
    assert main(["measures", "AP"]) == 0
    out = capsys.readouterr().out
    assert "relret@k" in out and "Formula" in out and "Reference" in out and "normalise" in out
    assert main(["measures", "nDCG(dcg='jk')@10"]) == 0
    assert "Järvelin" in capsys.readouterr().out


def test_measures_unknown_name_suggests(capsys):
    assert main(["measures", "nDGC"]) == 2
    err = capsys.readouterr().err
    assert "did you mean nDCG" in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "text, message",
    [
        ("nDGC@10", "did you mean nDCG"),
        ("AP(normalise='k')@5", "normalise: expected one of 'R', 'min(R,k)', 'relret@k'"),
        ("nDCG(dcg='exp')@5", "dcg: expected one of"),
        ("nDCG(dcg=jk, b=1)@5", "b: expected a number in (1, 1e100]"),
        ("RBP(p=1.5)", "p: expected a number in (0, 1)"),
        ("PrecAtRecall", "needs a cutoff"),
        ("PrecAtRecall@2", "recall level in [0, 1]"),
        ("ERR(foo=1)", "unknown parameter 'foo'"),
    ],
)
def test_bad_names_and_parameters(text, message):
    with pytest.raises(MeasureError) as info:
        parse(text)
    assert message in str(info.value)


def test_every_family_round_trips_with_and_without_parameters():
    samples = {
        "bool": True,
        "int": 2,
        "float": 0.5,
        "str": None,
    }
    for d in all_definitions():
        cutoff = None
        if d.cutoff == "rank":
            cutoff = 7
        elif d.cutoff in ("recall", "positive"):
            cutoff = 0.25
        m = Measure.of(d.name, cutoff=cutoff)
        assert parse(str(m)) == m, str(m)
        for p in d.params:
            if p.choices:
                value = p.choices[-1]
            elif p.kind is bool:
                value = True
            elif p.name in ("p",):
                value = 0.5
            elif p.kind in (int, float) and p.check is not None:
                value = next(v for v in (3, 2, 1.5, 0.25) if p.check(v))
            else:
                continue
            m = Measure.of(d.name, cutoff=cutoff, **{p.name: value})
            assert parse(str(m)) == m, str(m)
    assert samples  # the table above documents which kinds are sampled


def _write_collection(tmp_path):
    qrels = tmp_path / "qrels"
    run = tmp_path / "run"
    qrels.write_text("1 0 d1 0\n1 0 d2 1\n1 0 d5 1\n1 0 d8 1\n1 0 d15 1\n")
    run.write_text("".join(f"1 Q0 d{i} {i} {20 - i} r\n" for i in range(1, 11)))
    return str(qrels), str(run)


def test_curve_pr_csv_interpolated_matches_seed004(tmp_path, capsys):
    q, r = _write_collection(tmp_path)
    assert main(["curve", "pr", q, r, "--interpolated"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "query_id,recall,precision"
    values = [round(float(line.split(",")[2]), 2) for line in lines[1:]]
    assert values == [0.5, 0.5, 0.5, 0.4, 0.4, 0.4, 0.38, 0.38, 0.0, 0.0, 0.0]


def test_curve_pr_json_points_and_averages(tmp_path, capsys):
    q, r = _write_collection(tmp_path)
    assert main(["curve", "pr", q, r, "--format", "json", "--query", "1"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [row["rank"] for row in rows] == list(range(1, 11))
    assert rows[1]["relevant"] is True and rows[1]["precision"] == 0.5
    assert main(["curve", "pr", q, r, "--average", "ranks", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0] == {"rank": 5, "precision": 0.4, "recall": 0.5}
    assert main(["curve", "pr", q, r, "--query", "9"]) == 2
    assert "query" in capsys.readouterr().err


def test_measures_name_is_laid_out_for_a_terminal_and_markdown_on_request(cli):
    from cranfield.core.measures import docs
    from cranfield.core.measures.registry import lookup

    status, text, _ = cli("measures", "nDCG")
    assert status == 0
    assert not any(mark in text for mark in ("**", "###", "`", "|---", "| parameter"))
    assert text.startswith("nDCG\n====\n") and "Formula: nDCG@k" in text
    assert "dcg" in text and "exp-log2" in text  # the parameter table survives, aligned
    status, md, _ = cli("measures", "nDCG", "-f", "markdown")
    assert status == 0 and md == docs.describe(lookup("nDCG"))
