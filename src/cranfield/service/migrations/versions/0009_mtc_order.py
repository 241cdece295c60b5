"""The campaign's judging order by minimal test collections (the question: a measure,
two runs or all of them, a threshold), as JSON; None: the blind queue order.

Revision ID: 0009
Revises: 0008
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("campaigns") as t:
        t.add_column(sa.Column("mtc_design", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("campaigns") as t:
        t.drop_column("mtc_design")
