"""The real-server fixtures themselves: PostgreSQL (``postgres.py``), chromium (``browser.py``)."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import pytest


def test_postgres_roundtrip(postgres_url):
    import sqlalchemy as sa

    assert postgres_url.startswith("postgresql+psycopg://")
    engine = sa.create_engine(postgres_url)
    meta = sa.MetaData()
    table = sa.Table(
        "judgment",
        meta,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("doc", sa.String, nullable=False),
        sa.Column("label", sa.Integer, nullable=False),
    )
    rows = [{"id": i, "doc": f"FBIS4-{i:05d} ünï <b>", "label": i % 4} for i in range(50)]
    try:
        meta.create_all(engine)
        with engine.begin() as conn:
            conn.execute(table.insert(), rows)
        with engine.connect() as conn:
            back = [dict(r._mapping) for r in conn.execute(sa.select(table).order_by(table.c.id))]
            # Unix socket only: the server listens on no TCP address.
            listen = conn.execute(sa.text("SHOW listen_addresses")).scalar_one()
        assert back == rows
        assert listen == ""
        with pytest.raises(sa.exc.IntegrityError), engine.begin() as conn:
            conn.execute(table.insert(), [rows[0]])  # the primary key holds
    finally:
        meta.drop_all(engine)
        engine.dispose()


def test_postgres_create_database(postgres_url):
    import sqlalchemy as sa

    from postgres import create_database

    url = create_database(postgres_url, "second_db")
    assert url.split("?")[0].endswith("/second_db")
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            assert conn.execute(sa.text("SELECT current_database()")).scalar_one() == "second_db"
    finally:
        engine.dispose()
    with pytest.raises(ValueError):
        create_database(postgres_url, 'x"; DROP DATABASE cranfield; --')


@pytest.mark.postgres
def test_postgres_stops_and_cleans_up_on_failure():
    import sqlalchemy as sa

    from postgres import postgres_server

    seen = {}
    with pytest.raises(KeyError), postgres_server("scratch") as url:
        seen["dir"] = Path(url.split("host=")[1])
        engine = sa.create_engine(url)
        with engine.connect() as conn:
            seen["pid"] = conn.execute(sa.text("SELECT pg_backend_pid()")).scalar_one()
        engine.dispose()
        assert (seen["dir"] / ".s.PGSQL.5432").exists()
        raise KeyError("the body failed")
    assert not seen["dir"].exists()  # directory, data and socket removed
    with pytest.raises(ProcessLookupError):
        os.kill(seen["pid"], 0)  # the server's processes are gone


def test_browser_loads_page_and_screenshots(browser, tmp_path, monkeypatch):
    from browser import screenshot

    monkeypatch.setenv("CRANFIELD_ARTEFACTS", str(tmp_path / "artefacts"))
    html = "<title>t</title><h1 id='x'>Évaluation &amp; judging</h1><input id='k'>"
    browser.get("data:text/html;charset=utf-8;base64," + base64.b64encode(html.encode()).decode())
    assert browser.find_element("id", "x").text == "Évaluation & judging"
    browser.find_element("id", "k").send_keys("2")  # keyboard input reaches the page
    assert browser.find_element("id", "k").get_attribute("value") == "2"
    path = screenshot(browser, "../outside/page one")
    assert path.parent == tmp_path / "artefacts"  # the name cannot leave the directory
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    width = int.from_bytes(data[16:20], "big")
    assert width > 100
