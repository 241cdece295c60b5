"""A campaign's documents by collection id: looked up when runs name them.

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("campaigns") as t:
        t.add_column(sa.Column("documents_source", sa.String(300), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("campaigns") as t:
        t.drop_column("documents_source")
