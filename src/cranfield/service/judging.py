"""Blind judging: the next pair of an assessor, a pair's view, saving a judgment.

What an assessor receives names a pair (its id), the topic statement, the document and
the assessor's own label and progress — never a run name, a rank, a score, the gold
label or another assessor's label.

Saving is idempotent: with an ``Idempotency-Key`` the first answer is stored with the
key and a repeated request gets it again without any change; without a key, saving the
label the pair already has changes nothing either. A changed label is a new entry in
the judgment log, so the earlier one is kept.
"""

from __future__ import annotations

from sqlalchemy import and_, func, select
from sqlalchemy.exc import IntegrityError

from ..errors import ParameterError
from . import campaigns
from .db import Database
from .models import Document, IdempotencyKey, Judgment, JudgmentEvent, Pair, Task, Topic, now
from .problems import Conflict, Forbidden, NotFound

MAX_KEY = 200


def _queue(s, cid: int, user_id: int):
    return select(Task.pair_id, Task.position).where(
        Task.campaign_id == cid, Task.user_id == user_id
    )


def next_pair(db: Database, campaign: str, user_id: int) -> dict | None:
    """The view of the assessor's first unjudged pair in queue order, or None."""
    with db.read() as s:
        c = campaigns.get(s, campaign)
        pid = s.scalar(
            select(Task.pair_id)
            .outerjoin(
                Judgment, and_(Judgment.pair_id == Task.pair_id, Judgment.user_id == Task.user_id)
            )
            .where(Task.campaign_id == c.id, Task.user_id == user_id, Judgment.id.is_(None))
            .order_by(Task.position)
            .limit(1)
        )
        if pid is None:
            return None
        return _view(s, c, user_id, pid)


def pair_view(db: Database, campaign: str, user_id: int, pair_id: int) -> dict:
    """The view of one pair of the assessor's queue (:class:`NotFound` otherwise)."""
    with db.read() as s:
        c = campaigns.get(s, campaign)
        return _view(s, c, user_id, pair_id)


def _view(s, c, user_id: int, pair_id: int) -> dict:
    task = s.execute(
        select(Task.position, Pair.topic_id, Pair.doc_id)
        .join(Pair, Pair.id == Task.pair_id)
        .where(Task.campaign_id == c.id, Task.user_id == user_id, Task.pair_id == pair_id)
    ).first()
    if task is None:
        raise NotFound(f"pair {pair_id} is not in your queue")
    position, topic_id, doc_id = task
    topic = s.scalar(select(Topic).where(Topic.campaign_id == c.id, Topic.topic_id == topic_id))
    doc = s.scalar(select(Document).where(Document.campaign_id == c.id, Document.doc_id == doc_id))
    label = s.scalar(
        select(Judgment.label).where(Judgment.pair_id == pair_id, Judgment.user_id == user_id)
    )
    neighbours = dict(
        s.execute(
            select(Task.position, Task.pair_id).where(
                Task.campaign_id == c.id,
                Task.user_id == user_id,
                Task.position.in_((position - 1, position + 1)),
            )
        ).all()
    )
    return {
        "pair": pair_id,
        "topic": {
            "id": topic_id,
            "title": topic.title if topic else "",
            "description": topic.description if topic else "",
            "narrative": topic.narrative if topic else "",
        },
        "document": {
            "id": doc_id,
            "title": doc.title if doc else "",
            "text": doc.text if doc else "(this document is not in the collection)",
        },
        "label": label,
        "position": position + 1,
        "previous": neighbours.get(position - 1),
        "next": neighbours.get(position + 1),
        "progress": progress(s, c.id, user_id, topic_id),
        "scale": campaigns.scale_labels(c),
    }


def progress(s, cid: int, user_id: int, topic_id: str | None = None) -> dict:
    """``{"judged", "total"}`` over the assessor's queue, and for ``topic_id`` too."""
    judged_q = (
        select(func.count())
        .select_from(Task)
        .join(Judgment, and_(Judgment.pair_id == Task.pair_id, Judgment.user_id == Task.user_id))
        .where(Task.campaign_id == cid, Task.user_id == user_id)
    )
    total_q = (
        select(func.count())
        .select_from(Task)
        .where(Task.campaign_id == cid, Task.user_id == user_id)
    )
    out = {"judged": s.scalar(judged_q), "total": s.scalar(total_q)}
    if topic_id is not None:
        in_topic = Task.pair_id.in_(
            select(Pair.id).where(Pair.campaign_id == cid, Pair.topic_id == topic_id)
        )
        out["topic_judged"] = s.scalar(judged_q.where(in_topic))
        out["topic_total"] = s.scalar(total_q.where(in_topic))
    return out


