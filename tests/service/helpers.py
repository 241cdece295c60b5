"""Small campaigns and HTTP helpers shared by the service tests."""

from __future__ import annotations

import types
from pathlib import Path

PASSWORD = "correct horse battery"
TOPICS = ("t1", "t2", "t3")


def topic(tid: str, title: str | None = None):
    return types.SimpleNamespace(
        id=tid,
        title=title or f"solar energy storage {tid}",
        description="batteries for homes",
        narrative="",
    )


def document(did: str, text: str | None = None):
    return types.SimpleNamespace(
        id=did, title=f"title of {did}", text=text or f"news item {did} on solar power"
    )


def doc_ids(n: int = 30) -> list[str]:
    return [f"D{i:03d}" for i in range(n)]


def make_campaign(
    db,
    name: str = "c",
    *,
    n_docs: int = 30,
    per_topic: int = 1,
    topics=None,
    documents=None,
    **settings,
):
    from cranfield.service import campaigns

    campaigns.create_campaign(
        db,
        name,
        topics if topics is not None else [topic(t) for t in TOPICS],
        documents if documents is not None else [document(d) for d in doc_ids(n_docs)],
        campaigns.Settings(per_topic=per_topic, **settings),
    )


def run_text(name: str, offset: int = 0, depth: int = 8, topics=TOPICS, n_docs: int = 30) -> str:
    """A valid run: per topic ``depth`` documents, scores descending."""
    ids = doc_ids(n_docs)
    lines = []
    for q in topics:
        for rank in range(depth):
            d = ids[(offset + rank * 3 + len(q)) % len(ids)]
            lines.append(f"{q} Q0 {d} {rank + 1} {100 - rank}.5 {name}")
    return "\n".join(lines) + "\n"


def write(tmp: Path, name: str, text: str) -> Path:
    path = tmp / name
    path.write_text(text)
    return path


def user(db, username: str, role: str, campaign: str = "c") -> int:
    from cranfield.service import accounts

    return accounts.add_user(db, username, PASSWORD, role=role, campaign=campaign)


def submit(db, tmp: Path, uid: int, name: str, offset: int = 0, campaign: str = "c", **kw):
    from cranfield.service import submissions

    path = write(tmp, f"{name}.upload", run_text(name, offset))
    return submissions.submit(db, campaign, uid, path, **kw)


def judging_campaign(db, tmp: Path, *, assessors=("a1", "a2"), per_topic: int = 2, gold=()):
    """Campaign ``c``: a coordinator ``boss``, participants ``p1`` (runs r1, r2) and ``p2``
    (run s1), assessors, the pool at depth 5 and the assignment."""
    from cranfield.service import pooling

    make_campaign(db, per_topic=per_topic)
    ids = {"boss": user(db, "boss", "coordinator")}
    ids["p1"] = user(db, "p1", "participant")
    ids["p2"] = user(db, "p2", "participant")
    for a in assessors:
        ids[a] = user(db, a, "assessor")
    submit(db, tmp, ids["p1"], "r1", 0)
    submit(db, tmp, ids["p1"], "r2", 1)
    submit(db, tmp, ids["p2"], "s1", 2)
    pooling.build(db, "c", depth=5, gold=gold)
    pooling.assign(db, "c")
    return ids


def login_over_http(url: str, password: str, address: str, device: str | None = None):
    """Log in as ``owner`` at the server ``url`` over HTTP, as the client ``address``
    (``X-Forwarded-For``: the server must trust the local proxy) with the device cookie
    ``device``: ``(status, seconds, the device cookie set or None)``."""
    import json
    import time
    import urllib.error
    import urllib.request

    from cranfield.service.devices import COOKIE

    headers = {"Content-Type": "application/json", "X-Forwarded-For": address}
    if device:
        headers["Cookie"] = f"{COOKIE}={device}"
    request = urllib.request.Request(
        url + "/api/session",
        data=json.dumps({"username": "owner", "password": password}).encode(),
        headers=headers,
    )
    start = time.perf_counter()
    cookies: list[str] = []
    try:
        with urllib.request.urlopen(request, timeout=120) as r:
            status, cookies = r.status, r.headers.get_all("Set-Cookie") or []
    except urllib.error.HTTPError as e:
        status = e.code
    found = [c.split(";")[0].split("=", 1)[1] for c in cookies if c.startswith(COOKIE + "=")]
    return status, time.perf_counter() - start, (found or [None])[0]
