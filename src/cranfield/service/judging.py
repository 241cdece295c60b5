"""Blind judging: the next pair of an assessor, a pair's view, saving a judgment.

What an assessor receives names a pair (its id), the topic statement, the document and
the assessor's own label and progress — never a run name, a rank, a score, the gold
label or another assessor's label.

Saving is idempotent: with an ``Idempotency-Key`` the first answer is stored with the
key and a repeated request gets it again without any change. Every other save is an
entry in the judgment log (its label, seconds and time), the same label again included,
so the log holds every label saved, in order; the pair's current label is the last.
"""

from __future__ import annotations

from sqlalchemy import and_, bindparam, exists, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from ..errors import ParameterError
from . import campaigns
from .db import Database
from .models import (
    Campaign,
    Document,
    IdempotencyKey,
    Judgment,
    JudgmentEvent,
    Pair,
    Task,
    Topic,
    now,
)
from .problems import Conflict, Forbidden, NotFound

MAX_KEY = 200


def _view_query():
    """One row per task of an assessor: the pair, the topic, the document and the
    assessor's own label (outer joins: a topic or document may be missing). Built once,
    with bound parameters ``cid`` and ``uid``."""
    cid, uid = bindparam("cid"), bindparam("uid")
    return (
        select(
            Task.pair_id,
            Task.position,
            Pair.topic_id,
            Pair.doc_id,
            Topic.title,
            Topic.description,
            Topic.narrative,
            Document.title,
            Document.text,
            Judgment.label,
            Judgment.comment,
            Judgment.flags,
            Task.skipped_at,
        )
        .join(Pair, Pair.id == Task.pair_id)
        .outerjoin(Topic, and_(Topic.campaign_id == cid, Topic.topic_id == Pair.topic_id))
        .outerjoin(Document, and_(Document.campaign_id == cid, Document.doc_id == Pair.doc_id))
        .outerjoin(
            Judgment, and_(Judgment.pair_id == Task.pair_id, Judgment.user_id == Task.user_id)
        )
        .where(Task.campaign_id == cid, Task.user_id == uid)
    )


def _first_unjudged(skipped: bool):
    return (
        select(Task.pair_id)
        .where(
            Task.campaign_id == bindparam("cid"),
            Task.user_id == bindparam("uid"),
            Task.skipped_at.is_not(None) if skipped else Task.skipped_at.is_(None),
            ~exists().where(Judgment.pair_id == Task.pair_id, Judgment.user_id == Task.user_id),
        )
        .order_by(*((Task.skipped_at, Task.position) if skipped else (Task.position,)))
        .limit(1)
        .scalar_subquery()
    )


