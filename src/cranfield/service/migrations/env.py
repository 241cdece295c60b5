"""Alembic environment: run on the connection handed over by ``db.migrate``."""

from __future__ import annotations

from alembic import context

from cranfield.service.models import Base

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
