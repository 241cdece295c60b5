"""Opening a service database: engine, migrations, the data directory, transactions.

``open_database("campaign.db")`` is SQLite in WAL mode (readers never wait for the
writer; a committed transaction survives the process being killed);
``open_database("postgresql://...")`` is PostgreSQL through psycopg 3. Opening runs the
Alembic migrations shipped in the package up to the newest revision.

Every write of the domain layer goes through :meth:`Database.write`: one transaction,
committed or rolled back as a whole. On SQLite the writes of one process are also
serialised by a lock (SQLite has one writer at a time; waiting on a lock is cheaper
and fairer than retrying ``database is locked``), and other processes are waited for
up to ``busy_timeout``.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import InputError

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
HEAD = "0003"


def database_url(target: str) -> str:
    """A SQLAlchemy URL: ``postgresql://`` URLs use psycopg 3; anything else is a path of
    an SQLite file."""
    if "://" in target:
        scheme, rest = target.split("://", 1)
        if scheme in ("postgresql", "postgres", "postgresql+psycopg"):
            return f"postgresql+psycopg://{rest}"
        if scheme.startswith("sqlite"):
            return target
        raise InputError(
            f"unsupported database URL scheme {scheme!r}: use a file path (SQLite) or "
            "postgresql://user@host/dbname"
        )
    return "sqlite:///" + os.path.abspath(target)


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")  # with WAL: durable against process death
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


class Database:
    """An open service database.

    Attributes
    ----------
    engine
        The SQLAlchemy engine.
    data_dir
        Where uploaded runs are kept (created on open): next to an SQLite file
        (``campaign.db`` -> ``campaign.data/``), or the ``data_dir`` given.
    """

    def __init__(self, url: str, data_dir: Path, *, migrate: bool = True, echo: bool = False):
        from sqlalchemy import create_engine, event
        from sqlalchemy.orm import sessionmaker

        self.url = url
        self.is_sqlite = url.startswith("sqlite")
        kwargs: dict = {"echo": echo}
        if self.is_sqlite:
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
            kwargs["pool_size"] = 20
            kwargs["max_overflow"] = 40
        else:
            kwargs["pool_size"] = 20
            kwargs["max_overflow"] = 40
            kwargs["pool_pre_ping"] = True
        self.engine = create_engine(url, **kwargs)
        if self.is_sqlite:
            event.listen(self.engine, "connect", _sqlite_pragmas)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)
        self._write_lock = threading.Lock() if self.is_sqlite else None
        self.cache: dict = {}  # facts that never change once written (campaigns.ref)
        self.data_dir = Path(data_dir).resolve()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        if migrate:
            self.migrate()

    # -- schema ------------------------------------------------------------------------

    def alembic_config(self, connection):
        from alembic.config import Config

        cfg = Config()
        cfg.set_main_option("script_location", str(MIGRATIONS))
        cfg.attributes["connection"] = connection
        return cfg

    def migrate(self, revision: str = "head") -> None:
        """Upgrade the schema to ``revision`` (the newest by default)."""
        from alembic import command

        with self._locked(), self.engine.connect() as connection:
            if self.is_sqlite:
                # SQLite alters a table by copying it and dropping the old one: with the
                # foreign keys enforced, that drop would cascade to the rows referring to it
                connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
                connection.commit()
            try:
                with connection.begin():
                    command.upgrade(self.alembic_config(connection), revision)
            finally:
                if self.is_sqlite:
                    connection.exec_driver_sql("PRAGMA foreign_keys=ON")
                    connection.commit()

    def revision(self) -> str | None:
        """The schema revision the database is at (None when empty)."""
        from alembic.runtime.migration import MigrationContext

        with self.engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()

    # -- transactions ------------------------------------------------------------------

    @contextmanager
    def _locked(self) -> Iterator[None]:
        if self._write_lock is None:
            yield
            return
        with self._write_lock:
            yield

    @contextmanager
    def write(self):
        """A session in one transaction: committed on success, rolled back on error."""
        with self._locked(), self.sessions() as session, session.begin():
            yield session

    @contextmanager
    def transaction(self):
        """A Core connection in one transaction (no ORM session: the hot paths of
        judging use it), committed on success, rolled back on error; serialised like
        :meth:`write`."""
        with self._locked(), self.engine.begin() as connection:
            yield connection

    @contextmanager
    def connection(self):
        """A Core connection for reading (no ORM session), returned to the pool after."""
        with self.engine.connect() as connection:
            yield connection

    @contextmanager
    def read(self):
        """A session for reading: nothing it changes is committed; the objects it loaded
        stay readable after it closes."""
        with self.sessions() as session:
            yield session

    def close(self) -> None:
        self.engine.dispose()


def default_data_dir(target: str) -> Path:
    """``campaign.db`` -> ``campaign.data`` beside it; for a URL, ``./cranfield-data``."""
    if "://" in target:
        return Path("cranfield-data")
    p = Path(target)
    return p.with_name(p.stem + ".data") if p.suffix else p.with_name(p.name + ".data")


def open_database(
    target: str, *, data_dir: str | os.PathLike | None = None, migrate: bool = True
) -> Database:
    """Open (creating and migrating if needed) the database ``target``: a file path
    (SQLite) or a ``postgresql://`` URL."""
    from .. import service

    service.require_serve()
    if "://" not in target:
        parent = Path(target).resolve().parent
        if not parent.is_dir():
            raise InputError(f"no such directory: {parent}", source=target)
        if Path(target).is_dir():
            raise InputError("is a directory, not a database file", source=target)
    url = database_url(target)
    return Database(url, Path(data_dir) if data_dir else default_data_dir(target), migrate=migrate)
