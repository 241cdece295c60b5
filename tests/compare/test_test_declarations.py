"""The statistical tests as declarations: names, aliases, labels and scopes come from
``STAT_TESTS`` (compare/stats.py), and ``compare`` dispatches through them."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.compare import compare
from cranfield.compare import stats as st
from cranfield.errors import ParameterError

RNG = np.random.default_rng(31)
SCORES = {"AP": RNG.random((3, 12))}
RUNS = ("a", "b", "c")


QUERIES = [f"q{i:02d}" for i in range(12)]  # sorted as strings: the columns' order


def _compare(**kw):
    return compare(SCORES, runs=RUNS, queries=QUERIES, n_permutations=200, **kw)


def test_aliases_in_any_case_give_the_canonical_names():
    cmp = _compare(tests=("T-Test", "FISHER", "hsd", "t"))
    assert cmp.tests == ("t", "randomization", "tukey")


def test_unknown_test_lists_the_declared_names():
    with pytest.raises(
        ParameterError, match="names among t, wilcoxon, sign, randomization, bootstrap, tukey"
    ):
        _compare(tests=("z",))


def test_a_test_refuses_an_alternative_it_does_not_declare():
    with pytest.raises(ParameterError, match="expected 'two-sided' with the tukey test"):
        _compare(tests=("t", "tukey"), alternative="greater")


@pytest.mark.parametrize("name", st.STAT_TESTS.names)
def test_each_declared_test_decides_significance_with_its_label(name):
    cmp = _compare(tests=(name,), baseline="a")
    text = cmp.render("markdown", "summary")
    label = st.STAT_TESTS[name].label
    corrected = st.STAT_TESTS[name].scope == "pair"
    assert f"({label}, Holm correction," in text if corrected else f"({label}, alpha" in text


def test_pair_tests_dispatch_to_their_functions():
    x, y = SCORES["AP"][1], SCORES["AP"][0]
    cmp = _compare(
        tests=("t", "wilcoxon", "sign", "randomization", "bootstrap"),
        baseline="a",
        correction="none",
    )
    row = next(r for r in cmp.rows if r.run == "b")
    assert row.pvalues["t"] == st.paired_t_test(x, y).pvalue
    assert row.pvalues["wilcoxon"] == st.wilcoxon_test(x, y).pvalue
    assert row.pvalues["sign"] == st.sign_test(x, y).pvalue
    assert row.pvalues["randomization"] == st.randomization_test(x, y, 200, 0).pvalue
    assert row.pvalues["bootstrap"] == st.bootstrap_test(x, y, 200, 0).pvalue


def test_a_test_over_all_runs_is_not_corrected_again():
    cmp = _compare(tests=("tukey",), correction="bonferroni")
    p = st.tukey_hsd(SCORES["AP"]).pvalue
    for r in cmp.rows:
        i, j = RUNS.index(r.run), RUNS.index(r.baseline)
        assert r.pvalues["tukey"] == r.pvalues_adjusted["tukey"] == p[i, j]


def test_help_text_lists_the_names_first_as_default():
    from cranfield.compare import tests_text

    assert tests_text() == "t (default), wilcoxon, sign, randomization, bootstrap or tukey"
    assert tests_text(("t", "sign")) == "t (default) or sign"
    assert tests_text(("t",)) == "t (default)"
