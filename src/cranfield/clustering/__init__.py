"""Clustering evaluation and validation splits.

* :mod:`.measures` — external evaluation of a clustering against a gold standard
  (purity, NMI, AMI, Rand index, pair-counting F, ...; Manning, Raghavan & Schütze
  2008, ch. 16.3), re-exported here: ``from cranfield.clustering import purity``;
* :mod:`.splits` — train/test and k-fold splits of items or queries;
* :mod:`.labels` — arbitrary hashable labels to integer codes (shared by both).
"""

from __future__ import annotations

from .measures import (
    AVERAGE_METHODS,
    OUTPUT_FORMATS,
    ClusteringScores,
    Contingency,
    _log_factorial,  # noqa: F401  (tests check it against math.lgamma)
    adjusted_mutual_information,
    adjusted_rand_index,
    contingency_table,
    entropy,
    evaluate_clustering,
    expected_mutual_information,
    format_scores,
    fowlkes_mallows,
    homogeneity_completeness_v_measure,
    inverse_purity,
    mutual_information,
    normalized_mutual_information,
    pair_counts,
    pair_f_beta,
    pair_precision,
    pair_recall,
    purity,
    rand_index,
)

__all__ = [
    "AVERAGE_METHODS",
    "adjusted_mutual_information",
    "expected_mutual_information",
    "fowlkes_mallows",
    "homogeneity_completeness_v_measure",
    "OUTPUT_FORMATS",
    "ClusteringScores",
    "Contingency",
    "adjusted_rand_index",
    "contingency_table",
    "entropy",
    "evaluate_clustering",
    "format_scores",
    "inverse_purity",
    "mutual_information",
    "normalized_mutual_information",
    "pair_counts",
    "pair_f_beta",
    "pair_precision",
    "pair_recall",
    "purity",
    "rand_index",
]
