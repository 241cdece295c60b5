"""Discriminative power, swap rates, topic-set size and two-way ANOVA against references:
statsmodels (ANOVA, power), G*Power's published paired-t sample sizes, exact enumeration of the
bootstrap and of the randomised Tukey HSD on tiny cases, and plain loops over the same
draws.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from cranfield.compare.stats import bootstrap_test
from cranfield.meta import (
    bootstrap_asl,
    randomised_tukey_asl,
    residual_variance,
    standardise,
    swap_rates,
    topics_anova,
    topics_ci,
    topics_paired_t,
    two_way_anova,
)
from cranfield.meta.power import pairs


@pytest.mark.parametrize("case", range(30))
def test_bootstrap_asl_is_compare_bootstrap_over_the_same_draws(case):
    rng = np.random.default_rng(case)
    k, n = int(rng.integers(2, 6)), int(rng.integers(2, 25))
    m = rng.random((k, n)) if case % 3 else rng.integers(0, 4, (k, n)) / 3
    if case % 7 == 0:
        m[1] = m[0]  # an identical pair
    if case % 5 == 0:
        m[-1] = m[0] + 0.125  # a constant difference
    seed, b = int(rng.integers(0, 100)), int(rng.choice([1, 7, 1024, 1500]))
    got = bootstrap_asl(m, b, seed)
    i, j = pairs(k)
    want = [
        (bootstrap_test(m[x], m[y], b, seed).pvalue * (b + 1) - 1) / b
        for x, y in zip(i, j, strict=True)
    ]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)


def test_bootstrap_asl_converges_to_the_exact_enumeration():
    # all n^n resamples of 4 topics, each equally likely: the exact ASL of Sakai 2006
    m = np.array([[0.1, 0.5, 0.3, 0.9], [0.2, 0.1, 0.35, 0.4]])
    z = m[0] - m[1]
    t = z.mean() / (z.std(ddof=1) / 2)
    w = z - z.mean()
    hits = 0
    for idx in itertools.product(range(4), repeat=4):
        s = w[list(idx)]
        sd = s.std(ddof=1)
        tb = (
            math.inf
            if sd == 0 and abs(s.mean()) > 1e-15
            else (0 if sd == 0 else s.mean() / (sd / 2))
        )
        hits += abs(tb) >= abs(t) - 1e-12
    exact = hits / 4**4
    got = bootstrap_asl(m, 40000, 1)[0]
    assert abs(got - exact) < 4 * math.sqrt(exact * (1 - exact) / 40000)


def test_randomised_tukey_converges_to_the_exact_enumeration():
    m = np.array([[0.9, 0.2, 0.5], [0.1, 0.4, 0.3], [0.5, 0.6, 0.0]])
    means = m.mean(axis=1)
    ranges = []
    for perms in itertools.product(itertools.permutations(range(3)), repeat=3):
        shuffled = np.stack([m[list(p), t] for t, p in enumerate(perms)], axis=1)
        mu = shuffled.mean(axis=1)
        ranges.append(mu.max() - mu.min())
    ranges = np.array(ranges)
    i, j = pairs(3)
    exact = [(ranges >= abs(means[x] - means[y]) - 1e-12).mean() for x, y in zip(i, j, strict=True)]
    got = randomised_tukey_asl(m, 30000, 2)
    for g, e in zip(got, exact, strict=True):
        assert abs(g - e) < 4 * math.sqrt(e * (1 - e) / 30000) + 1e-12


def test_randomised_tukey_on_a_plain_loop_over_the_same_draws():
    rng = np.random.default_rng(3)
    m = rng.random((5, 8))
    b = 300
    draws = np.random.default_rng(9).random((b, 8, 5))
    means = m.mean(axis=1)
    ranges = []
    for row in draws:  # the reference: one trial at a time
        mu = np.zeros(5)
        for t in range(8):
            mu += m[np.argsort(row[t]), t] / 8
        ranges.append(mu.max() - mu.min())
    ranges = np.array(ranges)
    i, j = pairs(5)
    want = [np.mean(ranges >= abs(means[x] - means[y]) - 1e-12) for x, y in zip(i, j, strict=True)]
    np.testing.assert_allclose(randomised_tukey_asl(m, b, 9), want, atol=1e-12)


def test_power_of_identical_and_constant_runs_is_defined():
    m = np.full((3, 10), 0.5)
    assert np.all(bootstrap_asl(m, 100) == 1.0)
    assert np.all(randomised_tukey_asl(m, 100) == 1.0)
    m[2] += 0.1  # a constant difference: significant, no NaN
    asl = bootstrap_asl(m, 100)
    assert np.all(np.isfinite(asl)) and asl[1] == 0.0 and asl[0] == 1.0


def test_swap_rates_on_a_plain_loop_over_the_same_draws():
    rng = np.random.default_rng(4)
    m = rng.random((4, 12))
    result = swap_rates(m, [3, 6], trials=40, bin_width=0.05, fuzziness=0.1, seed=5)
    draws = np.random.default_rng(5)
    for c, got in zip([3, 6], result, strict=True):
        order = np.argsort(draws.random((40, 12)), axis=1)
        cases, swaps, eq = {}, {}, 0
        err_num = err_den = 0
        for x, y in itertools.combinations(range(4), 2):
            ahead = behind = tied = 0
            for row in order:
                a, b = row[:c], row[c : 2 * c]
                da = m[x, a].mean() - m[y, a].mean()
                db = m[x, b].mean() - m[y, b].mean()
                k = int(abs(da) // 0.05)
                cases[k] = cases.get(k, 0) + 1
                swaps[k] = swaps.get(k, 0) + (da * db < 0)
                for s in (a, b):
                    mx, my = m[x, s].mean(), m[y, s].mean()
                    if abs(mx - my) <= 0.1 * max(mx, my):
                        tied += 1
                    elif mx > my:
                        ahead += 1
                    else:
                        behind += 1
            err_num += min(ahead, behind)
            err_den += ahead + behind + tied
            eq += tied
        assert got["size"] == c
        assert got["error_rate"] == pytest.approx(err_num / err_den)
        assert got["tie_rate"] == pytest.approx(eq / err_den)
        assert {round(b["low"] / 0.05): (b["cases"], b["swaps"]) for b in got["bins"]} == {
            k: (cases[k], swaps[k]) for k in cases
        }


def _assert_statsmodels_anova(m: np.ndarray, rel: float):
    """two_way_anova(m) against statsmodels' anova_lm (type II) of the scores m has (NaN:
    missing); returns statsmodels' table."""
    import pandas as pd
    from statsmodels.formula.api import ols
    from statsmodels.stats.anova import anova_lm

    k, n = m.shape
    cells = [(f"s{s}", f"t{t:03d}", m[s, t]) for s in range(k) for t in range(n)]
    frame = pd.DataFrame(
        [c for c in cells if np.isfinite(c[2])], columns=["system", "topic", "score"]
    )
    want = anova_lm(ols("score ~ C(system) + C(topic)", frame).fit(), typ=2)
    got = two_way_anova(m)
    for source, row in (("system", "C(system)"), ("topic", "C(topic)"), ("residual", "Residual")):
        assert got[source]["ss"] == pytest.approx(want.loc[row, "sum_sq"], rel=rel)
        assert got[source]["df"] == want.loc[row, "df"]
    for source, row in (("system", "C(system)"), ("topic", "C(topic)")):
        assert got[source]["f"] == pytest.approx(want.loc[row, "F"], rel=rel)
        assert got[source]["p"] == pytest.approx(want.loc[row, "PR(>F)"], rel=100 * rel)
    return want


