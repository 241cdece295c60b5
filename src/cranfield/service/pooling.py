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
from .models import Pair, Task, Topic, User
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
        pairs = list(
            s.execute(select(Pair.id, Pair.topic_id, Pair.doc_id).where(Pair.campaign_id == cid))
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
