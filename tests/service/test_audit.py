"""The audit log: every successful coordinator action, in order, with who and what;
nothing else (failed requests, assessors' and participants' requests, reads)."""

from __future__ import annotations

from cranfield.service import access
from cranfield.service.app import routes
from cranfield.service.audit import audited
from service.helpers import PASSWORD
from service.web_fixtures import build_site


def test_every_state_changing_coordinator_route_is_audited(tmp_path):
    site = build_site(tmp_path)
    coordinator_only = {
        name
        for name, _path, methods in routes(site.app)
        if name in access.RULES
        and access.RULES[name] <= {"coordinator", "site-coordinator"}
        and methods - {"GET", "HEAD"}
    }
    assert {"api_add_member", "api_pool", "api_publish", "members_form"} <= coordinator_only
    assert all(audited(name) for name in coordinator_only)
    assert not audited("api_judge") and not audited("api_upload_run")


def test_actions_are_recorded_with_who_and_what_but_never_a_password(tmp_path):
    site = build_site(tmp_path)
    boss = site.client("boss")
    r = boss.post(
        "/api/campaigns/c/users",
        json={"username": "newbie", "role": "assessor", "password": PASSWORD},
    )
    assert r.status_code == 201
    assert (
        boss.post(
            "/api/campaigns/c/users", json={"username": "x y", "role": "assessor"}
        ).status_code
        == 422
    )
    pair = site.pair
    assert boss.put(f"/api/campaigns/c/adjudications/{pair}", json={"label": 2}).status_code == 200
    assert site.client("ann").put(
        f"/api/campaigns/c/judgments/{site.pair}", json={"label": 1}
    ).status_code in (200, 201)
    assert boss.post("/api/campaigns/c/publish").status_code == 200
    page = site.client("boss", cookie=True)
    r = page.post("/c/c/members", data={"csrf": page.csrf, "username": "alice", "role": "assessor"})
    assert r.status_code == 200
    log = boss.get("/api/campaigns/c/audit").json()
    assert [e["action"] for e in log] == [
        "api_add_member",
        "api_adjudicate",
        "api_publish",
        "members_form",
    ]
    assert {e["user"] for e in log} == {"boss"}
    assert log[0]["detail"] == {"username": "newbie", "role": "assessor"}
    assert log[1]["detail"] == {"pair": pair, "label": 2}
    tsv = boss.get("/api/campaigns/c/audit.tsv").text
    assert PASSWORD not in tsv and PASSWORD not in str(log)
    lines = tsv.splitlines()
    assert lines[0] == "time\tuser\taction\tdetail" and len(lines) == 5
    assert all(len(line.split("\t")) == 4 for line in lines)
    assert site.client("eve").get("/api/campaigns/other/audit").json() == []  # per campaign
