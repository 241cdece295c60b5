"""``subsample``: the genetic algorithm (ga, and mga's first phase) scoring each
generation on a part of the queries, each generation's best checked on all of them."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.errors import CranfieldError
from cranfield.ltr.objective import Objective
from cranfield.ltr.rankers import train

from .helpers import random_data


@pytest.mark.parametrize("count", [2, 3, 7])
def test_parts_split_the_queries_and_average_to_the_whole(count):
    data = random_data(count, queries=23, features=5, tie_prone=False).normalised("query")
    whole = Objective(data, "nDCG@10")
    parts = whole.parts(count, np.random.default_rng(count))
    ids = [p.layout.query_ids for p in parts]
    sizes = [len(i) for i in ids]
    assert max(sizes) - min(sizes) <= 1 and sum(sizes) == data.num_queries
    assert sorted(np.concatenate(ids).tolist()) == sorted(whole.layout.query_ids.tolist())
    w = np.random.default_rng(0).normal(size=(9, data.num_features))
    # a part's value is the mean over its queries: the size-weighted mean is the whole's
    mixed = sum(n * p(w) for n, p in zip(sizes, parts, strict=True)) / sum(sizes)
    np.testing.assert_allclose(mixed, whole(w), rtol=1e-12, atol=1e-15)
    for p, q in zip(parts, ids, strict=True):  # and equals an objective built on them alone
        positions = [data.query_ids.tolist().index(x) for x in q]
        alone = Objective(data.subset(np.sort(positions)), "nDCG@10")
        assert np.array_equal(p(w), alone(w))


@pytest.mark.parametrize(("method", "budget", "share"), [("ga", 500, 0.25), ("mga", 800, 0.5)])
def test_subsampled_search_keeps_the_budget_and_reports_full_values(method, budget, share):
    data = random_data(7, queries=40, features=6, tie_prone=False)
    model = train(data, method, budget=budget, seed=3, params={"subsample": share})
    assert model.parameters["evaluations"] <= budget
    assert model.parameters["evaluations"] >= budget - 60  # a generation at most is left
    # checkpoints carry values on all the queries: the best one is the model's value
    assert max(h["train"] for h in model.history) == model.train_value
    full = train(data, method, budget=budget, seed=3)
    assert not np.array_equal(model.weights, full.weights)  # a different search


def test_subsample_one_is_the_default_search(monkeypatch):
    data = random_data(2, queries=15, features=4)

    def refuse(*a, **k):
        raise AssertionError("parts built without subsampling")

    monkeypatch.setattr(Objective, "parts", refuse)
    a = train(data, "mga", budget=300, seed=1)
    b = train(data, "mga", budget=300, seed=1, params={"subsample": 1.0})
    assert np.array_equal(a.weights, b.weights) and a.history == b.history


@pytest.mark.parametrize("bad", [0, -0.5, 1.5, float("nan"), "half"])
def test_bad_subsample_is_refused(bad):
    with pytest.raises(CranfieldError, match="subsample"):
        train(random_data(1), "ga", budget=50, params={"subsample": bad})


def test_more_parts_than_queries_uses_one_query_a_part():
    data = random_data(4, queries=3, features=3)
    model = train(data, "ga", budget=60, seed=0, params={"subsample": 0.01, "population": 6})
    assert model.parameters["evaluations"] <= 60
