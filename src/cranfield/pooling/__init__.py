"""Judgment pools: strategies (a registry), pool statistics and reusability tests.

Pools are built from runs for all topics at once (:func:`build_pool`); a strategy is
declared once in :mod:`cranfield.pooling.strategies`. See docs/pooling.md.
"""

from __future__ import annotations

from .pool import FORMATS, Pool, build_pool, contributors
from .strategies import STRATEGIES

__all__ = ["FORMATS", "STRATEGIES", "Pool", "build_pool", "contributors"]
