"""The rankers, declared once: name, kind, parameters with defaults, and reference.

:func:`train` fits one of them on ranking data (optionally selecting on validation
data) and returns a :class:`~cranfield.ltr.model.Model`. The linear rankers maximise a
cranfield measure directly (:mod:`cranfield.ltr.search`); ``lightgbm`` and ``xgboost``
are boosted-trees baselines optimising their own LambdaMART surrogates
(:mod:`cranfield.ltr.boosting`, extra ``ltr``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from ..errors import CranfieldError, ParameterError
from . import search
from .data import RankingData
from .model import Model
from .objective import Objective

DEFAULT_BUDGET = 16_000  # Nrf of Semenikhin & Denisova's experiments
#: Most features of the rankers that run the Nelder-Mead simplex method: its simplex
#: holds F + 1 vectors of F weights (SciPy keeps about three copies: 24 F² bytes,
#: 100 MB at 2,000 features, 600 MB at 5,000). The other rankers keep O(F) state.
SIMPLEX_MAX_FEATURES = 2_000


@dataclass(frozen=True)
class RankerDef:
    name: str
    summary: str
    reference: str
    fit: Callable | None = None  # linear: fit(tracker, rng, budget=..., **params)
    params: tuple[tuple[str, type, float, float, float], ...] = ()  # name, type, default, lo, hi
    linear: bool = True
    max_features: int | None = None  # refused above (state that grows with F²)


_GA_PARAMS = (
    ("population", int, 50, 2, 100_000),
    ("tournament", int, 3, 1, 1000),
    ("crossover", float, 0.9, 0.0, 1.0),
    ("alpha", float, 0.5, 0.0, 10.0),
    ("mutation", float, 0.1, 0.0, 1.0),
    ("sigma", float, 0.2, 0.0, 100.0),
    ("elitism", int, 2, 0, 100_000),
)

RANKERS: dict[str, RankerDef] = {
    d.name: d
    for d in (
        RankerDef(
            "mga",
            "genetic algorithm for 75% of the budget, then Nelder-Mead from its best",
            "Semenikhin & Denisova, 'Learning to rank method based on a modified genetic "
            "algorithm for the NDCG metric'; Nelder & Mead 1965",
            search.mga,
            (*_GA_PARAMS, ("switch", float, 0.75, 0.0, 1.0), ("step", float, 0.1, 1e-9, 100.0)),
            max_features=SIMPLEX_MAX_FEATURES,
        ),
        RankerDef(
            "ga",
            "real-coded genetic algorithm: tournament, BLX-alpha crossover, mutation, elitism",
            "Goldberg 1989; Eshelman & Schaffer 1993 (BLX-alpha)",
            search.genetic,
            _GA_PARAMS,
        ),
        RankerDef(
            "nelder-mead",
            "Nelder-Mead simplex method (SciPy), restarted from the best point",
            "Nelder & Mead, 'A simplex method for function minimization', 1965",
            search.nelder_mead,
            (("step", float, 0.1, 1e-9, 100.0),),
            max_features=SIMPLEX_MAX_FEATURES,
        ),
        RankerDef(
            "coordinate-ascent",
            "coordinate ascent with restarts and a line search per feature (RankLib's)",
            "Metzler & Croft, 'Linear feature-based models for information retrieval', 2007",
            search.coordinate_ascent,
            (
                ("restarts", int, 5, 1, 10_000),
                ("iterations", int, 25, 1, 1000),
                ("step_base", float, 0.05, 1e-9, 100.0),
                ("step_scale", float, 2.0, 1.0, 100.0),
                ("tolerance", float, 0.001, 0.0, 1.0),
            ),
        ),
        RankerDef(
            "random-search",
            "random unit weight vectors, the best kept",
            "Bergstra & Bengio, 'Random search for hyper-parameter optimization', 2012",
            search.random_search,
            (("batch", int, 200, 1, 1_000_000),),
        ),
        RankerDef(
            "lightgbm",
            "LightGBM lambdarank (boosted trees; extra 'ltr')",
            "Burges, 'From RankNet to LambdaRank to LambdaMART', 2010; Ke et al. 2017",
            params=(
                ("trees", int, 100, 1, 100_000),
                ("leaves", int, 31, 2, 100_000),
                ("learning_rate", float, 0.1, 1e-6, 10.0),
            ),
            linear=False,
        ),
        RankerDef(
            "xgboost",
            "XGBoost rank:ndcg (boosted trees; extra 'ltr')",
            "Chen & Guestrin, 'XGBoost: a scalable tree boosting system', 2016",
            params=(
                ("trees", int, 100, 1, 100_000),
                ("depth", int, 6, 1, 64),
                ("learning_rate", float, 0.1, 1e-6, 10.0),
            ),
            linear=False,
        ),
    )
}


def ranker(name: str) -> RankerDef:
    if name not in RANKERS:
        raise ParameterError("method", "one of " + ", ".join(RANKERS), name)
    return RANKERS[name]


def check_features(name: str, num_features: int) -> None:
    """Refuse a ranker whose state grows with the square of the feature count on data
    with more features than its ``max_features`` (before any work)."""
    d = ranker(name)
    if d.max_features is not None and num_features > d.max_features:
        others = ", ".join(r.name for r in RANKERS.values() if r.max_features is None)
        raise CranfieldError(
            f"{name} keeps a Nelder-Mead simplex of F + 1 vectors of F weights (memory "
            f"grows with F squared): at most {d.max_features:,} features, the data has "
            f"{num_features:,}; use another --method: {others}"
        )


def parameters(name: str, given: dict | None = None) -> dict:
    """The method's parameters: defaults, overridden by ``given`` (checked)."""
    d = ranker(name)
    out = {p[0]: p[2] for p in d.params}
    for key, value in (given or {}).items():
        spec = next((p for p in d.params if p[0] == key), None)
        if spec is None:
            names = ", ".join(p[0] for p in d.params) or "none"
            raise ParameterError(f"{name} parameter", f"one of {names}", key)
        _, kind, _, lo, hi = spec
        try:
            v = kind(float(value)) if kind is int else float(value)
            ok = (kind is not int or float(value) == v) and lo <= v <= hi
        except (TypeError, ValueError, OverflowError):
            ok = False
        if not ok:
            what = "an integer" if kind is int else "a number"
            raise ParameterError(f"{name} {key}", f"{what} in [{lo:g}, {hi:g}]", value)
        out[key] = v
    return out


