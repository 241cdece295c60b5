"""Results: every run evaluated on the exported qrels, compared with baselines, and
released to the participants when the coordinator publishes them.

:func:`compute` evaluates with :func:`cranfield.evaluate` (the campaign's measures),
compares with :func:`cranfield.compare` (paired t-test against each baseline) and
writes the HTML report of :func:`cranfield.report.build_report` into the data
directory. Participants see only their own runs' per-topic scores, beside the best,
median and worst score of each topic over all runs (as TREC returns them to
participants; Voorhees & Harman 2005) — never another team's run.

Every stored result says on what it stands: how many of the pool's pairs had a label
(``coverage``; a warning when not all did: unjudged documents count as not relevant),
when it was computed, and whether it is ``stale`` — whether the qrels exported now
(judgments saved or adjudicated since) differ from those it was computed on (their
SHA-256 is kept with the result).
"""

from __future__ import annotations

import hashlib
import json
import math

import numpy as np

from ..errors import InputError
from . import campaigns, exports, submissions
from .db import Database
from .models import Run, now
from .problems import Conflict, Forbidden


def compute(db: Database, campaign: str, baselines: list[str] | None = None) -> dict:
    """Evaluate every run of the campaign on its exported qrels and store the results
    (not yet visible to participants)."""
    from ..compare import compare
    from ..core.evaluation import evaluate
    from ..report.html import build_report

    qrels = exports.qrels(db, campaign)
    digest = _digest(qrels)
    if len(qrels) == 0:
        raise InputError(f"campaign {campaign!r} has no judgments to evaluate with")
    with db.read() as s:
        c = campaigns.get(s, campaign)
        rows = submissions.runs_of(s, c.id)
        owners = {r.name: r.user_id for r in rows}
        measures = c.measures.split()
        cid = c.id
    if not rows:
        raise InputError(f"campaign {campaign!r} has no runs")
    baselines = list(baselines or [])
    for b in baselines:
        if b not in owners:
            raise InputError(f"baseline {b!r} is not a run of campaign {campaign!r}")
    runs = submissions.load_runs(db, rows)
    res = evaluate(qrels, runs, measures)
    table = res.per_query_table()
    names = [str(m) for m in res.measures]
    topics = sorted({q for m in names for r in table[m].values() for q in r})
    stats: dict = {}
    for m in names:
        stats[m] = {}
        for q in topics:
            vals = [v for r in table[m].values() if (v := r.get(q)) is not None and not _nan(v)]
            if vals:
                stats[m][q] = {
                    "best": max(vals),
                    "median": float(np.median(vals)),
                    "worst": min(vals),
                }
    comparisons = []
    for b in baselines:
        if len(owners) > 1:
            comp = compare(table, baseline=b)
            comparisons.append({"baseline": b, "rows": comp.to_rows()})
    report = build_report(
        qrels,
        runs,
        measures,
        baseline=baselines[0] if baselines else None,
        progress=False,
        title=f"{campaign}: results",
    )
    report_path = db.data_dir / "reports" / f"{cid}.html"
    report_path.parent.mkdir(parents=True, exist_ok=True)
    from ..core.io.atomic import write_text

    write_text(report_path, report)
    payload = {
        "measures": names,
        "topics": topics,
        "runs": {
            r.name: {
                "owner": owners[r.name],
                "aggregate": {m: _num(res[r.name][m]) for m in names},
                "per_topic": {m: table[m][r.name] for m in names},
            }
            for r in rows
        },
        "per_topic_stats": stats,
        "comparisons": comparisons,
        "qrels_pairs": len(qrels),
        "coverage": coverage(db, campaign, qrels),
        "computed_at": now().isoformat(timespec="seconds") + "Z",
        "qrels_sha256": digest,
    }
    from ..output import dumps_json

    with db.write() as s:
        c = campaigns.get(s, campaign)
        c.results_json = dumps_json(payload, indent=None)
    return payload


def _digest(qrels) -> str:
    import io

    sink = io.BytesIO()
    if len(qrels):
        qrels.to_trec(sink)
    return hashlib.sha256(sink.getvalue()).hexdigest()


