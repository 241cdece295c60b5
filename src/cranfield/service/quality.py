"""What the coordinator's dashboard shows: progress, agreement, assessor quality,
conflicts, adjudication.

Agreement is :func:`cranfield.judgments.agreement_report` (Krippendorff's alpha,
Fleiss' kappa, Gwet's AC1, percent agreement) over the pairs judged by two assessors or
more; quality is :func:`cranfield.judgments.assessor_quality` (gold accuracy,
Dawid–Skene chance-corrected accuracy, agreement with the aggregate, speed,
straight-lining). A conflict is a pair whose assessors gave different labels and that
the coordinator has not adjudicated yet.
"""

from __future__ import annotations

from sqlalchemy import and_, func, select

from ..errors import CranfieldError, ParameterError
from . import campaigns
from .db import Database
from .models import Adjudication, Judgment, Pair, Task, User


def judgment_rows(s, cid: int) -> list[tuple]:
    """``(pair id, topic, document, assessor, label, seconds, gold)`` of every current
    judgment, by pair then assessor."""
    return list(
        s.execute(
            select(
                Pair.id,
                Pair.topic_id,
                Pair.doc_id,
                User.username,
                Judgment.label,
                Judgment.seconds,
                Pair.gold_label,
            )
            .join(Judgment, Judgment.pair_id == Pair.id)
            .join(User, User.id == Judgment.user_id)
            .where(Pair.campaign_id == cid)
            .order_by(Pair.id, User.username)
        ).all()
    )


def judgments_object(rows: list[tuple], scale):
    """The rows as :class:`cranfield.judgments.Judgments` (None when there are none)."""
    import pyarrow as pa

    from ..judgments import Judgments

    if not rows:
        return None
    table = pa.table(
        {
            "topic": pa.array([r[1] for r in rows], pa.string()),
            "document": pa.array([r[2] for r in rows], pa.string()),
            "assessor": pa.array([r[3] for r in rows], pa.string()),
            "label": pa.array([r[4] for r in rows], pa.int64()),
            "seconds": pa.array([r[5] for r in rows], pa.float64()),
        }
    )
    return Judgments.from_table(table, scale=scale, source="the campaign's judgments")


def gold_qrels(rows_or_pairs):
    """Qrels of the gold pairs (None when there are none)."""
    from ..core.qrels import Qrels

    gold = {(p[1], p[2]): p[-1] for p in rows_or_pairs if p[-1] is not None}
    if not gold:
        return None
    out: dict = {}
    for (q, d), label in gold.items():
        out.setdefault(q, {})[d] = int(label)
    return Qrels.from_dict(out)


def progress(s, cid: int) -> dict:
    """Per topic and per assessor: judgments made and judgments assigned."""
    judged = and_(Judgment.pair_id == Task.pair_id, Judgment.user_id == Task.user_id)
    per_topic = s.execute(
        select(Pair.topic_id, func.count(Task.id), func.count(Judgment.id))
        .join(Task, Task.pair_id == Pair.id)
        .outerjoin(Judgment, judged)
        .where(Pair.campaign_id == cid)
        .group_by(Pair.topic_id)
        .order_by(Pair.topic_id)
    ).all()
    per_assessor = s.execute(
        select(User.username, func.count(Task.id), func.count(Judgment.id))
        .join(Task, Task.user_id == User.id)
        .outerjoin(Judgment, judged)
        .where(Task.campaign_id == cid)
        .group_by(User.username)
        .order_by(User.username)
    ).all()
    return {
        "topics": [{"topic": t, "assigned": a, "judged": j} for t, a, j in per_topic],
        "assessors": [{"assessor": u, "assigned": a, "judged": j} for u, a, j in per_assessor],
    }


def campaign_aggregate(j, method: str, rows: list[tuple], pairs, adjudicated: dict[int, int]):
    """The campaign's labels as the export writes them: ``method`` over the judgments,
    the gold pairs that were judged held at their known label, then each adjudication
    (``{pair id: label}``) in place of its pair's aggregate. The qrels export and the
    dashboard's "agreement with aggregate" both come from here, so their tie rule (for
    majority: uniform at random with seed 0, :func:`cranfield.judgments.majority_vote`)
    and everything else are the same."""
    from ..judgments import aggregate

    judged = {(r[1], r[2]) for r in rows}
    gold = gold_qrels([p for p in pairs if (p[1], p[2]) in judged])
    agg = aggregate(j, method, gold=gold)
    if adjudicated:
        where = {(t, d): pid for pid, t, d, *_ in rows}
        item = {
            (str(t), str(d)): i for i, (t, d) in enumerate(zip(j.topics, j.documents, strict=True))
        }
        position = {v: k for k, v in enumerate(j.scale.values)}
        for key, pid in where.items():
            if pid in adjudicated and key in item and adjudicated[pid] in position:
                agg.label[item[key]] = position[adjudicated[pid]]
    return agg


def conflicts(rows: list[tuple], adjudicated: dict[int, int]) -> list[dict]:
    """Pairs whose assessors disagree, with every label (for the coordinator only)."""
    by_pair: dict[int, dict] = {}
    for pid, topic, doc, user, label, _sec, _gold in rows:
        entry = by_pair.setdefault(
            pid, {"pair": pid, "topic": topic, "document": doc, "labels": {}}
        )
        entry["labels"][user] = label
    out = []
    for pid, entry in by_pair.items():
        if len(set(entry["labels"].values())) > 1:
            entry["adjudicated"] = adjudicated.get(pid)
            out.append(entry)
    return out


