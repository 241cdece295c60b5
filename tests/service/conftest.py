"""Fixtures of the service tests: a fresh database on SQLite and on PostgreSQL.

``db`` is parametrised over both back ends: SQLite in WAL mode (a file in the test's
temporary directory) and a real PostgreSQL server started by the session fixture
``postgres_url`` (tests/postgres.py), with a new database per test.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

_counter = itertools.count()


def fresh_postgres(url: str) -> str:
    """A new, empty database on the server of ``url``; returns its URL."""
    import sqlalchemy as sa

    base = sa.engine.make_url(url)
    name = f"svc_{next(_counter)}"
    engine = sa.create_engine(base, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}"'))
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return base.set(database=name).render_as_string(hide_password=False)


@pytest.fixture(autouse=True, scope="session")
def cheap_password_hashing():
    """Argon2 with small costs: the tests hash many passwords; the algorithm is the same."""
    from cranfield.service import security
    from service.cheap_hashing.argon2_costs import COSTS

    security.ARGON2_PARAMETERS.update(COSTS)
    security._hasher = None
    yield
    security.ARGON2_PARAMETERS.clear()
    security._hasher = None


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_target(request, tmp_path) -> str:
    """Where a test's database lives: an SQLite file or a PostgreSQL URL."""
    if request.param == "sqlite":
        return str(tmp_path / "campaign.db")
    return fresh_postgres(request.getfixturevalue("postgres_url"))


@pytest.fixture
def db(db_target, tmp_path) -> Iterator:
    from cranfield.service.db import open_database

    database = open_database(db_target, data_dir=tmp_path / "data")
    yield database
    database.close()


@pytest.fixture
def sqlite_db(tmp_path) -> Iterator:
    """A database on SQLite only (for tests of the web layer, which is the same on both)."""
    from cranfield.service.db import open_database

    database = open_database(str(tmp_path / "campaign.db"))
    yield database
    database.close()
