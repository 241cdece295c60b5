"""``cranfield agreement`` and ``cranfield aggregate`` under bad input and parameters."""

from __future__ import annotations

import json

import pytest

from .harness import Unchanged, assert_clean_failure, assert_success, run_cli

TABLE = (
    "topic,document,assessor,label\n"
    "1,d1,ann,2\n1,d1,bob,1\n1,d2,ann,0\n1,d2,bob,0\n2,d3,ann,1\n2,d3,bob,1\n2,d3,cy,2\n"
)


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "judgments.csv"
    path.write_text(TABLE)
    return path


def test_agreement_json_is_complete_and_the_input_unchanged(table):
    with Unchanged(table):
        out = run_cli(
            "agreement",
            "--judgments",
            table,
            "--threshold",
            "1",
            "--format",
            "json",
            "--bootstrap",
            "50",
        )
    assert_success(out, quiet=True)
    doc = json.loads(out.stdout)
    assert doc["items"] == 3 and doc["assessors"] == ["ann", "bob", "cy"]
    assert set(doc["graded"]["overall"]["ci"]) >= {"krippendorff_alpha", "fleiss_kappa"}
    assert doc["binary"]["level"] == "nominal"
    assert [(p["a"], p["b"]) for p in doc["graded"]["pairs"]] == [
        ("ann", "bob"),
        ("ann", "cy"),
        ("bob", "cy"),
    ]


def test_two_qrels_files_give_a_confusion_matrix(tmp_path):
    (tmp_path / "a.qrels").write_text("1 0 d1 1\n1 0 d2 0\n")
    (tmp_path / "b.qrels").write_text("1 0 d1 1\n1 0 d2 1\n")
    out = run_cli("agreement", tmp_path / "a.qrels", tmp_path / "b.qrels", "--format", "json")
    assert_success(out, quiet=True)
    conf = json.loads(out.stdout)["graded"]["confusion"]
    assert conf["rows"] == "a" and conf["matrix"] == [[0, 1], [0, 1]]


@pytest.mark.parametrize(
    ("content", "extra", "mentions"),
    [
        (TABLE + "2,d4,ann,5\n", ["--scale", "0,1,2"], ["judgments.csv:9", "not on the scale"]),
        ("", [], ["empty file"]),
        ("topic,document,label\n1,d1,0\n", [], ["no assessor column"]),
        (TABLE + "1,d1,ann,0\n", [], ["judgments.csv:9", "twice"]),
        ("\x00\x01binary", [], ["judgments.csv"]),
        (TABLE, ["--scale", "a,b"], ["--scale"]),
        (TABLE, ["--bootstrap", "-1"], ["--bootstrap"]),
        (TABLE, ["--confidence", "1"], ["--confidence"]),
        (TABLE, ["--threshold", "x"], ["--threshold"]),
    ],
)
def test_agreement_fails_cleanly(tmp_path, content, extra, mentions):
    path = tmp_path / "judgments.csv"
    path.write_text(content)
    out = run_cli("agreement", "--judgments", path, *extra)
    assert_clean_failure(out, *mentions)


def test_agreement_needs_exactly_one_kind_of_input(table, tmp_path):
    assert_clean_failure(run_cli("agreement"), "QRELS")
    (tmp_path / "a.qrels").write_text("1 0 d1 1\n")
    assert_clean_failure(run_cli("agreement", tmp_path / "a.qrels", "--judgments", table))
    assert_clean_failure(run_cli("agreement", "--judgments", tmp_path / "missing.csv"), "missing")


def test_degenerate_tables_give_nan_with_a_reason(tmp_path):
    path = tmp_path / "j.csv"
    path.write_text("topic,document,assessor,label\n1,d1,a,1\n1,d1,b,1\n1,d2,a,1\n")
    out = run_cli("agreement", "--judgments", path, "--format", "json", "--bootstrap", "0")
    assert_success(out, quiet=True)
    doc = json.loads(out.stdout)["graded"]
    assert doc["overall"]["krippendorff_alpha"] is None  # undefined -> null
    assert doc["overall"]["percent_agreement"] == 1.0
    # the scale read from the labels has one label: AC1 is undefined (null) and the note
    # says so (it used to say "AC1 is 1")
    assert doc["overall"]["gwet_ac1"] is None
    assert any("one label" in n and "AC1" in n and "undefined" in n for n in doc["notes"])
    assert not any("AC1 is 1" in n for n in doc["notes"])
    # on a two-label scale the same judgments have AC1 = 1, as the note says
    out = run_cli("agreement", "--judgments", path, "--scale", "0,1", "--format", "json",
                  "--bootstrap", "0")  # fmt: skip
    assert_success(out, quiet=True)
    doc = json.loads(out.stdout)["graded"]
    assert doc["overall"]["gwet_ac1"] == 1.0
    assert any("same label" in n and "AC1 is 1" in n for n in doc["notes"])
    path.write_text("topic,document,assessor,label\n1,d1,a,1\n1,d2,a,0\n")
    out = run_cli("agreement", "--judgments", path, "--format", "json", "--bootstrap", "0")
    assert_success(out, quiet=True)
    assert any("two assessors" in n for n in json.loads(out.stdout)["graded"]["notes"])


