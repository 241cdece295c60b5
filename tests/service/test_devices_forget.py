"""Forgetting a known device (issue 32): a user sees their devices and forgets one, a
coordinator forgets all devices of a campaign member, a password change forgets them
all. A forgotten cookie is still signed but no longer known: its login goes back to
the ordinary lanes (the owner's other devices stay known). SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from cranfield.service import accounts, devices, invitations
from cranfield.service.app import Config, create_app
from cranfield.service.throttle import Limits

from .helpers import make_campaign

PASSWORD = "correct horse battery"


def browser(app, address="10.0.0.1", agent="Firefox on Linux", device=None):
    from fastapi.testclient import TestClient

    c = TestClient(app, client=(address, 40000))
    c.headers["User-Agent"] = agent
    if device:
        c.cookies.set(devices.COOKIE, device)
    return c


def login(c, password=PASSWORD, username="owner"):
    return c.post("/api/session", json={"username": username, "password": password})


def session(c, username: str = "owner") -> dict:
    """Log ``c`` in as ``username``; the headers of its later requests (CSRF for the
    API)."""
    r = login(c, username=username)
    assert r.status_code == 200, r.text
    return {"X-CSRF-Token": r.json()["csrf"]}


@pytest.fixture
def app(db):
    for name in ("owner", "other", "boss"):
        accounts.add_user(db, name, PASSWORD)
    return create_app(db, Config(logins=Limits(per_user_address=3)))


def listed(c) -> list[dict]:
    r = c.get("/api/me/devices")
    assert r.status_code == 200
    return r.json()["devices"]


def test_forgetting_one_device_leaves_the_others_known(db, app):
    laptop, phone = browser(app, agent="Firefox on Linux"), browser(app, agent="Safari on iOS")
    headers = session(laptop)
    session(phone)
    mine = listed(laptop)
    assert [d["label"] for d in mine] == ["Safari on iOS", "Firefox on Linux"]
    assert [d["this_device"] for d in mine] == [False, True]
    phone_cookie, laptop_cookie = (
        phone.cookies.get(devices.COOKIE),
        laptop.cookies.get(devices.COOKIE),
    )
    r = laptop.delete(f"/api/me/devices/{mine[0]['id']}", headers=headers)
    assert r.status_code == 200 and r.json() == {"forgotten": mine[0]["id"]}
    assert [d["label"] for d in listed(laptop)] == ["Firefox on Linux"]
    # a flood from the shared address closes the ordinary lane ...
    attacker = browser(app)
    assert [login(attacker, "guess").status_code for _ in range(4)] == [401] * 3 + [429]
    # ... the forgotten phone is in it now; the laptop is still known
    assert devices.verify(phone_cookie, *accounts.credentials(db, "owner")) is not None
    assert login(browser(app, device=phone_cookie)).status_code == 429
    assert login(browser(app, device=laptop_cookie)).status_code == 200
    # a known device logging in again keeps its one row (renewed, same nonce)
    assert len(listed(laptop)) == 1


def test_a_forgotten_device_becomes_a_new_device_at_its_next_login(db, app):
    phone = browser(app, agent="Safari on iOS")
    headers = session(phone)
    (first,) = listed(phone)
    assert phone.delete(f"/api/me/devices/{first['id']}", headers=headers).status_code == 200
    assert listed(phone) == []
    old = phone.cookies.get(devices.COOKIE)
    again = browser(app, agent="Safari on iOS", device=old)
    r = login(again)  # the same browser, logging in: a new row
    assert r.status_code == 200
    new = r.cookies.get(devices.COOKIE)
    assert new.split(".")[1] != old.split(".")[1]
    (again,) = devices.listed(db, accounts.credentials(db, "owner")[0], new)
    assert again["this_device"]


def test_nobody_forgets_another_users_device(db, app):
    owner, other = browser(app), browser(app, "10.0.0.2")
    session(owner)
    other.headers.update(session(other, "other"))
    owner_device = listed(owner)[0]["id"]
    r = other.delete(f"/api/me/devices/{owner_device}")
    assert r.status_code == 404
    assert [d["id"] for d in listed(owner)] == [owner_device]
    for bad in ("0", str(2**63), "-1", "x"):
        assert other.delete(f"/api/me/devices/{bad}").status_code == 422
    assert other.delete("/api/me/devices/999999").status_code == 404


def test_a_coordinator_forgets_every_device_of_a_member_and_it_is_audited(db, app):
    make_campaign(db, "c")
    accounts.grant(db, "boss", "c", "coordinator")
    accounts.grant(db, "owner", "c", "assessor")
    for agent in ("a", "b", "c"):
        session(browser(app, agent=agent))
    session(browser(app, "10.0.0.9"), "other")
    boss = browser(app, "10.0.0.3")
    headers = session(boss, "boss")
    r = boss.post("/api/campaigns/c/forget-devices", json={"username": "owner"}, headers=headers)
    assert r.status_code == 200 and r.json() == {"username": "owner", "forgotten": 3}
    assert devices.listed(db, accounts.credentials(db, "owner")[0]) == []
    assert len(devices.listed(db, accounts.credentials(db, "other")[0])) == 1  # untouched
    r = boss.post("/api/campaigns/c/forget-devices", json={"username": "other"}, headers=headers)
    assert r.status_code == 404  # not a member of this coordinator's campaign
    assert len(devices.listed(db, accounts.credentials(db, "other")[0])) == 1
    log = boss.get("/api/campaigns/c/audit").json()
    entry = [e for e in log if e["action"] == "api_forget_member_devices"]
    assert [e["detail"] for e in entry] == [{"devices": 3, "username": "owner"}]
    # the members' lanes: an assessor cannot call it
    owner = browser(app)
    r = owner.post(
        "/api/campaigns/c/forget-devices", json={"username": "owner"}, headers=session(owner)
    )
    assert r.status_code == 403


def test_a_password_change_forgets_every_device(db, app):
    laptop, phone = browser(app), browser(app, agent="phone")
    session(laptop)
    session(phone)
    uid = accounts.credentials(db, "owner")[0]
    assert len(devices.listed(db, uid)) == 2
    invitations.change_password(db, uid, PASSWORD, "a new long password")
    assert devices.listed(db, uid) == []


def test_the_account_page_lists_and_forgets_with_the_csrf_token(db, app):
    import re

    page_user = browser(app, agent="Firefox <script>alert(1)</script>")
    r = page_user.post("/login", data={"username": "owner", "password": PASSWORD})
    if r.status_code >= 400:  # the login form wants its own CSRF cookie first
        page_user.get("/login")
        token = page_user.cookies.get("cranfield_login_csrf")
        r = page_user.post(
            "/login", data={"username": "owner", "password": PASSWORD, "csrf": token}
        )
    assert r.status_code < 400
    page = page_user.get("/account").text
    assert "(this device)" in page and "<script>alert" not in page and "&lt;script&gt;" in page
    device_id = re.search(r"/account/devices/(\d+)/forget", page).group(1)
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    r = page_user.post(f"/account/devices/{device_id}/forget", data={}, follow_redirects=False)
    assert r.status_code == 403  # no CSRF token: refused
    r = page_user.post(
        f"/account/devices/{device_id}/forget", data={"csrf": csrf}, follow_redirects=False
    )
    assert r.status_code == 303
    assert "No known device" in page_user.get("/account").text
    r = page_user.post(
        f"/account/devices/{device_id}/forget", data={"csrf": csrf}, follow_redirects=False
    )
    assert r.status_code == 404


def test_a_user_keeps_at_most_the_most_recent_devices(db, app, monkeypatch):
    monkeypatch.setattr(devices, "PER_USER", 3)
    for i in range(5):
        assert login(browser(app, f"10.1.0.{i}", agent=f"browser {i}")).status_code == 200
    uid = accounts.credentials(db, "owner")[0]
    assert [d["label"] for d in devices.listed(db, uid)] == ["browser 4", "browser 3", "browser 2"]


def test_a_cookie_issued_before_the_device_list_is_unknown(db, app):
    """Signed with the user's hash but never listed (revision 0006 came after it): the
    ordinary lanes; its next successful login lists a device."""
    uid, password_hash = accounts.credentials(db, "owner")
    old = devices.issue(uid, password_hash)
    assert devices.verify(old, uid, password_hash) is not None
    assert not devices.is_known(db, devices.verify(old, uid, password_hash))
    attacker = browser(app)
    assert [login(attacker, "guess").status_code for _ in range(4)] == [401] * 3 + [429]
    assert login(browser(app, device=old)).status_code == 429
    assert devices.listed(db, uid) == []
    assert login(browser(app, "10.9.9.9", device=old)).status_code == 200
    assert len(devices.listed(db, uid)) == 1
