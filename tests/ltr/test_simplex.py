"""The batched Nelder-Mead simplex (cranfield.ltr.simplex) against SciPy's
``minimize(method="Nelder-Mead")``, the reference: the same points scored in the same
order, bit for bit, and the same MGA / nelder-mead models as the SciPy driver gave."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize  # the reference (a test dependency)

from cranfield.ltr import search, simplex
from cranfield.ltr.objective import Objective
from cranfield.ltr.rankers import train

from .helpers import random_data


def _functions(rng: np.random.Generator, n: int):
    """Smooth, piecewise-constant (ties, shrinks) and flat objectives of n variables."""
    a = rng.normal(size=(n, n))
    c = rng.normal(size=n)
    yield lambda x: float(((x - c) @ a) @ ((x - c) @ a))
    yield lambda x: float(np.floor(4 * np.sin(x @ c)) + np.floor(3 * np.cos(x[0])))
    yield lambda x: float(-np.floor(2 * np.abs(x).sum()))
    yield lambda x: 1.0


def _scipy_points(f, sim, maxfev, **options):
    seen = []

    def g(x):
        seen.append(np.array(x))
        return f(x)

    optimize.minimize(
        g, sim[0], method="Nelder-Mead",
        options={"initial_simplex": sim, "maxfev": maxfev, **options},
    )  # fmt: skip
    return np.array(seen).reshape(-1, sim.shape[1])


def _our_points(f, sim, maxfev, **options):
    seen = []

    def values(points):
        seen.extend(np.array(p) for p in points)
        return np.array([f(p) for p in points])

    calls = simplex.minimise(values, sim, maxfev, **options)
    assert calls == len(seen)
    return np.array(seen).reshape(-1, sim.shape[1])


@pytest.mark.parametrize("seed", range(12))
def test_same_points_as_scipy_in_the_same_order(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 16))
    for f in _functions(rng, n):
        x0 = rng.normal(size=n)
        sim = np.vstack((x0, x0 + rng.choice([0.1, 1e-3, 2.0]) * np.eye(n)))
        for maxfev in (1, n, n + 1, n + 2, int(rng.integers(n + 3, 40 * n + 60)), 400):
            for options in (
                {"adaptive": n > 10, "xatol": 1e-8, "fatol": 1e-12},
                {"adaptive": bool(rng.integers(2))},
            ):
                ours = _our_points(f, sim, maxfev, **options)
                theirs = _scipy_points(f, sim, maxfev, **options)
                assert ours.shape == theirs.shape, (n, maxfev, options)
                assert np.array_equal(ours, theirs), (n, maxfev, options)


def test_shrink_steps_are_scored_in_one_batch():
    batches = []

    def values(points):
        batches.append(len(points))
        return np.zeros(len(points))  # flat: every step contracts, then shrinks

    simplex.minimise(values, np.vstack((np.zeros(5), np.eye(5))), 40)
    assert batches[0] == 6 and 5 in batches[1:] and sum(batches) == 40


def _scipy_minimise(values, sim, maxfev, **options):
    """SciPy's simplex scoring one point at a time (the search before this module)."""
    calls = [0]

    def one(x):
        calls[0] += 1
        return float(values(x[None])[0])

    if maxfev > 0:
        optimize.minimize(
            one, sim[0], method="Nelder-Mead",
            options={"initial_simplex": sim, "maxfev": maxfev, **options},
        )  # fmt: skip
    return calls[0]


@pytest.mark.parametrize(
    ("seed", "method", "features", "budget", "backend"),
    [
        (0, "mga", 4, 300, "auto"),
        (1, "mga", 12, 500, "auto"),
        (2, "nelder-mead", 6, 257, "auto"),
        (3, "nelder-mead", 14, 400, "auto"),
        (4, "mga", 5, 333, "general"),
        (5, "nelder-mead", 3, 150, "general"),
    ],
)
def test_models_equal_the_scipy_driver(monkeypatch, seed, method, features, budget, backend):
    data = random_data(seed, queries=20, features=features, tie_prone=seed % 2 == 0)
    monkeypatch.setattr(Objective, "default_backend", backend)
    if method == "mga":  # the whole ranker, its simplex phase through either driver
        ours = train(data, "mga", budget=budget, seed=seed, params={"population": 10})
        monkeypatch.setattr(simplex, "minimise", _scipy_minimise)
        theirs = train(data, "mga", budget=budget, seed=seed, params={"population": 10})
        assert np.array_equal(ours.weights, theirs.weights)
        assert ours.train_value == theirs.train_value
        assert ours.history == theirs.history
        return
    results = []
    for minimise in (simplex.minimise, _scipy_minimise):
        monkeypatch.setattr(simplex, "minimise", minimise)
        obj = Objective(data.normalised("query"), "nDCG@10")
        tracker = search.Tracker(obj, budget)
        w, v = search.nelder_mead(tracker, np.random.default_rng(seed), budget=budget, step=0.3)
        results.append((w, v, obj.evaluations, tracker.history, tracker.best_w))
    (w1, v1, e1, h1, b1), (w2, v2, e2, h2, b2) = results
    assert np.array_equal(w1, w2) and v1 == v2 and e1 == e2 == budget
    assert h1 == h2 and np.array_equal(b1, b2)


class _Steps:
    """A piecewise-constant objective with many ties (values on a coarse grid)."""

    def __init__(self, seed: int, f: int):
        rng = np.random.default_rng(seed)
        self.c, self.d = rng.normal(size=f), rng.normal(size=f)
        self.num_features, self.evaluations = f, 0

    def __call__(self, w):
        w = np.atleast_2d(w)
        self.evaluations += len(w)
        return np.floor(2 * np.sin(w @ self.c) + np.cos(3 * (w @ self.d)))


@pytest.mark.parametrize("seed", range(16))
def test_tied_values_keep_the_first_best_as_scipy_s_order_did(monkeypatch, seed):
    f = 2 + seed
    # start at a low value, so that several vertices of a batch tie above it
    candidates = np.random.default_rng(seed).normal(size=(200, f))
    start = candidates[np.argmin(_Steps(seed, f)(candidates))]
    runs = []
    for minimise in (simplex.minimise, _scipy_minimise):
        monkeypatch.setattr(simplex, "minimise", minimise)
        obj = _Steps(seed, f)
        tracker = search.Tracker(obj, 300)
        rng = np.random.default_rng(0)
        w, v = search.nelder_mead(tracker, rng, budget=300, step=0.7, start=start)
        runs.append((w, v, obj.evaluations, tracker.history))
    assert np.array_equal(runs[0][0], runs[1][0]) and runs[0][1:] == runs[1][1:]
