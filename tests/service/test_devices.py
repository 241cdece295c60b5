"""Device cookies (OWASP's defence against online guessing): the owner on a known device
is neither refused nor delayed by a flood of wrong logins from elsewhere; attackers
without the cookie keep the ordinary limits; a password change ends every cookie."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from cranfield.service import accounts, devices, invitations
from cranfield.service.app import Config, create_app
from cranfield.service.throttle import Limits

from .helpers import login_over_http as _login

PASSWORD = "correct horse battery"


@pytest.fixture
def db(sqlite_db):
    """SQLite only: the lanes' counting on both databases is test_throttle.py's."""
    return sqlite_db


def app_over(db, **limits):
    for name in ("owner", "other"):
        accounts.add_user(db, name, PASSWORD)
    return create_app(db, Config(logins=Limits(**limits)))


def client(app, address="10.0.0.1", device=None):
    """A browser at ``address``, with the device cookie ``device`` (no session)."""
    from fastapi.testclient import TestClient

    c = TestClient(app, client=(address, 40000))
    if device:
        c.cookies.set(devices.COOKIE, device)
    return c


def device_of(c) -> str:
    return c.cookies.get(devices.COOKIE)


def login(c, password, username="owner"):
    return c.post("/api/session", json={"username": username, "password": password})


def test_a_success_sets_a_device_cookie_that_lets_the_owner_past_a_throttled_address(db):
    app = app_over(db, per_user_address=3)
    owner = client(app)
    assert login(owner, PASSWORD).status_code == 200
    cookie = owner.cookies.get(devices.COOKIE)
    assert cookie and cookie.startswith(f"{accounts.credentials(db, 'owner')[0]}.")
    attacker = client(app)  # the same address, no device cookie
    assert [login(attacker, "guess").status_code for _ in range(4)] == [401] * 3 + [429]
    assert login(attacker, PASSWORD).status_code == 429  # the untrusted lane is closed
    known = client(app, device=device_of(owner))
    assert login(known, PASSWORD).status_code == 200  # the known device is not


def test_a_device_cookie_counts_only_for_its_own_user_and_only_untampered(db):
    app = app_over(db, per_user_address=2)
    owner = client(app)
    assert login(owner, PASSWORD).status_code == 200
    cookie = device_of(owner)
    other_id, other_hash = accounts.credentials(db, "other")
    owner_id, owner_hash = accounts.credentials(db, "owner")
    assert devices.verify(cookie, owner_id, owner_hash) is not None
    assert devices.verify(cookie, other_id, other_hash) is None
    uid, nonce, day, sig = cookie.split(".")
    forged = [
        f"{other_id}.{nonce}.{day}.{sig}",
        f"{uid}.{nonce}x.{day}.{sig}",
        f"{uid}.{nonce}.{int(day) + 1}.{sig}",
        f"{uid}.{nonce}.{day}.{sig[:-1]}{'1' if sig[-1] == '0' else '0'}",  # always a change
        f"{uid}.{nonce}.{int(day) - devices.DAYS - 1}.{sig}",
        "",
        "x" * 500,
        f"\u00b2.{nonce}.{day}.{sig}",  # a digit to str.isdigit(), not to int()
        f"{uid}.{nonce}.\u00b3.{sig}",
        f"{uid}.{nonce}.{day}",
        f"{uid}.{nonce}.{day}.{sig}.x",
    ]
    assert all(devices.verify(f, owner_id, owner_hash) is None for f in forged)
    # owner's cookie presented when logging in as someone else: the ordinary lane
    for i, f in enumerate(forged[-4:]):  # over HTTP: a wrong login, never a server error
        r = client(app, f"10.7.7.{i}").post(
            "/api/session",
            json={"username": "owner", "password": "guess"},
            headers={"cookie": f"{devices.COOKIE}={f}".encode("latin-1")},  # as sent
        )
        assert r.status_code == 401
    stranger = client(app, device=cookie)
    statuses = [login(stranger, "guess", "other").status_code for _ in range(3)]
    assert statuses == [401, 401, 429]


def test_a_password_change_ends_every_device_cookie(db):
    app = app_over(db, per_user_address=2)
    owner = client(app)
    assert login(owner, PASSWORD).status_code == 200
    uid, old_hash = accounts.credentials(db, "owner")
    cookie = device_of(owner)
    invitations.change_password(db, uid, PASSWORD, "a new long password")
    assert devices.verify(cookie, *accounts.credentials(db, "owner")) is None
    attacker = client(app)
    assert [login(attacker, "guess").status_code for _ in range(3)] == [401, 401, 429]
    assert (
        login(client(app, device=cookie), "a new long password").status_code == 429
    )  # back in the address lane
    accounts.add_user(db, "owner", PASSWORD, exist_ok=True)  # `campaign user` resets too
    assert accounts.credentials(db, "owner")[1] != old_hash
    assert devices.verify(cookie, *accounts.credentials(db, "owner")) is None


def test_a_stolen_device_cookie_is_throttled_in_its_own_lane(db):
    app = app_over(db, per_device=3, per_user_devices=5, per_user_address=100)
    owner = client(app)
    assert login(owner, PASSWORD).status_code == 200
    thief = client(app, "10.6.6.6", device_of(owner))
    assert [login(thief, "guess").status_code for _ in range(4)] == [401] * 3 + [429]
    # the owner's other devices share the user's trusted count: 5 attempts in all
    laptop = client(app, "10.0.0.2")
    assert login(laptop, PASSWORD).status_code == 200  # untrusted lane: a new device
    statuses = [login(client(app, device=device_of(laptop)), PASSWORD).status_code]
    statuses += [login(client(app, device=device_of(laptop)), PASSWORD).status_code]
    statuses += [login(client(app, device=device_of(laptop)), PASSWORD).status_code]
    assert statuses == [200, 200, 429]  # the 4th and 5th: no account logs in over and over
    assert login(client(app, "10.0.0.3"), PASSWORD).status_code == 200  # unknown device: fine


def test_the_known_device_is_checked_while_the_flood_holds_every_untrusted_slot(db):
    """However long the untrusted queue, the trusted lane has slots of its own."""
    import httpx

    app = app_over(db, concurrent=1, wait=0.3)
    with client(app) as c:
        assert login(c, PASSWORD).status_code == 200
        cookie = device_of(c)

    async def during_a_flood():
        throttle = app.state.throttle
        held = await throttle.verification_slot()  # the flood's checks occupy the lane
        async with held:

            def at(address, cookies=None):
                transport = httpx.ASGITransport(app, client=(address, 40000))
                return httpx.AsyncClient(transport=transport, base_url="http://t", cookies=cookies)

            body = {"username": "owner", "password": PASSWORD}
            async with at("10.0.0.7", {devices.COOKIE: cookie}) as known:
                start = time.perf_counter()
                trusted = await known.post("/api/session", json=body)
                seconds = time.perf_counter() - start
            async with at("10.0.0.8") as unknown:
                untrusted = await unknown.post("/api/session", json=body)
        return trusted.status_code, seconds, untrusted.status_code, untrusted.text

    trusted, seconds, untrusted, text = asyncio.run(during_a_flood())
    assert trusted == 200 and seconds < 0.3
    assert untrusted == 429 and "busy" in text


@pytest.mark.process
def test_a_flood_from_many_addresses_does_not_delay_the_owner_on_a_known_device(tmp_path):
    """A real server behind a trusted proxy, the owner's password hashed with the real
    Argon2id costs: 20 wrong logins from 20 addresses and 12 from one, then the owner
    from a known device and from a new one. The known device is answered in about one
    password check; the new one waits its turn in the flood; the one address is refused
    after ten."""
    from cranfield.service import security
    from cranfield.service.db import open_database

    from .server import Server

    db = open_database(str(tmp_path / "f.db"))
    saved = dict(security.ARGON2_PARAMETERS)
    security.ARGON2_PARAMETERS.clear()
    security._hasher = None
    try:
        accounts.add_user(db, "owner", PASSWORD)  # 64 MiB, as deployed
    finally:
        security.ARGON2_PARAMETERS.update(saved)
        security._hasher = None
    db.close()
    deployed = Server(
        tmp_path / "f.db", "--trusted-proxy", "127.0.0.1", cwd=tmp_path, cheap_hashing=False
    )
    with deployed as server:
        status, alone, cookie = _login(server.url, PASSWORD, "192.168.7.7")
        assert status == 200 and cookie
        flood: list[tuple[str, int]] = []
        addresses = [f"10.1.{i}.1" for i in range(20)] + ["10.2.0.1"] * 12
        threads = [
            threading.Thread(
                target=lambda a=a: flood.append((a, _login(server.url, "guess", a)[0]))
            )
            for a in addresses
        ]
        start = time.perf_counter()
        for t in threads:
            t.start()
        time.sleep(0.3)  # the flood is queued
        args = (server.url, PASSWORD, "192.168.7.7")
        owner: dict = {}
        threads += [
            threading.Thread(target=lambda: owner.update(unknown=_login(*args))),
            threading.Thread(target=lambda: owner.update(known=_login(*args, cookie))),
        ]
        for t in threads[-2:]:
            t.start()
        for t in threads:
            t.join()
        known, unknown = owner["known"], owner["unknown"]
        held = time.perf_counter() - start
    many = [status for a, status in flood if a != "10.2.0.1"]
    same = [status for a, status in flood if a == "10.2.0.1"]
    assert many == [401] * 20  # many addresses: each slowed, none refused
    assert (
        set(same) <= {401, 429} and same.count(429) >= 2
    )  # one address: ten checks at most, the rest refused
    assert known[0] == 200 and unknown[0] == 200
    # the known device: about one check (the flood's two run beside it on two cores);
    # the unknown one waited behind most of the flood
    assert known[1] < max(5 * alone, 1.5) and known[1] < held / 3, (known[1], alone, held)
    assert unknown[1] > 2 * known[1], (unknown[1], known[1])