# the first unjudged task not set aside ("come back later"), else the first set aside:
# found on the queue index and the judgments' unique index; the pair, topic and document
# are then joined for that one row
_NEXT = _view_query().where(Task.pair_id == _first_unjudged(False))
_NEXT_SKIPPED = _view_query().where(Task.pair_id == _first_unjudged(True))
_PAIR = _view_query().where(Task.pair_id == bindparam("pair"))
_NEIGHBOURS = select(Task.position, Task.pair_id).where(
    Task.campaign_id == bindparam("cid"),
    Task.user_id == bindparam("uid"),
    Task.position.in_((bindparam("before"), bindparam("after"))),
)
_MY_TASK = and_(Task.campaign_id == bindparam("cid"), Task.user_id == bindparam("uid"))
_JUDGED = and_(Judgment.pair_id == Task.pair_id, Judgment.user_id == Task.user_id)
# a pair belongs to one campaign, so the assessor's tasks on the topic's pairs are the
# topic's part of the queue (found on the tasks' (user, pair) key)
_MY_TOPIC_TASK = and_(
    Task.user_id == bindparam("uid"),
    Task.pair_id.in_(
        select(Pair.id).where(
            Pair.campaign_id == bindparam("cid"), Pair.topic_id == bindparam("topic")
        )
    ),
)
# four counts in one statement, each read from indexes alone: the queue index (campaign,
# user, position, pair), the judgments' (pair, user) key, the pairs' (campaign, topic,
# document) key and the tasks' (user, pair) key
_PROGRESS = select(
    select(func.count()).select_from(Task).where(_MY_TASK).scalar_subquery(),
    select(func.count())
    .select_from(Task)
    .join(Judgment, _JUDGED)
    .where(_MY_TASK)
    .scalar_subquery(),
    select(func.count()).select_from(Task).where(_MY_TOPIC_TASK).scalar_subquery(),
    select(func.count())
    .select_from(Task)
    .join(Judgment, _JUDGED)
    .where(_MY_TOPIC_TASK)
    .scalar_subquery(),
)
_CURRENT = (
    select(Task.id, Judgment.id, Judgment.label)
    .outerjoin(Judgment, and_(Judgment.pair_id == Task.pair_id, Judgment.user_id == Task.user_id))
    .where(
        Task.campaign_id == bindparam("cid"),
        Task.user_id == bindparam("uid"),
        Task.pair_id == bindparam("pair"),
    )
)
_KEY = select(IdempotencyKey.pair_id, IdempotencyKey.label, IdempotencyKey.status).where(
    IdempotencyKey.user_id == bindparam("uid"), IdempotencyKey.key == bindparam("key")
)
_INSERT_JUDGMENT = insert(Judgment)
_INSERT_EVENT = insert(JudgmentEvent)
_INSERT_KEY = insert(IdempotencyKey)
_UPDATE_JUDGMENT = (
    update(Judgment)
    .where(Judgment.id == bindparam("jid"))
    .values(
        label=bindparam("label"),
        seconds=func.coalesce(bindparam("seconds"), Judgment.seconds),
        updated_at=bindparam("at"),
        comment=bindparam("comment"),
        flags=bindparam("flags"),
    )
)
_SKIP = (
    update(Task)
    .where(
        Task.campaign_id == bindparam("cid"),
        Task.user_id == bindparam("uid"),
        Task.pair_id == bindparam("pair"),
    )
    .values(skipped_at=bindparam("at"))
)
#: what an assessor may flag a judgment with
FLAGS = ("unsure", "broken")
MAX_COMMENT = 2000


_MTC_DESIGN = select(Campaign.mtc_design).where(Campaign.id == bindparam("cid"))


def next_pair(db: Database, campaign: str, user_id: int) -> dict | None:
    """The view of the assessor's first unjudged pair in queue order, those set aside
    with :func:`skip` last; None when every pair is judged.

    A campaign judged in MTC order (:mod:`cranfield.service.mtc_order`) serves the pair
    its weights choose first, and the view says whether every topic of the queue is
    decided (``"decided"``: judging may stop)."""
    ref = campaigns.ref(db, campaign)
    with db.connection() as s:
        design = s.scalar(_MTC_DESIGN, {"cid": ref.id})
    chosen, decided = None, False
    if design is not None:
        from . import mtc_order

        chosen, decided = mtc_order.next_for(db, ref.id, user_id, design)
    with db.connection() as s:
        row = None
        if chosen is not None:
            row = s.execute(_PAIR, {"cid": ref.id, "uid": user_id, "pair": chosen}).first()
        if row is None:
            row = s.execute(_NEXT, {"cid": ref.id, "uid": user_id}).first()
        if row is None:
            row = s.execute(_NEXT_SKIPPED, {"cid": ref.id, "uid": user_id}).first()
        if row is None:
            return None
        view = _view(s, ref, user_id, row)
        if design is not None:
            view["decided"] = decided
        return view


_FIRST = (
    select(Task.pair_id)
    .where(Task.campaign_id == bindparam("cid"), Task.user_id == bindparam("uid"))
    .order_by(Task.position)
    .limit(1)
)


def first_pair(db: Database, campaign: str, user_id: int) -> int | None:
    """The id of the first pair of the assessor's queue (None: an empty queue)."""
    ref = campaigns.ref(db, campaign)
    with db.connection() as s:
        return s.scalar(_FIRST, {"cid": ref.id, "uid": user_id})


