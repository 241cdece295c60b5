"""Exports: the qrels (labels aggregated by the campaign's rule) and the judgment logs.

The qrels are :func:`cranfield.judgments.aggregate` over the current judgments with
the campaign's rule (majority vote, mean, median, Dawid–Skene or MACE; gold pairs keep
their known label), then the coordinator's adjudications replace the aggregate of the
pairs they decided. Pairs nobody judged yet are left out.
"""

from __future__ import annotations

import io

from sqlalchemy import select

from . import campaigns
from .db import Database
from .models import Adjudication, JudgmentEvent, Pair, User
from .quality import campaign_aggregate, judgment_rows, judgments_object


def qrels_labels(db: Database, campaign: str) -> dict[tuple[str, str], int]:
    """``{(topic, document): label}`` of the exported qrels
    (:func:`~cranfield.service.quality.campaign_aggregate`; an adjudicated pair nobody
    judged has its adjudicated label)."""
    with db.read() as s:
        c = campaigns.get(s, campaign)
        scale = campaigns.scale_of(c)
        rows = judgment_rows(s, c.id)
        pairs = s.execute(
            select(Pair.id, Pair.topic_id, Pair.doc_id, Pair.gold_label).where(
                Pair.campaign_id == c.id
            )
        ).all()
        decided = s.execute(
            select(Pair.id, Pair.topic_id, Pair.doc_id, Adjudication.label)
            .join(Adjudication, Adjudication.pair_id == Pair.id)
            .where(Pair.campaign_id == c.id)
        ).all()
        method = c.aggregation
    labels: dict[tuple[str, str], int] = {}
    j = judgments_object(rows, scale)
    if j is not None:
        adjudicated = {pid: int(label) for pid, _t, _d, label in decided}
        agg = campaign_aggregate(j, method, rows, pairs, adjudicated)
        q = agg.to_qrels().table
        for topic, doc, rel in zip(
            q["query_id"].to_pylist(),
            q["doc_id"].to_pylist(),
            q["relevance"].to_pylist(),
            strict=True,
        ):
            labels[(topic, doc)] = int(rel)
    for _pid, topic, doc, label in decided:
        labels[(topic, doc)] = int(label)
    return labels


def qrels(db: Database, campaign: str):
    """The exported qrels as :class:`cranfield.Qrels` (topic, then document id order)."""
    import pyarrow as pa

    from ..core.qrels import Qrels

    labels = qrels_labels(db, campaign)
    keys = sorted(labels)
    table = pa.table(
        {
            "query_id": pa.array([k[0] for k in keys], pa.string()),
            "doc_id": pa.array([k[1] for k in keys], pa.string()),
            "relevance": pa.array([labels[k] for k in keys], pa.int64()),
        }
    )
    return Qrels(table, source=f"campaign {campaign}")


def qrels_text(db: Database, campaign: str) -> str:
    """TREC qrels text: ``topic 0 document label`` lines."""
    q = qrels(db, campaign)
    sink = io.BytesIO()
    if len(q):
        q.to_trec(sink)
    return sink.getvalue().decode("utf-8")


def judgments_tsv(db: Database, campaign: str) -> str:
    """The current judgments, one per pair and assessor: ``topic document assessor label
    seconds flags comment`` (a header line; readable by ``cranfield agreement``, which
    reads the columns it knows). A comment's tabs and line breaks are written as spaces."""
    from .models import Judgment

    with db.read() as s:
        c = campaigns.get(s, campaign)
        rows = judgment_rows(s, c.id)
        notes = {
            (pid, user): (flags or "", " ".join((comment or "").split()))
            for pid, user, flags, comment in s.execute(
                select(Judgment.pair_id, User.username, Judgment.flags, Judgment.comment)
                .join(User, User.id == Judgment.user_id)
                .join(Pair, Pair.id == Judgment.pair_id)
                .where(
                    Pair.campaign_id == c.id,
                    (Judgment.flags.is_not(None)) | (Judgment.comment.is_not(None)),
                )
            )
        }
    lines = ["topic\tdocument\tassessor\tlabel\tseconds\tflags\tcomment"]
    for pid, topic, doc, user, label, seconds, _gold in rows:
        flags, comment = notes.get((pid, user), ("", ""))
        secs = "" if seconds is None else seconds
        lines.append(f"{topic}\t{doc}\t{user}\t{label}\t{secs}\t{flags}\t{comment}")
    return "\n".join(lines) + "\n"


def judgment_page(db: Database, campaign: str, page) -> tuple[list[dict], int | None]:
    """One :class:`~.paging.Page` of the current judgments, by id (the order first
    saved), and the next key."""
    from . import paging
    from .models import Judgment

    with db.read() as s:
        c = campaigns.get(s, campaign)
        query = (
            select(
                Judgment.id,
                Judgment.pair_id,
                Pair.topic_id,
                Pair.doc_id,
                User.username,
                Judgment.label,
                Judgment.seconds,
                Judgment.comment,
                Judgment.flags,
                Judgment.updated_at,
            )
            .join(User, User.id == Judgment.user_id)
            .join(Pair, Pair.id == Judgment.pair_id)
            .where(Pair.campaign_id == c.id)
        )
        rows, after = paging.rows(s, query, Judgment.id, page)
    keys = ("id", "pair", "topic", "document", "assessor", "label", "seconds", "comment")
    out = []
    for *values, flags, updated in rows:
        item = dict(zip(keys, values, strict=True))
        item["flags"] = flags.split(",") if flags else []
        item["updated"] = updated.isoformat(timespec="seconds") + "Z"
        out.append(item)
    return out, after


def log_tsv(db: Database, campaign: str) -> str:
    """The full judgment log: every label ever saved, in the order saved (``topic
    document assessor label seconds timestamp``)."""
    with db.read() as s:
        c = campaigns.get(s, campaign)
        rows = s.execute(
            select(
                Pair.topic_id,
                Pair.doc_id,
                User.username,
                JudgmentEvent.label,
                JudgmentEvent.seconds,
                JudgmentEvent.created_at,
            )
            .join(JudgmentEvent, JudgmentEvent.pair_id == Pair.id)
            .join(User, User.id == JudgmentEvent.user_id)
            .where(Pair.campaign_id == c.id)
            .order_by(JudgmentEvent.id)
        ).all()
    lines = ["topic\tdocument\tassessor\tlabel\tseconds\ttimestamp"]
    for topic, doc, user, label, seconds, at in rows:
        lines.append(
            f"{topic}\t{doc}\t{user}\t{label}\t{'' if seconds is None else seconds}\t{at.isoformat()}Z"
        )
    return "\n".join(lines) + "\n"


def pool_text(db: Database, campaign: str) -> str:
    """The pooled pairs, ``topic document`` lines in topic then document order: the pool
    file ``cranfield judge`` labels with a machine assessor."""
    with db.read() as s:
        c = campaigns.get(s, campaign)
        rows = s.execute(
            select(Pair.topic_id, Pair.doc_id)
            .where(Pair.campaign_id == c.id)
            .order_by(Pair.topic_id, Pair.doc_id)
        ).all()
    return "".join(f"{t} {d}\n" for t, d in rows)
