"""The service's tables (SQLAlchemy 2 declarative models).

Every table's history is in :mod:`cranfield.service.migrations`; a test checks that the
migrated schema equals these declarations. Ids shown to users are the integer primary
keys; a pair's id follows (topic, document id) order, so it reveals neither a rank nor
a system.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import (
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

ROLES = ("coordinator", "assessor", "participant")
STATUSES = ("submission", "judging", "published")


def now() -> dt.datetime:
    """The current time in UTC, without time zone (stored alike by SQLite and PostgreSQL)."""
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)


class Base(DeclarativeBase):
    pass


class User(Base):
    __tablename__ = "users"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String(64), unique=True)
    password_hash: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=now)
    # added by revision 0002: may create campaigns
    site_coordinator: Mapped[bool] = mapped_column(Boolean, default=False)


class Campaign(Base):
    __tablename__ = "campaigns"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    title: Mapped[str] = mapped_column(String(200), default="")
    scale: Mapped[str] = mapped_column(String(500))  # "0=not relevant,1=relevant,..."
    deadline: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    max_runs: Mapped[int] = mapped_column(Integer, default=5)
    per_topic: Mapped[int] = mapped_column(Integer, default=1)
    aggregation: Mapped[str] = mapped_column(String(32), default="majority")
    measures: Mapped[str] = mapped_column(String(500), default="AP nDCG@10 P@10")
    status: Mapped[str] = mapped_column(String(16), default="submission")
    pool_strategy: Mapped[str | None] = mapped_column(String(200), nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=now)
    # added by revision 0002
    published_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    results_json: Mapped[str | None] = mapped_column(Text, nullable=True)
    # added by revision 0005
    guidelines: Mapped[str | None] = mapped_column(Text, nullable=True)
    pool_per_group: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # added by revision 0007: the documents' collection id (``irds:ID``); its documents
    # are stored as the runs that name them are accepted, not all at creation
    documents_source: Mapped[str | None] = mapped_column(String(300), nullable=True)
    # added by revision 0008: the human sample's design (JSON: fraction, strata bounds,
    # seed, measure of the estimates); None: people judge the whole pool
    sample_design: Mapped[str | None] = mapped_column(Text, nullable=True)
    # added by revision 0009: the question minimal test collections decide (JSON:
    # measure, runs, threshold; :mod:`cranfield.service.mtc_order`); None: the
    # assessors' queues are served in their blind order
    mtc_design: Mapped[str | None] = mapped_column(Text, nullable=True)


class Membership(Base):
    __tablename__ = "memberships"
    __table_args__ = (UniqueConstraint("campaign_id", "user_id", "role"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    role: Mapped[str] = mapped_column(String(16))


class Topic(Base):
    __tablename__ = "topics"
    __table_args__ = (UniqueConstraint("campaign_id", "topic_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    topic_id: Mapped[str] = mapped_column(String(200))
    title: Mapped[str] = mapped_column(Text, default="")
    description: Mapped[str] = mapped_column(Text, default="")
    narrative: Mapped[str] = mapped_column(Text, default="")


class Document(Base):
    __tablename__ = "documents"
    __table_args__ = (UniqueConstraint("campaign_id", "doc_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    doc_id: Mapped[str] = mapped_column(String(200))
    title: Mapped[str] = mapped_column(Text, default="")
    text: Mapped[str] = mapped_column(Text, default="")


class Run(Base):
    __tablename__ = "runs"
    __table_args__ = (UniqueConstraint("campaign_id", "name"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(100))
    description: Mapped[str] = mapped_column(Text, default="")
    priority: Mapped[int] = mapped_column(Integer, default=1)
    path: Mapped[str] = mapped_column(String(500))  # relative to the data directory
    rows: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=now)


class Pair(Base):
    __tablename__ = "pairs"
    __table_args__ = (UniqueConstraint("campaign_id", "topic_id", "doc_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    topic_id: Mapped[str] = mapped_column(String(200))
    doc_id: Mapped[str] = mapped_column(String(200))
    gold_label: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # added by revision 0008: the pair's rank stratum and, when people judge a sample,
    # its inclusion probability (None: not in the sample). Never shown to assessors.
    stratum: Mapped[int | None] = mapped_column(Integer, nullable=True)
    inclusion: Mapped[float | None] = mapped_column(Float, nullable=True)


class MachineLabel(Base):
    """A machine assessor's label of a pooled pair (added by revision 0008), kept apart
    from people's judgments: ``assessor`` names the model and its prompt
    (``MODEL@HASH``, :func:`cranfield.judgments.machine.assessor_name`). Never shown to
    assessors."""

    __tablename__ = "machine_labels"
    __table_args__ = (
        UniqueConstraint("pair_id", "assessor"),
        Index("ix_machine_labels_campaign", "campaign_id", "assessor", "pair_id"),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    pair_id: Mapped[int] = mapped_column(ForeignKey("pairs.id", ondelete="CASCADE"))
    assessor: Mapped[str] = mapped_column(String(200))
    label: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=now)


class Task(Base):
    """One pair in one assessor's queue, at ``position`` (a per-assessor blind order)."""

    __tablename__ = "tasks"
    __table_args__ = (
        UniqueConstraint("user_id", "pair_id"),
        Index("ix_tasks_queue_pair", "campaign_id", "user_id", "position", "pair_id"),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    pair_id: Mapped[int] = mapped_column(ForeignKey("pairs.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    # added by revision 0005: "come back later" (the pair waits until the rest is judged)
    skipped_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)


class Judgment(Base):
    """The current label of one assessor for one pair (one row per pair and assessor)."""

    __tablename__ = "judgments"
    __table_args__ = (UniqueConstraint("pair_id", "user_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    pair_id: Mapped[int] = mapped_column(ForeignKey("pairs.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    label: Mapped[int] = mapped_column(Integer)
    seconds: Mapped[float | None] = mapped_column(Float, nullable=True)
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime, default=now)
    # added by revision 0005: the assessor's note and flags ("unsure", "broken")
    comment: Mapped[str | None] = mapped_column(Text, nullable=True)
    flags: Mapped[str | None] = mapped_column(String(32), nullable=True)


class JudgmentEvent(Base):
    """Every label ever saved (the judgment log): changing a label keeps the earlier one."""

    __tablename__ = "judgment_events"
    __table_args__ = (Index("ix_judgment_events_pair", "pair_id", "user_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    pair_id: Mapped[int] = mapped_column(ForeignKey("pairs.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    label: Mapped[int] = mapped_column(Integer)
    seconds: Mapped[float | None] = mapped_column(Float, nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=now)


class IdempotencyKey(Base):
    """The answer given to an ``Idempotency-Key``: repeating the request replays it."""

    __tablename__ = "idempotency_keys"
    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    pair_id: Mapped[int] = mapped_column(Integer)
    label: Mapped[int] = mapped_column(Integer)
    status: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=now)


class Adjudication(Base):
    """The coordinator's decision on a conflict; it overrides the aggregated label."""

    __tablename__ = "adjudications"
    pair_id: Mapped[int] = mapped_column(
        ForeignKey("pairs.id", ondelete="CASCADE"), primary_key=True
    )
    label: Mapped[int] = mapped_column(Integer)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=now)


class Session(Base):
    """A login: the SHA-256 of its token (the token itself is never stored)."""

    __tablename__ = "sessions"
    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    csrf: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=now)
    expires_at: Mapped[dt.datetime] = mapped_column(DateTime)


class LoginAttempt(Base):
    """A password verification, recorded before it runs (added by revision 0004).

    ``key`` is what the attempt counts against: ``"u:ADDRESS USER"`` for the user name
    from one client address, ``"a:ADDRESS"`` for the address alone. Kept in the
    database, so that every worker process behind it throttles alike.
    """

    __tablename__ = "login_attempts"
    __table_args__ = (Index("ix_login_attempts_key", "key", "at"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(200))
    at: Mapped[dt.datetime] = mapped_column(DateTime)


class KnownDevice(Base):
    """A device a user logged in from (added by revision 0006): its device cookie's
    nonce, hashed (:mod:`cranfield.service.devices`). A cookie whose row is gone —
    forgotten by the user, by a coordinator, or by a password change — is no longer a
    known device."""

    __tablename__ = "known_devices"
    __table_args__ = (Index("ix_known_devices_user", "user_id", "id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    nonce_hash: Mapped[str] = mapped_column(String(64), unique=True)
    label: Mapped[str] = mapped_column(String(120))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime)
    last_used_at: Mapped[dt.datetime] = mapped_column(DateTime)


class Invitation(Base):
    """A one-time link (added by revision 0005): ``invite`` creates an account with a
    role in a campaign, ``reset`` sets a user's password. Only the token's SHA-256 is
    kept; a link works once, until it expires."""

    __tablename__ = "invitations"
    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    campaign_id: Mapped[int | None] = mapped_column(
        ForeignKey("campaigns.id", ondelete="CASCADE"), nullable=True
    )
    role: Mapped[str | None] = mapped_column(String(16), nullable=True)
    user_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), nullable=True
    )
    created_by: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=now)
    expires_at: Mapped[dt.datetime] = mapped_column(DateTime)
    used_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)


class AuditEntry(Base):
    """What a coordinator did (added by revision 0005): members, pools, assignments,
    adjudications, results, invitations — in order, never changed."""

    __tablename__ = "audit_log"
    __table_args__ = (Index("ix_audit_log_campaign", "campaign_id", "id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int | None] = mapped_column(
        ForeignKey("campaigns.id", ondelete="CASCADE"), nullable=True
    )
    user_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), nullable=True
    )
    action: Mapped[str] = mapped_column(String(64))
    detail: Mapped[str] = mapped_column(Text, default="")
    at: Mapped[dt.datetime] = mapped_column(DateTime, default=now)
