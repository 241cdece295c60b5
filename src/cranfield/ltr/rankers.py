"""The rankers, declared once (:class:`RankerDef`, the one declaration shape of
cranfield's registries): name, parameters with their ranges, formula, reference and
the search or trainer itself.

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
from typing import Any

import numpy as np

from ..core.declarations import Declaration, Param, Registry, integer_in, number_in
from ..errors import CranfieldError, ParameterError
from . import boosting, search
from .data import RankingData
from .model import Model
from .objective import Objective

DEFAULT_BUDGET = 16_000  # Nrf of Semenikhin & Denisova's experiments
#: Most features of the rankers that run the Nelder-Mead simplex method: its simplex
#: holds F + 1 vectors of F weights (about three copies are kept: 24 F² bytes,
#: 100 MB at 2,000 features, 600 MB at 5,000). The other rankers keep O(F) state.
SIMPLEX_MAX_FEATURES = 2_000


class RankerDef(Declaration):
    """Declaration of a ranker (:class:`~cranfield.core.declarations.Declaration`).

    A linear ranker's ``behaviour`` searches weights ``w`` of the scores ``w . x``:
    ``behaviour(tracker, rng, budget=..., **params)`` (:mod:`cranfield.ltr.search`),
    every checkpoint going to the ``tracker``. A boosted one (``linear=False``) trains
    ``behaviour(train, vali, params, seed) -> model text`` and scores with
    ``predict(model_text, features) -> scores`` (:mod:`cranfield.ltr.boosting`).
    ``max_features``: refused above that many features (state growing with F²).
    """

    __slots__ = ("linear", "max_features", "predict")
    _no_repr = ("behaviour", "predict")
    linear: bool
    max_features: int | None
    predict: Callable | None

    def __init__(
        self,
        *declared: Any,
        linear: bool = True,
        max_features: int | None = None,
        predict: Callable | None = None,
        **named: Any,
    ) -> None:
        """``declared``/``named``: the fields of :class:`Declaration`, then these."""
        super().__init__(*declared, **named)
        if linear == (predict is not None):
            raise ValueError(f"{self.name}: a boosted ranker (only) declares predict=")
        object.__setattr__(self, "linear", linear)
        object.__setattr__(self, "max_features", max_features)
        object.__setattr__(self, "predict", predict)


#: The rankers of ``cranfield ltr`` (``--method``), in the order shown; each declared once.
RANKERS: Registry = Registry("ranker")

_GA_PARAMS = (
    Param("population", int, 50, "individuals per generation", **integer_in(2, 100_000)),
    Param("tournament", int, 3, "entrants per tournament selection", **integer_in(1, 1000)),
    Param("crossover", float, 0.9, "probability that a child is crossed", **number_in(0, 1)),
    Param("alpha", float, 0.5, "BLX-alpha's widening of the parents' interval", **number_in(0, 10)),
    Param("mutation", float, 0.1, "probability that a weight is mutated", **number_in(0, 1)),
    Param("sigma", float, 0.2, "standard deviation of a mutation", **number_in(0, 100)),
    Param("elitism", int, 2, "best individuals kept unchanged", **integer_in(0, 100_000)),
    Param(
        "subsample",
        float,
        0.0,
        "share of the queries each generation is scored on (1: all; below 1: "
        "round(1/subsample) random parts taken in turn, each generation's best "
        "checked on all; 0: automatic, all of them below 2,000 training queries, "
        "else floor(Q/500) parts; mga also runs the first 75% of its simplex phase "
        "on one part)",
        **number_in(0, 1),
    ),
)
_STEP = Param("step", float, 0.1, "size of the initial simplex", **number_in(1e-9, 100))
_GA_FORMULA = (
    "tournament selection; child = p1 + u (p2 - p1), u ~ U(-alpha, 1 + alpha) per weight "
    "(BLX-alpha) with probability crossover, + N(0, sigma^2) per weight with probability "
    "mutation; rows rescaled to ||w||_2 = 1"
)
_BOOSTED = (
    Param("trees", int, 100, "boosting rounds (at most, with --vali)", **integer_in(1, 100_000)),
)
_LEARNING_RATE = Param("learning_rate", float, 0.1, "shrinkage of each tree", **number_in(1e-6, 10))
_LAMBDAMART = (
    "LambdaMART: boosted regression trees on the lambda-gradients of nDCG, gains "
    "2^label - 1; early stopping on nDCG@10 of --vali (20 rounds)"
)

RANKERS.register(
    RankerDef(
        "mga",
        search.mga,
        "genetic algorithm for 75% of the budget, then Nelder-Mead from its best",
        f"ga for floor(switch * budget) evaluations ({_GA_FORMULA}), then nelder-mead "
        "from its best individual for the rest (when the ga ran on k > 1 parts of the "
        "queries: the first 75% of it on one part, its best checked on all)",
        "Semenikhin & Denisova, 'Learning to rank method based on a modified genetic "
        "algorithm for the NDCG metric'; Nelder & Mead 1965",
        (
            *_GA_PARAMS,
            Param(
                "switch",
                float,
                0.75,
                "share of the budget for the genetic algorithm",
                **number_in(0, 1),
            ),
            _STEP,
        ),
        max_features=SIMPLEX_MAX_FEATURES,
    )
)
RANKERS.register(
    RankerDef(
        "ga",
        search.genetic,
        "real-coded genetic algorithm: tournament selection, BLX-alpha crossover, Gaussian "
        "mutation, elitism",
        _GA_FORMULA,
        "Goldberg 1989; Eshelman & Schaffer 1993 (BLX-alpha)",
        _GA_PARAMS,
    )
)
RANKERS.register(
    RankerDef(
        "nelder-mead",
        search.nelder_mead,
        "Nelder-Mead simplex method (SciPy's rules) from the normalised all-ones vector, restarted "
        "from the best point with half the step while budget is left",
        "simplex {w0, w0 + step e_i}: reflection, expansion, contraction, shrink (SciPy's rules; the initial simplex and a shrink scored in one batch); "
        "when it collapses, restarted from the best point with half the step",
        "Nelder & Mead, 'A simplex method for function minimization', 1965",
        (_STEP,),
        max_features=SIMPLEX_MAX_FEATURES,
    )
)
RANKERS.register(
    RankerDef(
        "coordinate-ascent",
        search.coordinate_ascent,
        "coordinate ascent with restarts and a line search per feature (RankLib's)",
        "starts from 1/F, then random; per feature in random order, a line search over "
        "w_f +- step_base * step_scale^j (j < iterations; both directions scored as one "
        "batch); ||w||_1 = 1; a start ends when a pass gains less than tolerance",
        "Metzler & Croft, 'Linear feature-based models for information retrieval', 2007",
        (
            Param(
                "restarts",
                int,
                5,
                "starts (the first uniform, then random)",
                **integer_in(1, 10_000),
            ),
            Param(
                "iterations",
                int,
                25,
                "steps of a line search in each direction",
                **integer_in(1, 1000),
            ),
            Param(
                "step_base",
                float,
                0.05,
                "first step, relative to the weight",
                **number_in(1e-9, 100),
            ),
            Param("step_scale", float, 2.0, "growth of the step", **number_in(1, 100)),
            Param(
                "tolerance", float, 0.001, "least gain of a pass that goes on", **number_in(0, 1)
            ),
        ),
    )
)
RANKERS.register(
    RankerDef(
        "random-search",
        search.random_search,
        "random unit weight vectors, the best kept",
        "w = z / ||z||_2, z ~ N(0, I), in batches; the best kept",
        "Bergstra & Bengio, 'Random search for hyper-parameter optimization', 2012",
        (Param("batch", int, 200, "vectors scored at once", **integer_in(1, 1_000_000)),),
    )
)
RANKERS.register(
    RankerDef(
        "lightgbm",
        boosting.fit_lightgbm,
        "LightGBM lambdarank (boosted trees; extra 'ltr')",
        _LAMBDAMART,
        "Burges, 'From RankNet to LambdaRank to LambdaMART', 2010; Ke et al. 2017",
        (
            *_BOOSTED,
            Param("leaves", int, 31, "leaves per tree", **integer_in(2, 100_000)),
            _LEARNING_RATE,
        ),
        linear=False,
        predict=boosting.predict_lightgbm,
    )
)
RANKERS.register(
    RankerDef(
        "xgboost",
        boosting.fit_xgboost,
        "XGBoost rank:ndcg (boosted trees; extra 'ltr')",
        _LAMBDAMART,
        "Chen & Guestrin, 'XGBoost: a scalable tree boosting system', 2016",
        (*_BOOSTED, Param("depth", int, 6, "depth of a tree", **integer_in(1, 64)), _LEARNING_RATE),
        linear=False,
        predict=boosting.predict_xgboost,
    )
)


def ranker(name: str) -> RankerDef:
    """The ranker called ``name`` (exactly); an unknown one lists them all."""
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
    """The method's parameters: defaults, overridden by ``given`` (checked against the
    declared ranges; a ParameterError names the parameter)."""
    return ranker(name).resolve(dict(given or {}))


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
        model.booster = d.behaviour(train_data, vali_data, p, int(seed))
        model.seconds = time.perf_counter() - start
        model.train_value = float(_value(obj, model, train_data))
        if vali_obj is not None:
            model.vali_value = float(_value(vali_obj, model, vali_data))
        return model
    rng = np.random.default_rng(seed)
    tracker = search.Tracker(obj, budget, vali_obj, progress=progress)
    with single_threaded_blas():
        d.behaviour(tracker, rng, budget=budget, **p)
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
