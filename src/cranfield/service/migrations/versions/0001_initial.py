"""The first schema: users, campaigns, memberships, topics, documents, runs, pairs,
tasks, judgments and their log, idempotency keys, sessions.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _id() -> sa.Column:
    return sa.Column("id", sa.Integer(), primary_key=True)


def _fk(name: str, table: str) -> sa.Column:
    return sa.Column(
        name, sa.Integer(), sa.ForeignKey(f"{table}.id", ondelete="CASCADE"), nullable=False
    )


def upgrade() -> None:
    op.create_table(
        "users",
        _id(),
        sa.Column("username", sa.String(64), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(200), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_table(
        "campaigns",
        _id(),
        sa.Column("name", sa.String(64), nullable=False, unique=True),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("scale", sa.String(500), nullable=False),
        sa.Column("deadline", sa.DateTime(), nullable=True),
        sa.Column("max_runs", sa.Integer(), nullable=False),
        sa.Column("per_topic", sa.Integer(), nullable=False),
        sa.Column("aggregation", sa.String(32), nullable=False),
        sa.Column("measures", sa.String(500), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("pool_strategy", sa.String(200), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_table(
        "memberships",
        _id(),
        _fk("campaign_id", "campaigns"),
        _fk("user_id", "users"),
        sa.Column("role", sa.String(16), nullable=False),
        sa.UniqueConstraint("campaign_id", "user_id", "role"),
    )
    op.create_table(
        "topics",
        _id(),
        _fk("campaign_id", "campaigns"),
        sa.Column("topic_id", sa.String(200), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("narrative", sa.Text(), nullable=False),
        sa.UniqueConstraint("campaign_id", "topic_id"),
    )
    op.create_table(
        "documents",
        _id(),
        _fk("campaign_id", "campaigns"),
        sa.Column("doc_id", sa.String(200), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.UniqueConstraint("campaign_id", "doc_id"),
    )
    op.create_table(
        "runs",
        _id(),
        _fk("campaign_id", "campaigns"),
        _fk("user_id", "users"),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("priority", sa.Integer(), nullable=False),
        sa.Column("path", sa.String(500), nullable=False),
        sa.Column("rows", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("campaign_id", "name"),
    )
    op.create_table(
        "pairs",
        _id(),
        _fk("campaign_id", "campaigns"),
        sa.Column("topic_id", sa.String(200), nullable=False),
        sa.Column("doc_id", sa.String(200), nullable=False),
        sa.Column("gold_label", sa.Integer(), nullable=True),
        sa.UniqueConstraint("campaign_id", "topic_id", "doc_id"),
    )
    op.create_table(
        "tasks",
        _id(),
        _fk("campaign_id", "campaigns"),
        _fk("user_id", "users"),
        _fk("pair_id", "pairs"),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.UniqueConstraint("user_id", "pair_id"),
    )
    op.create_index("ix_tasks_queue", "tasks", ["campaign_id", "user_id", "position"])
    op.create_table(
        "judgments",
        _id(),
        _fk("pair_id", "pairs"),
        _fk("user_id", "users"),
        sa.Column("label", sa.Integer(), nullable=False),
        sa.Column("seconds", sa.Float(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("pair_id", "user_id"),
    )
    op.create_table(
        "judgment_events",
        _id(),
        _fk("pair_id", "pairs"),
        _fk("user_id", "users"),
        sa.Column("label", sa.Integer(), nullable=False),
        sa.Column("seconds", sa.Float(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_judgment_events_pair", "judgment_events", ["pair_id", "user_id"])
    op.create_table(
        "idempotency_keys",
        sa.Column(
            "user_id",
            sa.Integer(),
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("key", sa.String(200), primary_key=True),
        sa.Column("pair_id", sa.Integer(), nullable=False),
        sa.Column("label", sa.Integer(), nullable=False),
        sa.Column("status", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        _fk("user_id", "users"),
        sa.Column("csrf", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
    )


def downgrade() -> None:
    for table in (
        "sessions",
        "idempotency_keys",
        "judgment_events",
        "judgments",
        "tasks",
        "pairs",
        "runs",
        "documents",
        "topics",
        "memberships",
        "campaigns",
        "users",
    ):
        op.drop_table(table)