def pair_view(db: Database, campaign: str, user_id: int, pair_id: int) -> dict:
    """The view of one pair of the assessor's queue (:class:`NotFound` otherwise)."""
    ref = campaigns.ref(db, campaign)
    with db.connection() as s:
        row = s.execute(_PAIR, {"cid": ref.id, "uid": user_id, "pair": pair_id}).first()
        if row is None:
            raise NotFound(f"pair {pair_id} is not in your queue")
        return _view(s, ref, user_id, row)


# the pairs the assessor judged, in the order of their first judgment (the judgment log)
_HISTORY = (
    select(JudgmentEvent.pair_id)
    .join(
        Task,
        and_(
            Task.pair_id == JudgmentEvent.pair_id,
            Task.user_id == JudgmentEvent.user_id,
            Task.campaign_id == bindparam("cid"),
        ),
    )
    .where(JudgmentEvent.user_id == bindparam("uid"))
    .group_by(JudgmentEvent.pair_id)
    .order_by(func.min(JudgmentEvent.id))
)


def _history_neighbours(s, cid: int, user_id: int, pair_id: int) -> tuple:
    """``(previous, next)`` in an MTC campaign: the queue's blind positions are not the
    order pairs are served in, so the links follow the order the assessor judged in —
    the pair judged before this one and the one judged after it; from the pair being
    judged, back to the last one judged; from the last one judged, no next pair (the
    judging page serves the next MTC choice)."""
    history = list(s.scalars(_HISTORY, {"cid": cid, "uid": user_id}))
    if pair_id not in history:
        return (history[-1] if history else None), None
    i = history.index(pair_id)
    return (history[i - 1] if i else None), (history[i + 1] if i + 1 < len(history) else None)


def _view(s, ref, user_id: int, row) -> dict:
    (pair_id, position, topic_id, doc_id, t_title, t_desc, t_narr, d_title, d_text, label) = row[
        :10
    ]
    comment, flags, skipped_at = row[10:]
    if s.scalar(_MTC_DESIGN, {"cid": ref.id}) is None:
        neighbours = dict(
            s.execute(
                _NEIGHBOURS,
                {"cid": ref.id, "uid": user_id, "before": position - 1, "after": position + 1},
            ).all()
        )
        previous, following = neighbours.get(position - 1), neighbours.get(position + 1)
    else:
        previous, following = _history_neighbours(s, ref.id, user_id, pair_id)
    return {
        "pair": pair_id,
        "topic": {
            "id": topic_id,
            "title": t_title or "",
            "description": t_desc or "",
            "narrative": t_narr or "",
        },
        "document": {
            "id": doc_id,
            "title": d_title or "",
            "text": d_text if d_text is not None else "(this document is not in the collection)",
        },
        "label": label,
        "comment": comment or "",
        "flags": flags.split(",") if flags else [],
        "skipped": skipped_at is not None and label is None,
        "position": position + 1,
        "previous": previous,
        "next": following,
        "progress": progress(s, ref.id, user_id, topic_id),
        "scale": [dict(x) for x in ref.labels],
    }


def progress(s, cid: int, user_id: int, topic_id: str | None = None) -> dict:
    """``{"judged", "total"}`` over the assessor's queue, and for ``topic_id`` too (one
    query: conditional counts over the queue)."""
    total, judged, topic_total, topic_judged = s.execute(
        _PROGRESS, {"cid": cid, "uid": user_id, "topic": topic_id or ""}
    ).one()
    out = {"judged": int(judged), "total": int(total)}
    if topic_id is not None:
        out["topic_judged"] = int(topic_judged)
        out["topic_total"] = int(topic_total)
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
    comment: str | None = None,
    flags=(),
) -> tuple[int, dict]:
    """Save the assessor's label for a pair: ``(201, body)`` when first judged, ``(200,
    body)`` otherwise. One transaction; retried once when a concurrent save of the same
    pair won the race (the retry then sees its row). ``comment`` (at most
    :data:`MAX_COMMENT` characters) and ``flags`` (a subset of :data:`FLAGS`: the
    assessor is unsure, the document is broken) are kept with the judgment; each save
    sets them anew."""
    key = check_key(key)
    comment, flags = check_comment(comment), check_flags(flags)
    if isinstance(label, bool) or not isinstance(label, int):
        raise ParameterError("label", "an integer label of the scale", label)
    if seconds is not None and not (isinstance(seconds, (int, float)) and 0 <= seconds < 86400):
        raise ParameterError("seconds", "a number of seconds from 0 to 86400", seconds)
    for attempt in (0, 1):
        try:
            return _save(db, campaign, user_id, pair_id, label, key, seconds, comment, flags)
        except IntegrityError:
            if attempt:
                raise Conflict("the judgment was saved concurrently; try again") from None
    raise AssertionError("unreachable")


