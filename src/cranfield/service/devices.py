"""Device cookies: the owner logging in from a known device is never slowed by a flood.

After OWASP's "Slow down online guessing attacks with device cookies" (Authentication
Cheat Sheet; the scheme of Pinkas & Sander, "Securing passwords against dictionary
attacks", CCS 2002). A successful login issues a cookie ``USER.NONCE.DAY.SIGNATURE``:
the user's id, a random nonce, the day it was issued (days since 1970) and an HMAC-SHA256
of the first three. The key of the HMAC is derived from the user's stored Argon2id hash,
which holds a random salt and never leaves the server — so the cookie is bound to the
user, needs no key shared by the worker processes, and stops being valid the moment the
password changes (a self-service change, a reset link, ``cranfield campaign user``). A
cookie older than :data:`DAYS` is not valid either.

A login that presents a valid device cookie for the user it names is counted in the
device's own bucket and checked in its own verification slots
(:mod:`cranfield.service.throttle`), so a flood of guesses from elsewhere — which can
carry no such cookie — neither refuses nor delays it. A stolen cookie only buys its
thief the device's own small bucket (and the user's), never a password check outside
them.

As in OWASP's scheme the server also keeps the list of each user's known devices
(:class:`~cranfield.service.models.KnownDevice`: the nonce's SHA-256, a label from the
browser's ``User-Agent``, when the device was first and last used), so a device can be
forgotten on its own: a cookie counts only while its row exists (signed *and* listed).
The user forgets one of their devices on their account page, a coordinator all devices
of a campaign member, a password change all of the user's. A login from a known device
keeps its nonce (the cookie is renewed, the row's last use moves, at most once a
minute); from any other browser it makes a new row. Cookies issued before revision 0006
have no row: their next successful login makes one. A user keeps at most
:data:`PER_USER` devices (the least recently used go first), and rows unused for
:data:`DAYS` are dropped when the user logs in.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from dataclasses import dataclass

from . import security

COOKIE = "cranfield_device"
DAYS = 180
PER_USER = 20
LABEL = 120  # characters of the User-Agent kept as the device's label
TOUCH_SECONDS = 60  # a device's last use is written at most this often
_CONTEXT = b"cranfield device cookie v1\x00"
_DIGITS = re.compile(r"[0-9]{1,18}")  # ASCII only: str.isdigit() accepts "²", int() not


@dataclass(frozen=True)
class Device:
    """A valid device cookie: whose it is and its nonce (the throttle's key)."""

    user_id: int
    nonce: str


def _today() -> int:
    return int(time.time() // 86400)


def _signature(password_hash: str, payload: str) -> str:
    key = hashlib.sha256(_CONTEXT + password_hash.encode("utf-8")).digest()
    return hmac.new(key, payload.encode("ascii"), hashlib.sha256).hexdigest()


def issue(user_id: int, password_hash: str, nonce: str | None = None) -> str:
    """A device cookie for the user whose stored hash is ``password_hash``: a new
    device's (``nonce`` None) or a known device's renewed."""
    nonce = secrets.token_urlsafe(16) if nonce is None else nonce
    payload = f"{int(user_id)}.{nonce}.{_today()}"
    return f"{payload}.{_signature(password_hash, payload)}"


def _nonce_hash(nonce: str) -> str:
    return hashlib.sha256(nonce.encode("utf-8")).hexdigest()


def is_known(db, device: Device) -> bool:
    """Whether ``device`` (a valid cookie) is still in its user's list."""
    from sqlalchemy import select

    from .models import KnownDevice

    with db.read() as s:
        found = s.scalar(
            select(KnownDevice.id).where(
                KnownDevice.nonce_hash == _nonce_hash(device.nonce),
                KnownDevice.user_id == device.user_id,
            )
        )
    return found is not None


def after_login(db, user_id: int, password_hash: str, device: Device | None, agent: str) -> str:
    """The device cookie to set after a successful login: the known ``device``'s renewed
    (its last use written at most every :data:`TOUCH_SECONDS`), else a new device's,
    listed under ``agent`` (the ``User-Agent``). Drops the user's devices unused for
    :data:`DAYS` and all but the :data:`PER_USER` most recently used."""
    import datetime as dt

    from sqlalchemy import delete, select, update

    from .models import KnownDevice, now

    at = now()
    with db.write() as s:
        if device is not None:
            s.execute(
                update(KnownDevice)
                .where(
                    KnownDevice.nonce_hash == _nonce_hash(device.nonce),
                    KnownDevice.last_used_at < at - dt.timedelta(seconds=TOUCH_SECONDS),
                )
                .values(last_used_at=at)
            )
            return issue(user_id, password_hash, device.nonce)
        cookie = issue(user_id, password_hash)
        label = " ".join((agent or "").split())[:LABEL] or "unknown browser"
        s.add(
            KnownDevice(
                user_id=user_id,
                nonce_hash=_nonce_hash(cookie.split(".")[1]),
                label=label,
                created_at=at,
                last_used_at=at,
            )
        )
        s.flush()
        mine = KnownDevice.user_id == user_id
        s.execute(
            delete(KnownDevice).where(mine, KnownDevice.last_used_at < at - dt.timedelta(days=DAYS))
        )
        keep = (
            select(KnownDevice.id)
            .where(mine)
            .order_by(KnownDevice.last_used_at.desc(), KnownDevice.id.desc())
            .limit(PER_USER)
        )
        s.execute(delete(KnownDevice).where(mine, KnownDevice.id.not_in(keep.scalar_subquery())))
        return cookie


def listed(db, user_id: int, cookie: str | None = None) -> list[dict]:
    """The user's known devices, most recently used first: ``{"id", "label",
    "created", "last_used", "this_device"}`` (``this_device``: the one whose cookie is
    ``cookie``)."""
    from sqlalchemy import select

    from .models import KnownDevice

    parts = (cookie or "").split(".")
    current = _nonce_hash(parts[1]) if len(parts) == 4 and len(cookie) <= 200 else None
    with db.read() as s:
        rows = s.execute(
            select(KnownDevice)
            .where(KnownDevice.user_id == user_id)
            .order_by(KnownDevice.last_used_at.desc(), KnownDevice.id.desc())
        ).scalars()
        return [
            {
                "id": d.id,
                "label": d.label,
                "created": d.created_at.isoformat(timespec="seconds") + "Z",
                "last_used": d.last_used_at.isoformat(timespec="seconds") + "Z",
                "this_device": d.nonce_hash == current,
            }
            for d in rows
        ]


def forget(db, user_id: int, device_id: int) -> None:
    """Forget one of the user's own devices (:class:`~.problems.NotFound` when the user
    has no device ``device_id``: another user's is not theirs to see)."""
    from sqlalchemy import delete

    from .models import KnownDevice
    from .problems import NotFound

    with db.write() as s:
        gone = s.execute(
            delete(KnownDevice).where(KnownDevice.id == device_id, KnownDevice.user_id == user_id)
        )
        if gone.rowcount != 1:
            raise NotFound(f"you have no device {device_id}")


def forget_all(s, user_id: int) -> int:
    """In the session ``s``: forget every device of the user (a password change, a
    coordinator's request); the number forgotten."""
    from sqlalchemy import delete

    from .models import KnownDevice

    return s.execute(delete(KnownDevice).where(KnownDevice.user_id == user_id)).rowcount


def forget_member_devices(db, campaign: str, username: str) -> int:
    """A coordinator of ``campaign`` forgets every device of ``username``, a member of it
    (:class:`~.problems.NotFound` otherwise); the number forgotten."""
    from sqlalchemy import select

    from . import accounts, campaigns
    from .models import User
    from .problems import NotFound

    with db.write() as s:
        c = campaigns.get(s, campaign)
        uid = s.scalar(select(User.id).where(User.username == username))
        if uid is None or not accounts.roles(s, uid, c.id):
            raise NotFound(f"no member {username!r} in campaign {campaign!r}")
        return forget_all(s, uid)


def verify(cookie: str | None, user_id: int, password_hash: str) -> Device | None:
    """The :class:`Device` if ``cookie`` is a valid, unexpired device cookie of this
    user (signed with this password hash), else None."""
    if not cookie or len(cookie) > 200:
        return None
    parts = cookie.split(".")
    if len(parts) != 4 or not all(_DIGITS.fullmatch(x) for x in (parts[0], parts[2])):
        return None
    uid, nonce, day, signature = parts
    if int(uid) != user_id or not 0 <= _today() - int(day) <= DAYS:
        return None
    if not security.same(signature, _signature(password_hash, f"{uid}.{nonce}.{day}")):
        return None
    return Device(user_id, nonce)