def coverage(db: Database, campaign: str, qrels) -> dict:
    """``{"pool", "labelled", "fraction", "per_topic", "warning"}``: the pool's pairs,
    those with a label in ``qrels`` (judged, gold or adjudicated), their fraction overall
    and per topic, and a warning when some have none."""
    from collections import Counter

    from sqlalchemy import func, select

    from .models import Pair

    with db.read() as s:
        cid = campaigns.get(s, campaign).id
        pools = dict(
            s.execute(
                select(Pair.topic_id, func.count(Pair.id))
                .where(Pair.campaign_id == cid)
                .group_by(Pair.topic_id)
            ).all()
        )
    per_topic_labels = Counter(qrels.table.column("query_id").to_pylist())
    pool, labelled = sum(pools.values()), len(qrels)
    fraction = labelled / pool if pool else 1.0
    warning = None
    if labelled < pool:
        warning = (
            f"only {labelled} of the pool's {pool} pairs have a label ({fraction:.1%}): "
            "the unjudged documents count as not relevant"
        )
    per_topic = {t: per_topic_labels.get(t, 0) / n for t, n in sorted(pools.items())}
    return {
        "pool": pool,
        "labelled": labelled,
        "fraction": fraction,
        "per_topic": per_topic,
        "warning": warning,
    }


def with_state(db: Database, campaign: str, data: dict) -> dict:
    """``data`` with ``stale``: whether the qrels exported now differ from those the
    results were computed on (results stored before this was recorded: unknown, None)."""
    known = data.get("qrels_sha256")
    data["stale"] = None if known is None else _digest(exports.qrels(db, campaign)) != known
    return data


def _nan(v) -> bool:
    return isinstance(v, float) and math.isnan(v)


def _num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def publish(db: Database, campaign: str) -> None:
    """Release the computed results to the participants."""
    with db.write() as s:
        c = campaigns.get(s, campaign)
        if not c.results_json:
            raise Conflict("compute the results before publishing them")
        c.published_at = now()
        c.status = "published"


def stored(db: Database, campaign: str) -> dict | None:
    """The computed results (with ``stale``), or None."""
    with db.read() as s:
        c = campaigns.get(s, campaign)
        text = c.results_json
    return with_state(db, campaign, json.loads(text)) if text else None


def for_participant(db: Database, campaign: str, user_id: int) -> dict:
    """The participant's view: its own runs' scores with the per-topic best, median and
    worst over all runs. :class:`Forbidden` before the results are published."""
    with db.read() as s:
        c = campaigns.get(s, campaign)
        if c.published_at is None or not c.results_json:
            raise Forbidden("the results are not published yet")
        data = json.loads(c.results_json)
        own = {r.name for r in s.query(Run).filter(Run.campaign_id == c.id, Run.user_id == user_id)}
    return {
        "measures": data["measures"],
        "topics": data["topics"],
        "runs": {
            name: {"aggregate": r["aggregate"], "per_topic": r["per_topic"]}
            for name, r in data["runs"].items()
            if name in own
        },
        "per_topic_stats": data["per_topic_stats"],
        "coverage": data.get("coverage"),
        "computed_at": data.get("computed_at"),
        "stale": with_state(db, campaign, data)["stale"],
    }


def report_path(db: Database, campaign: str):
    with db.read() as s:
        c = campaigns.get(s, campaign)
        path = db.data_dir / "reports" / f"{c.id}.html"
    return path if path.exists() else None


def as_csv(data: dict) -> str:
    """Results (:func:`stored` or :func:`for_participant`) as CSV: one row per run and
    topic (``all``: the mean), one column per measure, then the fraction of the pool
    labelled (of the topic; ``all``: overall) and whether the results are stale."""
    from ..output import delimited

    measures = data["measures"]
    cov = data.get("coverage") or {}
    per_topic_cov = cov.get("per_topic", {})
    stale = "" if data.get("stale") is None else ("yes" if data["stale"] else "no")
    rows = []
    for run, r in data["runs"].items():
        rows.append(
            [
                run,
                "all",
                *(_csv_num(r["aggregate"].get(m)) for m in measures),
                _csv_num(cov.get("fraction")),
                stale,
            ]
        )
        for q in data["topics"]:
            rows.append(
                [
                    run,
                    q,
                    *(_csv_num(r["per_topic"][m].get(q)) for m in measures),
                    _csv_num(per_topic_cov.get(q)),
                    stale,
                ]
            )
    head = ["run", "topic", *measures, "labelled_fraction", "stale"]
    return delimited(head, rows)


def _csv_num(v) -> str:
    """Full precision (``repr``), empty for a missing value."""
    if v is None:
        return ""
    return repr(float(v))
