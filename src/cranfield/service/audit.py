"""The audit log: every coordinator action, in order, never changed.

An action is a state-changing request (not GET/HEAD) that succeeded (status below 400)
to a route that only coordinators may call (:data:`cranfield.service.access.RULES`:
``coordinator`` or ``site-coordinator``), or to a shared route whose handler noted a
coordinator's action (a run uploaded on behalf of a participant). :class:`AuditTrail`, one
middleware around the whole application, records it after the answer: the route's name
as the action, the campaign named in the path, the caller, and what the route put in
``request.state.audit`` (the details: the member added, the pool's size...) or else the
path's parameters. No route can forget it; a new coordinator route is audited as soon
as its access rule says who may call it (a test checks every such route).
"""

from __future__ import annotations

import json

from sqlalchemy import insert, select

from .access import RULES
from .models import AuditEntry, Campaign, User, now

#: the principals whose actions are audited
AUDITED_ROLES = frozenset({"coordinator", "site-coordinator"})


def audited(route_name: str | None) -> bool:
    """Whether a successful state-changing request to this route is recorded."""
    rule = RULES.get(route_name or "")
    return bool(rule) and rule <= AUDITED_ROLES


class AuditTrail:
    """Pure ASGI middleware recording coordinators' actions (module docstring)."""

    def __init__(self, app, db):
        self.app = app
        self.db = db

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope.get("method") in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        status = 500

        async def watch(message):
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        await self.app(scope, receive, watch)
        route = scope.get("route")
        name = getattr(route, "name", None)
        state = scope.get("state", {})
        if status < 400 and (audited(name) or state.get("audit")):
            from starlette.concurrency import run_in_threadpool

            principal = state.get("principal")
            params = dict(scope.get("path_params", {}))
            detail = state.get("audit") or {k: v for k, v in params.items() if k != "name"}
            await run_in_threadpool(
                record,
                self.db,
                params.get("name"),
                getattr(principal, "user_id", None),
                name,
                detail,
            )


def record(db, campaign: str | None, user_id: int | None, action: str, detail) -> None:
    """Append one entry (``detail``: a dict, written as JSON)."""
    text = json.dumps(detail, sort_keys=True, default=str) if detail else ""
    with db.transaction() as c:
        cid = None
        if campaign is not None:
            cid = c.scalar(select(Campaign.id).where(Campaign.name == campaign))
        c.execute(
            insert(AuditEntry).values(
                campaign_id=cid, user_id=user_id, action=action, detail=text, at=now()
            )
        )


def entries(db, campaign: str, page=None):
    """The campaign's entries, oldest first: ``{"id", "at", "user", "action",
    "detail"}`` — all of them, or with a :class:`~.paging.Page` ``(entries, next key)``."""
    from . import campaigns, paging

    with db.read() as s:
        c = campaigns.get(s, campaign)
        query = (
            select(
                AuditEntry.id, AuditEntry.at, User.username, AuditEntry.action, AuditEntry.detail
            )
            .outerjoin(User, User.id == AuditEntry.user_id)
            .where(AuditEntry.campaign_id == c.id)
        )
        if page is None:
            rows, after = s.execute(query.order_by(AuditEntry.id)).all(), None
        else:
            rows, after = paging.rows(s, query, AuditEntry.id, page)
    out = [
        {
            "id": i,
            "at": at.isoformat(timespec="seconds") + "Z",
            "user": user,
            "action": action,
            "detail": json.loads(detail) if detail else {},
        }
        for i, at, user, action, detail in rows
    ]
    return out if page is None else (out, after)


def entries_tsv(db, campaign: str) -> str:
    """The entries as TSV (``time user action detail``; the detail as JSON)."""
    lines = ["time\tuser\taction\tdetail"]
    for e in entries(db, campaign):
        detail = json.dumps(e["detail"], sort_keys=True, ensure_ascii=True) if e["detail"] else ""
        lines.append(f"{e['at']}\t{e['user'] or ''}\t{e['action']}\t{detail}")
    return "\n".join(lines) + "\n"


def note(request, **detail) -> None:
    """What the audit entry of this request says (see :class:`AuditTrail`)."""
    request.state.audit = detail
