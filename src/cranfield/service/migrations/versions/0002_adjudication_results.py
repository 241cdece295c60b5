"""Adjudications of conflicts, published results on the campaign, and site
coordinators (users who may create campaigns).

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "adjudications",
        sa.Column(
            "pair_id",
            sa.Integer(),
            sa.ForeignKey("pairs.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("label", sa.Integer(), nullable=False),
        sa.Column(
            "user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    with op.batch_alter_table("campaigns") as batch:
        batch.add_column(sa.Column("published_at", sa.DateTime(), nullable=True))
        batch.add_column(sa.Column("results_json", sa.Text(), nullable=True))
    with op.batch_alter_table("users") as batch:
        batch.add_column(
            sa.Column("site_coordinator", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.drop_column("site_coordinator")
    with op.batch_alter_table("campaigns") as batch:
        batch.drop_column("results_json")
        batch.drop_column("published_at")
    op.drop_table("adjudications")
