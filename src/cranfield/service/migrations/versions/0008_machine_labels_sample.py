"""Machine labels of the pool (kept apart from people's judgments) and the sample of
pairs people judge (each pair's stratum and inclusion probability).

Revision ID: 0008
Revises: 0007
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "machine_labels",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "campaign_id",
            sa.Integer(),
            sa.ForeignKey("campaigns.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column(
            "pair_id", sa.Integer(), sa.ForeignKey("pairs.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("assessor", sa.String(200), nullable=False),
        sa.Column("label", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("pair_id", "assessor"),
    )
    op.create_index(
        "ix_machine_labels_campaign", "machine_labels", ["campaign_id", "assessor", "pair_id"]
    )
    with op.batch_alter_table("pairs") as t:
        t.add_column(sa.Column("stratum", sa.Integer(), nullable=True))
        t.add_column(sa.Column("inclusion", sa.Float(), nullable=True))
    with op.batch_alter_table("campaigns") as t:
        t.add_column(sa.Column("sample_design", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("campaigns") as t:
        t.drop_column("sample_design")
    with op.batch_alter_table("pairs") as t:
        t.drop_column("inclusion")
        t.drop_column("stratum")
    op.drop_index("ix_machine_labels_campaign", table_name="machine_labels")
    op.drop_table("machine_labels")
