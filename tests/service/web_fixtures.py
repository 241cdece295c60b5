"""A served campaign for the web-layer tests: users of every role, runs, a pool, queues,
judgments and published results; clients logged in by token or by cookie."""

from __future__ import annotations

from dataclasses import dataclass, field

from service.helpers import PASSWORD, doc_ids, document, make_campaign, run_text, topic, write

RUNS = {"runalpha": ("alice", 0), "runbeta": ("alice", 1), "runsecret": ("carol", 2)}
EVIL_TOPIC = "<script>alert('topic')</script> solar"
EVIL_TEXT = "<script>alert('doc')</script> solar power for homes"
EVIL_DESCRIPTION = "<script>alert('run')</script>"


@dataclass
class Site:
    app: object
    db: object
    pair: int  # a pair in the assessor's queue
    other_pair: int  # a pair in the second assessor's queue only
    tokens: dict = field(default_factory=dict)
    csrf: dict = field(default_factory=dict)

    def client(self, who: str | None = None, *, cookie: bool = False):
        from fastapi.testclient import TestClient

        c = TestClient(self.app, base_url="http://testserver")
        if who is None:
            return c
        if cookie:
            r = c.post("/api/session", json={"username": who, "password": PASSWORD})
            assert r.status_code == 200, r.text
            c.csrf = r.json()["csrf"]
            return c
        c.headers["Authorization"] = "Bearer " + self.tokens[who]
        return c


def build_site(tmp_path, config=None) -> Site:
    from cranfield.service import accounts, judging, pooling, results, submissions
    from cranfield.service.app import create_app
    from cranfield.service.db import open_database

    db = open_database(str(tmp_path / "site.db"))
    topics = [topic("t1", EVIL_TOPIC), topic("t2"), topic("t3")]
    docs = [document(d, EVIL_TEXT if d == "D002" else None) for d in doc_ids(30)]
    make_campaign(db, "c", per_topic=1, topics=topics, documents=docs)
    make_campaign(db, "other")
    make_campaign(db, "open", max_runs=2)  # still accepting runs
    ids = {}
    ids["boss"] = accounts.add_user(db, "boss", PASSWORD, role="coordinator")  # site coordinator
    accounts.grant(db, "boss", "c", "coordinator")
    for name, role in (
        ("alice", "participant"),
        ("carol", "participant"),
        ("ann", "assessor"),
        ("dave", "assessor"),
    ):
        ids[name] = accounts.add_user(db, name, PASSWORD, role=role, campaign="c")
    ids["eve"] = accounts.add_user(db, "eve", PASSWORD)  # a member of the other campaign only
    for role in ("coordinator", "assessor", "participant"):
        accounts.grant(db, "eve", "other", role)
    accounts.grant(db, "carol", "open", "participant")
    for run, (owner, offset) in RUNS.items():
        text = run_text(run, offset)
        if run == "runalpha":
            text = text.replace(" 1 100.5 runalpha", " 1 100.75 runalpha")  # a distinctive score
        submissions.submit(
            db, "c", ids[owner], write(tmp_path, run + ".txt", text), description=EVIL_DESCRIPTION
        )
    pooling.build(db, "c", depth=6, gold=[("t2", "D005", 1)])
    pooling.assign(db, "c")
    for a in ("ann", "dave"):
        for i in range(4):
            view = judging.next_pair(db, "c", ids[a])
            judging.save(db, "c", ids[a], view["pair"], i % 3)
    results.compute(db, "c")
    results.publish(db, "c")
    from sqlalchemy import select

    from cranfield.service.models import Task

    with db.read() as s:
        mine = set(s.scalars(select(Task.pair_id).where(Task.user_id == ids["ann"])))
        theirs = set(s.scalars(select(Task.pair_id).where(Task.user_id == ids["dave"])))
    site = Site(create_app(db, config), db, min(mine), min(theirs - mine))
    for name in ("boss", "alice", "carol", "ann", "dave", "eve"):
        token, csrf, _ = accounts.login(db, name, PASSWORD)
        site.tokens[name], site.csrf[name] = token, csrf
    return site
