"""A bounded load test on localhost: 50 simulated assessors save judgments for 20 s
(``CRANFIELD_LOAD_SECONDS``) against a real ``cranfield serve`` on SQLite and on
PostgreSQL; half-way the server is killed with SIGKILL and started again. Afterwards
every acknowledged judgment is in the export exactly once, with its last acknowledged
label, and the log holds at least every acknowledged save."""

from __future__ import annotations

import os
import threading
import time
import urllib.request

from service.helpers import PASSWORD
from service.server import Server

ASSESSORS = 50
SECONDS = float(os.environ.get("CRANFIELD_LOAD_SECONDS", "20"))


def _setup(target: str, data_dir) -> None:
    from cranfield.service import accounts, demo, pooling
    from cranfield.service.db import open_database

    db = open_database(target, data_dir=data_dir)
    demo.sample_campaign(db, "load")
    accounts.add_user(db, "boss", PASSWORD, role="coordinator", campaign="load")
    for i in range(ASSESSORS):
        accounts.add_user(db, f"a{i:02d}", PASSWORD, role="assessor", campaign="load")
    pooling.assign(db, "load", per_topic=ASSESSORS)
    db.close()


def _export(url: str, what: str) -> list[list[str]]:
    import json

    req = urllib.request.Request(
        url + "/api/session",
        data=json.dumps({"username": "boss", "password": PASSWORD}).encode(),
        headers={"Content-Type": "application/json"},
    )
    token = json.loads(urllib.request.urlopen(req, timeout=60).read())["token"]
    req = urllib.request.Request(url + f"/api/campaigns/load/{what}")
    req.add_header("Authorization", "Bearer " + token)
    text = urllib.request.urlopen(req, timeout=120).read().decode()
    return [line.split("\t") for line in text.splitlines()[1:]]


def _load(server: Server) -> None:
    from cranfield.service.simulate import run_assessors

    server.start()
    accounts = [(f"a{i:02d}", PASSWORD) for i in range(ASSESSORS)]

    def killer():
        time.sleep(SECONDS / 2)
        server.kill()
        server.start()

    k = threading.Thread(target=killer)
    k.start()
    outcome = run_assessors(server.url, accounts, "load", SECONDS)
    k.join()
    try:
        rows = _export(server.url, "judgments")
        log = _export(server.url, "log")
    finally:
        server.stop()
    assert outcome.retries > 0, "the kill interrupted no request: the test proves nothing"
    assert len(outcome.acknowledged) > ASSESSORS
    keys = [(r[2], r[0], r[1]) for r in rows]
    assert len(keys) == len(set(keys)), "a judgment is in the export twice"
    exported = {k: int(r[3]) for k, r in zip(keys, rows, strict=True)}
    lost = {k: v for k, v in outcome.acknowledged.items() if exported.get(k) != v}
    assert not lost, (
        f"{len(lost)} acknowledged judgments lost or changed, e.g. {list(lost.items())[:3]}"
    )
    logged = {(r[2], r[0], r[1]) for r in log}
    assert set(outcome.acknowledged) <= logged and len(log) >= len(outcome.acknowledged)
    print(
        f"{len(outcome.acknowledged)} judgments acknowledged, {outcome.changes} changes, "
        f"{outcome.replays} replays, {outcome.retries} retries after the kill"
    )


def test_load_sqlite_with_a_kill(tmp_path):
    _setup(str(tmp_path / "load.db"), tmp_path / "load.data")
    _load(Server(tmp_path / "load.db", cwd=tmp_path))


def test_load_postgresql_with_a_kill(tmp_path, postgres_url):
    from service.conftest import fresh_postgres

    url = fresh_postgres(postgres_url)
    _setup(url, tmp_path / "data")
    _load(Server("--database", url, "--data-dir", tmp_path / "data", cwd=tmp_path))
