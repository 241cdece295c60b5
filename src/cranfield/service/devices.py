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
carry no such cookie — neither refuses nor delays it. Unlike OWASP's cookie ours is not
kept in a server-side list: a stolen one only buys its thief the device's own small
bucket (and the user's), never a password check outside them.
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


def issue(user_id: int, password_hash: str) -> str:
    """A new device cookie for the user whose stored hash is ``password_hash``."""
    payload = f"{int(user_id)}.{secrets.token_urlsafe(16)}.{_today()}"
    return f"{payload}.{_signature(password_hash, payload)}"


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
