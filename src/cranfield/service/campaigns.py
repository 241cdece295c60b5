"""Campaigns: creation with topics, documents and a relevance scale; lookups.

A campaign's topics and documents come from anything with the attributes of
:class:`cranfield.collection.Topic` (``id``, ``title``, ``description``, ``narrative``)
and :class:`cranfield.collection.Document` (``id``, ``title``, ``text``): read from
files with :func:`cranfield.collection.read_topics` / ``read_documents``, or the
bundled sample collection. The documents may also be a collection's ir_datasets id
(``irds:ID``): the campaign then keeps the id and stores only the documents the
accepted runs name, looked up in the collection's document store as each run is
accepted (:func:`cranfield.service.submissions.submit`), so a campaign over MS MARCO
holds the pooled passages, not 8.8 million.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import func, insert, select

from ..errors import InputError, ParameterError
from .db import Database
from .models import STATUSES, Campaign, Document, Topic
from .problems import Conflict, NotFound

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
DEFAULT_SCALE = "0=not relevant,1=relevant,2=highly relevant"
DEFAULT_MEASURES = "AP nDCG@10 P@10"
AGGREGATIONS = ("majority", "mean", "median", "dawid-skene", "mace")
_BATCH = 2000


@dataclass(frozen=True)
class Settings:
    """What a coordinator chooses when creating a campaign."""

    title: str = ""
    scale: str = DEFAULT_SCALE
    deadline: dt.datetime | None = None
    max_runs: int = 5
    per_topic: int = 1
    aggregation: str = "majority"
    measures: str = DEFAULT_MEASURES


def check_name(name: str) -> str:
    if not isinstance(name, str) or not NAME.match(name):
        raise ParameterError(
            "campaign name",
            "1 to 64 letters, digits and . _ - (starting with a letter or digit)",
            name,
        )
    return name


def scale_of(campaign: Campaign):
    """The campaign's :class:`cranfield.judgments.Scale`."""
    from ..judgments import Scale

    return Scale.parse(campaign.scale)


def _check_settings(settings: Settings) -> None:
    from ..judgments import Scale

    Scale.parse(settings.scale)
    if not (isinstance(settings.max_runs, int) and 1 <= settings.max_runs <= 1000):
        raise ParameterError("max runs", "an integer from 1 to 1000", settings.max_runs)
    if not (isinstance(settings.per_topic, int) and 1 <= settings.per_topic <= 100):
        raise ParameterError("assessors per topic", "an integer from 1 to 100", settings.per_topic)
    if settings.aggregation not in AGGREGATIONS:
        raise ParameterError(
            "aggregation", "one of " + ", ".join(AGGREGATIONS), settings.aggregation
        )
    check_measures(settings.measures)


def check_measures(text: str) -> list[str]:
    """The measure names of ``text`` (space or comma separated), each checked."""
    from ..core.measures import parse

    names = [m for m in re.split(r"[\s,]+", text or "") if m]
    if not names:
        raise ParameterError("measures", "at least one measure name", text)
    for m in names:
        parse(m)
    return names


def create_campaign(
    db: Database,
    name: str,
    topics: Iterable,
    documents: Iterable | str,
    settings: Settings | None = None,
) -> int:
    """Create campaign ``name`` with its topics and documents in one transaction.

    Topic and document ids must be distinct and non-empty; :class:`InputError`
    otherwise (nothing is written). ``documents`` may be a collection id
    (``irds:ID``, checked to have documents): its documents are stored when runs name
    them. Returns the campaign's id.
    """
    source = documents if isinstance(documents, str) else None
    if source is not None:
        from ..core.io.collections import Collection, collection_id

        named = collection_id(source)
        if named is None:
            raise ParameterError("documents", "documents or a collection id (irds:ID)", source)
        Collection.load(named).need("docs")  # an unknown id or no documents: one line
        documents = ()
    check_name(name)
    settings = settings or Settings()
    _check_settings(settings)
    with db.write() as s:
        if s.scalar(select(Campaign.id).where(Campaign.name == name)) is not None:
            raise Conflict(f"a campaign named {name!r} exists already")
        c = Campaign(
            name=name,
            title=settings.title or name,
            scale=_scale_text(settings.scale),
            deadline=settings.deadline,
            max_runs=settings.max_runs,
            per_topic=settings.per_topic,
            aggregation=settings.aggregation,
            measures=" ".join(check_measures(settings.measures)),
            status="submission",
            documents_source=source,
        )
        s.add(c)
        s.flush()
        seen: set[str] = set()
        rows = []
        for t in topics:
            tid = _id(t.id, "topic")
            if tid in seen:
                raise InputError(f"topic {tid!r} appears twice")
            seen.add(tid)
            rows.append(
                {
                    "campaign_id": c.id,
                    "topic_id": tid,
                    "title": str(t.title or ""),
                    "description": str(getattr(t, "description", "") or ""),
                    "narrative": str(getattr(t, "narrative", "") or ""),
                }
            )
        if not rows:
            raise InputError("the campaign has no topics")
        s.execute(insert(Topic), rows)
        seen.clear()
        batch: list[dict] = []
        for d in documents:
            did = _id(d.id, "document")
            if did in seen:
                raise InputError(f"document {did!r} appears twice")
            seen.add(did)
            batch.append(
                {
                    "campaign_id": c.id,
                    "doc_id": did,
                    "title": str(getattr(d, "title", "") or ""),
                    "text": str(d.text or ""),
                }
            )
            if len(batch) >= _BATCH:
                s.execute(insert(Document), batch)
                batch = []
        if batch:
            s.execute(insert(Document), batch)
        if not seen and source is None:
            raise InputError("the campaign has no documents")
        return c.id


