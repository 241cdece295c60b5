"""The login throttle: attackers slow down, the owner of an account is never locked out.

Every password verification is recorded in the database (:class:`~.models.LoginAttempt`)
*before* it runs, under two keys: the user name from the client address, and the
address alone. The attempt goes ahead only if, counting itself, the first key has at
most ``per_user_address`` attempts in the last ``window`` seconds and the second at
most ``per_address``; otherwise it is refused with 429 and not counted. A successful
login removes its own attempts and the earlier failures of that user from that address.

Recording before verifying makes the limit hold under concurrency: the attempts are
committed before they are counted, so the n-th to commit counts at least n, and no more
than the limit are ever verified (40 simultaneous wrong logins were 40 verifications;
now they are at most 10, the rest refused). Attempts that arrive together may count
each other before the refused ones are removed, so a burst may be refused a little
early — the burst's own address only.
The counts live in the database, so every worker process in front of it shares them.

A login presenting a valid device cookie for the user it names
(:mod:`cranfield.service.devices`) is *trusted* and counts elsewhere: under the device
(``"d:NONCE"``, at most ``per_device`` failures; a success clears them) and under the
user's trusted devices together (``"t:USER_ID"``, at most ``per_user_devices`` attempts,
successes included, so that no account can keep the trusted lane busy by logging in
over and over). Only the owner's own devices reach these keys, so a flood from
elsewhere cannot refuse the owner's known device.

There is no limit per user name alone: it would let anyone lock the owner (or the
coordinator) out by failing on purpose. Guessing from many addresses is bounded by
the verifications themselves: at most ``concurrent`` run at once in a process (Argon2id
takes 64 MiB and tens of milliseconds each), and a request that waits more than
``wait`` seconds (30) for its turn is refused with 429 "busy" — so a flood of logins
costs the server a bounded amount of memory, the waiting holds no thread, and the
owner's right password from another address is checked in its turn. Trusted logins
have ``concurrent`` verification slots of their own, so the owner on a known device is
checked at once, however long the untrusted queue.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from dataclasses import dataclass

from sqlalchemy import and_, delete, func, insert, select
from starlette.concurrency import run_in_threadpool

from .devices import Device
from .models import LoginAttempt, now
from .problems import ServiceError


class TooMany(ServiceError):
    status = 429


@dataclass(frozen=True)
class Limits:
    """The throttle's settings (``cranfield serve`` shows the defaults in its help)."""

    per_user_address: int = 10
    per_address: int = 50
    per_device: int = 10
    per_user_devices: int = 30
    window: float = 300.0
    concurrent: int = 2
    wait: float = 30.0


def keys(username: str, address: str, device: Device | None = None) -> tuple[str, str]:
    """The two keys an attempt counts against: from an unknown device, the user name
    from the address (an address has no space; a user name of up to 64 characters with
    no NUL, which PostgreSQL cannot store, follows it) and the address; from a known
    device, the device and the user's known devices."""
    if device is not None:
        return f"d:{device.nonce}"[:200], f"t:{device.user_id}"
    name = username.replace("\x00", "\ufffd")
    return f"u:{address} {name}"[:200], f"a:{address}"[:200]


class Throttle:
    """The throttle of one service process over its database."""

    def __init__(self, db, limits: Limits | None = None):
        self.db = db
        self.limits = limits or Limits()
        self._slots: dict[bool, asyncio.Semaphore] = {}
        self._threads = None
        self._loop = None

    def _caps(self, device: Device | None) -> tuple[int, int]:
        if device is not None:
            return self.limits.per_device, self.limits.per_user_devices
        return self.limits.per_user_address, self.limits.per_address

    def reserve(self, username: str, address: str, device: Device | None = None) -> list[int]:
        """Record the attempt (committed), then count: the ids of its rows, or
        :class:`TooMany` (the rows removed again). ``device``: the valid device cookie
        the attempt presented for this user, if any."""
        user_key, address_key = keys(username, address, device)
        at = now()
        since = at - dt.timedelta(seconds=self.limits.window)
        with self.db.transaction() as c:
            c.execute(
                delete(LoginAttempt).where(
                    LoginAttempt.key.in_((user_key, address_key)), LoginAttempt.at < since
                )
            )
            ids = [
                c.execute(insert(LoginAttempt).values(key=k, at=at)).inserted_primary_key[0]
                for k in (user_key, address_key)
            ]
        with self.db.connection() as c:
            counts = dict(
                c.execute(
                    select(LoginAttempt.key, func.count())
                    .where(
                        and_(
                            LoginAttempt.key.in_((user_key, address_key)),
                            LoginAttempt.at >= since,
                        )
                    )
                    .group_by(LoginAttempt.key)
                ).all()
            )
        first, second = self._caps(device)
        if counts.get(user_key, 0) > first or counts.get(address_key, 0) > second:
            self.release(ids)
            raise TooMany(
                f"too many failed logins; wait {_minutes(self.limits.window)} and try again"
            )
        return ids

    def release(self, ids: list[int]) -> None:
        """Forget an attempt that did not verify a password."""
        with self.db.transaction() as c:
            c.execute(delete(LoginAttempt).where(LoginAttempt.id.in_(ids)))

    def succeeded(
        self, username: str, address: str, ids: list[int], device: Device | None = None
    ) -> None:
        """Forget the user's earlier failures from this address (or this device) and
        the attempt itself — but for its count among the user's known devices."""
        user_key, second_key = keys(username, address, device)
        own = LoginAttempt.id.in_(ids)
        if device is not None:  # a trusted success still counts among the user's devices
            own = own & (LoginAttempt.key != second_key)
        with self.db.transaction() as c:
            c.execute(delete(LoginAttempt).where(own | (LoginAttempt.key == user_key)))

    def _for_this_loop(self) -> None:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # one server runs one loop; a test client one each
            self._slots, self._threads, self._loop = {}, None, loop

    def runner(self, trusted: bool):
        """``await run(fn, *args)``: ``fn`` in a worker thread — for a login presenting a
        device cookie, in threads of its own, so that the queries of a flood of logins
        without one (each quick, but hundreds at once) do not make it wait either."""
        if not trusted:
            return run_in_threadpool

        async def run(fn, *args):
            from anyio import CapacityLimiter, to_thread

            self._for_this_loop()
            if self._threads is None:
                self._threads = CapacityLimiter(2 * self.limits.concurrent + 2)
            return await to_thread.run_sync(fn, *args, limiter=self._threads)

        return run

    async def verification_slot(self, trusted: bool = False):
        """Wait at most ``wait`` seconds for one of the ``concurrent`` slots (of the
        trusted lane with ``trusted``); an async context manager (the waiting holds no
        thread)."""
        self._for_this_loop()
        slots = self._slots.setdefault(trusted, asyncio.Semaphore(self.limits.concurrent))
        try:
            await asyncio.wait_for(slots.acquire(), self.limits.wait)
        except TimeoutError:
            raise TooMany("the server is busy checking other logins; try again shortly") from None
        return _Slot(slots)


class _Slot:
    def __init__(self, semaphore: asyncio.Semaphore):
        self.semaphore = semaphore

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc) -> None:
        self.semaphore.release()


def _minutes(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:g} seconds"
    return f"{seconds / 60:g} minutes"