def test_two_way_anova_matches_statsmodels():
    for case in range(6):
        rng = np.random.default_rng(case)
        k, n = int(rng.integers(2, 7)), int(rng.integers(2, 15))
        m = rng.random((k, n)) + rng.random(k)[:, None] * 0.3
        want = _assert_statsmodels_anova(m, 1e-9)
        assert residual_variance(m) == pytest.approx(
            want.loc["Residual", "sum_sq"] / want.loc["Residual", "df"]
        )
        total = want["sum_sq"].sum()
        assert two_way_anova(m)["system"]["eta2"] == pytest.approx(
            want.loc["C(system)", "sum_sq"] / total
        )


def test_unbalanced_two_way_anova_matches_statsmodels_type_ii():
    for case in range(6):
        rng = np.random.default_rng(100 + case)
        k, n = int(rng.integers(3, 7)), int(rng.integers(4, 12))
        m = rng.random((k, n)) + rng.random(k)[:, None] * 0.3
        holes = rng.random((k, n)) < 0.2
        holes[:, 0] = holes[0, :] = False  # every run and topic keeps a score
        m[holes] = np.nan
        _assert_statsmodels_anova(m, 1e-8)


def test_anova_of_constant_scores_is_defined():
    got = two_way_anova(np.full((3, 4), 0.25))
    assert (
        got["total"]["ss"] == 0
        and math.isnan(got["system"]["f"])
        and math.isnan(got["system"]["eta2"])
    )


def test_standardisation_by_hand():
    m = np.array([[0.2, 0.5], [0.4, 0.5], [0.6, 0.5]])
    z, flat = standardise(m)
    assert flat == 1  # the second topic: every run 0.5
    from scipy.stats import norm

    np.testing.assert_allclose(z[:, 0], norm.cdf([-1.0, 0.0, 1.0]), rtol=1e-14)
    assert np.all(z[:, 1] == 0.5)


