"""MACE on simulated crowds with skewed label priors, against majority vote and
crowd-kit's MACE (its variational-Bayes and EM fits)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from cranfield.errors import ParameterError
from cranfield.judgments.aggregate import mace, majority_vote
from cranfield.judgments.simulate import simulate_crowd


def _crowd(seed, labels, spam_rate, items=600, workers=30, per_item=5, top=0.7):
    """Items whose true label is 0 with probability ``top`` (the rest uniform), workers
    of accuracy uniform in [0.4, 0.9] and a share ``spam_rate`` of constant spammers."""
    rng = np.random.default_rng(seed)
    prior = np.r_[top, np.full(labels - 1, (1 - top) / (labels - 1))]
    truth = rng.choice(labels, items, p=prior)
    spam = rng.random(workers) < spam_rate
    accuracy = rng.uniform(0.4, 0.9, workers)
    j = simulate_crowd(truth, accuracy, labels=labels, per_item=per_item, spammers=spam, seed=seed)
    return j, truth[np.array([int(d[1:]) for d in j.documents])]


def _crowd_kit(j, fit):
    pd = pytest.importorskip("pandas")
    crowdkit = pytest.importorskip("crowdkit.aggregation")
    df = pd.DataFrame({"task": j.item, "worker": j.assessor, "label": j.label})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # crowd-kit draws every restart's start from the same random_state: one restart
        # gives the same answer as its default ten
        labels = crowdkit.MACE(method=fit, n_restarts=1, n_iter=50).fit_predict(df)
    return labels.sort_index().to_numpy()


# The crowd (4 labels, 70 % label 0, 15 % spammers) and its neighbours.
CROWDS = [
    (seed, labels, spam)
    for seed, (labels, spam) in enumerate(
        [(4, 0.15), (4, 0.15), (4, 0.15), (2, 0.15), (3, 0.0), (3, 0.3), (5, 0.15), (4, 0.3)]
    )
]


@pytest.mark.parametrize(("seed", "labels", "spam"), CROWDS)
def test_mace_is_not_worse_than_majority_vote_when_one_label_dominates(seed, labels, spam):
    j, truth = _crowd(seed, labels, spam)
    mv = np.mean(majority_vote(j, seed=0).label == truth)
    for fit in ("vb", "em"):
        assert np.mean(mace(j, fit=fit).label == truth) >= mv - 0.01, fit


@pytest.mark.parametrize(("seed", "labels", "spam"), CROWDS[:4])
def test_mace_is_not_worse_than_crowd_kit_mace(seed, labels, spam):
    j, truth = _crowd(seed, labels, spam)
    ours = np.mean(mace(j).label == truth)
    for fit in ("vb", "em"):
        assert ours >= np.mean(_crowd_kit(j, fit) == truth) - 0.01, fit


def test_uniform_class_priors_are_hovy_et_al_s_model_and_lose_on_skewed_crowds():
    # the documented reason for learning the class priors: with p_k = 1/K the fit
    # trails majority vote on the crowd
    j, truth = _crowd(0, 4, 0.15, items=1000)
    uniform = np.mean(mace(j, class_priors="uniform").label == truth)
    learned = np.mean(mace(j).label == truth)
    assert learned > uniform
    assert learned > np.mean(majority_vote(j, seed=0).label == truth) + 0.03


def test_restarts_keep_the_best_likelihood_and_repeat_with_the_seed():
    j, _ = _crowd(3, 4, 0.15)
    one = mace(j, restarts=1)
    many = mace(j, restarts=8, seed=5)
    assert many.info["restarts"] == 8 and 0 <= many.info["restart"] < 8
    assert many.info["log_likelihood"] >= one.info["log_likelihood"] - 1e-12
    again = mace(j, restarts=8, seed=5)
    assert np.array_equal(again.posterior, many.posterior)
    assert np.allclose(many.posterior.sum(axis=1), 1)
    assert sum(many.info["priors"]) == pytest.approx(1)


@pytest.mark.parametrize("fit", ["vb", "em"])
def test_tolerance_zero_runs_exactly_max_iterations(fit):
    j, _ = _crowd(1, 3, 0.15, items=200)
    result = mace(j, fit=fit, tolerance=0, max_iterations=7, restarts=2)
    assert result.info["iterations"] == 7
    assert result.info["converged"] is None


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("fit", "gibbs"),
        ("class_priors", "dirichlet"),
        ("restarts", 0),
        ("alpha", 0),
        ("strategy_prior", -1.0),
        ("smoothing", -0.1),
        ("smoothing", 0.0),
        ("tolerance", -1e-5),
    ],
)
def test_mace_refuses_bad_options(option, value):
    j, _ = _crowd(1, 3, 0.0, items=50)
    with pytest.raises(ParameterError):
        mace(j, **{option: value})


def test_digamma_matches_scipy():
    # MACE's variational fit needs psi; computed with NumPy alone, checked against SciPy
    from scipy.special import digamma as reference

    from cranfield.judgments.aggregate import _digamma

    rng = np.random.default_rng(0)
    x = np.r_[np.geomspace(1e-9, 1e12, 20001), rng.uniform(0, 60, 20000), [1, 2, 10, 10.5]]
    ref = reference(x)
    assert np.all(np.abs(_digamma(x) - ref) <= 4e-15 * np.maximum(np.abs(ref), 1))