def dashboard(db: Database, campaign: str) -> dict:
    """Everything the coordinator's dashboard shows, as a JSON-ready dict."""
    from ..judgments import agreement_report, assessor_quality

    with db.read() as s:
        c = campaigns.get(s, campaign)
        scale = campaigns.scale_of(c)
        rows = judgment_rows(s, c.id)
        adjudicated = dict(
            s.execute(
                select(Adjudication.pair_id, Adjudication.label)
                .join(Pair, Pair.id == Adjudication.pair_id)
                .where(Pair.campaign_id == c.id)
            ).all()
        )
        prog = progress(s, c.id)
        pairs = s.execute(
            select(Pair.id, Pair.topic_id, Pair.doc_id, Pair.gold_label).where(
                Pair.campaign_id == c.id
            )
        ).all()
        summary = campaigns.summary(s, c)
        aggregation = c.aggregation
    out: dict = {
        "campaign": summary,
        "pool": {"pairs": len(pairs), "gold": sum(1 for p in pairs if p[3] is not None)},
        "progress": prog,
        "judgments": len(rows),
        "agreement": None,
        "quality": [],
        "conflicts": conflicts(rows, adjudicated),
        "activity": activity(db, campaign),
        "notes": [],
    }
    j = judgments_object(rows, scale)
    if j is None:
        return out
    try:
        if j.n_assessors >= 2 and (j.counts().sum(axis=1) >= 2).any():
            report = agreement_report(j, replicates=0)
            out["agreement"] = report["graded"]["overall"]
        else:
            out["notes"].append("agreement needs pairs judged by two assessors or more")
        agg = campaign_aggregate(j, aggregation, rows, pairs, adjudicated)
        out["quality"] = assessor_quality(j, gold=gold_qrels(pairs), aggregate=agg)
        out["aggregate_rule"] = aggregate_rule(agg)
    except (CranfieldError, ValueError, FloatingPointError) as exc:
        out["notes"].append(f"not computed yet: {exc}")
    return out


def activity(db: Database, campaign: str) -> list[dict]:
    """Per assessor of the campaign: ``saves`` (every label saved, the judgment log),
    ``last_seen`` (the last save, UTC), ``last_hour`` (saves in the hour before the last
    one: the pace of the latest session) and ``median_seconds`` (over the current
    judgments with a time)."""
    import datetime as dt

    import numpy as np

    from .models import JudgmentEvent

    with db.read() as s:
        c = campaigns.get(s, campaign)
        events = s.execute(
            select(User.username, JudgmentEvent.created_at)
            .join(User, User.id == JudgmentEvent.user_id)
            .join(Pair, Pair.id == JudgmentEvent.pair_id)
            .where(Pair.campaign_id == c.id)
            .order_by(User.username, JudgmentEvent.id)
        ).all()
        timed = s.execute(
            select(User.username, Judgment.seconds)
            .join(User, User.id == Judgment.user_id)
            .join(Pair, Pair.id == Judgment.pair_id)
            .where(Pair.campaign_id == c.id, Judgment.seconds.is_not(None))
        ).all()
    seconds: dict[str, list[float]] = {}
    for user, secs in timed:
        seconds.setdefault(user, []).append(float(secs))
    by_user: dict[str, list] = {}
    for user, at in events:
        by_user.setdefault(user, []).append(at)
    out = []
    for user in sorted(by_user):
        times = by_user[user]
        last = max(times)
        recent = sum(1 for t in times if t > last - dt.timedelta(hours=1))
        secs = seconds.get(user)
        out.append(
            {
                "assessor": user,
                "saves": len(times),
                "last_seen": last.isoformat(timespec="seconds") + "Z",
                "last_hour": recent,
                "median_seconds": float(np.median(secs)) if secs else None,
            }
        )
    return out


def aggregate_rule(agg) -> str:
    """How the campaign's labels are decided, in words (the dashboard shows it)."""
    info = agg.info
    method = info.get("method", "")
    if method == "majority":
        ties = {
            "random": f"ties broken uniformly at random (seed {info.get('seed', 0)})",
            "higher": "ties: the higher label",
            "lower": "ties: the lower label",
            "abstain": "ties left out",
        }.get(info.get("ties"), "")
        text = f"majority vote, {ties}"
    elif method == "mean":
        text = "the label nearest the mean (ties: the higher label)"
    elif method == "median":
        text = "the lower median label"
    else:
        text = method
    return text + "; gold pairs at their known label; adjudications applied"


def adjudicate(db: Database, campaign: str, user_id: int, pair_id: int, label) -> None:
    """The coordinator's label for a pair; it overrides the aggregate in the export."""
    if isinstance(label, bool) or not isinstance(label, int):
        raise ParameterError("label", "an integer label of the scale", label)
    with db.write() as s:
        c = campaigns.get(s, campaign)
        values = [x["value"] for x in campaigns.scale_labels(c)]
        if label not in values:
            raise ParameterError("label", "one of " + ", ".join(map(str, values)), label)
        if s.scalar(select(Pair.id).where(Pair.id == pair_id, Pair.campaign_id == c.id)) is None:
            from .problems import NotFound

            raise NotFound(f"no pair {pair_id} in campaign {campaign!r}")
        row = s.get(Adjudication, pair_id)
        if row is None:
            s.add(Adjudication(pair_id=pair_id, label=label, user_id=user_id))
        else:
            row.label, row.user_id = label, user_id
