"""Alembic migrations of the service's schema, shipped in the package and applied by
:func:`cranfield.service.db.open_database` (``upgrade head``) whenever a database is
opened. Revisions: ``0001`` the first schema; ``0002`` adjudications, published
results and site coordinators; ``0003`` the queue index covers the pair (index-only
next-pair and progress queries)."""
