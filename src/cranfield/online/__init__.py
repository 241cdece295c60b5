"""Online evaluation: A/B tests from per-unit logs (docs/online.md)."""

from .abtest import (
    bootstrap_ci,
    cuped,
    mann_whitney,
    ratio_delta,
    sample_ratio_mismatch,
    welch,
)
from .data import UnitLog, read_units
from .power import power, sample_size

__all__ = [
    "UnitLog",
    "bootstrap_ci",
    "cuped",
    "mann_whitney",
    "power",
    "ratio_delta",
    "read_units",
    "sample_ratio_mismatch",
    "sample_size",
    "welch",
]
