"""The agreement report: sections, binarisation, bootstrap, degenerate tables."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from cranfield.errors import ParameterError
from cranfield.judgments import Judgments, agreement_report
from cranfield.judgments import agreement as ag

from .conftest import random_judgments


def test_binary_section_is_the_graded_one_on_binarised_labels(rng):
    j, _ = random_judgments(rng, items=30, assessors=3, labels=3, missing=0.2)
    report = agreement_report(j, threshold=1, replicates=0)
    b = j.binarised(1)
    assert report["binary"]["overall"]["krippendorff_alpha"] == pytest.approx(
        ag.krippendorff_alpha(b, "nominal"), nan_ok=True
    )
    assert report["binary"]["overall"]["fleiss_kappa"] == pytest.approx(
        ag.fleiss_kappa(b), nan_ok=True
    )
    assert set(report["graded"]["per_topic"]) == {"t0", "t1", "t2"}
    assert len(report["graded"]["pairs"]) == 3 and "confusion" not in report["graded"]


def test_bootstrap_is_reproducible_and_independent_of_chunking(rng):
    j, _ = random_judgments(rng, items=25, assessors=4, labels=3, missing=0.1)
    counts = j.counts()
    whole = ag.bootstrap(counts, replicates=200, seed=3)
    one_by_one = ag.bootstrap(counts, replicates=200, seed=3, chunk_rows=1)
    assert whole == one_by_one == ag.bootstrap(counts, replicates=200, seed=3)
    # the same replicates written as a loop
    gen = np.random.default_rng(3)
    values = [
        ag.count_statistics(counts[gen.integers(0, len(counts), size=(1, len(counts))).ravel()])[
            "fleiss_kappa"
        ][0]
        for _ in range(200)
    ]
    values = np.array(values)[np.isfinite(values)]
    assert whole["fleiss_kappa"] == pytest.approx(tuple(np.quantile(values, [0.025, 0.975])))
    estimate = ag.fleiss_kappa(j)
    assert whole["fleiss_kappa"][0] <= estimate <= whole["fleiss_kappa"][1]


def _table(rows):
    t, d, a, lab = zip(*rows, strict=True)
    return Judgments.from_table(
        pa.table({"topic": t, "document": d, "assessor": a, "label": list(lab)}), scale="0,1"
    )


@pytest.mark.parametrize(
    ("rows", "note"),
    [
        ([("1", "d1", "a", 1), ("1", "d2", "a", 0)], "two assessors"),  # one assessor
        ([("1", "d1", "a", 1), ("1", "d2", "b", 0)], "two assessors"),  # all missing but one
        ([("1", "d1", "a", 1), ("1", "d1", "b", 1), ("1", "d2", "a", 1)], "same label"),
    ],
)
def test_degenerate_tables_are_nan_with_the_reason(rows, note):
    report = agreement_report(_table(rows), replicates=50)
    overall = report["graded"]["overall"]
    for s in ("fleiss_kappa", "krippendorff_alpha", "gwet_ac1"):
        if note == "same label" and s == "gwet_ac1":
            # AC1's chance agreement sum pi (1 - pi) / (K - 1) is 0 here: AC1 = 1
            assert overall[s] == 1.0
            continue
        assert np.isnan(overall[s])
    assert any(note in n for n in report["graded"]["notes"])
    assert all(np.isnan(v) for v in overall["ci"]["krippendorff_alpha"])


def test_report_parameters_are_checked(rng):
    j, _ = random_judgments(rng)
    with pytest.raises(ParameterError):
        agreement_report(j, replicates=-1)
    with pytest.raises(ParameterError):
        agreement_report(j, confidence=1.0)


@pytest.mark.parametrize("dense_cells", [1 << 20, 0])
def test_pairwise_confusions_do_not_depend_on_the_chunk_size(rng, monkeypatch, dense_cells):
    j, mat = random_judgments(rng, items=50, assessors=6, labels=3, missing=0.2)
    monkeypatch.setattr(ag, "DENSE_CELLS", dense_cells)  # 0: distinct cells, not bincount
    pairs, mats = ag.confusion_matrices(j)
    monkeypatch.setattr(ag, "PAIR_CHUNK", 7)
    pairs2, mats2 = ag.confusion_matrices(j)
    assert np.array_equal(pairs, pairs2) and np.array_equal(mats, mats2)
    assert mats.sum() == sum(m * (m - 1) // 2 for m in j.counts().sum(axis=1))
    # brute force: every pair of assessors, every item both judged
    expected = {}
    for a in range(len(mat)):
        for b in range(a + 1, len(mat)):
            both = ~np.isnan(mat[a]) & ~np.isnan(mat[b])
            if both.any():
                m = np.zeros((3, 3), np.int64)
                np.add.at(m, (mat[a, both].astype(int), mat[b, both].astype(int)), 1)
                expected[(a, b)] = m
    assert [tuple(p) for p in pairs.tolist()] == sorted(expected)
    for (a, b), m in zip(pairs.tolist(), mats, strict=True):
        assert np.array_equal(m, expected[(a, b)])


def test_too_many_assessors_leave_the_pairwise_table_out_with_a_note(rng, monkeypatch):
    j, _ = random_judgments(rng, items=20, assessors=5, labels=2, missing=0.0)
    monkeypatch.setattr(ag, "MAX_PAIRS", 9)  # 5 assessors: 10 pairs
    report = agreement_report(j, replicates=0)
    assert report["graded"]["pairs"] == []
    assert any("pairwise statistics left out" in n for n in report["graded"]["notes"])
    assert np.isfinite(report["graded"]["overall"]["percent_agreement"])
    with pytest.raises(ParameterError):
        ag.confusion_matrices(j)
