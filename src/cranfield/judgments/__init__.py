"""Judgments from people: assessor agreement, label aggregation, assessor quality.

See docs/judgments.md for the definitions, formulas and references.
"""

from .aggregate import (
    Aggregate,
    aggregate,
    dawid_skene,
    mace,
    majority_vote,
    mean_label,
    median_label,
)
from .agreement import (
    agreement_report,
    cohen_kappa,
    confusion_matrices,
    count_statistics,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
    pairwise,
    percent_agreement,
    scott_pi,
)
from .data import Judgments, Scale
from .effect import assessor_qrels, effect_on_rankings
from .quality import Thresholds, assessor_quality, judgments_needed
from .simulate import simulate_crowd

__all__ = [
    "Aggregate",
    "Judgments",
    "Scale",
    "Thresholds",
    "assessor_quality",
    "judgments_needed",
    "agreement_report",
    "aggregate",
    "assessor_qrels",
    "cohen_kappa",
    "confusion_matrices",
    "count_statistics",
    "dawid_skene",
    "effect_on_rankings",
    "fleiss_kappa",
    "gwet_ac1",
    "krippendorff_alpha",
    "mace",
    "majority_vote",
    "mean_label",
    "median_label",
    "pairwise",
    "percent_agreement",
    "scott_pi",
    "simulate_crowd",
]
