"""``cranfield ab`` under hostile input: one line and status 2, never a traceback."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats

from .harness import Unchanged, assert_clean_failure, assert_success, run_cli

HEAD = "user,v,queries,clicks,pre,x\n"


def table(n=200, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        v = "ctl" if i % 2 else "new"
        q = int(rng.integers(1, 9))
        rows.append(
            (
                f"u{i}",
                v,
                q,
                int(rng.binomial(q, 0.3)),
                float(rng.normal()),
                float(rng.normal(0.1 * (v == "new"))),
            )
        )
    return rows


def write_csv(path, rows):
    path.write_text(HEAD + "".join(",".join(map(str, r)) + "\n" for r in rows))
    return path


@pytest.fixture
def log(tmp_path):
    return write_csv(tmp_path / "ab.csv", table())


def test_json_matches_scipy_and_output_is_atomic(log, tmp_path):
    target = tmp_path / "out.json"
    with Unchanged(log):
        out = run_cli("ab", log, "--metric", "x", "--variant-column", "v", "--control", "ctl",
                      "--covariate", "pre", "-f", "json", "-o", target)  # fmt: skip
    assert_success(out, quiet=True)
    res = json.loads(target.read_text())
    rows = table()
    a = [r[5] for r in rows if r[1] == "ctl"]
    b = [r[5] for r in rows if r[1] == "new"]
    welch = res["comparisons"][0]["tests"][0]
    assert welch["test"] == "welch"
    assert welch["p_value"] == pytest.approx(
        stats.ttest_ind(b, a, equal_var=False).pvalue, rel=1e-6
    )
    assert [t["test"] for t in res["comparisons"][0]["tests"]] == [
        "welch", "mann-whitney", "bootstrap", "cuped",
    ]  # fmt: skip
    assert res["units"] == {"ctl": 100, "new": 100}
    assert res["sample_ratio"]["p_value"] == pytest.approx(1.0)


@pytest.mark.parametrize("fmt", ["parquet", "jsonl"])
def test_ctr_from_other_formats(tmp_path, fmt):
    import pyarrow as pa

    rows = table()
    t = pa.table({k: [r[i] for r in rows] for i, k in enumerate(HEAD.strip().split(","))})
    if fmt == "parquet":
        import pyarrow.parquet as pq

        path = tmp_path / "ab.parquet"
        pq.write_table(t, path)
    else:
        path = tmp_path / "ab.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in t.to_pylist()))
    out = run_cli("ab", path, "--metric", "ctr", "--variant-column", "v", "-f", "json")
    assert_success(out, quiet=True)
    res = json.loads(out.stdout)
    assert (
        res["metric"] == "clicks/queries" and res["comparisons"][0]["tests"][0]["test"] == "delta"
    )


@pytest.mark.parametrize(
    "body, extra, mention",
    [
        (None, ["--metric", "nope"], "nope"),
        (None, ["--metric", "user"], "not numbers"),
        (None, ["--metric", "x", "--control", "zzz"], "--control"),
        (None, ["--metric", "x", "--confidence", "1.5"], "--confidence"),
        (None, ["--metric", "x", "--replicates", "-1"], "--replicates"),
        (None, ["--metric", "x", "--expected", "0.5"], "--expected"),
        (None, ["--metric", "x", "--mde", "0"], "--mde"),
        (None, ["--metric", "x", "--seed", "x"], "--seed"),
        (None, ["--metric", "ctr", "--covariate", "pre"], "--covariate"),
        (None, ["--metric", "clicks/queries", "--mde", "0.1"], "--mde"),
        (HEAD, ["--metric", "x"], "no data rows after the header"),
        (HEAD + "u1,a,1,1,0,1\nu2,a,1,0,0,2\n", ["--metric", "x"], "one variant"),
        (HEAD + "u1,a,1,1,0,\nu2,b,1,0,0,2\n", ["--metric", "x"], "bad.csv:2: "),
        (HEAD + "u1,a,1,1,0,1\nu2,b,1,0\n", ["--metric", "x"], None),
        ("", ["--metric", "x"], None),
        ("\x00\xff garbage", ["--metric", "x"], None),
        (HEAD + "u1,a,1,1,0,1\nu2,b,1,0,0,2\n", ["--metric", "x"], "at least 2"),
        (
            HEAD + "u1,a,0,0,0,1\nu3,a,0,0,0,1\nu2,b,1,0,0,2\nu4,b,1,0,0,2\n",
            ["--metric", "ctr"],
            "denominator",
        ),
        # ±1e308: squares and sums overflow; one line, no NumPy warnings
        (
            HEAD + "u1,a,1,1,0,1e308\nu3,a,1,1,0,-1e308\nu2,b,1,1,0,1\nu4,b,1,1,0,2\n",
            ["--metric", "x"],
            "1e+150",
        ),
        (
            HEAD + "u1,a,1,1,0,1\nu3,a,1,1,0,2\nu2,b,1,1,0,1e308\nu4,b,1,1,0,2\n",
            ["--metric", "x", "--covariate", "pre"],
            "1e+150",
        ),
    ],
)
def test_clean_failures(tmp_path, log, body, extra, mention):
    path = log if body is None else tmp_path / "bad.csv"
    if body is not None:
        path.write_text(body)
    with Unchanged(path):
        out = run_cli("ab", path, "--variant-column", "v", *extra)
    assert_clean_failure(out, *([mention] if mention else []))


def test_missing_file_and_variant_column(tmp_path, log):
    assert_clean_failure(
        run_cli("ab", tmp_path / "none.csv", "--metric", "x", "--variant-column", "v")
    )
    assert_clean_failure(run_cli("ab", log, "--metric", "x", "--variant-column", "w"), "w")


def test_a_covariate_equal_to_the_metric_is_degenerate_not_an_effect(tmp_path):
    # the case: --covariate = the metric gave a difference of -8.9e-16 with
    # p = 2.5e-145; the adjusted values are constant up to rounding: no test
    rng = np.random.default_rng(3)
    values = rng.normal(10, 2, 500) * 1e6
    rows = "".join(f"u{i},{'ab'[i % 2]},1,1,{v},{v}\n" for i, v in enumerate(values.tolist()))
    path = tmp_path / "same.csv"
    path.write_text(HEAD + rows)
    out = run_cli("ab", path, "--metric", "x", "--variant-column", "v", "--covariate", "pre",
                  "-f", "json", "--replicates", "0")  # fmt: skip
    assert_success(out, quiet=True)
    test = json.loads(out.stdout)["comparisons"][0]["tests"][-1]
    assert test["test"] == "cuped"
    assert test["difference"] == 0.0 and test["ci"] == [0.0, 0.0]
    assert test["p_value"] is None and "no test" in test["note"]
    text = run_cli("ab", path, "--metric", "x", "--variant-column", "v", "--covariate", "pre",
                   "--replicates", "0")  # fmt: skip
    assert_success(text, quiet=True)
    assert "note: b cuped: the covariate predicts the metric exactly" in text.stdout.decode()


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_a_bootstrap_p_value_with_no_extreme_replicate_is_a_bound(tmp_path, fmt):
    # a clear effect: none of the 999 replicates reaches 0; the p-value is the
    # resolution 2/(B+1), shown as "<0.002" and flagged as a bound in JSON, never 0
    rng = np.random.default_rng(0)
    rows = "".join(
        f"u{i},{'ab'[i % 2]},1,1,0,{float(rng.normal(i % 2, 0.1))}\n" for i in range(400)
    )
    path = tmp_path / "clear.csv"
    path.write_text(HEAD + rows)
    out = run_cli("ab", path, "--metric", "x", "--variant-column", "v", "--replicates", "999",
                  "-f", fmt)  # fmt: skip
    assert_success(out, quiet=True)
    if fmt == "json":
        boot = json.loads(out.stdout)["comparisons"][0]["tests"][2]
        assert boot["test"] == "bootstrap"
        assert boot["p_value"] == pytest.approx(2 / 1000) and boot["p_value_is_bound"] is True
        return
    row = next(line for line in out.stdout.decode().splitlines() if "bootstrap" in line)
    assert row.strip(" |").split()[-1] == "<0.002"