def check_key(key: str | None) -> str | None:
    if key is None:
        return None
    if not key or len(key) > MAX_KEY or not key.isprintable():
        raise ParameterError("Idempotency-Key", f"1 to {MAX_KEY} printable characters", key[:40])
    return key


def save(
    db: Database,
    campaign: str,
    user_id: int,
    pair_id: int,
    label,
    *,
    key: str | None = None,
    seconds: float | None = None,
) -> tuple[int, dict]:
    """Save the assessor's label for a pair: ``(201, body)`` when first judged, ``(200,
    body)`` otherwise. One transaction; retried once when a concurrent save of the same
    pair won the race (the retry then sees its row)."""
    key = check_key(key)
    if isinstance(label, bool) or not isinstance(label, int):
        raise ParameterError("label", "an integer label of the scale", label)
    if seconds is not None and not (isinstance(seconds, (int, float)) and 0 <= seconds < 86400):
        raise ParameterError("seconds", "a number of seconds from 0 to 86400", seconds)
    for attempt in (0, 1):
        try:
            return _save(db, campaign, user_id, pair_id, label, key, seconds)
        except IntegrityError:
            if attempt:
                raise Conflict("the judgment was saved concurrently; try again") from None
    raise AssertionError("unreachable")


def _save(db, campaign, user_id, pair_id, label, key, seconds) -> tuple[int, dict]:
    with db.write() as s:
        c = campaigns.get(s, campaign)
        body = {"pair": pair_id, "label": label}
        if key is not None:
            seen = s.get(IdempotencyKey, (user_id, key))
            if seen is not None:
                if (seen.pair_id, seen.label) != (pair_id, label):
                    raise Conflict("this Idempotency-Key was used for a different judgment")
                return seen.status, body
        if (
            s.scalar(
                select(Task.id).where(
                    Task.campaign_id == c.id, Task.user_id == user_id, Task.pair_id == pair_id
                )
            )
            is None
        ):
            raise Forbidden(f"pair {pair_id} is not in your queue")
        values = [x["value"] for x in campaigns.scale_labels(c)]
        if label not in values:
            raise ParameterError("label", "one of " + ", ".join(map(str, values)), label)
        current = s.scalar(
            select(Judgment).where(Judgment.pair_id == pair_id, Judgment.user_id == user_id)
        )
        if current is None:
            s.add(Judgment(pair_id=pair_id, user_id=user_id, label=label, seconds=seconds))
            s.add(JudgmentEvent(pair_id=pair_id, user_id=user_id, label=label, seconds=seconds))
            status = 201
        else:
            status = 200
            if current.label != label:
                current.label = label
                current.seconds = seconds if seconds is not None else current.seconds
                current.updated_at = now()
                s.add(JudgmentEvent(pair_id=pair_id, user_id=user_id, label=label, seconds=seconds))
        if key is not None:
            s.add(
                IdempotencyKey(
                    user_id=user_id, key=key, pair_id=pair_id, label=label, status=status
                )
            )
        s.flush()
        return status, body


def history(db: Database, campaign: str, user_id: int, pair_id: int) -> list[dict]:
    """The assessor's labels for a pair, oldest first."""
    with db.read() as s:
        c = campaigns.get(s, campaign)
        if s.scalar(select(Pair.id).where(Pair.id == pair_id, Pair.campaign_id == c.id)) is None:
            raise NotFound(f"no pair {pair_id}")
        return [
            {"label": e.label, "at": e.created_at.isoformat() + "Z"}
            for e in s.scalars(
                select(JudgmentEvent)
                .where(JudgmentEvent.pair_id == pair_id, JudgmentEvent.user_id == user_id)
                .order_by(JudgmentEvent.id)
            )
        ]