def document_rows(campaign_id: int, documents) -> list[dict]:
    """Rows of the ``documents`` table for ``documents`` (``(id, title, text)``)."""
    return [
        {"campaign_id": campaign_id, "doc_id": d[0], "title": d[1] or "", "text": d[2] or ""}
        for d in documents
    ]


def _scale_text(text: str) -> str:
    from ..judgments import Scale

    return Scale.parse(text).describe()


def _id(value, what: str) -> str:
    text = str(value).strip() if value is not None else ""
    if not text or len(text) > 200 or any(ch.isspace() for ch in text):
        raise InputError(f"{what} id {value!r} is empty, longer than 200 characters or has spaces")
    return text


def get(s, name: str) -> Campaign:
    """The campaign named ``name`` (:class:`NotFound` otherwise)."""
    c = s.scalar(select(Campaign).where(Campaign.name == name))
    if c is None:
        raise NotFound(f"no campaign named {name!r}")
    return c


@dataclass(frozen=True)
class Ref:
    """What never changes about a campaign once created: its id and its label scale."""

    id: int
    labels: tuple
    values: frozenset


def ref(db: Database, name: str) -> Ref:
    """The campaign's :class:`Ref`, cached by the database object (the hot paths of
    judging look a campaign up on every request)."""
    cache = db.cache.setdefault("campaigns", {})
    found = cache.get(name)
    if found is None:
        with db.read() as s:
            c = get(s, name)
            labels = tuple(scale_labels(c))
            found = Ref(c.id, labels, frozenset(x["value"] for x in labels))
        cache[name] = found
    return found


def set_status(db: Database, name: str, status: str) -> None:
    if status not in STATUSES:
        raise ParameterError("status", "one of " + ", ".join(STATUSES), status)
    with db.write() as s:
        get(s, name).status = status


def reopen(db: Database, name: str, deadline=None) -> None:
    """Accept runs again (a late team, a resubmission), until ``deadline`` (a UTC
    datetime; None: no deadline). A pool built already stays: its strategy pools the
    new runs when the coordinator extends it (:func:`cranfield.service.pooling.extend`)."""
    with db.write() as s:
        c = get(s, name)
        c.status = "submission"
        c.deadline = deadline


def summary(s, c: Campaign) -> dict:
    """The campaign's public description (no run, pool or judgment detail)."""
    n_topics = s.scalar(select(func.count()).select_from(Topic).where(Topic.campaign_id == c.id))
    n_docs = s.scalar(
        select(func.count()).select_from(Document).where(Document.campaign_id == c.id)
    )
    return {
        "name": c.name,
        "title": c.title,
        "status": c.status,
        "scale": scale_labels(c),
        "deadline": c.deadline.isoformat() + "Z" if c.deadline else None,
        "max_runs": c.max_runs,
        "per_topic": c.per_topic,
        "aggregation": c.aggregation,
        "measures": c.measures.split(),
        "topics": n_topics,
        "documents": n_docs,
        "published": c.published_at is not None,
    }


def scale_labels(c: Campaign) -> list[dict]:
    """``[{"value", "name", "key"}]``: the labels with the key that chooses each on the
    judging page (the value itself when every value is a digit 0-9, else 1, 2, ...)."""
    sc = scale_of(c)
    digits = all(0 <= v <= 9 for v in sc.values)
    return [
        {"value": v, "name": n or str(v), "key": str(v) if digits else str(i + 1)}
        for i, (v, n) in enumerate(zip(sc.values, sc.names, strict=True))
    ]


def topics_query(campaign_id: int):
    return select(Topic).where(Topic.campaign_id == campaign_id)


def topics(s, campaign_id: int) -> list[Topic]:
    return list(s.scalars(topics_query(campaign_id).order_by(Topic.topic_id)))


MAX_GUIDELINES = 100_000


def topics_trec(s, campaign_id: int) -> str:
    """The campaign's topics as TREC ``<top>`` blocks (what
    :func:`cranfield.collection.read_topics` reads back)."""
    out = []
    for t in topics(s, campaign_id):
        out.append(
            f"<top>\n<num> Number: {t.topic_id}\n<title> {_line(t.title)}\n\n"
            f"<desc> Description:\n{_line(t.description)}\n\n"
            f"<narr> Narrative:\n{_line(t.narrative)}\n</top>\n"
        )
    return "\n".join(out)


def _line(text: str | None) -> str:
    """A field on its lines, with no ``<`` that would start a tag."""
    return (text or "").replace("<", "&lt;")


def set_guidelines(db: Database, name: str, text: str) -> None:
    """The campaign's guidelines for assessors and participants (plain text, paragraphs
    separated by blank lines; at most :data:`MAX_GUIDELINES` characters)."""
    if not isinstance(text, str) or len(text) > MAX_GUIDELINES:
        raise ParameterError(
            "guidelines", f"text of at most {MAX_GUIDELINES} characters", len(str(text))
        )
    with db.write() as s:
        get(s, name).guidelines = text.strip() or None


def list_for(s, user_id: int | None) -> list[Campaign]:
    """The campaigns the user is a member of (every campaign for ``None``)."""
    from .models import Membership

    q = select(Campaign).order_by(Campaign.name)
    if user_id is not None:
        q = q.where(
            Campaign.id.in_(select(Membership.campaign_id).where(Membership.user_id == user_id))
        )
    return list(s.scalars(q))
