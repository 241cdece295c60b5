"""Effect of the assessor on conclusions (Voorhees 2000).

Evaluate the same runs with each assessor's qrels and compare the system rankings:
Kendall's tau and tau_AP between every two assessors' orderings of the runs, and the
largest change in any run's score. Voorhees (2000) found that different assessors
change the scores a lot but the ranking of systems little.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ..errors import InputError
from .data import Judgments


def assessor_qrels(j: Judgments, assessor: int):
    """The qrels of one assessor (by code): the pairs they judged, their labels."""
    from ..core.qrels import Qrels

    mine = j.assessor == assessor
    items = j.item[mine]
    table = pa.table(
        {
            "query_id": pa.array(j.topics[items].tolist(), pa.string()),
            "doc_id": pa.array(j.documents[items].tolist(), pa.string()),
            "relevance": pa.array(j.values()[mine], pa.int64()),
        }
    )
    return Qrels(table, source=f"assessor {j.assessors[assessor]}")


def effect_on_rankings(j: Judgments, runs, measure: str = "AP", *, rel_level: int = 1) -> dict:
    """Evaluate ``runs`` (anything :func:`cranfield.evaluate` takes) with each
    assessor's qrels by ``measure`` (the mean over the topics that assessor judged).

    Returns ``{"measure", "runs", "scores": {assessor: {run: mean}}, "pairs": [{"a",
    "b", "kendall_tau", "tau_ap", "largest_change", "run"}], "largest_change"}``.
    ``tau_ap`` is the symmetric tau_AP (mean of both directions; NaN when a ranking has
    ties); ``largest_change`` is the largest ``|score_a - score_b|`` of any run.
    """
    from ..compare.correlation import kendall_tau, tau_ap
    from ..core.evaluation import evaluate

    if j.n_assessors < 2:
        raise InputError("needs at least two assessors to compare rankings", j.source)
    scores, names = [], None
    for a in range(j.n_assessors):
        res = evaluate(assessor_qrels(j, a), runs, [measure], rel_level=rel_level)
        names = res.run_names
        scores.append([res.aggregate(r, measure) for r in names])
    s = np.array(scores, np.float64)
    pairs = []
    for a in range(j.n_assessors):
        for b in range(a + 1, j.n_assessors):
            diff = np.abs(s[a] - s[b])
            try:
                tap = tau_ap(s[a], s[b], symmetric=True)
            except InputError:  # ties: the ordering is undefined
                tap = float("nan")
            worst = int(np.nanargmax(diff)) if np.isfinite(diff).any() else None
            pairs.append(
                {
                    "a": j.assessors[a],
                    "b": j.assessors[b],
                    "kendall_tau": kendall_tau(s[a], s[b]),
                    "tau_ap": tap,
                    "largest_change": float(diff[worst]) if worst is not None else float("nan"),
                    "run": names[worst] if worst is not None else None,
                }
            )
    changes = [p["largest_change"] for p in pairs if p["largest_change"] == p["largest_change"]]
    return {
        "measure": measure,
        "runs": list(names),
        "scores": {
            j.assessors[a]: dict(zip(names, s[a].tolist(), strict=True))
            for a in range(j.n_assessors)
        },
        "pairs": pairs,
        "largest_change": max(changes) if changes else float("nan"),
    }
