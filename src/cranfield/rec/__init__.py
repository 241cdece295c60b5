"""Recommender-system evaluation: interaction logs, leakage-free splits, accuracy through
the measure language (a user is a query, an item a document) and beyond-accuracy
measures (coverage, exposure concentration, novelty, popularity bias, diversity).

See docs/recommenders.md.
"""

from __future__ import annotations

from .._lazy import exports

_EXPORTS = {  # name -> the submodule that defines it, imported on first use
    "Interactions": "data",
    "read_interactions": "data",
    "read_recommendations": "data",
    "open_recommendations": "stream",
    "ItemFeatures": "evaluate",
    "RecEvaluation": "evaluate",
    "evaluate_recommendations": "evaluate",
    "read_item_features": "evaluate",
    "REC_MEASURES": "measures",
    "SPLITS": "splits",
    "split": "splits",
}

__all__ = [
    "Interactions",
    "read_interactions",
    "read_recommendations",
    "open_recommendations",
    "split",
    "SPLITS",
    "REC_MEASURES",
    "evaluate_recommendations",
    "RecEvaluation",
    "ItemFeatures",
    "read_item_features",
]

exports(__name__, _EXPORTS)
