"""Options of `compare` and `correlate`: numbers validated with the one parameter-error
template before any work, --baseline by name or run file checked before evaluation,
valid JSON and the undefined-value policy."""

from __future__ import annotations

import json
import math

import pytest

from adversarial.harness import run_main as _run
from cranfield import sample
from cranfield.output import dumps_json, json_safe


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("opts")
    paths = sample.write(d)
    pq = d / "pq.csv"
    rows = ["run,query,AP"]
    rows += [f"a,{q},{0.1 * (q % 5)}" for q in range(1, 13)]
    rows += [f"b,{q},{0.1 * (q % 5) + 0.05 * (q % 3)}" for q in range(1, 13)]
    pq.write_text("\n".join(rows) + "\n")
    return d, [str(p) for p in paths], pq


@pytest.mark.parametrize(
    ("option", "value", "allowed"),
    [
        ("--permutations", "1e20", "an integer in [1, 10000000]"),
        ("--permutations", "0", "an integer in [1, 10000000]"),
        ("--permutations", "-5", "an integer in [1, 10000000]"),
        ("--permutations", "2.5", "an integer in [1, 10000000]"),
        ("--permutations", "lots", "an integer in [1, 10000000]"),
        ("--seed", "-1", "an integer in [0, 2^63-1]"),
        ("--seed", "inf", "an integer in [0, 2^63-1]"),
        ("--alpha", "0", "a number in (0, 1)"),
        ("--alpha", "nan", "a number in (0, 1)"),
        ("--confidence", "1", "a number in (0, 1)"),
        ("--confidence", "95", "a number in (0, 1)"),
    ],
)
def test_compare_numeric_options(capsys, files, monkeypatch, option, value, allowed):
    _, _, pq = files
    import cranfield.compare.per_query as per_query

    def no_reading(*_a, **_k):
        raise AssertionError("files read before the options were checked")

    monkeypatch.setattr(per_query, "read_table", no_reading)
    status, out, err = _run(capsys, "compare", "--from-per-query", pq, option, value)
    assert status == 2 and out == ""
    assert err == (
        f"cranfield compare: error: invalid value for {option}: expected {allowed}"
        + err.split(allowed, 1)[1]
    )
    assert err.endswith(f"got '{value}'\n") and err.count("\n") == 1


def test_permutations_within_range_accepts_scientific_notation(capsys, files):
    _, _, pq = files
    status, out, _ = _run(
        capsys, "compare", "--from-per-query", pq, "--test", "randomization",
        "--permutations", "1e3", "--format", "json",
    )  # fmt: skip
    assert status == 0
    assert json.loads(out)["settings"]["n_permutations"] == 1000


@pytest.mark.parametrize(
    ("option", "value", "allowed"),
    [
        ("--depth", "0", "an integer in [1, 1000000000]"),
        ("--depth", "1e20", "an integer in [1, 1000000000]"),
        ("--digits", "-1", "an integer in [0, 17]"),
        ("--digits", "99", "an integer in [0, 17]"),
        ("--rbo-p", "1", "a number in (0, 1)"),
        ("-p", "0", "a number in (0, 1)"),
        ("--confidence", "-0.1", "a number in (0, 1)"),
    ],
)
def test_correlate_numeric_options(capsys, files, option, value, allowed):
    d, paths, _ = files
    status, out, err = _run(capsys, "correlate", paths[1], paths[2], option, value)
    assert status == 2 and out == ""
    name = "--rbo-p" if option == "-p" else option
    assert (
        err
        == f"cranfield correlate: error: invalid value for {name}: expected {allowed}, got '{value}'\n"
    )


def test_correlate_digits(capsys, files):
    _, _, pq = files
    status, out, _ = _run(capsys, "correlate", pq, "--digits", "2")
    assert status == 0 and "kendall_tau\t1.00\t" in out


def test_baseline_unknown_fails_before_evaluation(capsys, files, monkeypatch):
    _, paths, _ = files
    import cranfield.core.evaluation as evaluation

    def no_evaluation(*_a, **_k):
        raise AssertionError("evaluation started before --baseline was checked")

    monkeypatch.setattr(evaluation, "evaluate", no_evaluation)
    status, out, err = _run(
        capsys, "compare", paths[0], paths[1], paths[3], "-m", "AP", "--baseline", "nope"
    )
    assert status == 2 and out == ""
    assert err == (
        "cranfield compare: error: invalid value for --baseline: expected a run name "
        "(bm25, hybrid) or one of the run files, got 'nope'\n"
    )


@pytest.mark.parametrize("how", ["name", "path", "relative path"])
def test_baseline_by_name_or_run_file(capsys, files, monkeypatch, how):
    d, paths, _ = files
    monkeypatch.chdir(d)
    baseline = {"name": "hybrid", "path": paths[3], "relative path": "./hybrid.txt"}[how]
    status, out, err = _run(
        capsys, "compare", paths[0], paths[1], paths[3], "-m", "AP", "--baseline", baseline,
        "--format", "json",
    )  # fmt: skip
    assert status == 0, err
    doc = json.loads(out)
    assert doc["settings"]["baseline"] == "hybrid"
    assert [(r["run"], r["baseline"]) for r in doc["rows"]] == [("bm25", "hybrid")]


def test_json_is_valid_with_undefined_values(capsys, tmp_path):
    pq = tmp_path / "same.csv"
    pq.write_text("run,query,AP\na,1,0.5\na,2,0.3\nb,1,0.5\nb,2,0.3\n")  # identical runs
    status, out, err = _run(capsys, "compare", "--from-per-query", pq, "--format", "json")
    assert status == 0 and err == ""

    def refuse(token):
        raise AssertionError(f"invalid JSON token {token}")

    doc = json.loads(out, parse_constant=refuse)
    row = doc["rows"][0]
    assert row["p_t"] is None and row["effect_size"] is None  # t and d undefined: null
    status, out, _ = _run(capsys, "compare", "--from-per-query", pq)
    assert " nan " in out  # the text token for undefined values


def test_json_safe_and_dumps_json():
    doc = {"a": [1.0, math.nan, (math.inf, -math.inf)], "b": {"c": math.nan}, "d": "nan"}
    assert json_safe(doc) == {"a": [1.0, None, [None, None]], "b": {"c": None}, "d": "nan"}
    assert math.isnan(doc["b"]["c"])  # the caller's object is left alone
    assert json.loads(dumps_json(doc)) == json_safe(doc)
    import numpy as np

    assert dumps_json({"x": np.float64("nan"), "y": np.int64(3)}, indent=None) == (
        '{"x": null, "y": 3}'
    )


def test_eval_json_writes_null_for_undefined():
    from cranfield import output

    class Results:  # the one method render("json") uses
        def to_json(self, per_query):
            return {"runs": [{"name": "a", "aggregate": {"AP": math.nan}}]}

    text = output.render(Results(), "json")
    assert "NaN" not in text
    assert json.loads(text) == {"runs": [{"name": "a", "aggregate": {"AP": None}}]}
