"""Users, campaign memberships (roles) and login sessions."""

from __future__ import annotations

import datetime as dt
import re

from sqlalchemy import bindparam, delete, select

from ..errors import InputError, ParameterError
from . import devices, security
from .db import Database
from .models import ROLES, Campaign, Membership, Session, User, now
from .problems import Conflict, NotFound

USERNAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$")
MIN_PASSWORD = 8


def check_username(name: str) -> str:
    if not isinstance(name, str) or not USERNAME.match(name):
        raise ParameterError(
            "user name",
            "1 to 64 letters, digits and . _ @ + - (starting with a letter or digit)",
            name,
        )
    return name


def check_password(password: str) -> str:
    if not isinstance(password, str) or len(password) < MIN_PASSWORD:
        raise InputError(f"the password must have at least {MIN_PASSWORD} characters")
    if len(password) > 1024:
        raise InputError("the password is longer than 1024 characters")
    return password


def check_role(role: str) -> str:
    if role not in ROLES:
        raise ParameterError("role", "one of " + ", ".join(ROLES), role)
    return role


def add_user(
    db: Database,
    username: str,
    password: str,
    *,
    role: str | None = None,
    campaign: str | None = None,
    exist_ok: bool = False,
) -> int:
    """Create user ``username`` (or, with ``exist_ok`` or a ``campaign``, reuse it: the
    password is then replaced) and, with ``campaign``, give it ``role`` there; the role
    coordinator without a campaign makes a site coordinator, who may create campaigns.
    Returns the user's id."""
    check_username(username)
    check_password(password)
    if role is not None:
        check_role(role)
    hashed = security.hash_password(password)
    with db.write() as s:
        user = s.scalar(select(User).where(User.username == username))
        if user is not None and not exist_ok and campaign is None:
            raise Conflict(f"user {username!r} exists already")
        if user is None:
            user = User(username=username, password_hash=hashed)
            s.add(user)
            s.flush()
        else:
            user.password_hash = hashed
            devices.forget_all(s, user.id)  # their cookies were signed with the old hash
        if role == "coordinator" and campaign is None:
            user.site_coordinator = True  # may create campaigns
        if campaign is not None:
            if role is None:
                raise ParameterError("role", "one of " + ", ".join(ROLES), None)
            _grant(s, campaign, user.id, role)
        return user.id


def _grant(s, campaign: str, user_id: int, role: str) -> None:
    c = s.scalar(select(Campaign).where(Campaign.name == campaign))
    if c is None:
        raise NotFound(f"no campaign named {campaign!r}")
    exists = s.scalar(
        select(Membership).where(
            Membership.campaign_id == c.id, Membership.user_id == user_id, Membership.role == role
        )
    )
    if exists is None:
        s.add(Membership(campaign_id=c.id, user_id=user_id, role=role))


def grant(db: Database, username: str, campaign: str, role: str) -> None:
    """Give an existing user a role in a campaign (nothing happens if it has it)."""
    check_role(role)
    with db.write() as s:
        user = s.scalar(select(User).where(User.username == username))
        if user is None:
            raise NotFound(f"no user named {username!r}")
        _grant(s, campaign, user.id, role)


def known_to(s, user_id: int, coordinator_id: int) -> bool:
    """Whether ``user_id`` has a role in a campaign that ``coordinator_id`` coordinates."""
    from sqlalchemy.orm import aliased

    theirs, mine = aliased(Membership), aliased(Membership)
    found = s.scalar(
        select(theirs.id)
        .join(mine, mine.campaign_id == theirs.campaign_id)
        .where(
            theirs.user_id == user_id,
            mine.user_id == coordinator_id,
            mine.role == "coordinator",
        )
        .limit(1)
    )
    return found is not None


_ROLES = select(Membership.role).where(
    Membership.user_id == bindparam("uid"), Membership.campaign_id == bindparam("cid")
)


def roles(s, user_id: int, campaign_id: int) -> set[str]:
    """The user's roles in a campaign."""
    return set(s.scalars(_ROLES, {"uid": user_id, "cid": campaign_id}))


def members(s, campaign_id: int, role: str) -> list[User]:
    """The campaign's users with ``role``, by user name."""
    return list(
        s.scalars(
            select(User)
            .join(Membership, Membership.user_id == User.id)
            .where(Membership.campaign_id == campaign_id, Membership.role == role)
            .order_by(User.username)
        )
    )


def credentials(db: Database, username: str) -> tuple[int, str] | None:
    """``(user id, stored password hash)`` of ``username``, or None."""
    if "\x00" in username:  # no user name has one (PostgreSQL cannot even compare it)
        return None
    with db.read() as s:
        row = s.execute(
            select(User.id, User.password_hash).where(User.username == username)
        ).first()
    return None if row is None else (row[0], row[1])


def login(db: Database, username: str, password: str) -> tuple[str, str, int] | None:
    """``(token, csrf, user id)`` of a new session, or None for a wrong name/password."""
    user = None
    if "\x00" not in username:  # no user name has one (PostgreSQL cannot even compare it)
        with db.read() as s:
            user = s.scalar(select(User).where(User.username == username))
    if user is None:
        security.verify_password(_DUMMY_HASH(), password)  # same time as a wrong password
        return None
    if not security.verify_password(user.password_hash, password):
        return None
    token, csrf = security.new_token(), security.new_token()
    with db.write() as s:
        s.execute(delete(Session).where(Session.expires_at < now()))
        s.add(
            Session(
                token_hash=security.token_hash(token),
                user_id=user.id,
                csrf=csrf,
                expires_at=now() + dt.timedelta(days=security.SESSION_DAYS),
            )
        )
    return token, csrf, user.id


def session_user(db: Database, token: str) -> tuple | None:
    """``(user id, user name, site coordinator, csrf token)`` of a live session, or None."""
    if not token or len(token) > 200:
        return None
    with db.read() as s:
        row = s.execute(_SESSION, {"hash": security.token_hash(token), "now": now()}).first()
    return tuple(row) if row else None


_SESSION = (
    select(User.id, User.username, User.site_coordinator, Session.csrf)
    .join(Session, Session.user_id == User.id)
    .where(Session.token_hash == bindparam("hash"), Session.expires_at > bindparam("now"))
)
_SESSION_ROLES = (
    select(User.id, User.username, User.site_coordinator, Session.csrf, Membership.role)
    .join(Session, Session.user_id == User.id)
    .outerjoin(
        Membership,
        (Membership.user_id == User.id) & (Membership.campaign_id == bindparam("cid")),
    )
    .where(Session.token_hash == bindparam("hash"), Session.expires_at > bindparam("now"))
)


def session_with_roles(db: Database, token: str, campaign_id: int) -> tuple | None:
    """``(user id, user name, site coordinator, csrf token, roles in the campaign)`` of a
    live session in one query, or None."""
    if not token or len(token) > 200:
        return None
    with db.connection() as s:
        rows = s.execute(
            _SESSION_ROLES, {"hash": security.token_hash(token), "now": now(), "cid": campaign_id}
        ).all()
    if not rows:
        return None
    return (*rows[0][:4], {r[4] for r in rows if r[4] is not None})


def logout(db: Database, token: str) -> None:
    with db.write() as s:
        s.execute(delete(Session).where(Session.token_hash == security.token_hash(token)))


_dummy: list[str] = []


def _DUMMY_HASH() -> str:  # noqa: N802
    if not _dummy:
        _dummy.append(security.hash_password("not a password of anyone"))
    return _dummy[0]
