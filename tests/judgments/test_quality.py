"""Assessor quality and parameter recovery on simulated crowds."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.errors import ParameterError
from cranfield.judgments.aggregate import dawid_skene, mace, majority_vote
from cranfield.judgments.quality import Thresholds, assessor_quality, judgments_needed
from cranfield.judgments.simulate import simulate_crowd

ACC = [0.9, 0.85, 0.8, 0.8, 0.75, 0.5, 0.5, 0.5]
SPAM = [False] * 5 + [True] * 3


def _accuracy(agg, j, truth):
    order = np.array([int(d[1:]) for d in j.documents])
    return np.mean(agg.label == truth[order])


@pytest.mark.parametrize("state", [0, 1, 2])
def test_dawid_skene_beats_majority_vote_with_spammers_and_flags_them(state):
    rng = np.random.default_rng(state)
    truth = rng.integers(0, 3, 400)
    j = simulate_crowd(truth, ACC, labels=3, per_item=5, spammers=SPAM, seed=state)
    ds, mv = dawid_skene(j), majority_vote(j, seed=state)
    assert _accuracy(ds, j, truth) > _accuracy(mv, j, truth) + 0.02
    report = {r["assessor"]: r for r in assessor_quality(j, aggregate=ds)}
    for a in range(8):
        flagged = bool(report[f"w{a}"]["reasons"])
        assert flagged == SPAM[a], report[f"w{a}"]
    # the honest assessors' estimated accuracies are near the simulated ones
    for a in range(5):
        assert report[f"w{a}"]["accuracy"] == pytest.approx(ACC[a], abs=0.1)


def test_gold_accuracy_straight_lining_and_fast_work(tmp_path):
    rng = np.random.default_rng(7)
    truth = rng.integers(0, 2, 200)
    acc = [0.95, 0.9, 0.9, 0.85, 0.9]
    j = simulate_crowd(
        truth,
        acc,
        labels=2,
        per_item=5,
        spammers=[False] * 4 + [True],
        seconds=[10, 12, 9, 0.5, 11],
        seed=3,
    )
    gold = tmp_path / "gold.qrels"
    gold.write_text("".join(f"0 0 d{u} {truth[u]}\n" for u in range(20)))
    report = {r["assessor"]: r for r in assessor_quality(j, gold=gold)}
    assert report["w0"]["gold_pairs"] == 20
    assert report["w0"]["gold_accuracy"] >= 0.8 and not report["w0"]["reasons"]
    assert any("straight-lining" in r for r in report["w4"]["reasons"])
    assert report["w4"]["gold_accuracy"] == pytest.approx(
        np.mean(truth[:20] == j.label[(j.assessor == j.assessors.index("w4"))][0])
    )
    assert any("implausibly fast" in r for r in report["w3"]["reasons"])
    assert report["w3"]["score"] < report["w0"]["score"]
    with pytest.raises(ParameterError):
        Thresholds(min_kappa=2)


def test_judgments_needed_grows_with_noise():
    good = judgments_needed([0.9] * 7, target=0.95, items=1000)
    noisy = judgments_needed([0.8] * 9, target=0.95, items=1000)
    assert good["needed"] is not None and noisy["needed"] is not None
    assert good["needed"] < noisy["needed"]
    # majority of 3 assessors of accuracy 0.9: 0.9^3 + 3 * 0.9^2 * 0.1 = 0.972
    assert good["accuracy"][3] == pytest.approx(0.972, abs=0.02)
    assert judgments_needed([0.6] * 2, target=0.99, items=200)["needed"] is None


@pytest.mark.parametrize("state", [0, 1, 2])
def test_mace_beats_majority_vote_and_finds_the_spammers(state):
    rng = np.random.default_rng(state)
    truth = rng.integers(0, 3, 400)
    j = simulate_crowd(truth, ACC, labels=3, per_item=5, spammers=SPAM, seed=state)
    result = mace(j)
    assert result.info["converged"]
    assert _accuracy(result, j, truth) > _accuracy(majority_vote(j, seed=0), j, truth)
    competence = dict(zip(j.assessors, result.info["competence"], strict=True))
    for a in range(8):
        if SPAM[a]:
            assert competence[f"w{a}"] < 0.1
        else:
            assert competence[f"w{a}"] > 0.4
    assert np.allclose(result.posterior.sum(axis=1), 1)


def test_mace_without_spammers_agrees_with_majority_vote_on_clear_items():
    rng = np.random.default_rng(9)
    truth = rng.integers(0, 2, 300)
    j = simulate_crowd(truth, [0.95] * 5, labels=2, per_item=5, seed=1)
    clear = j.counts().max(axis=1) >= 4
    assert np.array_equal(mace(j).label[clear], majority_vote(j).label[clear])
    with pytest.raises(ParameterError):
        mace(j, tolerance=-1)


def test_median_seconds_of_huge_times_do_not_overflow():
    # two judgments of 1e308 seconds: their midpoint is 1e308, not inf (and no warning)
    import warnings

    import pyarrow as pa

    from cranfield.judgments.data import Judgments

    table = pa.table(
        {
            "topic": ["1"] * 4,
            "document": ["d1", "d1", "d2", "d2"],
            "assessor": ["a", "b", "a", "b"],
            "label": [1, 1, 0, 1],
            "seconds": [1e308, 3.0, 1.7e308, 1.5e308],
        }
    )
    j = Judgments.from_table(table, scale="0,1")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rows = {r["assessor"]: r for r in assessor_quality(j)}
    assert rows["a"]["median_seconds"] == 1e308 + (1.7e308 - 1e308) / 2
    assert np.isfinite(rows["a"]["median_seconds"])
    assert rows["b"]["median_seconds"] == 3.0 + (1.5e308 - 3.0) / 2
