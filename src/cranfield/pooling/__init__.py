"""Judgment pools: strategies (a registry), pool statistics, reusability tests and
assessment packages.

Pools are built from runs for all topics at once (:func:`build_pool`); a strategy is
declared once in :mod:`cranfield.pooling.strategies`. :func:`pool_stats` measures a
pool, :func:`leave_one_group_out` tests how reusable its judgments are, and
:mod:`cranfield.pooling.assign` hands the assessors their work. See docs/pooling.md.
"""

from __future__ import annotations

from .adaptive import MoveToFront
from .assign import assign_topics, build_packages, merge_packages, write_packages
from .groups import limit_runs, read_groups, resolve_groups
from .pool import FORMATS, Pool, build_pool, contributors
from .reuse import ReuseResult, leave_one_group_out
from .stats import PoolStats, pool_stats
from .strategies import STRATEGIES

__all__ = [
    "FORMATS",
    "MoveToFront",
    "STRATEGIES",
    "Pool",
    "PoolStats",
    "ReuseResult",
    "assign_topics",
    "build_packages",
    "build_pool",
    "contributors",
    "leave_one_group_out",
    "limit_runs",
    "merge_packages",
    "pool_stats",
    "read_groups",
    "resolve_groups",
    "write_packages",
]
