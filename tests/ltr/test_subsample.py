"""``subsample``: the genetic algorithm (ga, and mga's first phase) scoring each
generation on a part of the queries, each generation's best checked on all of them;
by default (``subsample=0``) parts of 500-999 queries from 2,000 training queries on,
and mga's simplex phase then searching on one part for its first 75%."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.errors import CranfieldError
from cranfield.ltr import search
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


def test_the_default_below_two_parts_of_queries_is_the_full_search(monkeypatch):
    data = random_data(2, queries=15, features=4)

    def refuse(*a, **k):
        raise AssertionError("parts built without subsampling")

    monkeypatch.setattr(Objective, "parts", refuse)
    monkeypatch.setattr(search, "SUBSAMPLE_FROM", 16)  # 15 queries: one part
    monkeypatch.setattr(search, "PART_QUERIES", 3)
    a = train(data, "mga", budget=300, seed=1)
    b = train(data, "mga", budget=300, seed=1, params={"subsample": 1.0})
    assert np.array_equal(a.weights, b.weights) and a.history == b.history


@pytest.mark.parametrize(
    ("subsample", "queries", "parts"),
    [  # by hand: 1 below 2,000 queries, then floor(Q / 500); else round(1 / share), <= Q
        (0, 0, 1), (0, 999, 1), (0, 1999, 1), (0, 2000, 4), (0, 2499, 4), (0, 4700, 9),
        (0, 60_000, 120), (1, 5000, 1), (0.5, 10, 2), (0.3, 100, 3), (0.25, 100, 4),
        (0.01, 3, 3),
    ],
)  # fmt: skip
def test_part_count(subsample, queries, parts):
    assert search.part_count(subsample, queries) == parts


def test_the_automatic_share_is_the_explicit_one(monkeypatch):
    data = random_data(5, queries=43, features=5, tie_prone=False)
    monkeypatch.setattr(search, "SUBSAMPLE_FROM", 40)
    monkeypatch.setattr(search, "PART_QUERIES", 10)  # 43 queries: 4 parts
    for method in ("ga", "mga"):
        auto = train(data, method, budget=700, seed=2, params={"population": 12})
        share = train(
            data, method, budget=700, seed=2, params={"population": 12, "subsample": 0.25}
        )
        assert np.array_equal(auto.weights, share.weights) and auto.history == share.history


def test_mga_searches_the_first_of_its_simplex_phase_on_a_part(monkeypatch):
    data = random_data(6, queries=40, features=5, tie_prone=False)
    monkeypatch.setattr(search, "SUBSAMPLE_FROM", 40)
    monkeypatch.setattr(search, "PART_QUERIES", 10)
    seen = []  # every checkpoint: its weights, value and stage
    plain = search.Tracker.checkpoint

    def record(self, w, train_value, stage):
        seen.append((np.array(w), train_value, stage))
        plain(self, w, train_value, stage)

    monkeypatch.setattr(search.Tracker, "checkpoint", record)
    budget = 1200
    model = train(data, "mga", budget=budget, seed=4, params={"population": 10})
    assert budget - 12 <= model.parameters["evaluations"] <= budget
    stages = [s for _, _, s in seen]
    part = stages.index("nelder-mead (part)")
    assert all(s.startswith("ga") for s in stages[:part])
    assert stages[-1] == "nelder-mead" and "nelder-mead start" in stages[part:]
    # every checkpoint's value is that of all the queries (an objective built apart)
    whole = Objective(data.normalised("query"), "nDCG@10")
    for w, value, _ in seen:
        assert value == whole(w)[0]


def test_the_simplex_on_a_part_is_the_simplex_on_those_queries_alone():
    data = random_data(8, queries=30, features=4, tie_prone=False).normalised("query")
    whole = Objective(data, "nDCG@10")
    queries = np.sort(np.random.default_rng(0).permutation(30)[:9])
    part, alone = (Objective(data.subset(queries), "nDCG@10") for _ in range(2))
    start = np.random.default_rng(1).normal(size=4)
    tracker = search.Tracker(whole, 200)
    w, v = search.nelder_mead(
        tracker, None, budget=150, start=start, step=0.3, restarts=False, part=part
    )
    # alone, the start's value is scored first (one evaluation more)
    w2, v2 = search.nelder_mead(
        search.Tracker(alone, 200), None, budget=151, start=start, step=0.3, restarts=False
    )
    assert np.array_equal(w, w2) and v == v2
    assert whole.evaluations == part.evaluations + 1 == alone.evaluations  # + the check
    assert tracker.history[-1]["train"] == Objective(data, "nDCG@10")(w)[0]
    assert tracker.history[-1]["stage"] == "nelder-mead (part)"


@pytest.mark.parametrize("bad", [-0.5, 1.5, float("nan"), "half"])
def test_bad_subsample_is_refused(bad):
    with pytest.raises(CranfieldError, match="subsample"):
        train(random_data(1), "ga", budget=50, params={"subsample": bad})


def test_more_parts_than_queries_uses_one_query_a_part():
    data = random_data(4, queries=3, features=3)
    model = train(data, "ga", budget=60, seed=0, params={"subsample": 0.01, "population": 6})
    assert model.parameters["evaluations"] <= 60