@pytest.mark.parametrize("method", ["majority", "mean", "median", "dawid-skene", "mace"])
def test_aggregate_writes_qrels_and_posteriors(table, tmp_path, method):
    out_path, post = tmp_path / "agg.qrels", tmp_path / "post.tsv"
    with Unchanged(table):
        out = run_cli(
            "aggregate",
            "--judgments",
            table,
            "--method",
            method,
            "--ties",
            "higher",
            "-o",
            out_path,
            "--posteriors",
            post,
        )
    assert_success(out, quiet=True)
    lines = out_path.read_text().splitlines()
    assert [ln.split()[:3] for ln in lines] == [
        ["1", "0", "d1"],
        ["1", "0", "d2"],
        ["2", "0", "d3"],
    ]
    assert lines[1].split()[3] == "0"
    rows = post.read_text().splitlines()
    assert rows[0].split("\t") == ["topic", "document", "label", "votes", "p_0", "p_1", "p_2"]
    assert rows[3].split("\t")[3] == "3"


def test_aggregate_abstains_on_ties_and_refuses_bad_parameters(table, tmp_path):
    out = run_cli("aggregate", "--judgments", table, "--ties", "abstain")
    assert_success(out, quiet=True)
    assert [ln.split()[2] for ln in out.stdout.decode().splitlines()] == ["d2", "d3"]
    assert_clean_failure(
        run_cli(
            "aggregate", "--judgments", table, "--method", "dawid-skene", "--max-iterations", "0"
        ),
        "--max-iterations",
    )
    assert_clean_failure(run_cli("aggregate", "--judgments", table, "-o", table), "judgments.csv")
    assert_clean_failure(
        run_cli("aggregate", "--judgments", table, "-o", tmp_path / "no" / "x.qrels"),
        "no such directory",
    )
    nominal = run_cli("aggregate", "--judgments", table, "--method", "mean", "--level", "nominal")
    assert_clean_failure(nominal, "method")


def test_aggregate_to_a_closed_stdout_fails_cleanly(table):
    out = run_cli("aggregate", "--judgments", table, close_stdout=True)
    assert_clean_failure(out, "standard output")


def test_assessors_lists_everyone_with_reasons(table, tmp_path):
    gold = tmp_path / "gold.qrels"
    gold.write_text("1 0 d1 2\n1 0 d2 0\n")
    with Unchanged(table, gold):
        out = run_cli("assessors", "--judgments", table, "--gold", gold, "--format", "json")
    assert_success(out, quiet=True)
    rows = json.loads(out.stdout)["assessors"]
    assert sorted(r["assessor"] for r in rows) == ["ann", "bob", "cy"]
    ann = next(r for r in rows if r["assessor"] == "ann")
    assert ann["gold_pairs"] == 2 and ann["gold_accuracy"] == 1.0
    text = run_cli("assessors", "--judgments", table)
    assert_success(text, quiet=True)
    assert text.stdout.decode().splitlines()[1].startswith("assessor\tjudgments")
    assert_clean_failure(
        run_cli("assessors", "--judgments", table, "--min-kappa", "2"), "--min-kappa"
    )
    assert_clean_failure(
        run_cli("assessors", "--judgments", table, "--gold", tmp_path / "nope.qrels"), "nope.qrels"
    )


def test_aggregate_with_gold_keeps_the_gold_labels(table, tmp_path):
    gold = tmp_path / "gold.qrels"
    gold.write_text("1 0 d1 0\n")
    out = run_cli("aggregate", "--judgments", table, "--method", "dawid-skene", "--gold", gold)
    assert_success(out, quiet=True)
    assert out.stdout.decode().splitlines()[0].split() == ["1", "0", "d1", "0"]
    gold.write_text("1 0 d1 9\n")
    bad = run_cli("aggregate", "--judgments", table, "--gold", gold)
    assert_clean_failure(bad, "gold.qrels", "not on the scale")
    assert_clean_failure(run_cli("aggregate", "--judgments", table, "--gold", gold, "-o", gold))


