"""The queue index also holds the pair: the next unjudged pair, the neighbours and the
progress counts of an assessor are then read from the index alone.

Revision ID: 0003
Revises: 0002
"""

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(
        "ix_tasks_queue_pair", "tasks", ["campaign_id", "user_id", "position", "pair_id"]
    )
    op.drop_index("ix_tasks_queue", table_name="tasks")


def downgrade() -> None:
    op.create_index("ix_tasks_queue", "tasks", ["campaign_id", "user_id", "position"])
    op.drop_index("ix_tasks_queue_pair", table_name="tasks")
