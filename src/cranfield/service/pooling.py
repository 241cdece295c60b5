"""The pool of a campaign and the assessors' queues.

:func:`build` pools the accepted runs with :func:`cranfield.pooling.build_pool` (any
registered strategy; at most ``per_group`` runs per participant, by their stated
priority) and adds the gold pairs (pairs whose label is known, mixed in to measure the
assessors: Kazai et al. 2011). :func:`assign` gives every topic ``per_topic`` assessors
with :func:`cranfield.pooling.assign_topics` (INEX style: participants may be
assessors) and writes each assessor's queue in a blind order: topic by topic, both
the topics and the documents of a topic shuffled by a hash of (campaign, assessor,
pair) — deterministic for an assessor, different between assessors, and independent
of every run's ranks and of which systems retrieved a document.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable

from sqlalchemy import delete, func, insert, select

from ..errors import InputError, ParameterError, shown
from . import accounts, campaigns, submissions
from .db import Database
from .models import Campaign, Pair, Task, Topic, User
from .problems import Conflict


def build(
    db: Database,
    campaign: str,
    *,
    strategy: str = "depth",
    depth: int | None = 10,
    per_group: int | None = None,
    gold: Iterable[tuple[str, str, int]] = (),
) -> dict:
    """Pool the campaign's runs; returns ``{"strategy", "pairs", "gold", "runs"}``.

    ``gold``: ``(topic, document, label)`` triples; a gold pair that the runs did not
    retrieve is added to the pool. The campaign moves to the judging stage.
    """
    from ..pooling import build_pool
    from ..pooling.strategies import parse

    params = {} if depth is None else {"k": depth}
    parse(strategy, **params)  # bad parameters fail before any work
    with db.read() as s:
        c = campaigns.get(s, campaign)
        if s.scalar(select(func.count()).select_from(Pair).where(Pair.campaign_id == c.id)):
            raise Conflict(f"campaign {campaign!r} has a pool already")
        rows = submissions.runs_of(s, c.id)
        owners = {r.name: r.user_id for r in rows}
        priority = {r.name: r.priority for r in rows}
        topic_ids = set(s.scalars(select(Topic.topic_id).where(Topic.campaign_id == c.id)))
        scale = campaigns.scale_of(c)
        cid = c.id
    if not rows:
        raise InputError(f"campaign {campaign!r} has no runs to pool")
    pool = build_pool(
        submissions.load_runs(db, rows),
        strategy,
        per_group=per_group,
        groups={n: str(u) for n, u in owners.items()} if per_group is not None else None,
        priority=priority,
        **params,
    )
    pairs = {(q, d): None for q, d in pool.pairs()}
    n_gold = 0
    for topic, doc, label in gold:
        topic, doc = str(topic), str(doc)
        if topic not in topic_ids:
            continue
        if int(label) not in scale.values:
            raise InputError(
                f"gold label {shown(label)} of ({topic}, {doc}) is not on the scale {scale.describe()}"
            )
        pairs[(topic, doc)] = int(label)
        n_gold += 1
    ordered = sorted(pairs)  # topic, then document id: the pair ids reveal no rank
    with db.write() as s:
        c = campaigns.get(s, campaign)
        if s.scalar(select(func.count()).select_from(Pair).where(Pair.campaign_id == cid)):
            raise Conflict(f"campaign {campaign!r} has a pool already")
        s.execute(
            insert(Pair),
            [
                {"campaign_id": cid, "topic_id": q, "doc_id": d, "gold_label": pairs[(q, d)]}
                for q, d in ordered
            ],
        )
        c.pool_strategy = pool.strategy
        c.pool_per_group = per_group
        c.status = "judging"
    return {
        "strategy": pool.strategy,
        "pairs": len(ordered),
        "gold": n_gold,
        "runs": list(pool.runs),
    }


def blind_key(campaign: str, assessor: str, *parts: str) -> bytes:
    """The sort key of the blind order (SHA-256; deterministic for an assessor)."""
    text = "\x00".join((campaign, assessor, *parts))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def assign(
    db: Database,
    campaign: str,
    *,
    per_topic: int | None = None,
    assessors: list[str] | None = None,
    seed: int = 0,
) -> dict[str, list[str]]:
    """Give each pooled topic ``per_topic`` assessors (the campaign's setting by default)
    among ``assessors`` (by default every member with the assessor role) and fill their
    queues. Returns ``{topic: [assessor, ...]}``."""
    from ..pooling import assign_topics

    with db.read() as s:
        c = campaigns.get(s, campaign)
        cid, name = c.id, c.name
        per_topic = c.per_topic if per_topic is None else per_topic
        if s.scalar(select(func.count()).select_from(Task).where(Task.campaign_id == cid)):
            raise Conflict(f"campaign {campaign!r} has assignments already")
        people = accounts.members(s, cid, "assessor")
        if assessors is not None:
            wanted = set(assessors)
            people = [u for u in people if u.username in wanted]
            missing = wanted - {u.username for u in people}
            if missing:
                raise InputError(
                    f"{sorted(missing)[0]!r} is not an assessor of campaign {campaign!r}"
                )
        sampled = c.sample_design is not None
        pairs = list(
            s.execute(
                select(Pair.id, Pair.topic_id, Pair.doc_id).where(
                    Pair.campaign_id == cid, *judged_by_people(sampled)
                )
            )
        )
    if not pairs:
        raise InputError(f"campaign {campaign!r} has no pool yet: build it first")
    if not people:
        raise InputError(f"campaign {campaign!r} has no assessors")
    if (
        isinstance(per_topic, bool)
        or not isinstance(per_topic, int)
        or not 1 <= per_topic <= len(people)
    ):
        raise ParameterError(
            "assessors per topic", f"an integer from 1 to {len(people)} (the assessors)", per_topic
        )
    by_topic: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for pid, topic, doc in pairs:
        by_topic[topic].append((pid, doc))
    ids = {u.username: u.id for u in people}
    assignment = assign_topics(sorted(by_topic), sorted(ids), per_topic, seed=seed)
    queues: dict[str, list[str]] = defaultdict(list)
    for topic, names in assignment.items():
        for n in names:
            queues[n].append(topic)
    rows = []
    for n, topics_of in queues.items():
        position = 0
        for topic in sorted(topics_of, key=lambda t, n=n: blind_key(name, n, t)):
            docs = sorted(by_topic[topic], key=lambda p, n=n, t=topic: blind_key(name, n, t, p[1]))
            for pid, _doc in docs:
                rows.append(
                    {"campaign_id": cid, "user_id": ids[n], "pair_id": pid, "position": position}
                )
                position += 1
    with db.write() as s:
        if s.scalar(select(func.count()).select_from(Task).where(Task.campaign_id == cid)):
            raise Conflict(f"campaign {campaign!r} has assignments already")
        s.execute(delete(Task).where(Task.campaign_id == cid))
        for i in range(0, len(rows), 5000):
            s.execute(insert(Task), rows[i : i + 5000])
    return assignment


def pool_pairs(s, campaign_id: int) -> list[Pair]:
    return list(s.scalars(select(Pair).where(Pair.campaign_id == campaign_id).order_by(Pair.id)))


def assessors_of(s, campaign_id: int) -> list[User]:
    return list(
        s.scalars(
            select(User)
            .where(User.id.in_(select(Task.user_id).where(Task.campaign_id == campaign_id)))
            .order_by(User.username)
        )
    )


# -- work that moves: topics to more or other assessors, runs after the pool -----------


def _append(s, cid: int, name: str, user: User, topic_pairs: list[tuple[int, str, str]]) -> int:
    """Put ``topic_pairs`` ``(pair id, topic, document)`` at the end of ``user``'s queue,
    in the blind order (topic, then document, by the assessor's hash), skipping the
    pairs already in it. Returns how many were added."""
    have = set(s.scalars(select(Task.pair_id).where(Task.user_id == user.id)))
    new = [p for p in topic_pairs if p[0] not in have]
    if not new:
        return 0
    last = s.scalar(
        select(func.max(Task.position)).where(Task.campaign_id == cid, Task.user_id == user.id)
    )
    position = -1 if last is None else last
    rows = []
    for pid, _topic, _doc in sorted(
        new,
        key=lambda p: (
            blind_key(name, user.username, p[1]),
            blind_key(name, user.username, p[1], p[2]),
        ),
    ):
        position += 1
        rows.append({"campaign_id": cid, "user_id": user.id, "pair_id": pid, "position": position})
    s.execute(insert(Task), rows)
    return len(rows)


def _assessor(s, cid: int, campaign: str, username: str) -> User:
    user = s.scalar(select(User).where(User.username == username))
    if user is None or "assessor" not in accounts.roles(s, user.id, cid):
        raise InputError(f"{username!r} is not an assessor of campaign {campaign!r}")
    return user


def judged_by_people(sampled: bool) -> tuple:
    """The condition on :class:`Pair` of the pairs that go into queues: with a human
    sample (:func:`cranfield.service.sampling.choose`), only the sampled pairs."""
    return (Pair.inclusion.is_not(None),) if sampled else ()


def _topic_pairs(s, cid: int, topic: str) -> list[tuple[int, str, str]]:
    sampled = s.scalar(select(Campaign.sample_design).where(Campaign.id == cid)) is not None
    return [
        tuple(r)
        for r in s.execute(
            select(Pair.id, Pair.topic_id, Pair.doc_id).where(
                Pair.campaign_id == cid, Pair.topic_id == topic, *judged_by_people(sampled)
            )
        )
    ]


def give_topic(db: Database, campaign: str, topic: str, username: str) -> int:
    """Give ``topic`` to one more assessor (an assessor added late, or a second opinion):
    its pairs join the end of their queue. Returns the pairs added."""
    with db.write() as s:
        c = campaigns.get(s, campaign)
        user = _assessor(s, c.id, campaign, username)
        pairs = _topic_pairs(s, c.id, topic)
        if not pairs:
            raise InputError(f"topic {topic!r} has no pooled pairs in campaign {campaign!r}")
        return _append(s, c.id, c.name, user, pairs)


def take_topic(db: Database, campaign: str, topic: str, username: str) -> int:
    """Take ``topic`` from an assessor: the pairs they have not judged leave their queue
    (their judgments stay). Returns the pairs removed."""
    from .models import Judgment

    with db.write() as s:
        c = campaigns.get(s, campaign)
        user = _assessor(s, c.id, campaign, username)
        judged = select(Judgment.pair_id).where(Judgment.user_id == user.id)
        ids = [p[0] for p in _topic_pairs(s, c.id, topic)]
        gone = s.execute(
            delete(Task).where(
                Task.user_id == user.id, Task.pair_id.in_(ids), Task.pair_id.not_in(judged)
            )
        )
        return int(gone.rowcount or 0)


def reassign_topic(db: Database, campaign: str, topic: str, source: str, target: str) -> dict:
    """Move the unjudged part of ``topic`` from ``source`` to ``target`` (who gets every
    pair of the topic they do not have)."""
    removed = take_topic(db, campaign, topic, source)
    added = give_topic(db, campaign, topic, target)
    return {"topic": topic, "from": source, "to": target, "removed": removed, "added": added}


def extend(db: Database, campaign: str) -> dict:
    """Pool the runs again with the pool's own strategy and add the pairs the pool does
    not have yet (a run submitted late; existing pairs and their judgments are kept).
    Each new pair joins the queues of the assessors who have its topic; a topic nobody
    has is listed in ``unassigned``. Returns ``{"added", "topics", "unassigned"}``."""
    from ..pooling import build_pool

    with db.read() as s:
        c = campaigns.get(s, campaign)
        if c.pool_strategy is None:
            raise InputError(f"campaign {campaign!r} has no pool yet: build it first")
        if c.sample_design is not None:
            raise Conflict(
                f"campaign {campaign!r} has a human sample of its pool: pairs added now "
                "could never be sampled, and the estimates would lose their validity"
            )
        rows = submissions.runs_of(s, c.id)
        owners = {r.name: r.user_id for r in rows}
        priority = {r.name: r.priority for r in rows}
        strategy, per_group, cid = c.pool_strategy, c.pool_per_group, c.id
        have = set(s.execute(select(Pair.topic_id, Pair.doc_id).where(Pair.campaign_id == cid)))
    pool = build_pool(
        submissions.load_runs(db, rows),
        strategy,
        per_group=per_group,
        groups={n: str(u) for n, u in owners.items()} if per_group is not None else None,
        priority=priority,
    )
    new = sorted(set(pool.pairs()) - have)
    topics: dict[str, int] = defaultdict(int)
    unassigned: set[str] = set()
    with db.write() as s:
        c = campaigns.get(s, campaign)
        if new:
            s.execute(
                insert(Pair),
                [
                    {"campaign_id": cid, "topic_id": q, "doc_id": d, "gold_label": None}
                    for q, d in new
                ],
            )
        for topic in sorted({q for q, _ in new}):
            pairs = _topic_pairs(s, cid, topic)
            holders = list(
                s.scalars(
                    select(User)
                    .join(Task, Task.user_id == User.id)
                    .join(Pair, Pair.id == Task.pair_id)
                    .where(Pair.campaign_id == cid, Pair.topic_id == topic)
                    .distinct()
                )
            )
            topics[topic] = sum(1 for q, _ in new if q == topic)
            if not holders:
                unassigned.add(topic)
            for user in holders:
                _append(s, cid, c.name, user, pairs)
        c.status = "judging"
    return {"added": len(new), "topics": dict(topics), "unassigned": sorted(unassigned)}
