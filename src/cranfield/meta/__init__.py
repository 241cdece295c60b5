"""Evaluating the evaluation: how far a conclusion drawn from a test collection can be
trusted (discriminative power, swap rates, topic-set-size design, variance components)
and how closely a reproduced experiment matches the original (Breuer et al. 2020).

Every statistic is declared once in :data:`META_STATISTICS` (formula and reference);
docs/meta-evaluation.md lists them.
"""

from __future__ import annotations

from .._lazy import exports

_EXPORTS = {  # name -> the submodule that defines it, imported on first use
    "residual_variance": "anova",
    "standardise": "anova",
    "two_way_anova": "anova",
    "mixed_model": "mixed",
    "bootstrap_asl": "power",
    "difference_required": "power",
    "discriminative_power": "power",
    "randomised_tukey_asl": "power",
    "META_STATISTICS": "registry",
    "MetaStatistic": "registry",
    "of_command": "registry",
    "delta_ri": "repro",
    "effect_ratio": "repro",
    "kendall_tau_union": "repro",
    "rankings": "repro",
    "rbo_prefix": "repro",
    "repro": "repro",
    "rmse": "repro",
    "unpaired_t_test": "repro",
    "swap_rates": "swap",
    "topics_anova": "topics",
    "topics_ci": "topics",
    "topics_paired_t": "topics",
}

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
    "mixed_model",
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

exports(__name__, _EXPORTS)
# after exports(): the submodules it loads (in a safe order: registry first) do not
# replace the functions of their names
from . import registry as _registry  # noqa: E402, F401
