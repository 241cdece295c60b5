"""Paged lists of the API (SQLite and PostgreSQL): walking the ``Link: rel="next"``
pages gives every item once, in the list's order, also while rows are inserted."""

from __future__ import annotations

import re
import threading

import pytest
import sqlalchemy as sa

from cranfield.service import accounts, judging, paging
from cranfield.service.app import create_app
from cranfield.service.models import AuditEntry, Campaign, Pair, Task, User

from .helpers import PASSWORD, TOPICS, make_campaign, submit, topic, user

LISTS = {
    # path: the field that identifies an item, and the order (a key of each item)
    "runs": ("name", lambda x: x["name"]),
    "topics": ("id", lambda x: x["id"]),
    "pairs": ("id", lambda x: x["id"]),
    "judgments.json": ("id", lambda x: x["id"]),
    "members": (None, None),  # the order joined: checked against the database
    "activity": ("assessor", lambda x: x["assessor"]),
    "audit": ("id", lambda x: x["id"]),
}


@pytest.fixture
def campaign(db, tmp_path):
    from fastapi.testclient import TestClient

    from cranfield.service import pooling

    make_campaign(db, per_topic=2, topics=[topic(t) for t in (*TOPICS, "t10", "t4", "t5")])
    ids = {name: user(db, name, "coordinator") for name in ("boss",)}
    for name in ("p1", "p2"):
        ids[name] = user(db, name, "participant")
    for a in ("a1", "a2", "a3", "a4"):
        ids[a] = user(db, a, "assessor")
    for i in range(7):
        submit(db, tmp_path, ids[f"p{1 + i % 2}"], f"r{i}", i)
    pooling.build(db, "c", depth=5)
    pooling.assign(db, "c")
    accounts.add_user(db, "a5", PASSWORD)
    with db.read() as s:
        cid = s.scalar(sa.select(Campaign.id).where(Campaign.name == "c"))
        queue = s.execute(sa.select(Task.user_id, Task.pair_id).where(Task.campaign_id == cid))
        queue = queue.all()
    per_user: dict[int, int] = {}
    for uid, pid in queue:  # every assessor judges a few
        per_user[uid] = per_user.get(uid, 0) + 1
        if per_user[uid] <= 8:
            judging.save(db, "c", uid, pid, 1)
    with db.transaction() as c:
        c.execute(
            sa.insert(AuditEntry),
            [{"campaign_id": cid, "user_id": ids["boss"], "action": f"a{i}"} for i in range(23)],
        )
    client = TestClient(create_app(db))
    r = client.post("/api/session", json={"username": "boss", "password": PASSWORD})
    client.headers["Authorization"] = "Bearer " + r.json()["token"]
    return client, cid


def walk(client, path: str, limit: int, between=None) -> list:
    """Every page of ``path``, following the Link headers; ``between()`` runs between
    pages."""
    url, out, pages = f"{path}?limit={limit}", [], 0
    while url:
        r = client.get(url)
        assert r.status_code == 200, r.text
        page = r.json()
        assert len(page) <= limit
        out += page
        pages += 1
        nxt = re.fullmatch(r'<([^>]+)>; rel="next"', r.headers.get("link", ""))
        if nxt is None:
            assert "link" not in r.headers
        else:
            assert len(page) == limit  # a short page is the last
        url = nxt and nxt.group(1)
        if url and between:
            between()
    return out


def test_every_page_of_every_list_once_in_order(campaign):
    client, _ = campaign
    for name, (ident, order) in LISTS.items():
        path = f"/api/campaigns/c/{name}"
        r = client.get(path, params={"limit": paging.MAX})
        whole = r.json()
        assert "link" not in r.headers and len(whole) >= 4, name
        if order is not None:
            assert [order(x) for x in whole] == sorted(order(x) for x in whole)
            assert len({x[ident] for x in whole}) == len(whole)
        for limit in (1, 2, 3, len(whole) - 1, len(whole), len(whole) + 1):
            assert walk(client, path, limit) == whole, (name, limit)


