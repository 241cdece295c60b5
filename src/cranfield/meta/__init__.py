"""Evaluating the evaluation: how far a conclusion drawn from a test collection can be
trusted (discriminative power, swap rates, topic-set-size design, variance components)
and how closely a reproduced experiment matches the original (Breuer et al. 2020).

Every statistic is declared once in :data:`META_STATISTICS` (formula and reference);
docs/meta-evaluation.md lists them.
"""

from __future__ import annotations

from .anova import residual_variance, standardise, two_way_anova
from .power import (
    bootstrap_asl,
    difference_required,
    discriminative_power,
    randomised_tukey_asl,
)
from .registry import META_STATISTICS, MetaStatistic, of_command
from .repro import (
    delta_ri,
    effect_ratio,
    kendall_tau_union,
    rankings,
    rbo_prefix,
    repro,
    rmse,
    unpaired_t_test,
)
from .swap import swap_rates
from .topics import topics_anova, topics_ci, topics_paired_t

__all__ = [
    "META_STATISTICS",
    "MetaStatistic",
    "of_command",
    "bootstrap_asl",
    "difference_required",
    "randomised_tukey_asl",
    "discriminative_power",
    "swap_rates",
    "topics_paired_t",
    "topics_anova",
    "topics_ci",
    "two_way_anova",
    "standardise",
    "residual_variance",
    "repro",
    "kendall_tau_union",
    "rbo_prefix",
    "rankings",
    "rmse",
    "effect_ratio",
    "delta_ri",
    "unpaired_t_test",
]
