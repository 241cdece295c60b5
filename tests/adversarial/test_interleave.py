"""``cranfield interleave`` under hostile input: one line and status 2, never a traceback."""

from __future__ import annotations

import json

import pytest

from .harness import Unchanged, assert_clean_failure, assert_success, run_cli


@pytest.fixture
def files(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(
        "".join(f"q{q} 0 d{q}_{i} {int(i < 3) + int(i < 1)}\n" for q in range(3) for i in range(8))
    )
    good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
    good.write_text(
        "".join(f"q{q} Q0 d{q}_{i} {i + 1} {20 - i} good\n" for q in range(3) for i in range(8))
    )
    bad.write_text(
        "".join(f"q{q} Q0 d{q}_{7 - i} {i + 1} {20 - i} bad\n" for q in range(3) for i in range(8))
    )
    return tmp_path, qrels, good, bad


def test_json_output_atomic_and_inputs_unchanged(files):
    tmp, qrels, good, bad = files
    target = tmp / "out.json"
    with Unchanged(qrels, good, bad):
        out = run_cli("interleave", good, bad, "--qrels", qrels, "--impressions", "200",
                      "-f", "json", "-o", target)  # fmt: skip
    assert_success(out, quiet=True)
    res = json.loads(target.read_text())
    (pair,) = res["pairs"]
    assert pair["overall"]["wins_a"] > pair["overall"]["wins_b"]
    assert pair["agreement"]["agree"] == pair["agreement"]["decided"] == 3
    assert len(pair["per_query"]) == 3


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_text_and_markdown(files, fmt):
    _, qrels, good, bad = files
    out = run_cli("interleave", good, bad, "--qrels", qrels, "--impressions", "50",
                  "--method", "balanced", "-f", fmt)  # fmt: skip
    assert_success(out, quiet=True)
    text = out.stdout.decode()
    assert text.startswith("balanced interleaving, click model pbm, 50 impressions per query")
    assert ("| good | bad |" in text) == (fmt == "markdown")


@pytest.mark.parametrize(
    ("extra", "mention"),
    [
        (["--impressions", "0"], "--impressions"),
        (["--impressions", "1e9"], "--impressions"),
        (["--depth", "x"], "--depth"),
        (["--power", "1"], "--power"),
        (["--alpha", "0"], "--alpha"),
        (["--seed", "-1"], "--seed"),
        (["--position-bias", "nan"], "--position-bias"),
        (["--click-model", "pbm", "--click-model-file", "m.json"], "--click-model-file"),
    ],
)
def test_bad_parameters(files, extra, mention):
    tmp, qrels, good, bad = files
    out = run_cli("interleave", good, bad, "--qrels", qrels, *extra, cwd=tmp)
    assert_clean_failure(out, mention)


def test_more_runs_need_team_draft_and_two_runs_needed(files):
    _, qrels, good, bad = files
    out = run_cli("interleave", good, bad, good, "--qrels", qrels, "--method", "probabilistic")
    assert_clean_failure(out, "team-draft")
    out = run_cli("interleave", good, "--qrels", qrels)
    assert_clean_failure(out, "two runs")


def test_multileaving_three_runs(files):
    tmp, qrels, good, bad = files
    third = tmp / "third.txt"
    third.write_text(good.read_text().replace(" good\n", " third\n"))
    out = run_cli("interleave", good, bad, third, "--qrels", qrels, "--impressions", "30",
                  "-f", "json")  # fmt: skip
    assert_success(out, quiet=True)
    res = json.loads(out.stdout)
    assert res["method"] == "team-draft multileaving" and len(res["pairs"]) == 3


@pytest.mark.parametrize(
    "content",
    [b"", b"\xff\xfe garbage\n", b"q1 Q0 d1 1\n", b"q0 Q0 d0_0 1 nan x\n"],
)
def test_bad_run_file(files, content):
    tmp, qrels, good, _ = files
    bad = tmp / "broken.txt"
    bad.write_bytes(content)
    out = run_cli("interleave", good, bad, "--qrels", qrels)
    assert_clean_failure(out)


def test_missing_files_and_no_common_query(files):
    tmp, qrels, good, bad = files
    assert_clean_failure(run_cli("interleave", good, tmp / "nope.txt", "--qrels", qrels))
    assert_clean_failure(run_cli("interleave", good, bad, "--qrels", tmp / "nope"))
    other = tmp / "other.qrels"
    other.write_text("zz 0 d 1\n")
    assert_clean_failure(run_cli("interleave", good, bad, "--qrels", other), "no query")


@pytest.mark.parametrize(
    "content", [b"{", b"[]", b'{"format": "cranfield-click-model", "version": 1}', b"\xff"]
)
def test_bad_click_model_file(files, content):
    tmp, qrels, good, bad = files
    model = tmp / "m.json"
    model.write_bytes(content)
    out = run_cli("interleave", good, bad, "--qrels", qrels, "--click-model-file", model)
    assert_clean_failure(out, "m.json")


def test_fitted_click_model_file(files):
    tmp, qrels, good, bad = files
    log = tmp / "log.jsonl"
    log.write_text(
        "".join(
            json.dumps(
                {
                    "query": f"q{q}",
                    "docs": [f"d{q}_{i}" for i in range(5)],
                    "clicked": [1] if s % 2 else [],
                }
            )
            + "\n"
            for q in range(3)
            for s in range(10)
        )  # fmt: skip
    )
    model = tmp / "m.json"
    assert_success(run_cli("clicks", "fit", log, "--model", "dbn", "-o", model))
    out = run_cli("interleave", good, bad, "--qrels", qrels, "--click-model-file", model,
                  "--impressions", "40", "-f", "json")  # fmt: skip
    assert_success(out, quiet=True)
    assert json.loads(out.stdout)["click_model"] == "dbn"


def test_closed_streams_and_same_seed_same_report(files):
    _, qrels, good, bad = files
    argv = ("interleave", good, bad, "--qrels", qrels, "--impressions", "30", "--seed", "5")
    out = run_cli(*argv, close_stdout=True)
    assert_clean_failure(out, "cranfield interleave", "standard output is closed")
    one, two = run_cli(*argv), run_cli(*argv, close_stderr=True)
    assert_success(one, quiet=True)
    assert_success(two)
    assert one.stdout == two.stdout
    other = run_cli(*argv[:-1], "6")
    assert_success(other, quiet=True)
    assert other.stdout != one.stdout


def test_output_that_is_an_input_is_refused(files):
    _, qrels, good, bad = files
    with Unchanged(qrels, good, bad):
        out = run_cli("interleave", good, bad, "--qrels", qrels, "-o", bad)
    assert_clean_failure(out, "bad.txt")


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_an_underflowed_p_value_is_not_printed_as_zero(files, fmt):
    # 5,000 impressions per query, every decision for the good run: the sign test's p is
    # below the smallest double, shown as the underflow bound, never "0"
    _, qrels, good, bad = files
    out = run_cli("interleave", good, bad, "--qrels", qrels, "--impressions", "5000",
                  "-f", fmt)  # fmt: skip
    assert_success(out, quiet=True)
    text = out.stdout.decode()
    rows = [
        line for line in text.splitlines() if line.replace("|", " ").split()[:2] == ["good", "bad"]
    ]
    cells = rows[0].replace("|", " ").split()  # aligned text or Markdown: no empty cells here
    assert cells[5] == "<1e-300"
