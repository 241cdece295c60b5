"""Recommender-system evaluation: interaction logs, leakage-free splits, accuracy through
the measure language (a user is a query, an item a document) and beyond-accuracy
measures (coverage, exposure concentration, novelty, popularity bias, diversity).

See docs/recommenders.md.
"""

from __future__ import annotations

from .data import Interactions, read_interactions, read_recommendations
from .evaluate import ItemFeatures, RecEvaluation, evaluate_recommendations, read_item_features
from .measures import REC_MEASURES
from .splits import SPLITS, split

__all__ = [
    "Interactions",
    "read_interactions",
    "read_recommendations",
    "split",
    "SPLITS",
    "REC_MEASURES",
    "evaluate_recommendations",
    "RecEvaluation",
    "ItemFeatures",
    "read_item_features",
]
