"""Skipped pairs, comments and flags on judgments, guidelines, the pool's per-group
limit, one-time links (invitations, password resets) and the audit log.

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tasks") as t:
        t.add_column(sa.Column("skipped_at", sa.DateTime(), nullable=True))
    with op.batch_alter_table("judgments") as t:
        t.add_column(sa.Column("comment", sa.Text(), nullable=True))
        t.add_column(sa.Column("flags", sa.String(32), nullable=True))
    with op.batch_alter_table("campaigns") as t:
        t.add_column(sa.Column("guidelines", sa.Text(), nullable=True))
        t.add_column(sa.Column("pool_per_group", sa.Integer(), nullable=True))
    op.create_table(
        "invitations",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column(
            "campaign_id",
            sa.Integer(),
            sa.ForeignKey("campaigns.id", ondelete="CASCADE"),
            nullable=True,
        ),
        sa.Column("role", sa.String(16), nullable=True),
        sa.Column(
            "user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=True
        ),
        sa.Column(
            "created_by",
            sa.Integer(),
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.Column("used_at", sa.DateTime(), nullable=True),
    )
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "campaign_id",
            sa.Integer(),
            sa.ForeignKey("campaigns.id", ondelete="CASCADE"),
            nullable=True,
        ),
        sa.Column(
            "user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True
        ),
        sa.Column("action", sa.String(64), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_audit_log_campaign", "audit_log", ["campaign_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_audit_log_campaign", table_name="audit_log")
    op.drop_table("audit_log")
    op.drop_table("invitations")
    with op.batch_alter_table("campaigns") as t:
        t.drop_column("pool_per_group")
        t.drop_column("guidelines")
    with op.batch_alter_table("judgments") as t:
        t.drop_column("flags")
        t.drop_column("comment")
    with op.batch_alter_table("tasks") as t:
        t.drop_column("skipped_at")
