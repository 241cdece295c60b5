"""The schema's Alembic history: from an empty database, from the previous revision with
data in it, and equal to the models' declarations."""

from __future__ import annotations

import sqlalchemy as sa

from cranfield.service.db import HEAD, open_database
from cranfield.service.models import Base


def test_empty_database_is_migrated_to_the_newest_revision(db):
    assert db.revision() == HEAD
    names = set(sa.inspect(db.engine).get_table_names())
    assert set(Base.metadata.tables) <= names


def test_migrated_schema_equals_the_models(db):
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    with db.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diff == []


def test_opening_again_changes_nothing(db_target, tmp_path):
    first = open_database(db_target, data_dir=tmp_path / "d")
    first.close()
    again = open_database(db_target, data_dir=tmp_path / "d")
    assert again.revision() == HEAD
    again.close()


def test_upgrade_from_the_previous_revision_keeps_the_data(db_target, tmp_path):
    old = open_database(db_target, data_dir=tmp_path / "d", migrate=False)
    old.migrate("0001")
    assert old.revision() == "0001"
    with old.engine.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO users (id, username, password_hash, created_at) "
                "VALUES (1, 'ann', 'x', CURRENT_TIMESTAMP)"
            )
        )
        conn.execute(
            sa.text(
                "INSERT INTO campaigns (id, name, title, scale, max_runs, per_topic, aggregation,"
                " measures, status, created_at) VALUES (1, 'c', 'C', '0,1', 5, 1, 'majority',"
                " 'AP', 'judging', CURRENT_TIMESTAMP)"
            )
        )
        conn.execute(
            sa.text("INSERT INTO pairs (id, campaign_id, topic_id, doc_id) VALUES (7, 1, 't', 'd')")
        )
        conn.execute(
            sa.text(
                "INSERT INTO judgments (pair_id, user_id, label, updated_at) VALUES (7, 1, 1, CURRENT_TIMESTAMP)"
            )
        )
        columns = {c["name"] for c in sa.inspect(conn).get_columns("campaigns")}
        assert "published_at" not in columns
    old.close()
    new = open_database(db_target, data_dir=tmp_path / "d")
    assert new.revision() == HEAD
    with new.engine.connect() as conn:
        assert conn.execute(sa.text("SELECT username, site_coordinator FROM users")).one() == (
            "ann",
            False,
        )
        assert conn.execute(sa.text("SELECT label FROM judgments WHERE pair_id = 7")).scalar() == 1
        assert conn.execute(sa.text("SELECT published_at FROM campaigns")).scalar() is None
        assert "adjudications" in sa.inspect(conn).get_table_names()
    new.close()


def test_sqlite_runs_in_wal_mode(tmp_path):
    db = open_database(str(tmp_path / "x.db"))
    with db.engine.connect() as conn:
        assert conn.execute(sa.text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(sa.text("PRAGMA foreign_keys")).scalar() == 1
    db.close()
    assert (tmp_path / "x.data").is_dir()
