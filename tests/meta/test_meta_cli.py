"""`cranfield repro` and `cranfield meta power|swap|topics|anova` in this process:
results equal the library's, bad inputs end in one line or a defined result, and the
command line's choices come from the registry."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cranfield.compare import align_scores
from cranfield.meta import (
    META_STATISTICS,
    bootstrap_asl,
    mixed_model,
    of_command,
    two_way_anova,
)


def _table(tmp_file, rows, name="s.csv"):
    text = "run,query,AP\n" + "".join(f"{r},{q},{v}\n" for r, q, v in rows)
    return str(tmp_file(name, text))


def _grid(k, n, seed=0, constant=False):
    rng = np.random.default_rng(seed)
    m = np.full((k, n), 0.5) if constant else rng.random((k, n))
    return [(f"r{s}", f"q{t:02d}", repr(float(m[s, t]))) for s in range(k) for t in range(n)], m


def test_power_json_is_the_library_result(cli, tmp_file):
    rows, m = _grid(5, 12)
    path = _table(tmp_file, rows)
    status, out, err = cli(
        "meta", "power", "--from-per-query", path, "--samples", "300", "--seed", "4", "-f", "json"
    )
    assert status == 0, err
    doc = json.loads(out)["measures"]["AP"]
    assert doc["pairs"] == 10
    want = np.sort(bootstrap_asl(m, 300, 4))
    assert doc["bootstrap"]["asl"] == pytest.approx(want.tolist(), abs=0)
    assert doc["bootstrap"]["share"] == np.mean(want < 0.05)
    assert doc["tukey"]["asl"] == sorted(doc["tukey"]["asl"])


def test_anova_text_and_markdown(cli, tmp_file):
    rows, m = _grid(3, 6, 1)
    path = _table(tmp_file, rows)
    status, out, _ = cli("meta", "anova", "--from-per-query", path, "-f", "csv", "--digits", "6")
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == "measure,source,ss,df,ms,f,p,eta2,partial_eta2"
    want = two_way_anova(
        align_scores({"AP": {f"r{s}": {f"q{t}": m[s, t] for t in range(6)} for s in range(3)}})[
            "AP"
        ][2]
    )
    system = lines[1].split(",")
    assert float(system[2]) == pytest.approx(want["system"]["ss"], abs=1e-6)
    status, out, _ = cli(
        "meta", "anova", "--from-per-query", path, "--standardised", "-f", "markdown"
    )
    assert status == 0 and out.startswith("| measure | run | mean | standardised_mean |")


def test_swap_and_topics_run(cli, tmp_file):
    rows, _ = _grid(4, 20, 2)
    path = _table(tmp_file, rows)
    status, out, err = cli("meta", "swap", "--from-per-query", path, "--trials", "10", "-f", "json")
    assert status == 0, err
    assert [r["size"] for r in json.loads(out)["measures"]["AP"]] == [5, 10]
    status, out, err = cli(
        "meta",
        "topics",
        "--from-per-query",
        path,
        "--design",
        "t",
        "--min-diff",
        "0.1",
        "-f",
        "tsv",
    )
    assert status == 0, err
    assert out.splitlines()[1].split("\t")[2:] == [
        "t",
        "0.1000",
        out.splitlines()[1].split("\t")[4],
    ]


@pytest.mark.parametrize(
    "action, extra",
    [("power", []), ("swap", []), ("topics", []), ("anova", [])],
)
def test_bad_inputs_are_one_line(cli, tmp_file, action, extra):
    one_run = _table(tmp_file, [("a", "1", "0.5"), ("a", "2", "0.25")], "one_run.csv")
    status, out, err = cli("meta", action, "--from-per-query", one_run, *extra)
    assert status == 2 and out == "" and err.count("\n") == 1 and "two runs" in err
    one_topic = _table(tmp_file, [("a", "1", "0.5"), ("b", "1", "0.25")], "one_topic.csv")
    status, out, err = cli("meta", action, "--from-per-query", one_topic, *extra)
    assert status == 2 and out == "" and err.count("\n") == 1, err
    assert "two topics" in err or "half of 1" in err or "2 topics" in err
    apart = _table(
        tmp_file,
        [("a", "1", "0.5"), ("a", "2", "0.1"), ("b", "1", "0.25"), ("b", "3", "0.2")],
        "apart.csv",
    )
    status, out, err = cli("meta", action, "--from-per-query", apart, *extra)
    assert status == 2 and err.count("\n") == 1
    # the ANOVA fits an unbalanced design; here no degree of freedom is left for it
    want = "no residual degrees" if action == "anova" else "not scored on the same queries"
    assert want in err


def test_constant_scores_give_defined_results(cli, tmp_file):
    rows, _ = _grid(3, 6, constant=True)
    path = _table(tmp_file, rows)
    status, out, _ = cli("meta", "power", "--from-per-query", path, "--samples", "50", "-f", "json")
    assert status == 0
    doc = json.loads(out)["measures"]["AP"]
    assert doc["bootstrap"]["share"] == 0 and doc["tukey"]["share"] == 0
    status, out, err = cli("meta", "anova", "--from-per-query", path, "-f", "json")
    assert status == 0 and "no variance" in err
    assert json.loads(out)["measures"]["AP"]["system"]["f"] is None  # JSON null, not NaN
    status, out, err = cli("meta", "topics", "--from-per-query", path)
    assert status == 2 and err.count("\n") == 1 and "no residual variance" in err


def _repro(orig_b, orig_a, rpd_b, rpd_a, qrels) -> list[str]:
    return f"repro --orig-baseline {orig_b} --orig-advanced {orig_a} --rpd-baseline {rpd_b} --rpd-advanced {rpd_a} --qrels {qrels}".split()  # noqa: E501


def test_repro_table_and_json(cli, sample_paths):
    qrels, a, b = (str(p) for p in sample_paths[:3])
    args = _repro(a, b, a, b, qrels) + ["-m", "AP", "--complete"]
    status, out, err = cli(*args, "-f", "json")
    assert status == 0, err
    doc = json.loads(out)
    assert doc["mode"] == "reproducibility"
    assert doc["document_order"]["ktu"] == {"baseline": 1.0, "advanced": 1.0}
    status, out, err = cli(*args)
    assert status == 0 and "KTU" in out and "ΔRI" in out
    status, out, err = cli(*args, "--rpd-qrels", qrels, "-f", "markdown")
    assert status == 0 and "KTU" not in out and out.startswith("# replicability")
    status, out, err = cli(*args, "--rbo-p", "1")
    assert status == 2 and "--rbo-p" in err and err.count("\n") == 1


def test_repro_with_an_undefined_effect_ratio_says_why(cli, sample_paths):
    qrels, a = str(sample_paths[0]), str(sample_paths[1])
    status, out, err = cli(*_repro(a, a, a, a, qrels), "-m", "AP", "-f", "json")
    assert status == 0
    assert json.loads(out)["per_measure"]["AP"]["er"] is None
    assert "ER undefined" in err


def test_choices_come_from_the_registry():
    from cranfield.cli.main import subcommand_parser

    _, parser = subcommand_parser("meta")
    sub = next(a for a in parser._actions if a.dest == "action")
    power = {a.dest: a for a in sub.choices["power"]._actions}
    assert tuple(power["method"].choices) == tuple(d.name for d in of_command("power"))
    topics = {a.dest: a for a in sub.choices["topics"]._actions}
    assert [f"topics_{c}" for c in topics["design"].choices] == [
        d.name for d in of_command("topics")
    ]
    for d in META_STATISTICS.values():
        assert d.formula and d.citation


@pytest.mark.parametrize(
    "argv, flag",
    [
        (["power", "--samples", "0"], "--samples"),
        (["power", "--alpha", "1"], "--alpha"),
        (["swap", "--trials", "-1"], "--trials"),
        (["swap", "--bin-width", "0"], "--bin-width"),
        (["topics", "--min-diff", "0.1,x"], "--min-diff"),
        (["topics", "--systems", "1"], "--systems"),
    ],
)
def test_numeric_options_are_checked_before_any_file_is_read(cli, tmp_path, argv, flag):
    missing = str(tmp_path / "missing.txt")
    status, out, err = cli("meta", argv[0], missing, missing, missing, "-m", "AP", *argv[1:])
    assert status == 2 and out == "" and err.count("\n") == 1
    assert flag in err and "missing.txt" not in err


def test_anova_of_runs_missing_topics_is_unbalanced(cli, tmp_file):
    rows, m = _grid(3, 6, 4)
    rows = [r for r in rows if (r[0], r[1]) not in {("r0", "q02"), ("r2", "q05")}]
    path = _table(tmp_file, rows)
    status, out, err = cli("meta", "anova", "--from-per-query", path, "-f", "json")
    assert status == 0 and "2 of 18 run-topic scores missing" in err
    m[0, 2] = m[2, 5] = np.nan
    got, want = json.loads(out)["measures"]["AP"], two_way_anova(m)
    for source in want:
        assert got[source] == pytest.approx(want[source], rel=1e-12)
    status, out, err = cli("meta", "anova", "--from-per-query", path, "--complete", "-f", "json")
    assert status == 0 and json.loads(out)["measures"]["AP"]["residual"]["df"] == 10


def test_names_after_one_m_are_measures_for_an_action(cli, sample_paths):
    qrels, *runs = (str(p) for p in sample_paths)
    status, out, err = cli("meta", "anova", qrels, *runs, "-m", "AP", "P@10", "-c", "-f", "json")
    assert status == 0, err
    assert list(json.loads(out)["measures"]) == ["AP", "P@10"]


def test_anova_mixed_model_of_runs_missing_topics(cli, tmp_file):
    rows, m = _grid(3, 6, 5)
    rows = [r for r in rows if (r[0], r[1]) not in {("r1", "q03"), ("r2", "q00")}]
    path = _table(tmp_file, rows)
    status, out, err = cli(
        "meta", "anova", "--from-per-query", path, "--model", "mixed", "-f", "json"
    )
    assert status == 0 and "2 of 18 run-topic scores missing" in err and "REML" in err
    m[1, 3] = m[2, 0] = np.nan
    doc = json.loads(out)
    got, want = doc["measures"]["AP"], mixed_model(m)
    assert doc["model"] == "mixed"
    assert got["system"]["estimates"] == dict(
        zip(["r0", "r1", "r2"], want["system"]["estimates"], strict=True)
    )
    for source in ("topic", "residual", "total"):
        assert got[source] == pytest.approx(want[source], rel=1e-12)
    status, out, _ = cli(
        "meta", "anova", "--from-per-query", path, "--model", "mixed", "-f", "csv", "--digits", "6"
    )
    lines = out.splitlines()
    assert status == 0 and lines[0] == "measure,source,variance,share,icc,df"
    topic = lines[2].split(",")
    assert topic[1] == "topic" and float(topic[4]) == pytest.approx(want["topic"]["icc"], abs=1e-6)


def test_anova_mixed_model_is_not_standardised(cli, tmp_file):
    rows, _ = _grid(3, 4, 6)
    path = _table(tmp_file, rows)
    status, out, err = cli(
        "meta", "anova", "--from-per-query", path, "--model", "mixed", "--standardised"
    )
    assert status == 2 and out == "" and "--model" in err and err.count("\n") == 1
