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
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import InputError

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
HEAD = "0009"
#: seconds to wait for a PostgreSQL server before giving up (psycopg's connect_timeout)
CONNECT_TIMEOUT = 10
_SQLITE_MAGIC = b"SQLite format 3\x00"


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
            kwargs["connect_args"] = {"connect_timeout": CONNECT_TIMEOUT}
        self.engine = create_engine(url, **kwargs)
        if self.is_sqlite:
            event.listen(self.engine, "connect", _sqlite_pragmas)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)
        self._write_lock = threading.Lock() if self.is_sqlite else None
        self.cache: dict = {}  # facts that never change once written (campaigns.ref)
        self.data_dir = Path(data_dir).resolve()
        try:
            if migrate:
                self.migrate()
        except BaseException:
            self.engine.dispose()
            raise
        self.data_dir.mkdir(parents=True, exist_ok=True)

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


def _check_sqlite_file(target: str) -> None:
    """Refuse, before SQLite touches it, a path that cannot be an SQLite database: a
    directory, a device or pipe (``/dev/null``), or a non-empty file without SQLite's
    header (an empty file is a new database, as SQLite treats it)."""
    path = Path(target)
    parent = path.resolve().parent
    if not parent.is_dir():
        raise InputError(f"no such directory: {parent}", source=target)
    if path.is_dir():
        raise InputError("is a directory, not a database file", source=target)
    if not path.exists():
        return
    if not path.is_file():
        raise InputError("not a regular file: an SQLite database is a file", source=target)
    try:
        with open(path, "rb") as fh:
            head = fh.read(len(_SQLITE_MAGIC))
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", source=target) from None
    if head and head != _SQLITE_MAGIC:
        raise InputError(
            "not an SQLite database (give a new file name, an existing campaign database "
            "or a postgresql:// URL)",
            source=target,
        )
    if head and not _is_ours(path):
        raise InputError(
            "an SQLite database without cranfield's tables (another application's?): it is "
            "left as it is; give a new file name or a campaign database",
            source=target,
        )


def _is_ours(path: Path) -> bool:
    """Whether the SQLite file ``path`` is empty of tables or a campaign database (its
    ``alembic_version`` holds one of our revisions), read without writing anything."""
    import sqlite3

    revisions = {p.name.split("_", 1)[0] for p in (MIGRATIONS / "versions").glob("0*.py")}
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
            if not tables:
                return True
            if "alembic_version" not in tables:
                return False
            found = {r[0] for r in conn.execute("SELECT version_num FROM alembic_version")}
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise InputError(f"cannot use as an SQLite database: {exc}", source=str(path)) from None
    return bool(found) and found <= revisions


@contextmanager
def removed_on_failure(target: str, data_dir: str | os.PathLike | None = None) -> Iterator[None]:
    """Remove what the block created of database ``target`` (the SQLite file, its
    ``-wal``/``-shm``/``-journal`` companions, the data directory) when it fails: a
    failed ``campaign init`` or ``serve`` leaves nothing behind. What existed before is
    never touched."""
    paths = [Path(data_dir) if data_dir else default_data_dir(target)]
    if "://" not in target:
        paths += [Path(target + suffix) for suffix in ("", "-wal", "-shm", "-journal")]
    existed = {p: os.path.lexists(p) for p in paths}
    try:
        yield
    except BaseException:
        for p, was in existed.items():
            if was or not os.path.lexists(p):
                continue
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p, ignore_errors=True)
            else:
                p.unlink(missing_ok=True)
        raise


def _unusable(target: str, exc: Exception) -> InputError:
    """The one line for a database SQLAlchemy could not open or migrate."""
    detail = str(getattr(exc, "orig", None) or exc).strip().splitlines()
    detail = detail[0] if detail else type(exc).__name__
    if "://" in target:
        return InputError(f"cannot use the PostgreSQL database: {detail}", source=_shown(target))
    return InputError(f"cannot use as an SQLite database: {detail}", source=target)


def _shown(url: str) -> str:
    """A database URL without its password."""
    scheme, _, rest = url.partition("://")
    if "@" in rest:
        user, _, host = rest.rpartition("@")
        rest = f"{user.split(':', 1)[0]}@{host}"
    return f"{scheme}://{rest}"


def open_database(
    target: str, *, data_dir: str | os.PathLike | None = None, migrate: bool = True
) -> Database:
    """Open (creating and migrating if needed) the database ``target``: a file path
    (SQLite) or a ``postgresql://`` URL.

    Raises :class:`~cranfield.errors.InputError` (one line) when it cannot be used: not
    an SQLite file, a server that does not answer within :data:`CONNECT_TIMEOUT` seconds
    or refuses the login; nothing it created is left behind then.
    """
    from sqlalchemy.exc import SQLAlchemyError

    from .. import service

    service.require_serve()
    if "://" not in target:
        _check_sqlite_file(target)
    url = database_url(target)
    directory = Path(data_dir) if data_dir else default_data_dir(target)
    with removed_on_failure(target, directory):
        try:
            return Database(url, directory, migrate=migrate)
        except SQLAlchemyError as exc:
            raise _unusable(target, exc) from None
