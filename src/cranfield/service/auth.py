"""Who is calling, and whether they may: the two dependencies of every route.

:func:`authorize` finds the principal (a ``Authorization: Bearer`` token, else the
session cookie), the roles it has in the campaign named in the path, and applies the
route's rule from :data:`cranfield.service.access.RULES` (a route without a rule is
refused: fail closed). :func:`check_csrf` then protects every state-changing request
made with the session cookie: the session's CSRF token must come in the
``X-CSRF-Token`` header, the ``csrf`` field of a urlencoded form, or (for uploads,
whose body is streamed to disk) the ``csrf`` query parameter. The login form uses a
double-submit cookie; the JSON login must be ``application/json`` (which a cross-site
form cannot send).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import accounts, security
from .access import RULES, allowed
from .problems import Forbidden, ServiceError

COOKIE = "cranfield_session"
LOGIN_CSRF_COOKIE = "cranfield_login_csrf"
SAFE = ("GET", "HEAD", "OPTIONS")


class Unauthorized(ServiceError):
    status = 401


class NoRule(ServiceError):
    status = 500


@dataclass
class Principal:
    user_id: int | None = None
    username: str | None = None
    site: bool = False
    csrf: str | None = None
    via: str | None = None  # "bearer" or "cookie"
    token: str | None = None
    roles: set[str] = field(default_factory=set)


def _token(request) -> tuple[str | None, str]:
    header = request.headers.get("authorization", "")
    if header[:7].lower() == "bearer ":
        return header[7:].strip(), "bearer"
    return request.cookies.get(COOKIE), "cookie"


def principal(request) -> Principal:
    """The caller (cached on the request)."""
    cached = getattr(request.state, "principal", None)
    if cached is not None:
        return cached
    token, via = _token(request)
    p = Principal()
    if token:
        found = accounts.session_user(request.app.state.db, token)
        if found is not None:
            uid, username, site, csrf = found
            p = Principal(uid, username, bool(site), csrf, via, token)
    request.state.principal = p
    return p


def _campaign_id(request) -> int | None:
    name = request.path_params.get("name")
    if name is None:
        return None
    from . import campaigns
    from .problems import NotFound

    try:
        return campaigns.ref(request.app.state.db, name).id
    except NotFound:
        return None


def route_name(request) -> str | None:
    route = request.scope.get("route")
    return getattr(route, "name", None)


def authorize(request) -> Principal:
    """Apply the route's access rule; returns the principal."""
    name = route_name(request)
    rule = RULES.get(name)
    if rule is None:
        raise NoRule(f"route {name!r} has no access rule")
    cid = _campaign_id(request)
    token, via = _token(request)
    if cid is not None and token:  # the session and the roles in one query
        found = accounts.session_with_roles(request.app.state.db, token, cid)
        p = Principal()
        if found is not None:
            uid, username, site, csrf, roles = found
            p = Principal(uid, username, bool(site), csrf, via, token, roles)
        request.state.principal = p
    else:
        p = principal(request)
    if not allowed(rule, logged_in=p.user_id is not None, site=p.site, roles=p.roles):
        if p.user_id is None:
            raise Unauthorized("log in first")
        from .access import refusal

        raise Forbidden(refusal(rule, campaign=request.path_params.get("name"), roles=p.roles))
    return p


async def check_csrf(request) -> None:
    """Refuse a state-changing request made with the cookie but without the CSRF token."""
    if request.method in SAFE:
        return
    p = principal(request)
    name = route_name(request)
    if p.user_id is None:
        if name == "login_form":
            form = await request.form()
            cookie = request.cookies.get(LOGIN_CSRF_COOKIE, "")
            if not cookie or not security.same(cookie, str(form.get("csrf", ""))):
                raise Forbidden("the login form has expired; reload the page")
        elif name == "api_login":
            ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
            if ctype != "application/json":
                raise Forbidden("send the credentials as application/json")
        return
    if p.via != "cookie":
        return
    given = request.headers.get("x-csrf-token")
    if given is None:
        ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype == "application/x-www-form-urlencoded":
            form = await request.form()
            given = form.get("csrf")
        else:
            given = request.query_params.get("csrf")
    if not given or not security.same(str(given), p.csrf or ""):
        raise Forbidden("missing or wrong CSRF token; reload the page")