def test_agreement_with_runs_compares_system_rankings(tmp_path):
    (tmp_path / "a.qrels").write_text("1 0 d1 1\n1 0 d2 0\n1 0 d3 1\n")
    (tmp_path / "b.qrels").write_text("1 0 d1 1\n1 0 d2 1\n1 0 d3 0\n")
    runs = []
    for name, order in (("r1", "d1 d2 d3"), ("r2", "d2 d3 d1"), ("r3", "d3 d1 d2")):
        path = tmp_path / f"{name}.run"
        path.write_text(
            "".join(f"1 Q0 {d} {i + 1} {3 - i} {name}\n" for i, d in enumerate(order.split()))
        )
        runs += ["--run", path]
    out = run_cli(
        "agreement",
        tmp_path / "a.qrels",
        tmp_path / "b.qrels",
        *runs,
        "--format",
        "json",
        "--bootstrap",
        "0",
    )
    assert_success(out, quiet=True)
    eff = json.loads(out.stdout)["effect"]
    # AP under a (d1, d3 relevant): r1 ranks them 1st and 3rd; under b (d1, d2): r1 has
    # them on top, r2 ranks them 1st and 3rd
    assert eff["measure"] == "AP" and eff["runs"] == ["r1", "r2", "r3"]
    assert eff["scores"]["a"]["r1"] == pytest.approx((1 + 2 / 3) / 2)
    assert eff["scores"]["b"]["r1"] == pytest.approx(1.0)
    assert eff["scores"]["b"]["r2"] == pytest.approx((1 + 2 / 3) / 2)
    assert len(eff["pairs"]) == 1 and eff["pairs"][0]["largest_change"] > 0
    bad = run_cli(
        "agreement", tmp_path / "a.qrels", tmp_path / "b.qrels", "--run", tmp_path / "missing.run"
    )
    assert_clean_failure(bad, "missing.run")
    bad = run_cli(
        "agreement", tmp_path / "a.qrels", tmp_path / "b.qrels", *runs, "--measure", "nosuch"
    )
    assert_clean_failure(bad, "nosuch")


@pytest.mark.parametrize("command", ["agreement", "aggregate", "assessors"])
def test_closed_streams(table, command):
    assert_clean_failure(
        run_cli(command, "--judgments", table, close_stdout=True), "standard output"
    )
    normal = run_cli(command, "--judgments", table)
    assert_success(normal, quiet=True)
    for stream in ("close_stdin", "close_stderr"):
        out = run_cli(command, "--judgments", table, **{stream: True})
        assert_success(out)
        assert out.stdout == normal.stdout


def test_agreement_tables_come_from_the_one_table_renderer(table, capsys):
    from cranfield.output import markdown_table, text_table

    from .harness import run_main

    status, out, _ = run_main(capsys, "agreement", "--judgments", table, "--bootstrap", "0")
    assert status == 0
    lines = out.splitlines()
    at = lines.index(next(x for x in lines if x.startswith("statistic")))
    head = ["statistic", "value"]
    body = [x.split() for x in lines[at + 1 : at + 6]]
    assert "\n".join(lines[at : at + 6]) == text_table(head, body)  # aligned, no tabs
    status, md, _ = run_main(
        capsys, "agreement", "--judgments", table, "--bootstrap", "0", "--format", "markdown"
    )
    assert status == 0
    mlines = md.splitlines()
    at = mlines.index("| statistic | value |")
    assert mlines[at + 1] == "|---|---:|"  # numbers right-aligned, as every markdown table
    rows = [[c.strip() for c in x.strip("|").split("|")] for x in mlines[at + 2 : at + 7]]
    assert "\n".join(mlines[at : at + 7]) == markdown_table(head, rows)


@pytest.mark.parametrize("method", ["dawid-skene", "mace"])
def test_aggregate_tolerance_zero_runs_exactly_the_iterations(table, method):
    # --tolerance 0 means "no convergence test": exactly --max-iterations, and no note
    # about stopping at the cap
    out = run_cli("aggregate", "--judgments", table, "--method", method,
                  "--tolerance", "0", "--max-iterations", "5")  # fmt: skip
    assert_success(out, quiet=True)  # quiet: no note about the cap on stderr
    assert len(out.stdout.decode().splitlines()) == 3
    bad_options = [("--tolerance", "-1")]
    if method == "mace":
        bad_options += [("--restarts", "0"), ("--mace-fit", "gibbs")]
    for option, value in bad_options:
        bad = run_cli("aggregate", "--judgments", table, "--method", method, option, value)
        assert_clean_failure(bad, option)


def test_numbers_in_messages_are_written_as_numbers_not_numpy_reprs(tmp_path):
    path = tmp_path / "j.csv"
    path.write_text("topic,doc,assessor,label,seconds\n1,d1,ann,1,-5.5\n1,d1,bob,0,3\n")
    err = assert_clean_failure(run_cli("agreement", "--judgments", path), "j.csv:2")
    assert "-5.5 seconds" in err and "np." not in err


def test_parameter_errors_show_numpy_values_as_python_values():
    import numpy as np

    from cranfield.errors import ParameterError, number_shown

    assert str(ParameterError("x", "a number", np.float64(-5.0))).endswith("got -5.0")
    assert number_shown(np.float64(99999999999.0)) == "99999999999"
    assert number_shown(np.int64(3)) == "3"


def test_agreement_statistic_shows_only_the_chosen_columns(table):
    out = run_cli(
        "agreement",
        "--judgments",
        table,
        "--bootstrap",
        "0",
        "--statistic",
        "gwet_ac1",
        "--statistic",
        "scott_pi,KRIPPENDORFF_ALPHA",
    )
    assert_success(out)
    text = out.stdout.decode()
    assert "gwet_ac1" in text and "krippendorff_alpha" in text
    assert "scott_pi" in text and "fleiss_kappa" not in text
    assert "cohen_kappa" not in text
    bad = run_cli("agreement", "--judgments", table, "--statistic", "kappa")
    assert_clean_failure(bad, "--statistic", "kappa")