def test_the_default_page_the_cap_and_the_cursors(campaign, db):
    client, cid = campaign
    with db.read() as s:
        joined = s.execute(
            sa.text(
                "SELECT u.username, m.role FROM memberships m JOIN users u ON u.id = m.user_id "
                "WHERE m.campaign_id = :c ORDER BY m.id"
            ),
            {"c": cid},
        ).all()
    members = walk(client, "/api/campaigns/c/members", 2)
    assert [(x["username"], x["role"]) for x in members] == [tuple(e) for e in joined]
    with db.transaction() as c:
        c.execute(
            sa.insert(AuditEntry),
            [{"campaign_id": cid, "action": f"b{i}"} for i in range(paging.DEFAULT + 10)],
        )
    r = client.get("/api/campaigns/c/audit")
    assert len(r.json()) == paging.DEFAULT and 'rel="next"' in r.headers["link"]
    for bad in (0, -1, paging.MAX + 1, "x"):
        assert client.get("/api/campaigns/c/audit", params={"limit": bad}).status_code == 422

    text_cursor = paging.encode("r1")
    for path, cursor in [
        ("audit", "not base64 json!"),
        ("audit", text_cursor),  # a run name's cursor on an id-keyed list
        ("runs", paging.encode(3)),
        ("pairs", paging.encode(2**63)),
        ("pairs", paging.encode(1.5)),
        ("pairs", paging.encode([1])),
        ("topics", "x" * 1001),
    ]:
        r = client.get(f"/api/campaigns/c/{path}", params={"after": cursor})
        assert r.status_code == 422, (path, cursor, r.text)
        assert "after" in r.json()["error"]
    assert client.get("/api/campaigns/c/runs", params={"after": text_cursor}).status_code == 200
    # the dashboard's page numbers: anything that is not one is page 1, past the end the last
    entries = len(client.get("/api/campaigns/c/audit", params={"limit": paging.MAX}).json())
    pages = -(-entries // 25)
    for given, shown in [("\u00b2", 1), ("99999999999", 1), ("-2", 1), (str(pages + 3), pages)]:
        page = client.get("/c/c/dashboard", params={"audit": given})
        assert page.status_code == 200
        assert f"page {shown} of {pages}" in page.text, given


def test_no_duplicate_and_no_gap_while_rows_are_inserted(campaign, db):
    """Between every two pages, other requests add audit entries and judgments: every
    entry that existed before the walk comes exactly once, none twice."""
    client, cid = campaign
    with db.read() as s:
        uid = s.scalar(sa.select(User.id).where(User.username == "a5"))
        pids = s.scalars(sa.select(Pair.id).where(Pair.campaign_id == cid)).all()
    before_audit = [x["id"] for x in client.get("/api/campaigns/c/audit?limit=1000").json()]
    before_judged = [x["id"] for x in client.get("/api/campaigns/c/judgments.json").json()]
    unjudged = iter(pids)  # a5 has judged none
    accounts.grant(db, "a5", "c", "assessor")
    inserted = threading.Semaphore(0)

    def writer():  # concurrent coordinator actions: 40 of them, during the walk
        for _ in range(40):
            with db.transaction() as c:
                c.execute(sa.insert(AuditEntry).values(campaign_id=cid, action="concurrent"))
            inserted.release()

    def judge_one():  # a save between pages (a pair not in the assessor's queue is refused)
        with db.transaction() as c:
            pid = next(unjudged)
            c.execute(
                sa.insert(Task).values(campaign_id=cid, user_id=uid, pair_id=pid, position=10**6)
            )
        judging.save(db, "c", uid, pid, 0)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        audit_ids = [
            x["id"]
            for x in walk(client, "/api/campaigns/c/audit", 4, lambda: inserted.acquire(timeout=10))
        ]
        judged_ids = [
            x["id"] for x in walk(client, "/api/campaigns/c/judgments.json", 3, judge_one)
        ]
    finally:
        thread.join()
    for walked, before in ((audit_ids, before_audit), (judged_ids, before_judged)):
        assert len(walked) == len(set(walked))  # no duplicate
        assert walked == sorted(walked)
        assert set(before) <= set(walked)  # no gap
    assert len(judged_ids) > len(before_judged)  # the inserts were seen
    assert len(audit_ids) > len(before_audit)
