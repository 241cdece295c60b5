"""One-time links (invitations, password resets) and self-service password change,
through the API on SQLite: one use, expiry, one answer for unknown/used/expired links,
sessions ended, nothing secret in the audit log."""

from __future__ import annotations

import pytest

from service.helpers import PASSWORD
from service.web_fixtures import build_site

NEW = "a new long password"


@pytest.fixture
def site(tmp_path):
    return build_site(tmp_path)


def token_of(link: str) -> str:
    return link.rsplit("/link/", 1)[1]


def test_an_invitation_creates_an_account_with_the_role_once(site):
    boss = site.client("boss")
    r = boss.post("/api/campaigns/c/invitations", json={"role": "assessor"})
    assert r.status_code == 201
    link = r.json()["link"]
    assert link.startswith("http://testserver/link/") and r.json()["expires"].endswith("Z")
    token = token_of(link)
    anyone = site.client()
    assert anyone.get(f"/api/links/{token}").json() == {
        "kind": "invite",
        "campaign": "c",
        "role": "assessor",
    }
    r = anyone.post(f"/api/links/{token}", json={"username": "ann", "password": NEW})
    assert r.status_code == 409  # a taken name: the link stays usable
    r = anyone.post(f"/api/links/{token}", json={"username": "cara", "password": NEW})
    assert r.status_code == 200 and r.json() == {"username": "cara"}
    again = anyone.post(f"/api/links/{token}", json={"username": "cara2", "password": NEW})
    unknown = anyone.get("/api/links/" + "x" * 43)
    assert again.status_code == unknown.status_code == 404
    assert again.json()["error"] == unknown.json()["error"]  # used = unknown
    login = anyone.post("/api/session", json={"username": "cara", "password": NEW})
    assert login.status_code == 200
    cara = site.client()
    cara.headers["Authorization"] = "Bearer " + login.json()["token"]
    assert cara.get("/api/campaigns/c/next").status_code in (200, 204)  # an assessor now
    log = boss.get("/api/campaigns/c/audit.tsv").text
    assert "api_invite" in log and token not in log


def test_an_expired_link_is_refused_like_an_unknown_one(site):
    import datetime as dt

    import sqlalchemy as sa

    from cranfield.service.models import Invitation

    token = token_of(
        site.client("boss")
        .post("/api/campaigns/c/invitations", json={"role": "participant"})
        .json()["link"]
    )
    with site.db.transaction() as c:
        c.execute(sa.update(Invitation).values(expires_at=dt.datetime(2020, 1, 1)))
    r = site.client().post(f"/api/links/{token}", json={"username": "late", "password": NEW})
    assert r.status_code == 404 and "unknown, used or expired" in r.json()["error"]
    bad = site.client("boss").post(
        "/api/campaigns/c/invitations", json={"role": "assessor", "days": 91}
    )
    assert bad.status_code == 422


def test_a_reset_link_sets_the_password_and_ends_the_sessions(site):
    ann = site.client("ann")
    assert ann.get("/api/me").status_code == 200
    r = site.client("boss").post("/api/campaigns/c/password-resets", json={"username": "ann"})
    assert r.status_code == 201
    token = token_of(r.json()["link"])
    assert site.client().get(f"/api/links/{token}").json() == {"kind": "reset", "username": "ann"}
    short = site.client().post(f"/api/links/{token}", json={"password": "short"})
    assert short.status_code == 422  # the link is not spent by a refused password
    assert site.client().post(f"/api/links/{token}", json={"password": NEW}).status_code == 200
    assert ann.get("/api/me").status_code == 401  # her session ended
    anyone = site.client()
    assert (
        anyone.post("/api/session", json={"username": "ann", "password": PASSWORD}).status_code
        == 401
    )
    assert anyone.post("/api/session", json={"username": "ann", "password": NEW}).status_code == 200


def test_a_coordinator_resets_only_members_of_their_campaign(site):
    eve = site.client("eve")  # coordinates "other"
    assert (
        eve.post("/api/campaigns/other/password-resets", json={"username": "boss"}).status_code
        == 404
    )
    assert eve.post("/api/campaigns/c/password-resets", json={"username": "ann"}).status_code == 403


def test_changing_ones_password_keeps_this_session_and_ends_the_others(site):
    first = site.client("dave", cookie=True)
    other = site.client("dave")  # a bearer session
    r = first.post(
        "/api/me/password",
        json={"current": "wrong", "new": NEW},
        headers={"X-CSRF-Token": first.csrf},
    )
    assert r.status_code == 403
    r = first.post(
        "/api/me/password",
        json={"current": PASSWORD, "new": NEW},
        headers={"X-CSRF-Token": first.csrf},
    )
    assert r.status_code == 200
    assert first.get("/api/me").status_code == 200 and other.get("/api/me").status_code == 401


def test_the_dashboard_shows_a_new_link_once_and_never_puts_it_in_a_url(site):
    page = site.client("boss", cookie=True)
    r = page.post(
        "/c/c/invite", data={"csrf": page.csrf, "role": "assessor"}, follow_redirects=False
    )
    assert r.status_code == 200 and 'id="link-url"' in r.text and "location" not in r.headers
    url = r.text.split('id="link-url">')[1].split("<")[0]
    form = site.client().get(url.replace("http://testserver", ""))
    assert form.status_code == 200 and "Join c as assessor" in form.text
    assert 'id="link-url"' not in page.get("/c/c/dashboard").text
