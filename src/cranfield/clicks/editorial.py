"""Click-derived against editorial relevance: agreement and system-ranking correlation.

On the (query, document) pairs judged by both: the grades (click relevance graded by
``thresholds``, see :func:`~.relevance.grades`) are compared as two assessors are —
percent agreement and Cohen's kappa, unweighted, linear and quadratic (Cohen 1960,
1968; :func:`cranfield.judgments.agreement.cohen_kappa`) — and the continuous click
relevance is correlated with the editorial grade (Kendall's tau-b). Given runs, each
is evaluated with both qrels and the two system orderings are compared by Kendall's
tau (Voorhees 2000's test of whether different judgments change the conclusions;
Joachims 2002 and Chapelle & Zhang 2009 on clicks as judgments).
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError
from ..output import number_cell
from .relevance import grades

KAPPA_WEIGHTS = ("unweighted", "linear", "quadratic")


def click_qrels_dict(est: dict, thresholds, min_impressions: int = 1) -> dict:
    """``{query: {doc: grade}}`` of the click-derived grades (pairs with at least
    ``min_impressions`` training impressions)."""
    keep = est["impressions"] >= min_impressions
    g = grades(est["relevance"][keep], thresholds)
    out: dict[str, dict[str, int]] = {}
    for q, d, v in zip(est["query"][keep], est["doc"][keep], g.tolist(), strict=True):
        out.setdefault(str(q), {})[str(d)] = int(v)
    return out


def _editorial_dict(qrels) -> dict:
    t = qrels.table
    out: dict[str, dict[str, int]] = {}
    for q, d, v in zip(
        t.column("query_id").to_pylist(),
        t.column("doc_id").to_pylist(),
        t.column("relevance").to_pylist(),
        strict=True,
    ):
        out.setdefault(str(q), {})[str(d)] = int(v)
    return out


def compare_with_qrels(
    est: dict,
    qrels,
    thresholds,
    *,
    min_impressions: int = 1,
    runs=None,
    measure: str = "ndcg",
) -> dict:
    """Compare click-derived relevance (:func:`~.relevance.estimates`) with editorial
    ``qrels`` (a :class:`cranfield.Qrels`).

    Returns a dict: ``pairs`` (``common``, ``clicks_only``, ``editorial_only``),
    ``percent_agreement``, ``kappa`` (by weighting), ``kendall_tau`` (continuous click
    relevance against editorial grade on the common pairs) and ``confusion`` (rows:
    editorial grades, columns: click grades, both over ``labels``); with ``runs`` (a
    ``{name: Run or path}`` dict, at least two) also ``systems``: each run's mean
    ``measure`` under both qrels and ``system_tau``, Kendall's tau-b of the two orderings.
    Undefined statistics (no common pair, one label only) are NaN.
    """
    from ..compare.correlation import kendall_tau
    from ..judgments.agreement import cohen_kappa

    if thresholds is None:
        raise ParameterError("thresholds", "increasing numbers to grade click relevance", None)
    clicked = click_qrels_dict(est, thresholds, min_impressions)
    editorial = _editorial_dict(qrels)
    keep = est["impressions"] >= min_impressions
    rel = {
        (str(q), str(d)): float(v)
        for q, d, v in zip(
            est["query"][keep], est["doc"][keep], est["relevance"][keep], strict=True
        )
    }
    common = [(q, d) for q, docs in clicked.items() for d in docs if d in editorial.get(q, {})]
    n_click = sum(len(v) for v in clicked.values())
    n_edit = sum(len(v) for v in editorial.values())
    e = np.array([editorial[q][d] for q, d in common], dtype=np.int64)
    c = np.array([clicked[q][d] for q, d in common], dtype=np.int64)
    labels = np.union1d(e, c)
    k = len(labels)
    confusion = np.zeros((k, k), dtype=np.int64)
    np.add.at(confusion, (np.searchsorted(labels, e), np.searchsorted(labels, c)), 1)
    out = {
        "pairs": {
            "common": len(common),
            "clicks_only": n_click - len(common),
            "editorial_only": n_edit - len(common),
        },
        "labels": labels.tolist(),
        "confusion": confusion.tolist(),
        "percent_agreement": float(np.mean(e == c)) if len(common) else float("nan"),
        "kappa": {
            w: (float(cohen_kappa(confusion, w)) if len(common) else float("nan"))
            for w in KAPPA_WEIGHTS
        },
        "kendall_tau": kendall_tau([rel[p] for p in common], e.astype(float))
        if len(common)
        else float("nan"),
    }
    if runs is not None:
        out["systems"], out["system_tau"] = _systems(clicked, qrels, runs, measure)
    return out


def _systems(clicked: dict, qrels, runs: dict, measure: str):
    from .. import Qrels, evaluate
    from ..compare.correlation import kendall_tau

    if len(runs) < 2:
        raise ParameterError("runs", "at least two runs to rank", len(runs))
    if not clicked:
        raise ParameterError("click qrels", "at least one (query, document) pair", 0)
    by_editorial = evaluate(qrels, runs, [measure])
    by_clicks = evaluate(Qrels.from_dict(clicked), runs, [measure])
    systems = [
        {
            "run": name,
            "editorial": _float(by_editorial.aggregate(name, measure)),
            "clicks": _float(by_clicks.aggregate(name, measure)),
        }
        for name in by_editorial.run_names
    ]
    tau = kendall_tau([s["editorial"] for s in systems], [s["clicks"] for s in systems])
    return systems, tau


def _float(v) -> float:
    return float("nan") if v is None else float(v)


def render(result: dict, fmt: str, digits: int = 4) -> str:
    """The report as a two-column table (statistic, value) in one of
    :data:`cranfield.output.TABLE_FORMATS` (the shared renderer and cell formatter; JSON
    goes through :func:`cranfield.output.dumps_json`). With runs, each run's mean
    editorial and click score are two rows."""
    from ..output import table

    def cell(v) -> str:
        return number_cell(v, digits)

    p = result["pairs"]
    rows = [
        ("pairs judged by both", cell(p["common"])),
        ("pairs with clicks only", cell(p["clicks_only"])),
        ("pairs judged editorially only", cell(p["editorial_only"])),
        ("percent agreement", cell(result["percent_agreement"])),
        *((f"Cohen's kappa ({w})", cell(v)) for w, v in result["kappa"].items()),
        ("Kendall tau (click relevance vs grade)", cell(result["kendall_tau"])),
    ]
    for s in result.get("systems", ()):
        rows.append((f"{s['run']}: mean editorial", cell(s["editorial"])))
        rows.append((f"{s['run']}: mean clicks", cell(s["clicks"])))
    if "systems" in result:
        rows.append(("Kendall tau of the system rankings", cell(result["system_tau"])))
    text = table(["statistic", "value"], rows, fmt, left=1, escape=True)
    return text if text.endswith("\n") else text + "\n"
