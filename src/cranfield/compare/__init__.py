"""Comparing systems: paired significance tests, effect sizes, intervals, multiple-
comparison correction, tables, and rank correlation of system orderings.

Everything here works on plain per-query scores (``{measure: {run: {qid: value}}}`` or
``runs x queries`` arrays), so it can be fed from :func:`cranfield.evaluate` or from any
other tool's per-query output.
"""

from __future__ import annotations

from .._lazy import LazyPackage, exports

_EXPORTS = {  # name -> the submodule that defines it, imported on first use
    "PAIR_TESTS": "compare",
    "TESTS": "compare",
    "Comparison": "compare",
    "ComparisonRow": "compare",
    "align_scores": "compare",
    "compare": "compare",
    "tests_text": "compare",
    "CorrelationTest": "correlation",
    "kendall_tau": "correlation",
    "kendall_tau_distance": "correlation",
    "kendall_tau_test": "correlation",
    "rbo": "correlation",
    "spearman_rho": "correlation",
    "spearman_rho_test": "correlation",
    "tau_ap": "correlation",
    "ScoreTable": "per_query",
    "correlate_tables": "per_query",
    "read_per_query": "per_query",
    "read_result_table": "per_query",
    "read_table": "per_query",
    "correlate_runs": "run_correlation",
    "SeedSpread": "seeds",
    "merge_seeds": "seeds",
    "CORRECTIONS": "stats",
    "TestResult": "stats",
    "TukeyResult": "stats",
    "adjust_pvalues": "stats",
    "bootstrap_test": "stats",
    "cohens_d": "stats",
    "mean_difference_ci": "stats",
    "paired_t_test": "stats",
    "randomization_test": "stats",
    "sign_test": "stats",
    "tukey_hsd": "stats",
    "wilcoxon_test": "stats",
    "FORMATS": "tables",
    "render": "tables",
}

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
    "SeedSpread",
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
    "merge_seeds",
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


class _CallableModule(LazyPackage):
    """Lets ``cranfield.compare(...)`` call :func:`compare` while
    ``cranfield.compare.tukey_hsd`` etc. stay reachable, whatever was imported first."""

    def __call__(self, *args, **kwargs):
        return self.compare(*args, **kwargs)


exports(__name__, _EXPORTS, _CallableModule)
