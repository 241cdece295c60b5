"""Online evaluation: A/B tests from per-unit logs, interleaving and multileaving, and
interleaving experiments by simulation (docs/online.md)."""

from .abtest import (
    bootstrap_ci,
    cuped,
    mann_whitney,
    ratio_delta,
    sample_ratio_mismatch,
    welch,
)
from .data import UnitLog, read_units
from .interleaving import (
    Credit,
    Interleaved,
    balanced,
    credit,
    impressions_for_power,
    interleave,
    multileave,
    outcome_test,
    preferences,
    probabilistic,
    sign_test,
    team_draft,
)
from .power import power, sample_size
from .simulation import simulate_interleaving

__all__ = [
    "Credit",
    "Interleaved",
    "UnitLog",
    "balanced",
    "bootstrap_ci",
    "credit",
    "cuped",
    "impressions_for_power",
    "interleave",
    "mann_whitney",
    "multileave",
    "outcome_test",
    "power",
    "preferences",
    "probabilistic",
    "ratio_delta",
    "read_units",
    "sample_ratio_mismatch",
    "sample_size",
    "sign_test",
    "simulate_interleaving",
    "team_draft",
    "welch",
]