def _save(db, campaign, user_id, pair_id, label, key, seconds, comment, flags) -> tuple[int, dict]:
    ref = campaigns.ref(db, campaign)
    if label not in ref.values:
        raise ParameterError(
            "label", "one of " + ", ".join(str(x["value"]) for x in ref.labels), label
        )
    body = {"pair": pair_id, "label": label}
    uid = user_id
    with db.transaction() as c:  # Core statements: no ORM unit of work on the hot path
        if key is not None:
            seen = c.execute(_KEY, {"uid": uid, "key": key}).first()
            if seen is not None:
                if (seen[0], seen[1]) != (pair_id, label):
                    raise Conflict("this Idempotency-Key was used for a different judgment")
                return seen[2], body
        row = c.execute(_CURRENT, {"cid": ref.id, "uid": uid, "pair": pair_id}).first()
        if row is None:
            raise Forbidden(f"pair {pair_id} is not in your queue")
        _task, jid, _current = row
        at = now()
        event = {"pair_id": pair_id, "user_id": uid, "label": label, "seconds": seconds}
        notes = {"comment": comment, "flags": flags}
        if jid is None:
            c.execute(_INSERT_JUDGMENT, {**event, **notes, "updated_at": at})
            c.execute(_INSERT_EVENT, {**event, "created_at": at})
            status = 201
        else:
            status = 200
            c.execute(
                _UPDATE_JUDGMENT,
                {"jid": jid, "label": label, "seconds": seconds, "at": at, **notes},
            )
            c.execute(_INSERT_EVENT, {**event, "created_at": at})
        if key is not None:
            c.execute(
                _INSERT_KEY,
                {
                    "user_id": uid,
                    "key": key,
                    "pair_id": pair_id,
                    "label": label,
                    "status": status,
                    "created_at": at,
                },
            )
        return status, body


def check_comment(comment: str | None) -> str | None:
    """A judgment's comment: None or text of at most :data:`MAX_COMMENT` characters
    (empty means none; control characters but newline and tab refused)."""
    if comment is None:
        return None
    if not isinstance(comment, str):
        raise ParameterError("comment", "text", comment)
    text = comment.strip()
    if len(text) > MAX_COMMENT:
        raise ParameterError("comment", f"at most {MAX_COMMENT} characters", len(text))
    if any(not ch.isprintable() and ch not in "\n\t" for ch in text):
        raise ParameterError("comment", "text without control characters", text[:40])
    return text or None


def check_flags(flags) -> str | None:
    """The flags as stored (``"broken,unsure"``), or None; each one of :data:`FLAGS`."""
    chosen = sorted(set(flags or ()))
    for flag in chosen:
        if flag not in FLAGS:
            raise ParameterError("flag", "one of " + ", ".join(FLAGS), flag)
    return ",".join(chosen) or None


def skip(db: Database, campaign: str, user_id: int, pair_id: int) -> dict | None:
    """Set an unjudged pair aside ("come back later"): it comes after every other unjudged
    pair of the queue (pairs set aside come back in the order they were set aside, so
    skipping one again sends it to the end). Returns the view of the next pair to judge (None: none left)."""
    ref = campaigns.ref(db, campaign)
    with db.transaction() as c:
        row = c.execute(_CURRENT, {"cid": ref.id, "uid": user_id, "pair": pair_id}).first()
        if row is None:
            raise Forbidden(f"pair {pair_id} is not in your queue")
        if row[1] is not None:
            raise Conflict(f"pair {pair_id} is judged already: change its label instead")
        c.execute(_SKIP, {"cid": ref.id, "uid": user_id, "pair": pair_id, "at": now()})
    return next_pair(db, campaign, user_id)


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
