"""``cranfield campaign init`` and ``cranfield serve`` on databases they cannot use: one
line on stderr, status 2, no traceback, in bounded time, and nothing left behind that
was not there before (the database file, its -wal/-shm companions, the data directory)."""

from __future__ import annotations

import socket
import sqlite3
from pathlib import Path

import pytest

from .harness import assert_clean_failure, assert_success, run_cli

pytest.importorskip("sqlalchemy", reason="the serve extra is a test dependency")


def _listing(directory: Path) -> dict[str, bytes | None]:
    return {
        str(p.relative_to(directory)): (p.read_bytes() if p.is_file() else None)
        for p in sorted(directory.rglob("*"))
    }


def _closed_port() -> int:
    """A localhost port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _unusable_targets(tmp_path: Path) -> list[tuple[str, str]]:
    text = tmp_path / "notes.db"
    text.write_text("these are my notes, not a database\n")
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as conn:  # a real SQLite file of another application
        conn.execute("CREATE TABLE campaigns (x TEXT)")
        conn.execute("INSERT INTO campaigns VALUES ('mine')")
    (tmp_path / "folder").mkdir()
    return [
        (str(text), "not an SQLite database"),
        ("/dev/null", "not a regular file"),
        (str(tmp_path / "folder"), "is a directory"),
        (str(tmp_path / "missing" / "c.db"), "no such directory"),
        (f"postgresql://who:secret@127.0.0.1:{_closed_port()}/none", "PostgreSQL"),
        (str(other), "without cranfield's tables"),
    ]


@pytest.mark.parametrize("command", ["init", "serve"])
def test_an_unusable_database_is_one_line_and_leaves_nothing(tmp_path, command):
    work = tmp_path / "work"
    work.mkdir()
    for target, mention in _unusable_targets(work):
        before = _listing(work)
        if command == "init":
            argv = ["campaign", "init", target, "--name", "c", "--sample"]
        else:
            argv = ["serve", target, "--port", str(_closed_port())]
        err = assert_clean_failure(run_cli(*argv, cwd=work, timeout=60), mention)
        assert "secret" not in err  # the password of a URL is never shown
        assert _listing(work) == before, target  # nothing created, nothing changed


def test_a_failed_init_removes_the_database_it_created(tmp_path):
    topics = tmp_path / "topics.csv"
    topics.write_text("id,title\n1,first topic\n2,second topic\n")
    documents = tmp_path / "docs.jsonl"
    documents.write_text('{"id": "d1", "title": "a", "text": "x"}\n{"id": \n')
    before = _listing(tmp_path)
    out = run_cli("campaign", "init", tmp_path / "c.db", "--name", "c", "--topics", topics,
                  "--documents", documents, cwd=tmp_path)  # fmt: skip
    assert_clean_failure(out, "docs.jsonl")
    assert _listing(tmp_path) == before


def test_a_failed_init_on_an_existing_database_keeps_it(tmp_path):
    db = tmp_path / "c.db"
    assert_success(run_cli("campaign", "init", db, "--name", "c", "--sample", cwd=tmp_path))
    assert db.exists() and (tmp_path / "c.data").is_dir()
    # the same name again fails, and the database and its data stay
    again = run_cli("campaign", "init", db, "--name", "c", "--sample", cwd=tmp_path)
    assert again.status != 0 and "Traceback" not in again.stderr
    assert db.exists() and (tmp_path / "c.data").is_dir()
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM campaigns").fetchone() == (1,)