@pytest.mark.parametrize(
    "effect, alpha, beta", [(0.2, 0.05, 0.2), (0.5, 0.05, 0.2), (0.8, 0.01, 0.1), (0.35, 0.1, 0.3)]
)
def test_topics_for_the_paired_t_test_match_statsmodels(effect, alpha, beta):
    from statsmodels.stats.power import TTestPower

    variance = 0.04
    min_diff = effect * math.sqrt(2 * variance)
    want = TTestPower().solve_power(effect_size=effect, alpha=alpha, power=1 - beta)
    assert topics_paired_t(alpha, beta, min_diff, variance) == math.ceil(want - 1e-9)


def test_topics_for_the_paired_t_test_match_gpower():
    # G*Power 3 (Faul et al. 2007), paired t-test, two-sided alpha .05, power .80:
    # d = 0.5 needs 34 pairs, d = 0.2 needs 199, d = 0.8 needs 15
    for d, n in ((0.5, 34), (0.2, 199), (0.8, 15)):
        assert topics_paired_t(0.05, 0.2, d * math.sqrt(2 * 0.01), 0.01) == n


@pytest.mark.parametrize("systems, min_range", [(2, 0.1), (5, 0.1), (10, 0.05), (30, 0.15)])
def test_topics_for_one_way_anova_match_statsmodels(systems, min_range):
    from statsmodels.stats.power import FTestAnovaPower

    variance = 0.03
    n = topics_anova(0.05, 0.2, min_range, variance, systems)
    f = math.sqrt(min_range**2 / (2 * variance) / systems)
    power = FTestAnovaPower().power
    assert power(f, systems * n, 0.05, systems) >= 0.8
    assert power(f, systems * (n - 1), 0.05, systems) < 0.8 or n == 2


def test_topics_for_a_ci_width_by_hand():
    from scipy.stats import t

    variance, width = 0.02, 0.05
    n = topics_ci(0.05, None, width, variance)
    half = lambda k: t.isf(0.025, k - 1) * math.sqrt(2 * variance / k)  # noqa: E731
    assert 2 * half(n) <= width < 2 * half(n - 1)


def test_topic_design_refuses_zero_variance_in_one_line():
    from cranfield.errors import InputError

    with pytest.raises(InputError, match="no residual variance"):
        topics_paired_t(0.05, 0.2, 0.05, 0.0)


def test_pairs_in_blocks_give_the_same_numbers(monkeypatch):
    from cranfield.meta import power, swap

    rng = np.random.default_rng(11)
    m = rng.random((9, 14))
    whole = (bootstrap_asl(m, 300, 1), swap_rates(m, [3, 7], trials=20, seed=2))
    monkeypatch.setattr(power, "_BLOCK", 1)  # one pair per block
    monkeypatch.setattr(swap, "_BLOCK", 1)
    assert np.array_equal(bootstrap_asl(m, 300, 1), whole[0])
    assert swap_rates(m, [3, 7], trials=20, seed=2) == whole[1]


def test_too_many_pairs_are_refused_in_one_line(monkeypatch):
    from cranfield.errors import InputError
    from cranfield.meta import power, swap

    monkeypatch.setattr(power, "MAX_PAIRS", 5)
    monkeypatch.setattr(swap, "MAX_PAIRS", 5)
    m = np.random.default_rng(0).random((4, 5))  # 6 pairs
    with pytest.raises(InputError, match="6 pairs"):
        bootstrap_asl(m)
    with pytest.raises(InputError, match="6 pairs"):
        swap_rates(m)


def test_difference_required_on_a_plain_loop_over_the_same_draws():
    from cranfield.compare.stats import CHUNK
    from cranfield.meta import difference_required

    rng = np.random.default_rng(21)
    m = rng.random((4, 15))
    b, alpha, seed = 1500, 0.05, 7
    want = 0.0
    for x, y in itertools.combinations(range(4), 2):
        z = m[x] - m[y]
        w = z - z.mean()
        draws = np.random.default_rng(seed)
        stars = []
        for start in range(0, b, CHUNK):  # the draws of compare's bootstrap test
            idx = draws.integers(0, 15, (min(CHUNK, b - start), 15))
            for row in idx:  # the reference: one resample at a time
                s = w[row]
                stars.append(abs(s.mean()) / (s.std(ddof=1) / math.sqrt(15)))
        kth = sorted(stars)[-int(b * alpha)]  # the (B alpha)-th largest
        want = max(want, kth * z.std(ddof=1) / math.sqrt(15))
    assert difference_required(m, alpha, b, seed) == pytest.approx(want, rel=1e-9)
    assert math.isnan(difference_required(m, 0.05, 10, seed))  # B alpha < 1
