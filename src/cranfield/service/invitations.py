"""One-time links: invitations and password resets, with no e-mail server.

A coordinator makes a link and hands it over however they like (chat, e-mail, paper).
An **invitation** (``/invite/TOKEN``) lets its holder create an account of their own
choosing (user name and password) with a role in the campaign; a **reset link** lets a
member of the coordinator's campaign set a new password (their sessions end). A link
works once and expires (7 days by default); the database keeps only its SHA-256, like a
session token, so a copy of the database opens nothing. An unknown, used and expired
link all get the same answer.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import delete, select, update

from . import accounts, campaigns, devices, security
from .db import Database
from .models import Campaign, Invitation, Session, User, now
from .problems import Conflict, Forbidden, NotFound

DEFAULT_DAYS = 7
MAX_DAYS = 90
KINDS = ("invite", "reset")
GONE = "this link is unknown, used or expired: ask the coordinator for a new one"


def _days(days) -> int:
    from ..errors import ParameterError

    if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= MAX_DAYS:
        raise ParameterError("days", f"an integer from 1 to {MAX_DAYS}", days)
    return days


def invite(db: Database, campaign: str, role: str, by: int, days: int = DEFAULT_DAYS) -> dict:
    """A link that creates an account with ``role`` in ``campaign``: ``{"token",
    "expires"}`` (the token is shown once, here)."""
    accounts.check_role(role)
    days = _days(days)
    token = security.new_token()
    expires = now() + dt.timedelta(days=days)
    with db.write() as s:
        c = campaigns.get(s, campaign)
        s.add(
            Invitation(
                token_hash=security.token_hash(token),
                kind="invite",
                campaign_id=c.id,
                role=role,
                created_by=by,
                expires_at=expires,
            )
        )
    return {"token": token, "expires": expires.isoformat(timespec="seconds") + "Z"}


def reset(db: Database, campaign: str, username: str, by: int, days: int = DEFAULT_DAYS) -> dict:
    """A link that sets a new password for ``username``, a member of ``campaign`` (the
    caller's campaign: a coordinator reaches only its members)."""
    days = _days(days)
    with db.read() as s:
        c = campaigns.get(s, campaign)
        user = s.scalar(select(User).where(User.username == username))
        if user is None or not accounts.roles(s, user.id, c.id):
            raise NotFound(f"no member {username!r} in campaign {campaign!r}")
        uid = user.id
    token = security.new_token()
    expires = now() + dt.timedelta(days=days)
    with db.write() as s:
        s.add(
            Invitation(
                token_hash=security.token_hash(token),
                kind="reset",
                user_id=uid,
                created_by=by,
                expires_at=expires,
            )
        )
    return {"token": token, "expires": expires.isoformat(timespec="seconds") + "Z"}


def peek(db: Database, token: str) -> dict:
    """What a live link does: ``{"kind", "campaign", "role"}`` or ``{"kind",
    "username"}``; :class:`NotFound` (:data:`GONE`) otherwise."""
    with db.read() as s:
        inv = _live(s, token)
        if inv.kind == "invite":
            name = s.scalar(select(Campaign.name).where(Campaign.id == inv.campaign_id))
            return {"kind": "invite", "campaign": name, "role": inv.role}
        username = s.scalar(select(User.username).where(User.id == inv.user_id))
        return {"kind": "reset", "username": username}


def accept(db: Database, token: str, password: str, username: str | None = None) -> str:
    """Use a link: an invitation creates ``username`` with ``password`` and the link's
    role; a reset sets the user's password and ends their sessions. Returns the user
    name. The link is spent in the same transaction (two uses at once: one wins)."""
    accounts.check_password(password)
    hashed = security.hash_password(password)
    with db.write() as s:
        inv = _live(s, token)
        spent = s.execute(
            update(Invitation)
            .where(Invitation.token_hash == inv.token_hash, Invitation.used_at.is_(None))
            .values(used_at=now())
        )
        if spent.rowcount != 1:
            raise NotFound(GONE)
        if inv.kind == "reset":
            user = s.get(User, inv.user_id)
            user.password_hash = hashed
            s.execute(delete(Session).where(Session.user_id == user.id))
            devices.forget_all(s, user.id)
            return user.username
        accounts.check_username(username)
        if s.scalar(select(User.id).where(User.username == username)) is not None:
            raise Conflict(f"the user name {username!r} is taken: choose another")
        user = User(username=username, password_hash=hashed)
        s.add(user)
        s.flush()
        name = s.scalar(select(Campaign.name).where(Campaign.id == inv.campaign_id))
        accounts._grant(s, name, user.id, inv.role)
        return username


def change_password(
    db: Database, user_id: int, current: str, new: str, keep: str | None = None
) -> None:
    """Self-service: the user's own password, given the current one; every session of
    the user but ``keep`` (the session token making the change) ends."""
    accounts.check_password(new)
    with db.read() as s:
        user = s.get(User, user_id)
    if user is None or not security.verify_password(user.password_hash, current or ""):
        raise Forbidden("the current password is wrong")
    hashed = security.hash_password(new)
    kept = security.token_hash(keep) if keep else ""
    with db.write() as s:
        s.execute(update(User).where(User.id == user_id).values(password_hash=hashed))
        s.execute(delete(Session).where(Session.user_id == user_id, Session.token_hash != kept))
        devices.forget_all(s, user_id)  # their cookies were signed with the old hash


def _live(s, token: str) -> Invitation:
    if not isinstance(token, str) or not token or len(token) > 200:
        raise NotFound(GONE)
    inv = s.get(Invitation, security.token_hash(token))
    if inv is None or inv.used_at is not None or inv.expires_at <= now():
        raise NotFound(GONE)
    return inv
