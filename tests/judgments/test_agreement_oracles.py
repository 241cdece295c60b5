"""Agreement statistics against independent implementations on random tables."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from cranfield.judgments import agreement as ag

from .conftest import random_judgments

krippendorff = pytest.importorskip("krippendorff")
sk_metrics = pytest.importorskip("sklearn.metrics")
inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_krippendorff_alpha_matches_the_krippendorff_package(rng, level):
    checked = 0
    for _ in range(150):
        j, mat = random_judgments(rng)
        mine = ag.krippendorff_alpha(j, level)
        try:
            with np.errstate(all="ignore"):
                ref = krippendorff.alpha(
                    reliability_data=mat,
                    level_of_measurement=level,
                    value_domain=list(range(j.scale.size)),
                )
        except ValueError:
            # the package refuses: fewer than two labels on the scale, or no item with
            # two judgments; cranfield returns NaN (nothing to compare / D_e = 0)
            assert np.isnan(mine)
            continue
        assert mine == pytest.approx(ref, nan_ok=True, abs=1e-9), (level, mat)
        checked += np.isfinite(mine)
    assert checked > 50


@pytest.mark.parametrize("weights", ["unweighted", "linear", "quadratic"])
def test_cohen_kappa_matches_scikit_learn_for_every_pair(rng, weights):
    checked = 0
    for _ in range(100):
        j, mat = random_judgments(rng, assessors=int(rng.integers(2, 5)))
        pairs, mats = ag.confusion_matrices(j)
        mine = ag.cohen_kappa(mats, weights)
        for (a, b), value in zip(pairs, mine, strict=True):
            both = ~np.isnan(mat[a]) & ~np.isnan(mat[b])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ref = sk_metrics.cohen_kappa_score(
                    mat[a, both],
                    mat[b, both],
                    labels=list(range(j.scale.size)),
                    weights=None if weights == "unweighted" else weights,
                )
            assert value == pytest.approx(ref, nan_ok=True, abs=1e-9)
            checked += np.isfinite(value)
    assert checked > 50


def test_fleiss_kappa_with_missing_judgments_hand_computed():
    # u1: 0 0 1, u2: 1 1, u3: 0 1 1 1. Per-item agreement over each item's own m_u:
    # P = (2/6 + 2/2 + 6/12) / 3 = 11/18; pooled proportions p = (3/9, 6/9):
    # P_e = 5/9; kappa = (11/18 - 10/18) / (8/18) = 1/8. (Item-averaged proportions,
    # Gwet's convention for missing ratings, would give P_e = 746/1296 and 0.0837.)
    import pyarrow as pa

    from cranfield.judgments.data import Judgments

    rows = [("d1", "a", 0), ("d1", "b", 0), ("d1", "c", 1), ("d2", "a", 1), ("d2", "b", 1),
            ("d3", "a", 0), ("d3", "b", 1), ("d3", "c", 1), ("d3", "d", 1)]  # fmt: skip
    d, a, lab = zip(*rows, strict=True)
    table = pa.table({"topic": ["1"] * 9, "document": d, "assessor": a, "label": list(lab)})
    j = Judgments.from_table(table, scale="0,1")
    assert ag.fleiss_kappa(j) == pytest.approx(1 / 8, rel=1e-14)


def test_fleiss_kappa_with_missing_judgments_matches_statsmodels_per_group(rng):
    # The generalisation to unequal m_u: the mean per-item agreement over pairable
    # items, each over its own m_u, against chance from the pooled label proportions
    # (statsmodels' p_cat). statsmodels handles equal m_u only, so the reference takes
    # each group of items with the same m_u to statsmodels, recovers the group's mean
    # agreement P_g = kappa_g (1 - P_e,g) + P_e,g, and combines the groups.
    checked = 0
    for _ in range(100):
        j, _ = random_judgments(rng, items=40, assessors=int(rng.integers(3, 7)), missing=0.4)
        counts = j.counts().astype(float)
        m = counts.sum(axis=1)
        pairable = m >= 2
        if pairable.sum() < 2:
            continue
        total = 0.0
        for size in np.unique(m[pairable]):
            group = counts[m == size]
            pe_g = ((group.sum(axis=0) / group.sum()) ** 2).sum()
            with np.errstate(all="ignore"):
                kappa_g = inter_rater.fleiss_kappa(group, method="fleiss")
            if not np.isfinite(kappa_g):  # one label in the group: every item agrees
                total += len(group)
                continue
            total += len(group) * (kappa_g * (1 - pe_g) + pe_g)
        p_mean = total / pairable.sum()
        p_cat = counts[pairable].sum(axis=0) / counts[pairable].sum()
        pe = (p_cat**2).sum()
        ref = (p_mean - pe) / (1 - pe) if pe < 1 else np.nan
        assert ag.fleiss_kappa(j) == pytest.approx(ref, nan_ok=True, abs=1e-9)
        checked += np.isfinite(ref)
    assert checked > 50


def test_fleiss_kappa_matches_statsmodels_with_equal_raters(rng):
    checked = 0
    for _ in range(150):
        j, _ = random_judgments(rng, assessors=int(rng.integers(2, 6)), missing=0.0)
        counts = j.counts()
        mine = ag.fleiss_kappa(j)
        with np.errstate(all="ignore"):
            ref = inter_rater.fleiss_kappa(counts, method="fleiss")
        assert mine == pytest.approx(ref, nan_ok=True, abs=1e-9)
        checked += np.isfinite(mine)
    assert checked > 50


def test_scott_pi_and_gwet_ac1_of_two_assessors_follow_their_definitions(rng):
    """Two assessors, no missing values: Fleiss' kappa is Scott's pi (Fleiss 1971), and
    AC1 is Gwet's 2008 two-rater formula, written out here independently."""
    for _ in range(100):
        j, mat = random_judgments(rng, assessors=2, missing=0.0, labels=int(rng.integers(2, 5)))
        if j.n_assessors < 2:
            continue
        _, mats = ag.confusion_matrices(j)
        assert ag.scott_pi(mats)[0] == pytest.approx(ag.fleiss_kappa(j), nan_ok=True)
        x, y = mat[0].astype(int), mat[1].astype(int)
        k = j.scale.size
        p_o = np.mean(x == y)
        pi = (np.bincount(x, minlength=k) + np.bincount(y, minlength=k)) / (2 * len(x))
        p_e = (pi * (1 - pi)).sum() / (k - 1)
        ref = (p_o - p_e) / (1 - p_e) if p_e < 1 else np.nan
        assert ag.gwet_ac1(j) == pytest.approx(ref, nan_ok=True)


def test_percent_agreement_counts_agreeing_pairs(rng):
    for _ in range(50):
        j, mat = random_judgments(rng)
        agree = total = 0
        for u in range(mat.shape[1]):
            col = mat[:, u][~np.isnan(mat[:, u])]
            for i in range(len(col)):
                for k in range(len(col)):
                    if i != k:
                        total += 1
                        agree += col[i] == col[k]
        ref = agree / total if total else np.nan
        assert ag.percent_agreement(j) == pytest.approx(ref, nan_ok=True)


def test_per_topic_groups_equal_the_statistics_of_each_topic_alone(rng):
    j, _ = random_judgments(rng, items=40, assessors=4, labels=3, missing=0.3)
    topics, group = j.item_topic_codes()
    counts = j.counts()
    per = ag.count_statistics(counts, group, len(topics), j.scale.values, "ordinal")
    for t in range(len(topics)):
        alone = ag.count_statistics(counts[group == t], None, 1, j.scale.values, "ordinal")
        for key, value in per.items():
            assert value[t] == pytest.approx(alone[key][0], nan_ok=True)
