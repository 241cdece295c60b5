"""Boosted-trees baselines: LightGBM lambdarank and XGBoost rank:ndcg (extra ``ltr``).

Both are LambdaMART (Burges, "From RankNet to LambdaRank to LambdaMART: an overview",
2010): gradient-boosted trees on a surrogate of nDCG, the state of the art the linear
rankers are compared with. Imported lazily; a missing package fails with a one-line
install hint. The trained model is kept as the library's own model text inside the
cranfield model file.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError, require
from .data import RankingData
from .sparse import is_sparse


def _matrix(x):
    """What the libraries read: the dense matrix, or sparse rows as SciPy's CSR.

    LightGBM reads a CSR matrix's absent entries as the value 0 (``zero_as_missing``
    is false by default), as in the dense matrix. XGBoost reads them as *missing*
    (its LibSVM and CSR inputs leave absent features missing), so it is given
    ``missing=0.0`` on dense and sparse data alike: a zero is missing either way, and
    both layouts train the same trees."""
    return x.to_scipy() if is_sparse(x) else x


def _groups(data: RankingData) -> np.ndarray:
    return np.diff(data.offsets)


def _max_label(*datas) -> int:
    return int(max(int(d.labels.max()) for d in datas if d is not None))


MAX_LABEL = 31  # both libraries use gains 2^label - 1 (XGBoost refuses labels above 31)


def _check_labels(method: str, train: RankingData, vali) -> None:
    for d in (train, vali):
        if d is not None and int(d.labels.max()) > MAX_LABEL:
            raise InputError(
                f"{method} ranks with gains 2^label - 1: labels must be <= {MAX_LABEL}, "
                f"got {int(d.labels.max())}",
                d.source,
            )


def fit_lightgbm(train: RankingData, vali, params: dict, seed: int) -> str:
    """Train LightGBM's lambdarank (``trees``, ``leaves``, ``learning_rate``); early
    stopping on nDCG@10 of ``vali`` when given. The model as LightGBM's text."""
    _check_labels("lightgbm", train, vali)
    lgb = _lightgbm()
    top = _max_label(train, vali)
    options = {
        "objective": "lambdarank",
        "num_leaves": params["leaves"],
        "learning_rate": params["learning_rate"],
        "seed": seed,
        "deterministic": True,
        "num_threads": 1,
        "verbosity": -1,
        "label_gain": [float(2**i - 1) for i in range(top + 1)],
    }
    ds = lgb.Dataset(_matrix(train.features), train.labels, group=_groups(train))
    valid = []
    callbacks = []
    if vali is not None:
        valid = [
            lgb.Dataset(_matrix(vali.features), vali.labels, group=_groups(vali), reference=ds)
        ]
        callbacks = [lgb.early_stopping(20, verbose=False)]
        options["metric"] = "ndcg"
        options["eval_at"] = [10]
    try:
        booster = lgb.train(
            options, ds, num_boost_round=params["trees"], valid_sets=valid, callbacks=callbacks
        )
    except lgb.basic.LightGBMError as exc:
        raise InputError(f"lightgbm: {_first_line(exc)}", train.source) from None
    return booster.model_to_string()


def fit_xgboost(train: RankingData, vali, params: dict, seed: int) -> str:
    """Train XGBoost's rank:ndcg (``trees``, ``depth``, ``learning_rate``); early stopping
    on nDCG@10 of ``vali`` when given. The model as XGBoost's JSON text."""
    _check_labels("xgboost", train, vali)
    xgb = require("xgboost", "ltr")
    dtrain = xgb.DMatrix(_matrix(train.features), label=train.labels, missing=0.0)
    dtrain.set_group(_groups(train))
    options = {
        "objective": "rank:ndcg",
        "max_depth": params["depth"],
        "eta": params["learning_rate"],
        "seed": seed,
        "nthread": 1,
        "eval_metric": "ndcg@10",
    }
    evals = []
    stopping = None
    if vali is not None:
        dvali = xgb.DMatrix(_matrix(vali.features), label=vali.labels, missing=0.0)
        dvali.set_group(_groups(vali))
        evals, stopping = [(dvali, "vali")], 20
    try:
        booster = xgb.train(
            options,
            dtrain,
            num_boost_round=params["trees"],
            evals=evals,
            early_stopping_rounds=stopping,
            verbose_eval=False,
        )
    except xgb.core.XGBoostError as exc:
        raise InputError(f"xgboost: {_first_line(exc)}", train.source) from None
    if stopping is not None and hasattr(booster, "best_iteration"):
        booster = booster[: booster.best_iteration + 1]
    return bytes(booster.save_raw("json")).decode("utf-8")


def _lightgbm():
    """LightGBM, its messages kept off standard error (errors are raised as one line)."""
    import logging

    lgb = require("lightgbm", "ltr")
    quiet = logging.getLogger("cranfield.ltr.lightgbm")
    quiet.addHandler(logging.NullHandler())
    quiet.propagate = False
    lgb.register_logger(quiet)
    return lgb


def _first_line(exc: Exception) -> str:
    lines = [line for line in str(exc).splitlines() if line.strip()]
    return lines[0][:300] if lines else type(exc).__name__


def predict(model, x: np.ndarray) -> np.ndarray:
    """Scores of the rows of ``x`` by a boosted model (its ranker's ``predict``)."""
    from .rankers import RANKERS

    d = RANKERS.get(model.method)
    if d is None or d.predict is None:
        raise InputError(f"the model has no weights and an unknown method {model.method!r}")
    return d.predict(model.booster, x)


def predict_lightgbm(text: str, x: np.ndarray) -> np.ndarray:
    """Scores of the rows of ``x`` by a LightGBM model text."""
    lgb = _lightgbm()
    if not text.startswith("tree\n") or "num_class=" not in text or "end of trees" not in text:
        # checked here: LightGBM's own parser prints to standard error before failing
        raise InputError("the booster is not a LightGBM model text")
    try:
        booster = lgb.Booster(model_str=text)
    except lgb.basic.LightGBMError as exc:
        raise InputError(f"lightgbm cannot read the model: {_first_line(exc)}") from None
    return np.asarray(booster.predict(_matrix(x), num_threads=1), dtype=np.float64)


def predict_xgboost(text: str, x: np.ndarray) -> np.ndarray:
    """Scores of the rows of ``x`` by an XGBoost JSON model text."""
    xgb = require("xgboost", "ltr")
    booster = xgb.Booster()
    try:
        booster.load_model(bytearray(text.encode("utf-8")))
    except xgb.core.XGBoostError as exc:
        raise InputError(f"xgboost cannot read the model: {_first_line(exc)}") from None
    return np.asarray(booster.predict(xgb.DMatrix(_matrix(x), missing=0.0)), dtype=np.float64)
