"""`cranfield compare --from-per-query` and `cranfield correlate` end to end."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cranfield.cli.main import main
from cranfield.compare import compare, read_per_query


@pytest.fixture
def per_query(tmp_path):
    rng = np.random.default_rng(0)
    path = tmp_path / "pq.tsv"
    lines = ["run\tqid\tmeasure\tvalue"]
    for run, shift in (("base", 0.0), ("new", 0.2)):
        for q in range(15):
            lines.append(f"{run}\t{q + 1}\tAP\t{rng.random() * 0.5 + shift:.4f}")
            lines.append(f"{run}\t{q + 1}\tP@5\t{rng.integers(0, 6) / 5:.1f}")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_compare_from_per_query_json(per_query, capsys):
    code = main(
        [
            "compare",
            "--from-per-query",
            str(per_query),
            "--baseline",
            "base",
            "--test",
            "t",
            "--test",
            "sign",
            "--format",
            "json",
            "-m",
            "AP",
        ]
    )
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    expected = compare(read_per_query(per_query), baseline="base", tests=("t", "sign"))
    assert doc["rows"] == [r for r in expected.to_rows() if r["measure"] == "AP"]


def test_trec_eval_q_files(tmp_path, capsys):
    for name, vals in (("a", [0.1, 0.2, 0.3, 0.4]), ("b", [0.3, 0.3, 0.5, 0.6])):
        lines = [f"runid\tall\t{name}_run"]
        lines += [f"map\t{q}\t{v}" for q, v in enumerate(vals, start=1)]
        lines.append("map\tall\t0.25")
        (tmp_path / f"{name}.txt").write_text("\n".join(lines) + "\n")
    table = read_per_query([tmp_path / "a.txt", tmp_path / "b.txt"])
    assert table == {
        "map": {
            "a_run": {"1": 0.1, "2": 0.2, "3": 0.3, "4": 0.4},
            "b_run": {"1": 0.3, "2": 0.3, "3": 0.5, "4": 0.6},
        }
    }
    assert (
        main(
            [
                "compare",
                "--from-per-query",
                str(tmp_path / "a.txt"),
                str(tmp_path / "b.txt"),
                "--test",
                "randomization",
                "--format",
                "csv",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("measure,run,baseline") and len(out) == 2
    # all four differences positive: exact randomisation p = 2/16
    assert ",0.125," in out[1]


def test_missing_queries_exit_2_and_complete(tmp_path, capsys):
    path = tmp_path / "pq.csv"
    path.write_text("run,qid,measure,value\na,1,AP,0.5\na,2,AP,0.2\nb,1,AP,0.4\n")
    assert main(["compare", "--from-per-query", str(path)]) == 2
    err = capsys.readouterr().err
    assert "run 'b' lacks 1 queries (2)" in err and "Traceback" not in err
    assert (
        main(["compare", "--from-per-query", str(path), "--complete", "--format", "markdown"]) == 0
    )
    assert "| AP | b | a |" in capsys.readouterr().out


def test_bad_files_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.tsv"
    bad.write_text("run\tqid\tmeasure\tvalue\na\t1\tAP\tzero\n")
    assert main(["compare", "--from-per-query", str(bad)]) == 2
    assert "bad.tsv:2: expected a number" in capsys.readouterr().err
    dup = tmp_path / "dup.tsv"
    dup.write_text("run\tqid\tmeasure\tvalue\na\t1\tAP\t0.1\na\t1\tAP\t0.2\n")
    assert main(["compare", "--from-per-query", str(dup)]) == 2
    assert "dup.tsv:3: duplicate" in capsys.readouterr().err
    assert main(["compare", "--from-per-query", str(tmp_path / "nope.tsv")]) == 2
    capsys.readouterr()
    good = tmp_path / "good.tsv"
    good.write_text("run\tqid\tmeasure\tvalue\na\t1\tAP\t0.1\nb\t1\tAP\t0.2\n")
    assert main(["compare", "--from-per-query", str(good), "-m", "nDCG"]) == 2
    assert "--measure" in capsys.readouterr().err


def test_latex_output(per_query, capsys):
    assert main(["compare", "--from-per-query", str(per_query), "--format", "latex"]) == 0
    out = capsys.readouterr().out
    assert r"\toprule" in out and r"\bottomrule" in out and r"\begin{tabular}{llrr}" in out


def test_correlate(tmp_path, capsys):
    a = tmp_path / "a.tsv"
    b = tmp_path / "b.csv"
    a.write_text(
        "run\tmeasure\tvalue\n"
        + "".join(
            f"r{i}\tMAP\t{v}\nr{i}\tP@10\t{w}\n"
            for i, (v, w) in enumerate([(0.3, 0.5), (0.2, 0.6), (0.1, 0.4), (0.05, 0.1)])
        )
    )
    b.write_text("run,measure,value\nr0,MAP,0.31\nr1,MAP,0.12\nr2,MAP,0.2\nr3,MAP,0.01\n")
    assert main(["correlate", str(a), str(b), "-m", "MAP", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    # orders r0 r1 r2 r3 vs r0 r2 r1 r3: one discordant pair of 6 -> tau = 4/6, rho = 0.8
    assert doc["kendall_tau"] == pytest.approx(4 / 6)
    assert doc["spearman_rho"] == pytest.approx(0.8)
    # 4 runs: exact permutation p-values (rho >= 0.8 in 4 of the 24 pairings, the
    # identity and the 3 adjacent swaps: two-sided 8/24), and the method is named
    assert doc["spearman_rho_p"] == pytest.approx(1 / 3) and doc["spearman_rho_p_method"] == (
        "permutation"
    )
    assert doc["kendall_tau_p_method"] == "exact"
    # tau_AP: C = (1, 1, 3) at positions 2..4 -> 2/3 (1 + 1/2 + 1) - 1 = 2/3
    assert doc["tau_ap"] == pytest.approx(2 / 3)
    assert 0 < doc["rbo"] < 1
    assert main(["correlate", str(a), str(a), "-m", "MAP", "--measure-b", "P@10"]) == 0
    out = capsys.readouterr().out
    assert "kendall_tau\t0.6667" in out  # MAP order r0 r1 r2 r3, P@10 order r1 r0 r2 r3
    assert "(kendall_tau exact, spearman_rho permutation)" in out
    assert main(["correlate", str(a), str(b)]) == 2  # A has two measures: which one?
    assert "measure of A" in capsys.readouterr().err
