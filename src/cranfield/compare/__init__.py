"""Comparing systems: paired significance tests, effect sizes, intervals, multiple-
comparison correction, tables, and rank correlation of system orderings.

Everything here works on plain per-query scores (``{measure: {run: {qid: value}}}`` or
``runs x queries`` arrays), so it can be fed from :func:`cranfield.evaluate` or from any
other tool's per-query output.
"""

from __future__ import annotations

import sys as _sys
import types as _types

from .compare import PAIR_TESTS, TESTS, Comparison, ComparisonRow, align_scores, compare, tests_text
from .correlation import (
    CorrelationTest,
    kendall_tau,
    kendall_tau_distance,
    kendall_tau_test,
    rbo,
    spearman_rho,
    spearman_rho_test,
    tau_ap,
)
from .per_query import ScoreTable, correlate_tables, read_per_query, read_result_table, read_table
from .run_correlation import correlate_runs
from .stats import (
    CORRECTIONS,
    TestResult,
    TukeyResult,
    adjust_pvalues,
    bootstrap_test,
    cohens_d,
    mean_difference_ci,
    paired_t_test,
    randomization_test,
    sign_test,
    tukey_hsd,
    wilcoxon_test,
)
from .tables import FORMATS, render

__all__ = [
    "CORRECTIONS",
    "FORMATS",
    "TESTS",
    "PAIR_TESTS",
    "tests_text",
    "Comparison",
    "ComparisonRow",
    "CorrelationTest",
    "ScoreTable",
    "TestResult",
    "TukeyResult",
    "adjust_pvalues",
    "align_scores",
    "bootstrap_test",
    "cohens_d",
    "compare",
    "correlate_runs",
    "correlate_tables",
    "kendall_tau",
    "kendall_tau_distance",
    "kendall_tau_test",
    "mean_difference_ci",
    "paired_t_test",
    "randomization_test",
    "rbo",
    "read_per_query",
    "read_result_table",
    "read_table",
    "render",
    "sign_test",
    "spearman_rho",
    "spearman_rho_test",
    "tau_ap",
    "tukey_hsd",
    "wilcoxon_test",
]


class _CallableModule(_types.ModuleType):
    """Lets ``cranfield.compare(...)`` call :func:`compare` while
    ``cranfield.compare.tukey_hsd`` etc. stay reachable, whatever was imported first."""

    def __call__(self, *args, **kwargs):
        return compare(*args, **kwargs)


_sys.modules[__name__].__class__ = _CallableModule
