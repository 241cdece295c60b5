"""Derivative-free searches for the weights of a linear ranking function ``w . x``.

Each search maximises an :class:`~cranfield.ltr.objective.Objective` within a budget of
objective evaluations (one evaluation = one weight vector scored on the training data)
and reports checkpoints (candidate weights with their training value) to a
:class:`Tracker`, which keeps the best one -- by the validation objective when there is
one (the best generation / early stopping), else by the training objective.

* :func:`genetic` -- a real-coded genetic algorithm (Holland 1975; Goldberg 1989):
  tournament selection, blend crossover BLX-alpha (Eshelman & Schaffer 1993), Gaussian
  mutation, elitism; weight vectors kept at unit length (a ranking does not change when
  the weights are scaled by a positive number).
* :func:`mga` -- the modified genetic algorithm of Semenikhin & Denisova ("Learning to
  rank method based on a modified genetic algorithm for the NDCG metric", Omsk State
  Technical University): the genetic algorithm for ``switch`` (0.75) of the budget
  (Nrf = 16,000 evaluations in the article), then the Nelder-Mead simplex method
  (Nelder & Mead 1965; SciPy's implementation) from the best individual for the rest.
* :func:`nelder_mead` -- the simplex method alone, from the normalised all-ones vector.
* :func:`coordinate_ascent` -- Metzler & Croft, "Linear feature-based models for
  information retrieval", Information Retrieval 10 (2007), as RankLib implements it:
  restarts, a line search along each feature in turn (steps growing geometrically in
  both directions, every step of one feature scored in one batch), weights normalised
  to unit L1 norm.
* :func:`random_search` -- unit vectors drawn uniformly at random, scored in batches.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ParameterError
from . import simplex as simplex_search

if TYPE_CHECKING:
    from .objective import Objective

#: Candidate weight vectors built and scored at a time by the searches that score many
#: variations of one vector (coordinate ascent's line search, random search's batch):
#: at most this many weights (32 MB), so with millions of (sparse) features the
#: candidates cost O(F), not batch x F. The values and the random stream are those of
#: the whole batch at once (a smaller batch only when batch x F exceeds it).
CHUNK_CELLS = 1 << 22


def _chunks(n: int, f: int):
    """``(start, stop)`` of consecutive slices of ``n`` candidates of ``f`` weights."""
    step = max(1, CHUNK_CELLS // max(f, 1))
    return ((a, min(a + step, n)) for a in range(0, n, step))


@dataclass
class Tracker:
    """Checkpoints of a search; keeps the best by validation (or training) value."""

    objective: object
    budget: int
    vali: object | None = None
    history: list = field(default_factory=list)
    best_w: np.ndarray | None = None
    best_key: tuple = (-np.inf, -np.inf)
    progress: object | None = None  # called with the evaluations done at each checkpoint

    @property
    def left(self) -> int:
        return self.budget - self.objective.evaluations

    def checkpoint(self, w: np.ndarray, train: float, stage: str) -> None:
        entry = {"evaluations": int(self.objective.evaluations), "stage": stage, "train": train}
        key = (train, train)
        if self.vali is not None:
            v = float(self.vali(w)[0])
            entry["vali"] = v
            key = (v, train)
        self.history.append(entry)
        if self.progress is not None:
            self.progress(entry["evaluations"])
        if key > self.best_key:
            self.best_key = key
            self.best_w = np.array(w, dtype=np.float64)


def _unit(w: np.ndarray, rng: np.random.Generator, norm: str = "l2") -> np.ndarray:
    """Rows scaled to unit norm; an all-zero row becomes a random unit vector."""
    w = np.atleast_2d(np.asarray(w, dtype=np.float64))
    size = np.abs(w).sum(axis=1) if norm == "l1" else np.sqrt((w * w).sum(axis=1))
    zero = ~(size > 0) | ~np.isfinite(size)
    if zero.any():
        w = w.copy()
        w[zero] = rng.normal(size=(int(zero.sum()), w.shape[1]))
        return _unit(w, rng, norm)
    return w / size[:, None]


#: Share of mga's simplex phase searched on one part of the queries when its genetic
#: algorithm was subsampled (the rest on all of them): on 84,048 documents
#: (benchmarks/README.md) 0.75 kept the test nDCG@10 of a search on all the queries
#: where 1 lost 0.002.
SIMPLEX_PART_SHARE = 0.75

#: The automatic subsample (``subsample=0``, the default): below ``SUBSAMPLE_FROM``
#: training queries (every LETOR 3.0/4.0 fold) all of them, from it on
#: ``floor(Q / PART_QUERIES)`` parts of 500-999 queries each, a part never smaller than
#: an MQ2008 fold (470 training queries), on which the search does well.
SUBSAMPLE_FROM = 2_000
PART_QUERIES = 500


def part_count(subsample: float, queries: int) -> int:
    """Parts the queries are split into: ``round(1 / subsample)`` (at most one a
    query) for a share in (0, 1), 1 for 1, and for 0 (automatic) 1 below
    :data:`SUBSAMPLE_FROM` queries, else ``floor(queries / PART_QUERIES)``."""
    if subsample == 0:
        return 1 if queries < SUBSAMPLE_FROM else queries // PART_QUERIES
    return min(int(round(1 / subsample)), max(queries, 1)) if subsample < 1 else 1


def genetic(tracker: Tracker, rng: np.random.Generator, **params) -> tuple[np.ndarray, float]:
    """Real-coded genetic algorithm for ``budget`` evaluations; the best individual
    and its value. Each generation's best is a checkpoint.

    ``subsample`` below 1 scores each generation on a part of the queries: they are
    split at random once into ``k = round(1 / subsample)`` parts of equal size
    (:meth:`~cranfield.ltr.objective.Objective.parts`; with ``subsample=0``, the
    default, all the queries below 2,000 training queries and ``k = floor(Q / 500)``
    from 2,000 on, :func:`part_count`), generation ``g`` is scored on
    part ``g mod k`` (the elites scored again there, so that a generation is compared on
    one part), and each generation's best is scored on all the queries for its
    checkpoint (the value the tracker keeps and reports). Every vector scored counts
    as one evaluation. A generation then costs about ``1/k`` of a full one: stochastic
    fitness evaluation on subsets of the training cases, as in genetic programming's
    random subset selection (Gathercole & Ross, "Dynamic training subset selection for
    supervised learning in genetic programming", PPSN III, 1994).
    """
    w, v, _ = _genetic(tracker, rng, **params)
    return w, v


def _genetic(
    tracker: Tracker,
    rng: np.random.Generator,
    *,
    budget: int,
    population: int = 50,
    tournament: int = 3,
    crossover: float = 0.9,
    alpha: float = 0.5,
    mutation: float = 0.1,
    sigma: float = 0.2,
    elitism: int = 2,
    subsample: float = 0.0,
    start: np.ndarray | None = None,
) -> tuple[np.ndarray, float, tuple[list, int]]:
    """:func:`genetic`, also returning the parts of the queries (``[objective]`` when
    not subsampled) and the number of generations."""
    obj = tracker.objective
    f = obj.num_features
    k = part_count(subsample, obj.layout.num_queries)
    sub = k > 1 and budget >= 3
    pop = max(2, min(population, budget - sub))
    elitism = min(elitism, pop - 1)
    x = _unit(rng.uniform(-1, 1, size=(pop, f)), rng)
    if start is not None:
        x[0] = _unit(start, rng)[0]
    parts = obj.parts(k, rng) if sub else [obj]
    first = obj.evaluations

    def score(w: np.ndarray, generation: int) -> np.ndarray:
        part = parts[generation % len(parts)]
        values = part(w)
        if part is not obj:  # the budget counts every vector scored
            obj.evaluations += len(w)
        return values

    fit = score(x, 0)
    generation = 0
    value = None
    while True:
        best = int(np.argmax(fit))
        value = float(obj(x[best])[0]) if sub else float(fit[best])
        tracker.checkpoint(x[best], value, f"ga generation {generation}")
        used = obj.evaluations - first
        # subsampled: the elites are scored again, and the next checkpoint costs one
        n_child = min(pop - elitism, budget - used - (elitism + 1 if sub else 0))
        if n_child <= 0:
            break
        # tournament selection: the fittest of `tournament` random individuals
        entrants = rng.integers(0, pop, size=(n_child, 2, tournament))
        winners = np.take_along_axis(entrants, np.argmax(fit[entrants], axis=2)[..., None], 2)
        p1, p2 = x[winners[:, 0, 0]], x[winners[:, 1, 0]]
        # BLX-alpha: each gene uniform on the parents' interval widened by alpha
        u = rng.uniform(-alpha, 1 + alpha, size=p1.shape)
        cross = rng.random(n_child) < crossover
        child = np.where(cross[:, None], p1 + u * (p2 - p1), p1)
        mutate = rng.random(child.shape) < mutation
        child = child + mutate * rng.normal(0.0, sigma, size=child.shape)
        child = _unit(child, rng)
        child_fit = score(child, generation + 1)
        elite = np.argsort(-fit, kind="stable")[:elitism]
        x = np.vstack((x[elite], child))
        elite_fit = score(x[:elitism], generation + 1) if sub and elitism else fit[elite]
        fit = np.concatenate((elite_fit, child_fit))
        generation += 1
    return x[best], value, (parts, generation)


def nelder_mead(
    tracker: Tracker,
    rng: np.random.Generator,
    *,
    budget: int,
    start: np.ndarray | None = None,
    step: float = 0.1,
    restarts: bool = True,
    part: Objective | None = None,
) -> tuple[np.ndarray, float]:
    """The Nelder-Mead simplex method (:func:`cranfield.ltr.simplex.minimise`: SciPy's
    decisions, its initial simplex and shrink steps scored in one batch) maximising the
    objective for ``budget`` evaluations, from ``start`` (default: the normalised
    all-ones vector).

    The initial simplex is ``start`` and ``start + step * e_i``. The objective is
    piecewise constant, so the simplex often collapses early; with ``restarts`` it
    starts again from the best point with half the step while budget is left.

    ``part`` (an objective on some of the queries, :meth:`Objective.parts`): the
    simplex searches on it instead (every vector counting as one evaluation of the
    budget), and the best point of each run is checked on all the queries for its
    checkpoint (one evaluation more); the value returned is then the part's.
    """
    obj = tracker.objective
    f = obj.num_features
    x0 = np.full(f, 1.0 / np.sqrt(f)) if start is None else np.asarray(start, dtype=np.float64)
    searched = obj if part is None else part
    if part is None:
        best_x, best_v = x0.copy(), float(obj(x0)[0])
        tracker.checkpoint(best_x, best_v, "nelder-mead start")
    else:
        best_x, best_v = x0.copy(), -np.inf
    stop = obj.evaluations - (part is None) + budget

    def negative(points: np.ndarray) -> np.ndarray:
        nonlocal best_x, best_v
        v = searched(points)
        if searched is not obj:  # the budget counts every vector scored
            obj.evaluations += len(points)
        # the first best in scoring order, as one point at a time would keep it
        i = int(np.argmax(v))
        if v[i] > best_v:
            best_x, best_v = np.array(points[i]), float(v[i])
        return -v

    while obj.evaluations < stop and step > 1e-6:
        simplex = np.vstack((best_x, best_x + step * np.eye(f)))
        before = best_v
        simplex_search.minimise(
            negative,
            simplex,
            stop - obj.evaluations,
            xatol=1e-8,
            fatol=1e-12,
            adaptive=f > 10,
        )
        if part is None:
            tracker.checkpoint(best_x, best_v, "nelder-mead")
        else:
            tracker.checkpoint(best_x, float(obj(best_x)[0]), "nelder-mead (part)")
        if not restarts:
            break
        if best_v <= before:
            step /= 2
    return best_x, best_v


def mga(
    tracker: Tracker,
    rng: np.random.Generator,
    *,
    budget: int,
    switch: float = 0.75,
    **ga_params,
) -> tuple[np.ndarray, float]:
    """The genetic algorithm for ``floor(switch * budget)`` evaluations, then
    Nelder-Mead from its best individual for the rest of the budget.

    When the genetic algorithm scored its generations on ``k > 1`` parts of the queries
    (``subsample``, automatic by default: :func:`part_count`), the first
    :data:`SIMPLEX_PART_SHARE` of the simplex phase's evaluations search on one part
    (the one the next generation would have taken), its best point checked on all the
    queries, and the rest, from that point, on all the queries: the simplex's many
    single steps cost about ``1/k`` as much where most of the climb is made, and its
    last steps follow the whole objective. With one part the phase is the simplex
    method on all the queries, as in the article.
    """
    step = ga_params.pop("step", 0.1)
    ga_budget = int(np.floor(switch * budget))
    w, v, (parts, generation) = _genetic(tracker, rng, budget=ga_budget, **ga_params)
    left = budget - ga_budget
    first = int(SIMPLEX_PART_SHARE * left)
    if len(parts) > 1 and first > 1:
        part = parts[(generation + 1) % len(parts)]
        # budget first - 1: the last of its evaluations checks its best on all queries
        w, v = nelder_mead(tracker, rng, budget=first - 1, start=w, step=step, part=part)
        left -= first
    if left > 0:
        w, v = nelder_mead(tracker, rng, budget=left, start=w, step=step)
    return w, v


def random_search(
    tracker: Tracker, rng: np.random.Generator, *, budget: int, batch: int = 200
) -> tuple[np.ndarray, float]:
    """Unit weight vectors drawn at random (Gaussian directions), scored in batches."""
    obj = tracker.objective
    best_w, best_v = None, -np.inf
    used = 0
    while used < budget:
        n = min(batch, budget - used)
        for a, b in _chunks(n, obj.num_features):
            w = _unit(rng.normal(size=(b - a, obj.num_features)), rng)
            v = obj(w)
            i = int(np.argmax(v))
            if v[i] > best_v:  # the first best of the batch, as one argmax over it
                best_w, best_v = w[i].copy(), float(v[i])
        used += n
        tracker.checkpoint(best_w, best_v, "random batch")
    return best_w, best_v


def coordinate_ascent(
    tracker: Tracker,
    rng: np.random.Generator,
    *,
    budget: int,
    restarts: int = 5,
    iterations: int = 25,
    step_base: float = 0.05,
    step_scale: float = 2.0,
    tolerance: float = 0.001,
) -> tuple[np.ndarray, float]:
    """Coordinate ascent (Metzler & Croft 2007) as in RankLib.

    The first start is the uniform vector ``1/F``, later ones random; passes over the
    features in random order, each a line search: ``iterations`` steps in each
    direction, ``step_base * step_scale^j`` (relative to the weight, or absolute when it
    is 0). The weights are kept at unit L1 norm. A start ends when a pass improves the
    objective by less than ``tolerance``.
    """
    obj = tracker.objective
    f = obj.num_features
    best_w, best_v = None, -np.inf
    stop = obj.evaluations + budget
    steps = step_base * step_scale ** np.arange(iterations)
    for r in range(restarts):
        if obj.evaluations >= stop:
            break
        w = np.full(f, 1.0 / f) if r == 0 else _unit(rng.random(f), rng, "l1")[0]
        v = float(obj(w)[0])
        while obj.evaluations < stop:
            start_v = v
            for j in rng.permutation(f):
                left = stop - obj.evaluations
                if left <= 0:
                    break
                size = steps * (abs(w[j]) if w[j] != 0 else 1.0)
                deltas = np.concatenate((size, -size))[:left]
                best_cand, best_cand_v = None, v
                for a, b in _chunks(len(deltas), f):
                    cand = np.repeat(w[None], b - a, axis=0)
                    cand[:, j] += deltas[a:b]
                    cand = _unit(cand, rng, "l1")
                    values = obj(cand)
                    i = int(np.argmax(values))
                    if values[i] > best_cand_v:
                        best_cand, best_cand_v = cand[i].copy(), float(values[i])
                if best_cand is not None:
                    w, v = best_cand, best_cand_v
            tracker.checkpoint(w, v, f"coordinate ascent start {r + 1}")
            if v - start_v < tolerance:
                break
        if v > best_v:
            best_w, best_v = w, v
    return best_w, best_v


def check_budget(budget) -> int:
    if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or budget < 1:
        raise ParameterError("budget", "a positive integer (objective evaluations)", budget)
    return int(budget)
