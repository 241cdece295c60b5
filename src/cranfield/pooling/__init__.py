"""Judgment pools: strategies (a registry), pool statistics, reusability tests and
assessment packages.

Pools are built from runs for all topics at once (:func:`build_pool`); a strategy is
declared once in :mod:`cranfield.pooling.strategies`. :func:`pool_stats` measures a
pool, :func:`leave_one_group_out` tests how reusable its judgments are, and
:mod:`cranfield.pooling.assign` hands the assessors their work; :func:`sample_pool`
draws a sample of the pool to judge (docs/sampling.md). See docs/pooling.md.
"""

from __future__ import annotations

from .._lazy import exports

_EXPORTS = {  # name -> the submodule that defines it, imported on first use
    "MoveToFront": "adaptive",
    "assign_topics": "assign",
    "build_packages": "assign",
    "merge_packages": "assign",
    "write_packages": "assign",
    "limit_runs": "groups",
    "read_groups": "groups",
    "resolve_groups": "groups",
    "FORMATS": "pool",
    "Pool": "pool",
    "build_pool": "pool",
    "contributors": "pool",
    "ReuseResult": "reuse",
    "leave_one_group_out": "reuse",
    "PoolStats": "stats",
    "pool_stats": "stats",
    "STRATEGIES": "strategies",
    "SAMPLE_DESIGNS": "sampling",
    "SampledPool": "sampling",
    "join_judgments": "sampling",
    "sample_pool": "sampling",
}

__all__ = [
    "FORMATS",
    "MoveToFront",
    "SAMPLE_DESIGNS",
    "STRATEGIES",
    "Pool",
    "PoolStats",
    "ReuseResult",
    "SampledPool",
    "assign_topics",
    "build_packages",
    "build_pool",
    "contributors",
    "join_judgments",
    "leave_one_group_out",
    "limit_runs",
    "merge_packages",
    "pool_stats",
    "read_groups",
    "resolve_groups",
    "sample_pool",
    "write_packages",
]

exports(__name__, _EXPORTS)
