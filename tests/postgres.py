"""A real PostgreSQL server for tests: started in a temporary directory, removed after.

:func:`postgres_server` runs Debian's PostgreSQL (``initdb``/``pg_ctl`` from
``/usr/lib/postgresql/*/bin`` or ``PATH``; ``make test`` installs the ``postgresql``
package through ``tools/system-deps``): a new cluster in a private temporary directory,
listening only on a Unix socket in that directory (no TCP port is opened), with one
database. It yields an SQLAlchemy URL::

    postgresql+psycopg://USER@/DB?host=SOCKETDIR

and at the end stops the server and removes the directory, also when the body raised.
Authentication is ``trust``: only the owner of the private directory (mode 0700) can
reach the socket.

PostgreSQL refuses to run as root; under root the server runs as the ``postgres`` user
(or ``nobody``), which then owns the directory. Every wait is bounded; a server that does
not start is a ``RuntimeError`` quoting the end of its log.

Examples
--------
>>> with postgres_server() as url:                             # doctest: +SKIP
...     engine = sqlalchemy.create_engine(url)
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

START_TIMEOUT = 60
"""Seconds to wait for ``initdb``, for the server to accept connections, and to stop it."""

INSTALL_HINT = (
    "PostgreSQL server programs (initdb, pg_ctl) not found: install Debian's "
    "'postgresql' package ('make system-deps' as root, or 'sudo apt-get install postgresql')"
)


def find_bindir() -> Path:
    """The directory holding ``initdb``, ``pg_ctl`` and ``postgres`` (newest version first)."""
    candidates = sorted(
        glob.glob("/usr/lib/postgresql/*/bin"),
        key=lambda p: [int(x) if x.isdigit() else 0 for x in Path(p).parent.name.split(".")],
        reverse=True,
    )
    for directory in candidates:
        if all(os.access(Path(directory, name), os.X_OK) for name in ("initdb", "pg_ctl")):
            return Path(directory)
    initdb = shutil.which("initdb")
    if initdb:
        real = Path(initdb).resolve().parent
        if (real / "pg_ctl").exists():
            return real
    raise RuntimeError(INSTALL_HINT)


def _server_account() -> pwd.struct_passwd | None:
    """``None`` to run as the current user; under root, an unprivileged account."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise RuntimeError("running as root and no 'postgres' or 'nobody' account to run PostgreSQL")


def _clean_env() -> dict[str, str]:
    """The environment without PG* variables that would redirect the programs."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    env["LC_ALL"] = "C"
    env.pop("LANG", None)
    return env


def _run(argv: list[str], account, cwd: Path, what: str) -> None:
    kwargs = {}
    if account is not None:
        kwargs = {"user": account.pw_uid, "group": account.pw_gid, "extra_groups": []}
    try:
        done = subprocess.run(
            argv,
            cwd=cwd,
            env=_clean_env(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=START_TIMEOUT,
            **kwargs,
        )
    except subprocess.TimeoutExpired as exc:
        raise RuntimeError(f"PostgreSQL {what} did not finish in {START_TIMEOUT} s") from exc
    if done.returncode != 0:
        output = (done.stderr or done.stdout).strip().splitlines()[-15:]
        raise RuntimeError(f"PostgreSQL {what} failed ({done.returncode}): " + " | ".join(output))


def _log_tail(log: Path) -> str:
    try:
        return " | ".join(log.read_text(errors="replace").strip().splitlines()[-15:])
    except OSError:
        return "(no log)"


def _kill_postmaster(data: Path) -> None:
    """Last resort when ``pg_ctl stop`` failed: SIGKILL the postmaster of ``data``."""
    try:
        pid = int((data / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except (ProcessLookupError, PermissionError):
            return
        time.sleep(0.05)


@contextlib.contextmanager
def postgres_server(database: str = "cranfield") -> Iterator[str]:
    """Start a private PostgreSQL server with one database; yield its SQLAlchemy URL.

    Parameters
    ----------
    database
        Name of the database created for the caller (more can be created with
        :func:`create_database`).

    Yields
    ------
    str
        ``postgresql+psycopg://USER@/DATABASE?host=SOCKETDIR``.
    """
    bindir = find_bindir()
    account = _server_account()
    user = account.pw_name if account is not None else pwd.getpwuid(os.geteuid()).pw_name
    # Directly under the system temporary directory: the server account must be able to
    # reach it, and a Unix socket path may not exceed ~107 bytes.
    base = Path(
        tempfile.mkdtemp(prefix="cranfield-pg-", dir="/tmp" if os.path.isdir("/tmp") else None)
    )
    data, log = base / "data", base / "server.log"
    started = False
    try:
        if account is not None:
            os.chown(base, account.pw_uid, account.pw_gid)
        os.chmod(base, 0o700)
        _run(
            [str(bindir / "initdb"), "-D", str(data), "-U", user, "--auth=trust",
             "--encoding=UTF8", "--locale=C", "--no-sync"],
            account, base, "initdb",
        )  # fmt: skip
        options = (
            f"-c listen_addresses='' -k {base} -c fsync=off -c full_page_writes=off "
            "-c shared_buffers=32MB -c max_connections=120"
        )
        started = True  # from here on, a stop is attempted whatever happens
        try:
            _run(
                [str(bindir / "pg_ctl"), "-D", str(data), "-l", str(log), "-o", options,
                 "-w", "-t", str(START_TIMEOUT), "start"],
                account, base, "server start",
            )  # fmt: skip
        except RuntimeError as exc:
            raise RuntimeError(f"{exc}; server log: {_log_tail(log)}") from None
        url = f"postgresql+psycopg://{user}@/postgres?host={base}"
        yield create_database(url, database)
    finally:
        if started:
            try:
                _run(
                    [str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w",
                     "-t", str(START_TIMEOUT), "stop"],
                    account, base, "server stop",
                )  # fmt: skip
            except RuntimeError:
                _kill_postmaster(data)
        shutil.rmtree(base, ignore_errors=True)


def create_database(url: str, name: str) -> str:
    """Create database ``name`` on the server of ``url``; return the URL naming it.

    Lets a session-scoped server give each test its own empty database.
    """
    import psycopg
    from sqlalchemy.engine import make_url

    if not name.replace("_", "").isalnum():
        raise ValueError(f"database names here are letters, digits and '_', got {name!r}")
    parsed = make_url(url)
    host = parsed.query["host"]
    with psycopg.connect(
        host=host,
        user=parsed.username,
        dbname=parsed.database,
        autocommit=True,
        connect_timeout=START_TIMEOUT,
    ) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')
    return f"postgresql+psycopg://{parsed.username}@/{name}?host={host}"
