"""``agreement_report(statistics=...)`` / ``cranfield agreement --statistic``: only
the chosen statistics are computed and shown, with the values of the full report and
of the independent packages."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from cranfield.errors import ParameterError
from cranfield.judgments import agreement as ag

from .conftest import random_judgments

krippendorff = pytest.importorskip("krippendorff")
sk_metrics = pytest.importorskip("sklearn.metrics")


def test_alpha_alone_matches_the_krippendorff_package_and_leaves_out_the_rest(rng):
    j, mat = random_judgments(rng, items=40, assessors=4, labels=3, missing=0.2)
    rep = ag.agreement_report(j, replicates=50, statistics=["krippendorff_alpha"])
    sec = rep["graded"]
    assert set(sec["overall"]) == {"krippendorff_alpha", "pairable_items", "ci"}
    assert set(sec["overall"]["ci"]) == {"krippendorff_alpha"}
    assert "pairs" not in sec and "confusion" not in sec
    for v in sec["per_topic"].values():
        assert set(v) == {"krippendorff_alpha", "pairable_items"}
    ref = krippendorff.alpha(
        reliability_data=mat, level_of_measurement="ordinal", value_domain=[0, 1, 2]
    )
    assert sec["overall"]["krippendorff_alpha"] == pytest.approx(ref, abs=1e-12)
    full = ag.agreement_report(j, replicates=50)["graded"]
    assert sec["overall"]["krippendorff_alpha"] == full["overall"]["krippendorff_alpha"]
    assert sec["overall"]["ci"]["krippendorff_alpha"] == full["overall"]["ci"]["krippendorff_alpha"]


def test_one_kappa_alone_gives_the_pairwise_table_with_that_column(rng):
    j, mat = random_judgments(rng, items=40, assessors=3, labels=3, missing=0.1)
    rep = ag.agreement_report(j, replicates=0, statistics=["cohen_kappa_linear"])
    sec = rep["graded"]
    assert set(sec["overall"]) == {"pairable_items"}
    assert sec["pairs"] and all(
        set(p) == {"a", "b", "items", "cohen_kappa_linear"} for p in sec["pairs"]
    )
    names = list(j.assessors)
    for p in sec["pairs"]:
        a, b = names.index(p["a"]), names.index(p["b"])
        both = ~np.isnan(mat[a]) & ~np.isnan(mat[b])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = sk_metrics.cohen_kappa_score(
                mat[a, both], mat[b, both], labels=[0, 1, 2], weights="linear"
            )
        assert p["cohen_kappa_linear"] == pytest.approx(ref, abs=1e-12)
    # percent agreement alone is a count statistic: no pairwise table
    alone = ag.agreement_report(j, replicates=0, statistics=["percent_agreement"])["graded"]
    assert "pairs" not in alone


def test_unknown_or_no_statistic_is_refused(rng):
    j, _ = random_judgments(rng, items=5, assessors=2, labels=2, missing=0)
    with pytest.raises(ParameterError, match="statistics"):
        ag.agreement_report(j, statistics=["alpha"])
    with pytest.raises(ParameterError, match="statistics"):
        ag.agreement_report(j, statistics=[])
