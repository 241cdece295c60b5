"""The login throttle on SQLite and PostgreSQL: exact under concurrency, per (user,
address) and per address, never locking the owner out from another address."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest

from cranfield.service import accounts
from cranfield.service.app import Config, create_app
from cranfield.service.throttle import Limits, Throttle, TooMany

PASSWORD = "correct horse battery"


def app_over(db, **limits):
    for name in ("owner", "other"):
        accounts.add_user(db, name, PASSWORD)
    return create_app(db, Config(logins=Limits(**limits)))


def login(app, username, password, address="10.0.0.1"):
    from fastapi.testclient import TestClient

    client = TestClient(app, client=(address, 40000))
    return client.post("/api/session", json={"username": username, "password": password})


def test_the_owner_logs_in_from_another_address_while_an_attacker_is_throttled(db):
    app = app_over(db, per_user_address=3)
    assert [login(app, "owner", "guess").status_code for _ in range(5)] == [401] * 3 + [429] * 2
    assert login(app, "owner", PASSWORD).status_code == 429  # from the attacker's address
    assert login(app, "owner", PASSWORD, address="10.0.0.2").status_code == 200
    assert login(app, "other", PASSWORD).status_code == 200  # another user, same address


def test_a_success_clears_the_failures_of_that_user_from_that_address(db):
    app = app_over(db, per_user_address=3)
    assert [login(app, "owner", "guess").status_code for _ in range(2)] == [401, 401]
    assert login(app, "owner", PASSWORD).status_code == 200
    statuses = [login(app, "owner", "guess").status_code for _ in range(4)]
    assert statuses == [401, 401, 401, 429]


def test_an_address_trying_many_users_is_throttled(db):
    app = app_over(db, per_user_address=10, per_address=4)
    statuses = [login(app, f"user{i}", "guess").status_code for i in range(6)]
    assert statuses == [401] * 4 + [429] * 2
    assert login(app, "owner", PASSWORD).status_code == 429
    assert login(app, "owner", PASSWORD, address="10.0.0.9").status_code == 200


def test_simultaneous_wrong_logins_are_counted_exactly(db):
    app = app_over(db, per_user_address=10)
    with ThreadPoolExecutor(16) as pool:
        statuses = list(pool.map(lambda _: login(app, "owner", "guess").status_code, range(40)))
    verified = statuses.count(401)
    assert 1 <= verified <= 10 and statuses.count(429) == 40 - verified
    after = [login(app, "owner", "guess").status_code for _ in range(11 - verified)]
    assert after == [401] * (10 - verified) + [429]  # ten checks in all, never more
    assert login(app, "owner", PASSWORD, address="10.0.0.2").status_code == 200


def test_refused_attempts_are_not_counted_and_old_ones_expire(db):
    import datetime as dt

    import sqlalchemy as sa

    from cranfield.service.models import LoginAttempt

    throttle = Throttle(db, Limits(per_user_address=2, window=60))
    throttle.reserve("owner", "a")
    throttle.reserve("owner", "a")
    for _ in range(3):
        with pytest.raises(TooMany, match="wait 1 minutes"):
            throttle.reserve("owner", "a")
    with db.transaction() as c:
        assert c.scalar(sa.select(sa.func.count()).select_from(LoginAttempt)) == 4  # 2 keys x 2
        c.execute(sa.update(LoginAttempt).values(at=LoginAttempt.at - dt.timedelta(seconds=61)))
    throttle.reserve("owner", "a")  # the window has passed


def test_a_verification_slot_is_refused_after_the_wait(db):
    throttle = Throttle(db, Limits(concurrent=1, wait=0.05))

    async def two_at_once():
        first = await throttle.verification_slot()
        async with first:
            with pytest.raises(TooMany, match="busy"):
                await throttle.verification_slot()
        async with await throttle.verification_slot():  # free again
            return True

    assert asyncio.run(two_at_once())


def test_a_user_name_with_a_nul_is_a_wrong_login_not_a_server_error(db):
    app = app_over(db)
    assert login(app, "own\x00er", PASSWORD).status_code == 401
