"""``cranfield fuse`` under hostile input: one clear line and status 2, inputs unchanged,
no output left behind; the fused run is a run (eval reads it)."""

from __future__ import annotations

import pytest

import cranfield

from .harness import assert_success, run_cli

RUN_A = "1 Q0 a 1 3.0 A\n1 Q0 b 2 2.0 A\n2 Q0 c 1 1.0 A\n"
RUN_B = "1 Q0 b 1 5.0 B\n1 Q0 d 2 4.0 B\n2 Q0 e 1 1.0 B\n"
QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 2\n2 0 e 1\n"


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, text in {"a.run": RUN_A, "b.run": RUN_B, "qrels": QRELS}.items():
        (tmp_path / name).write_text(text)
        paths[name] = tmp_path / name
    return paths


def test_fused_run_goes_into_eval_as_a_process(files, tmp_path):
    target = tmp_path / "fused.txt"
    out = run_cli("fuse", files["a.run"], files["b.run"], "--method", "combmnz", "-o", target)
    assert_success(out, quiet=True)
    lines = target.read_text().splitlines()
    assert lines[0] == "1 Q0 b 1 2 combmnz"  # min-max: 0.5 + 1, retrieved by both
    out = run_cli("eval", files["qrels"], target, "-m", "P@1")
    assert_success(out)
    assert b"combmnz" in out.stdout


BAD = {
    "weights count": (["--method", "wsum", "--weights", "1"], "2 numbers (one per run)"),
    "weights for unweighted": (["--method", "rrf", "--weights", "1,2"], "unweighted"),
    "weight not finite": (["--method", "wsum", "--weights", "1,inf"], "weight"),
    "param out of range": (["--method", "rbc", "-p", "phi=1.5"], "phi"),
    "param missing": (["--method", "rbc"], "phi"),
    "unknown param": (["--method", "rrf", "-p", "kk=3"], "kk"),
    "unknown method": (["--method", "bogus"], "fusion method"),
    "unknown norm": (["--method", "combsum", "--norm", "bogus"], "normalisation"),
    "default minimum with ranks": (["--method", "rrf", "--missing", "min"], "missing"),
    "trained without qrels": (["--method", "posfuse"], "qrels"),
    "search without optimise": (
        ["--method", "wsum", "--weights", "1,1", "--search", "mga"],
        "--optimise",
    ),
    "parquet to stdout": (["--method", "rrf", "-f", "parquet"], "parquet"),
}


@pytest.mark.parametrize("case", BAD)
def test_bad_options_are_one_line(case, files, cli):
    argv, hint = BAD[case]
    status, out, err = cli("fuse", str(files["a.run"]), str(files["b.run"]), *argv)
    assert status == 2, (out, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert hint in err, err
    assert out == ""


def test_bad_runs_are_one_line(tmp_path, cli):
    a = tmp_path / "a.run"
    a.write_text(RUN_A)
    cases = {
        "nan": "1 Q0 a 1 nan B\n2 Q0 c 1 1.0 B\n",
        "inf": "1 Q0 a 1 inf B\n2 Q0 c 1 1.0 B\n",
        "duplicate": "1 Q0 a 1 1.0 B\n1 Q0 a 2 0.5 B\n2 Q0 c 1 1.0 B\n",
        "other topics": "1 Q0 a 1 1.0 B\n3 Q0 c 1 1.0 B\n",
    }
    for name, text in cases.items():
        b = tmp_path / f"{name}.run"
        b.write_text(text)
        target = tmp_path / "out.txt"
        status, out, err = cli("fuse", str(a), str(b), "--method", "combsum", "-o", str(target))
        assert status == 2, (name, err)
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, (name, err)
        assert not target.exists(), name
        assert b.read_text() == text
    status, _, err = cli("fuse", str(a), str(b), "--method", "combsum", "--topics", "union")
    assert status == 0, err


def test_non_finite_scores_from_python_are_refused():
    with pytest.raises(cranfield.InputError, match="NaN|finite"):
        cranfield.fuse([{"q": {"a": float("nan")}}, {"q": {"a": 1.0}}], "combsum")
    with pytest.raises(cranfield.InputError, match="not a finite number"):
        cranfield.fuse([{"q": {"a": float("-inf")}}, {"q": {"a": 1.0}}], "combsum")
    with pytest.raises(cranfield.ParameterError, match="at least two runs"):
        cranfield.fuse([{"q": {"a": 1.0}}], "combsum")
    with pytest.raises(cranfield.InputError, match="overflow"):
        cranfield.fuse([{"q": {"a": 1e300}}, {"q": {"a": 1e300}}], "wsum", None, [1e100, 1e100])


def test_output_is_atomic_and_not_an_input(files, cli):
    status, _, err = cli(
        "fuse",
        str(files["a.run"]),
        str(files["b.run"]),
        "--method",
        "rrf",
        "-o",
        str(files["a.run"]),
    )
    assert status == 2 and len(err.strip().splitlines()) == 1, err
    assert files["a.run"].read_text() == RUN_A


def test_optimise_writes_the_run_the_report_and_the_per_query_table(files, tmp_path, cli):
    import json

    run, report, table = tmp_path / "f.txt", tmp_path / "r.json", tmp_path / "pq.tsv"
    status, out, err = cli(
        "fuse",
        str(files["a.run"]),
        str(files["b.run"]),
        "--method",
        "wsum",
        "--optimise",
        "nDCG@10",
        "--qrels",
        str(files["qrels"]),
        "--folds",
        "2",
        "--report",
        str(report),
        "--per-query",
        str(table),
        "-o",
        str(run),
    )
    assert status == 0, err
    chosen = json.loads(report.read_text())
    assert abs(sum(chosen["weights"]) - 1) < 1e-9 and len(chosen["folds"]) == 2
    assert "cross-validated nDCG@10" in err
    head, *rows = table.read_text().splitlines()
    assert head.split("\t") == [
        "query", "A", "B", "wsum", "gain over best run", "new in top 10", "new relevant in top 10"
    ]  # fmt: skip
    assert [r.split("\t")[0] for r in rows] == ["1", "2"]
    fused = cranfield.evaluate(str(files["qrels"]), str(run), ["nDCG@10"])
    assert abs(fused.aggregate(0, "nDCG@10") - chosen["train"]) < 1e-12
    # two outputs of one command never share a path
    status, _, err = cli(
        "fuse",
        str(files["a.run"]),
        str(files["b.run"]),
        "--method",
        "rrf",
        "--qrels",
        str(files["qrels"]),
        "--per-query",
        str(run),
        "-o",
        str(run),
    )
    assert status == 2 and "same file" in err, err
