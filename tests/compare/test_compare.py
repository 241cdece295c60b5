"""compare(): alignment of queries, rows against the individual statistics, settings."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cranfield.compare import compare
from cranfield.compare import stats as st
from cranfield.errors import InputError, ParameterError


def nested(rng, runs=("a", "b", "c"), measures=("AP", "P@10"), n=20):
    out = {}
    for m in measures:
        out[m] = {}
        for k, r in enumerate(runs):
            vals = np.clip(rng.random(n) * 0.5 + 0.1 * k, 0, 1)
            out[m][r] = {str(100 + q): float(v) for q, v in enumerate(vals)}
    return out


def test_rows_against_baseline_match_the_statistics():
    rng = np.random.default_rng(0)
    scores = nested(rng)
    res = compare(scores, baseline="a", tests=("t", "wilcoxon", "sign"), correction="holm")
    assert [(r.measure, r.run, r.baseline) for r in res.rows] == [
        ("AP", "b", "a"),
        ("AP", "c", "a"),
        ("P@10", "b", "a"),
        ("P@10", "c", "a"),
    ]
    for measure in ("AP", "P@10"):
        qids = sorted(scores[measure]["a"])
        mat = {r: np.array([scores[measure][r][q] for q in qids]) for r in "abc"}
        rows = [r for r in res.rows if r.measure == measure]
        raw_t = [st.paired_t_test(mat[r.run], mat["a"]).pvalue for r in rows]
        assert np.allclose([r.pvalues["t"] for r in rows], raw_t)
        assert np.allclose(
            [r.pvalues_adjusted["t"] for r in rows], st.adjust_pvalues(raw_t, "holm")
        )
        for r in rows:
            x, y = mat[r.run], mat["a"]
            assert r.mean_run == pytest.approx(x.mean()) and r.mean_baseline == pytest.approx(
                y.mean()
            )
            assert r.diff == pytest.approx(x.mean() - y.mean())
            assert r.rel_diff == pytest.approx((x.mean() - y.mean()) / y.mean())
            assert r.effect_size == pytest.approx(st.cohens_d(x, y))
            assert (r.ci_low, r.ci_high) == pytest.approx(st.mean_difference_ci(x, y))
            assert r.pvalues["wilcoxon"] == pytest.approx(st.wilcoxon_test(x, y).pvalue)
            assert r.pvalues["sign"] == pytest.approx(st.sign_test(x, y).pvalue)
            assert (r.wins, r.ties, r.losses) == (np.sum(x > y), np.sum(x == y), np.sum(x < y))
            assert r.significant == (r.pvalues_adjusted["t"] < 0.05)
            assert r.n_queries == 20


def test_all_pairs_and_tukey():
    rng = np.random.default_rng(1)
    scores = nested(rng, runs=("a", "b", "c", "d"), measures=("AP",))
    res = compare(scores, tests=("tukey", "t"), correction="bonferroni")
    assert len(res.rows) == 6
    mat = np.array([[scores["AP"][r][q] for q in sorted(scores["AP"]["a"])] for r in "abcd"])
    hsd = st.tukey_hsd(mat)
    names = list("abcd")
    for r in res.rows:
        i, j = names.index(r.run), names.index(r.baseline)
        assert i > j  # the earlier run is the reference
        assert r.pvalues["tukey"] == pytest.approx(hsd.pvalue[i, j])
        assert r.pvalues_adjusted["tukey"] == r.pvalues["tukey"]
        assert r.pvalues_adjusted["t"] == pytest.approx(min(1.0, 6 * r.pvalues["t"]))


def test_missing_queries_are_reported_or_zero_filled():
    scores = {"AP": {"a": {"1": 0.5, "2": 0.1, "3": 0.2}, "b": {"1": 0.4, "3": 0.3}}}
    with pytest.raises(InputError, match=r"run 'b' lacks 1 queries \(2\)"):
        compare(scores, baseline="a")
    res = compare(scores, baseline="a", complete=True)
    (row,) = res.rows
    assert row.mean_run == pytest.approx(0.7 / 3)
    assert res.queries["AP"] == ("1", "2", "3")


def test_matrix_input_equals_nested_input_and_query_order_is_irrelevant():
    rng = np.random.default_rng(2)
    scores = nested(rng, measures=("AP",), n=25)
    qids = list(scores["AP"]["a"])
    shuffled = list(rng.permutation(qids))
    mat = np.array([[scores["AP"][r][q] for q in shuffled] for r in "abc"])
    kw = dict(baseline="b", tests=("randomization", "bootstrap"), seed=5, n_permutations=2000)
    one = compare(scores, **kw)
    two = compare({"AP": mat}, runs=["a", "b", "c"], queries=shuffled, **kw)
    assert one.to_rows() == two.to_rows()


def test_randomised_tests_are_reproducible():
    rng = np.random.default_rng(3)
    scores = nested(rng, n=40)
    kw = dict(tests=("randomization", "bootstrap"), seed=7, n_permutations=3000, ci="bootstrap")
    assert compare(scores, **kw).to_rows() == compare(scores, **kw).to_rows()


def test_zero_baseline_mean_and_identical_runs():
    scores = {"AP": {"a": {"1": 0.0, "2": 0.0}, "b": {"1": 0.0, "2": 0.0}}}
    (row,) = compare(scores, baseline="a", tests=("t", "sign")).rows
    assert math.isnan(row.rel_diff) and math.isnan(row.pvalues["t"])
    assert row.pvalues["sign"] == 1.0 and not row.significant
    assert (row.wins, row.ties, row.losses) == (0, 2, 0)


def test_to_pandas_and_beaten():
    rng = np.random.default_rng(4)
    scores = nested(rng, n=30)
    scores["AP"]["c"] = {q: v + 0.5 for q, v in scores["AP"]["a"].items()}
    res = compare(scores, tests=("t",))
    df = res.to_pandas()
    assert list(df.columns[:3]) == ["measure", "run", "baseline"] and len(df) == 6
    assert "p_t_adj" in df.columns
    assert res.beaten("AP", "c") == ["a", "b"]
    assert res.beaten("AP", "a") == []


def test_parameter_errors():
    rng = np.random.default_rng(5)
    scores = nested(rng)
    with pytest.raises(ParameterError, match="baseline"):
        compare(scores, baseline="zzz")
    with pytest.raises(ParameterError, match="tests"):
        compare(scores, tests=("anova",))
    with pytest.raises(ParameterError, match="correction"):
        compare(scores, correction="fdr_by")
    with pytest.raises(ParameterError, match="alpha"):
        compare(scores, alpha=5)
    with pytest.raises(InputError, match="two runs"):
        compare({"AP": {"a": {"1": 0.1}}})
    with pytest.raises(InputError, match="NaN"):
        compare({"AP": {"a": {"1": float("nan")}, "b": {"1": 0.2}}})
    with pytest.raises(InputError, match="runs"):
        compare({"AP": {"a": {"1": 0.1}, "b": {"1": 0.2}}, "P": {"a": {"1": 0.1}, "c": {"1": 0.3}}})
