"""The one scoring function of linear models: the same numbers for a document whatever
the batch, the position or the path (objective, written runs, ``ltr eval``)."""

from __future__ import annotations

import numpy as np

from cranfield.ltr.model import Model
from cranfield.ltr.objective import Objective
from cranfield.ltr.scoring import linear_scores

from .helpers import random_data


def _real(seed, n=300, f=46, p=13):
    rng = np.random.default_rng(seed)
    return rng.random((n, f)), rng.normal(size=(p, f))


def test_a_score_depends_on_the_two_vectors_alone():
    x, w = _real(0)
    s = linear_scores(x, w)
    perm = np.random.default_rng(1).permutation(len(x))
    for i in range(len(w)):  # one vector at a time, documents in another order
        assert np.array_equal(linear_scores(x, w[i]), s[i])
        assert np.array_equal(linear_scores(x[perm], w[i : i + 1])[0], s[i][perm])
    assert np.array_equal(linear_scores(x[:7], w[3:5]), s[3:5, :7])  # smaller tiles


def test_scores_are_dot_products():
    x, w = _real(2)
    np.testing.assert_allclose(linear_scores(x, w), w @ x.T, rtol=1e-12, atol=1e-12)
    # whole numbers: every partial sum is exact, so the scores are too
    xi, wi = np.round(x * 8), np.round(w * 4)
    assert np.array_equal(linear_scores(xi, wi), wi @ xi.T)
    # a sequential chain, not a pairwise sum: 1e16 + 1 - 1e16 is 0 in floating point
    assert linear_scores(np.array([[1e16, 1.0, -1e16]]), np.array([1.0, 1.0, 1.0]))[0] == 0.0
    # negative zero is written as zero
    assert np.signbit(linear_scores(np.array([[1.0]]), np.array([-0.0]))).tolist() == [False]


def test_every_path_ranks_on_the_same_scores():
    # real-valued features (no exact ties by construction): the model's scores, the
    # fused kernel, the unfused kernel and the NumPy path give the same values
    data = random_data(5, queries=30, features=9, max_docs=40, tie_prone=False)
    rng = np.random.default_rng(5)
    w = rng.normal(size=(11, data.num_features))
    model = Model("ga", data.num_features, "none", weights=w[3])
    obj = Objective(data, "nDCG@10 + AP", backend="engine")
    layout_scores = obj.layout.scores(w[3:4])[0]
    assert np.array_equal(layout_scores, model.scores(data))
    fused = obj(w)
    assert np.array_equal(fused, Objective(data, "nDCG@10 + AP", backend="engine-scores")(w))
    assert np.array_equal(fused, Objective(data, "nDCG@10 + AP", backend="general")(w))
    assert np.array_equal(fused, np.concatenate([obj(v) for v in w]))