@contextmanager
def single_threaded_blas():
    """BLAS on one thread while searching: the products are small and many, and idle
    BLAS threads only compete for the cores (threadpoolctl when installed)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        yield
        return
    with threadpool_limits(1, user_api="blas"):
        yield


def train(
    data: RankingData,
    method: str = "mga",
    objective: str = "nDCG@10",
    *,
    vali: RankingData | None = None,
    budget: int = DEFAULT_BUDGET,
    seed: int = 0,
    normalisation: str = "query",
    convention: str = "trec",
    params: dict | None = None,
    progress=None,
) -> Model:
    """Train a ranker.

    Parameters
    ----------
    data, vali
        Training data; validation data selects the checkpoint (best generation, early
        stopping) when given.
    method
        A name of :data:`RANKERS`.
    objective
        The measure maximised (``'nDCG@10'``, ``'0.5*nDCG@10 + 0.5*P@10'``); for the
        boosted baselines it only names the value reported.
    budget
        Objective evaluations on the training data (linear rankers).
    seed
        Seed of the random generator: the same seed gives the same model.
    progress
        Called with the number of evaluations done at each checkpoint.
    normalisation
        ``query`` (LETOR's QueryLevelNorm) or ``none``.
    """
    d = ranker(method)
    budget = search.check_budget(budget)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ParameterError("seed", "an integer >= 0", seed)
    p = parameters(method, params)
    check_features(method, data.num_features)
    train_data = data.normalised(normalisation)
    f = train_data.num_features
    vali_data = None
    if vali is not None:
        vali_data = vali.with_features(f).normalised(normalisation)
    obj = Objective(train_data, objective, convention)
    vali_obj = None if vali_data is None else Objective(vali_data, obj.terms, convention)
    start = time.perf_counter()
    model = Model(
        method=method,
        num_features=f,
        normalisation=normalisation,
        objective=str(obj),
        convention=convention,
        parameters={**p, "budget": budget} if d.linear else p,
        seed=int(seed),
    )
    if not d.linear:
        from .boosting import fit_boosted

        model.booster = fit_boosted(method, train_data, vali_data, p, int(seed))
        model.seconds = time.perf_counter() - start
        model.train_value = float(_value(obj, model, train_data))
        if vali_obj is not None:
            model.vali_value = float(_value(vali_obj, model, vali_data))
        return model
    rng = np.random.default_rng(seed)
    tracker = search.Tracker(obj, budget, vali_obj, progress=progress)
    with single_threaded_blas():
        d.fit(tracker, rng, budget=budget, **p)
    model.seconds = time.perf_counter() - start
    model.weights = tracker.best_w
    model.history = tracker.history
    model.train_value = float(obj(tracker.best_w)[0])
    if vali_obj is not None:
        model.vali_value = float(vali_obj(tracker.best_w)[0])
    model.parameters["evaluations"] = int(obj.evaluations) - 1
    return model


def _value(obj: Objective, model: Model, data: RankingData) -> float:
    """The objective of a model's scores (any scorer, via its per-document scores)."""
    scores = model.scores(data) if model.weights is None else None
    if scores is None:
        return float(obj(model.weights)[0])
    # a scorer that is not linear: score column as the single "feature", weight 1
    from dataclasses import replace

    one = Objective(replace(data, features=scores[:, None]), obj.terms, obj.convention)
    return float(one(np.array([1.0]))[0])
