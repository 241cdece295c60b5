"""Several baselines in one comparison: every run against each baseline, one correction
over all compared pairs of a measure, the summary letters naming the baselines beaten.

The oracle is independent of cranfield: SciPy's paired t-test for the raw p-values and
statsmodels' ``multipletests`` for Holm's correction over the union of the pairs."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests

from cranfield.cli.main import main
from cranfield.compare import compare
from cranfield.errors import ParameterError

RUNS = ("bm25", "dense", "hybrid", "rerank")


def scores(seed: int, n: int = 25) -> dict:
    rng = np.random.default_rng(seed)
    out = {}
    for m in ("AP", "nDCG@10"):
        base = rng.random(n)
        out[m] = {
            r: {f"q{q}": float(np.clip(base[q] + 0.08 * k * rng.random(), 0, 1)) for q in range(n)}
            for k, r in enumerate(RUNS)
        }
    return out


@pytest.mark.parametrize("seed", range(8))
def test_every_run_against_each_baseline_with_one_correction(seed):
    s = scores(seed)
    res = compare(s, baseline=["bm25", "dense"], tests=("t",), correction="holm")
    # bm25's pairs first, then dense's; the bm25-dense pair once, bm25 its reference
    pairs = [("dense", "bm25"), ("hybrid", "bm25"), ("rerank", "bm25")]
    pairs += [("hybrid", "dense"), ("rerank", "dense")]
    assert [(r.run, r.baseline) for r in res.rows if r.measure == "AP"] == pairs
    assert res.baselines == ("bm25", "dense") and res.baseline == "bm25"
    for m in s:
        qids = sorted(s[m]["bm25"])
        rows = [r for r in res.rows if r.measure == m]
        raw = [
            sps.ttest_rel(
                [s[m][r.run][q] for q in qids], [s[m][r.baseline][q] for q in qids]
            ).pvalue
            for r in rows
        ]
        np.testing.assert_allclose([r.pvalues["t"] for r in rows], raw, rtol=1e-10)
        holm = multipletests(raw, method="holm")[1]
        np.testing.assert_allclose([r.pvalues_adjusted["t"] for r in rows], holm, rtol=1e-10)


def test_one_baseline_in_a_list_is_the_single_baseline():
    s = scores(3)
    one, listed = compare(s, baseline="dense"), compare(s, baseline=["dense"])
    assert one.rows == listed.rows and one.baselines == listed.baselines == ("dense",)
    assert compare(s).baselines == () and compare(s).baseline is None


def test_summary_letters_name_each_baseline_a_run_beats():
    n = 30
    low = {f"q{q}": 0.1 + 0.001 * q for q in range(n)}
    mid = {q: v + 0.3 for q, v in low.items()}
    high = {q: v + 0.6 for q, v in low.items()}
    s = {"AP": {"bm25": low, "dense": mid, "hybrid": high}}
    res = compare(s, baseline=["bm25", "dense"])
    assert res.beaten("AP", "hybrid") == ["bm25", "dense"]
    assert res.beaten("AP", "dense") == ["bm25"]
    summary = res.render("text", "summary").splitlines()
    hybrid = next(line for line in summary if " hybrid " in line)
    assert hybrid.rstrip().endswith("^ab")


@pytest.mark.parametrize(
    "baseline, message",
    [(["bm25", "nope"], "nope"), (["bm25", "bm25"], "each run once")],
)
def test_bad_baselines_are_refused(baseline, message):
    with pytest.raises(ParameterError, match=message):
        compare(scores(1), baseline=baseline)


def test_cli_repeats_baseline_by_name_or_path(tmp_path, capsys):
    qrels = tmp_path / "qrels"
    lines, runs = [], {}
    rng = np.random.default_rng(7)
    for q in range(12):
        lines += [f"{q} 0 d{d} {int(rng.random() < 0.4)}" for d in range(8)]
    qrels.write_text("\n".join(lines) + "\n")
    for name in ("bm25", "dense", "hybrid"):
        path = tmp_path / f"{name}.run"
        path.write_text(
            "".join(
                f"{q} Q0 d{d} {r} {20 - r + rng.random():.4f} {name}\n"
                for q in range(12)
                for r, d in enumerate(rng.permutation(8))
            )
        )
        runs[name] = str(path)
    argv = ["compare", str(qrels), *runs.values(), "-m", "AP", "-f", "json"]
    assert main([*argv, "--baseline", "bm25", "--baseline", runs["dense"]]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["baselines"] == ["bm25", "dense"]
    assert [(r["run"], r["baseline"]) for r in doc["rows"]] == [
        ("dense", "bm25"),
        ("hybrid", "bm25"),
        ("hybrid", "dense"),
    ]
    assert main([*argv, "--baseline", "bm25", "--baseline", "bm25"]) == 2
    assert "each run once" in capsys.readouterr().err
