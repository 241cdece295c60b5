"""Aggregation: majority vote ties, mean/median, Dawid–Skene against crowd-kit."""

from __future__ import annotations

import warnings

import numpy as np
import pyarrow as pa
import pytest

from cranfield.errors import InputError, ParameterError
from cranfield.judgments.aggregate import (
    aggregate,
    dawid_skene,
    majority_vote,
    mean_label,
    median_label,
)
from cranfield.judgments.data import Judgments, Scale

from .conftest import random_judgments


def _table(rows, scale="0,1,2"):
    t, d, a, lab = zip(*rows, strict=True)
    table = pa.table({"topic": t, "document": d, "assessor": a, "label": list(lab)})
    return Judgments.from_table(table, scale=scale)


TIE = [("1", "d", "x", 0), ("1", "d", "y", 2), ("1", "e", "x", 1), ("1", "e", "y", 1)]


@pytest.mark.parametrize(
    ("ties", "expected"), [("higher", [2, 1]), ("lower", [0, 1]), ("abstain", [-1, 1])]
)
def test_majority_vote_tie_policies(ties, expected):
    agg = majority_vote(_table(TIE), ties=ties)
    assert agg.label.tolist() == expected
    assert agg.votes.tolist() == [2, 2]
    qrels = agg.to_qrels()
    assert len(qrels) == sum(e >= 0 for e in expected)


def test_random_ties_pick_among_the_tied_labels_and_repeat_with_the_same_state():
    rows = [("1", f"d{i}", w, lab) for i in range(200) for w, lab in (("x", 0), ("y", 2))]
    j = _table(rows)
    a = majority_vote(j, ties="random", seed=5).label
    assert set(a.tolist()) == {0, 2}  # both tied labels occur, never the untied 1
    assert np.array_equal(a, majority_vote(j, ties="random", seed=5).label)


def test_mean_and_median_labels():
    rows = [("1", "d", w, lab) for w, lab in (("x", 0), ("y", 2), ("z", 2))]
    rows += [("1", "e", w, lab) for w, lab in (("x", 0), ("y", 1), ("z", 2), ("w", 2))]
    j = _table(rows)
    # means 4/3 and 5/4 -> nearest labels 1 and 1; lower medians 2 and 1
    assert mean_label(j).values().tolist() == [1, 1]
    assert median_label(j).values().tolist() == [2, 1]
    with pytest.raises(ParameterError):
        aggregate(_table(rows, scale=Scale((0, 1, 2), level="nominal")), "mean")


def test_median_matches_numpy_lower_median(rng):
    for _ in range(30):
        j, mat = random_judgments(rng, labels=4)
        med = median_label(j).label
        for u in range(j.n_items):
            col = np.sort(mat[:, u][~np.isnan(mat[:, u])])
            assert med[u] == col[(len(col) - 1) // 2]


def test_majority_vote_matches_crowd_kit_without_ties(rng):
    crowdkit = pytest.importorskip("crowdkit.aggregation")
    pd = pytest.importorskip("pandas")
    for _ in range(20):
        j, _ = random_judgments(rng, items=40, assessors=5, labels=3, missing=0.2)
        df = pd.DataFrame({"task": j.item, "worker": j.assessor, "label": j.label})
        ref = crowdkit.MajorityVote().fit_predict_proba(df)
        mine = majority_vote(j, ties="lower")
        probs = ref.reindex(columns=range(j.scale.size), fill_value=0.0).sort_index()
        assert np.allclose(mine.posterior[probs.index], probs.to_numpy())


def test_dawid_skene_matches_crowd_kit(rng):
    """The same EM steps from the same start: after a fixed number of iterations the
    posteriors coincide (crowd-kit floors them at 1e-10). Its stopping rule differs (its
    bound counts the prior once per judgment and can fall), so both run 20 iterations."""
    crowdkit = pytest.importorskip("crowdkit.aggregation")
    pd = pytest.importorskip("pandas")
    from cranfield.judgments.simulate import simulate_crowd

    for trial in range(3):
        truth = rng.integers(0, 3, size=100)
        j = simulate_crowd(
            truth,
            accuracies=[0.9, 0.8, 0.7, 0.6, 0.4],
            labels=3,
            per_item=4,
            seed=trial,
        )
        df = pd.DataFrame({"task": j.item, "worker": j.assessor, "label": j.label})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = crowdkit.DawidSkene(n_iter=20, tol=-np.inf).fit(df).probas_
        ref = ref.reindex(columns=range(3)).sort_index()
        mine = dawid_skene(j, tolerance=1e-300, max_iterations=20)
        assert mine.info["iterations"] == 20
        assert np.abs(mine.posterior[ref.index] - ref.to_numpy()).max() < 1e-9


def test_dawid_skene_reports_its_iterations_and_stops_at_the_cap(rng):
    j, _ = random_judgments(rng, items=60, assessors=5, labels=3, missing=0.2)
    capped = dawid_skene(j, max_iterations=1, tolerance=1e-300)
    assert capped.info["iterations"] == 1 and not capped.info["converged"]
    full = dawid_skene(j)
    assert full.info["iterations"] <= 100
    assert np.allclose(full.posterior.sum(axis=1), 1)
    conf = full.info["confusion"]
    assert conf.shape == (j.n_assessors, 3, 3) and np.allclose(conf.sum(axis=2), 1)
    with pytest.raises(ParameterError):
        dawid_skene(j, max_iterations=0)


def test_dawid_skene_with_gold_pairs_matches_crowd_kit_true_labels(tmp_path, rng):
    crowdkit = pytest.importorskip("crowdkit.aggregation")
    pd = pytest.importorskip("pandas")
    from cranfield.judgments.simulate import simulate_crowd

    truth = rng.integers(0, 3, size=100)
    j = simulate_crowd(truth, [0.9, 0.7, 0.6, 0.5, 0.3], labels=3, per_item=4, seed=4)
    gold_items = np.arange(0, j.n_items, 4)
    order = np.array([int(d[1:]) for d in j.documents])
    gold = tmp_path / "gold.qrels"
    gold.write_text("".join(f"0 0 {j.documents[u]} {truth[order[u]]}\n" for u in gold_items))
    df = pd.DataFrame({"task": j.item, "worker": j.assessor, "label": j.label})
    true_labels = pd.Series(truth[order[gold_items]], index=gold_items)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = crowdkit.DawidSkene(n_iter=15, tol=-np.inf).fit(df, true_labels).probas_
    ref = ref.reindex(columns=range(3)).sort_index()
    mine = aggregate(j, "dawid-skene", gold=gold, tolerance=1e-300, max_iterations=15)
    assert mine.info["gold_pairs"] == len(gold_items)
    assert np.abs(mine.posterior[ref.index] - ref.to_numpy()).max() < 1e-9
    assert np.array_equal(mine.label[gold_items], truth[order[gold_items]])
    voted = aggregate(j, "majority", gold=gold)
    assert np.array_equal(voted.label[gold_items], truth[order[gold_items]])
    bad = tmp_path / "bad.qrels"
    bad.write_text(f"0 0 {j.documents[0]} 7\n")
    with pytest.raises(InputError, match="not on the scale"):
        aggregate(j, "majority", gold=bad)
