"""Learning to rank by optimising a cranfield measure (docs/ltr.md).

Read data (:func:`read`, :func:`read_table`, :func:`load_folds`), build an
:class:`Objective` (a measure of linear rankings for a population of weight vectors),
:func:`train` a ranker (``mga``, ``ga``, ``nelder-mead``, ``coordinate-ascent``,
``random-search``, ``lightgbm``, ``xgboost``), measure it (:func:`evaluate_model`) and
compare rankers over folds (:func:`cross_validate`).
"""

from __future__ import annotations

from .data import RankingData, from_arrays
from .model import Model
from .objective import Objective
from .protocol import cross_validate, evaluate_model, evaluate_scores, load_folds
from .rankers import RANKERS, train
from .readers import fold_paths, read, read_svmlight, read_table
from .sparse import SparseFeatures

__all__ = [
    "RANKERS",
    "Model",
    "Objective",
    "RankingData",
    "SparseFeatures",
    "cross_validate",
    "evaluate_model",
    "evaluate_scores",
    "fold_paths",
    "from_arrays",
    "load_folds",
    "read",
    "read_svmlight",
    "read_table",
    "train",
]
