"""Rank correlation between two runs, query by query (Kendall 1938; Spearman 1904;
rank-biased overlap of Webber, Moffat & Zobel 2010).

For each query answered by both runs: Kendall's tau-b and Spearman's rho between the
two runs' scores of the documents they both retrieved, and rank-biased overlap of
the two complete rankings (trec_eval order: score descending, doc id descending).
"""

from __future__ import annotations

import numpy as np

from .correlation import kendall_tau, rbo, spearman_rho


def correlate_runs(run_a, run_b, p: float = 0.9, depth: int | None = None) -> dict:
    """Per-query and mean correlations of two :class:`~cranfield.Run` objects.

    Returns ``{"per_query": {qid: {...}}, "mean": {...}, "queries": n}`` with keys
    ``kendall_tau``, ``spearman_rho``, ``rbo`` and ``common`` (documents in both).
    Queries answered by only one run are listed under ``"only_in_a"``/``"only_in_b"``.
    ``depth`` restricts both rankings to their top ``depth`` documents.
    """
    a = _rankings(run_a, depth)
    b = _rankings(run_b, depth)
    per_query = {}
    # one NumPy computation per query: rankings differ in length, and the
    # correlation kernels are O(n log n) on each pair
    for q in sorted(set(a) & set(b)):
        docs_a, scores_a = a[q]
        docs_b, scores_b = b[q]
        common, ia, ib = np.intersect1d(docs_a, docs_b, assume_unique=True, return_indices=True)
        tau = kendall_tau(scores_a[ia], scores_b[ib]) if len(common) > 1 else float("nan")
        rho = spearman_rho(scores_a[ia], scores_b[ib]) if len(common) > 1 else float("nan")
        per_query[q] = {
            "kendall_tau": tau,
            "spearman_rho": rho,
            "rbo": rbo(list(docs_a), list(docs_b), p),
            "common": int(len(common)),
        }
    keys = ("kendall_tau", "spearman_rho", "rbo", "common")
    mean = {k: _mean_defined([v[k] for v in per_query.values()]) for k in keys}
    return {
        "per_query": per_query,
        "mean": mean,
        "queries": len(per_query),
        "only_in_a": sorted(set(a) - set(b)),
        "only_in_b": sorted(set(b) - set(a)),
    }


def _mean_defined(values) -> float:
    """Mean of the defined (non-NaN) values; NaN when there is none (no warning)."""
    a = np.asarray(values, dtype=np.float64)
    a = a[~np.isnan(a)]
    return float(a.mean()) if a.size else float("nan")


def _rankings(run, depth):
    t = run.ranked()
    q = np.asarray(t["query_id"].to_numpy(zero_copy_only=False), dtype=object)
    d = np.asarray(t["doc_id"].to_numpy(zero_copy_only=False), dtype=object)
    s = np.asarray(t["score"].to_numpy(), dtype=np.float64)
    r = np.asarray(t["rank"].to_numpy(), dtype=np.int64)
    if depth is not None:
        keep = r <= depth
        q, d, s = q[keep], d[keep], s[keep]
    bounds = np.flatnonzero(np.concatenate(([True], q[1:] != q[:-1], [True])))
    return {q[i]: (d[i:j], s[i:j]) for i, j in zip(bounds[:-1], bounds[1:], strict=True)}
