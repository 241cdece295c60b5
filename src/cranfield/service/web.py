"""The HTML pages (Jinja2 templates shipped in the package; every value is escaped by
autoescaping) and the forms behind them.

Pages: login, campaigns, the coordinator's dashboard, the participant's upload page,
the assessor's judging page, results. A form posts to a route of its own and is
answered by a redirect (303) to the page, with a short message in the query string.
"""

from __future__ import annotations

import re
import secrets
from urllib.parse import quote

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool
from starlette.responses import HTMLResponse, RedirectResponse

from ..errors import CranfieldError
from . import (
    accounts,
    audit,
    campaigns,
    devices,
    estimates,
    exports,
    invitations,
    judging,
    mtc_order,
    paging,
    pooling,
    quality,
    results,
    sampling,
    submissions,
    uploads,
)
from .api import (
    add_member_to,
    create_from_form,
    do_login,
    machine_labels_from_form,
    on_upload,
    set_session_cookie,
    submit_form,
)
from .auth import COOKIE, LOGIN_CSRF_COOKIE, principal
from .params import DeviceId, PairId
from .problems import Invalid

router = APIRouter()
STOPWORDS = frozenset(
    "a an and are as at be by for from has in is it its of on or that the to was were "
    "will with what which who how about into their there these this those document "
    "documents relevant discuss discussing identify find any".split()
)


def templates():
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    from .app import HERE

    env = Environment(
        loader=FileSystemLoader(str(HERE / "templates")),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["pct"] = lambda a, b: f"{100 * a / b:.0f}%" if b else "–"
    env.filters["num"] = _num
    return env


def _num(v, digits: int = 4) -> str:
    if v is None:
        return "–"
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    return "–" if f != f else f"{f:.{digits}f}"


def render(request: Request, template: str, status: int = 200, **context) -> HTMLResponse:
    p = principal(request)
    context.setdefault("message", request.query_params.get("msg", "")[:300])
    html = request.app.state.templates.get_template(template).render(
        user=p, csrf=p.csrf or "", **context
    )
    return HTMLResponse(html, status_code=status)


def error_page(request: Request, status: int, message: str) -> HTMLResponse:
    return render(request, "error.html", status=status, status_code=status, error=message)


def back(url: str, message: str = "") -> RedirectResponse:
    return RedirectResponse(url + (f"?msg={quote(message)}" if message else ""), status_code=303)


# -- login ----------------------------------------------------------------------------


@router.get("/", name="home")
def home(request: Request):
    return RedirectResponse(
        "/campaigns" if principal(request).user_id else "/login", status_code=303
    )


@router.get("/login", name="login_page")
def login_page(request: Request, error: str = "", status: int = 200):
    token = secrets.token_urlsafe(24)
    response = render(request, "login.html", status=status, login_csrf=token, error=error)
    response.set_cookie(LOGIN_CSRF_COOKIE, token, httponly=True, samesite="strict", path="/login")
    return response


@router.post("/login", name="login_form")
async def login_form(request: Request):
    form = await request.form()
    username, password = str(form.get("username", "")), str(form.get("password", ""))
    from .problems import ServiceError

    response = RedirectResponse("/campaigns", status_code=303)
    try:
        token, _csrf = await do_login(request, username, password, response)
    except ServiceError as exc:
        return login_page(request, error=exc.message, status=exc.status)
    set_session_cookie(request, response, token)
    return response


@router.get("/link/{token}", name="link_page")
def link_page(request: Request, token: str, error: str = "", status: int = 200):
    """An invitation (choose a user name and a password) or a password reset."""
    from .problems import NotFound

    try:
        what = invitations.peek(request.app.state.db, token)
    except NotFound as exc:
        return error_page(request, 404, exc.message)
    return render(request, "link.html", status=status, what=what, token=token, error=error)


@router.post("/link/{token}", name="link_form")
async def link_form(request: Request, token: str):
    from .problems import NotFound, ServiceError

    f = await _form(request)
    try:
        name = await run_in_threadpool(
            invitations.accept,
            request.app.state.db,
            token,
            f.get("password", ""),
            f.get("username") or None,
        )
    except NotFound as exc:
        return error_page(request, 404, exc.message)
    except (ServiceError, CranfieldError) as exc:
        message = exc.message if isinstance(exc, ServiceError) else str(exc)
        return link_page(request, token, error=message, status=getattr(exc, "status", 422))
    return RedirectResponse(
        "/login?msg=" + quote(f"{name}: your password is set; log in"), status_code=303
    )


@router.get("/account", name="account_page")
def account_page(request: Request, error: str = "", status: int = 200):
    known = devices.listed(
        request.app.state.db, principal(request).user_id, request.cookies.get(devices.COOKIE)
    )
    return render(request, "account.html", status=status, error=error, devices=known)


@router.post("/account/devices/{device}/forget", name="forget_device_form")
async def forget_device_form(request: Request, device: DeviceId):
    from .problems import NotFound

    try:
        await run_in_threadpool(
            devices.forget, request.app.state.db, principal(request).user_id, device
        )
    except NotFound as exc:
        return error_page(request, 404, exc.message)
    return back("/account", "the device is forgotten: its next login counts as a new device")


@router.post("/account/password", name="password_form")
async def password_form(request: Request):
    from .problems import ServiceError

    f = await _form(request)
    p = principal(request)
    try:
        await run_in_threadpool(
            invitations.change_password,
            request.app.state.db,
            p.user_id,
            f.get("current", ""),
            f.get("new", ""),
            p.token,
        )
    except (ServiceError, CranfieldError) as exc:
        message = exc.message if isinstance(exc, ServiceError) else str(exc)
        return account_page(request, error=message, status=getattr(exc, "status", 422))
    return back("/account", "your password is changed; your other sessions have ended")


@router.post("/logout", name="logout_form")
def logout_form(request: Request):
    accounts.logout(request.app.state.db, principal(request).token)
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(COOKIE, path="/")
    return response


# -- campaigns ------------------------------------------------------------------------


@router.get("/campaigns", name="campaigns_page")
def campaigns_page(request: Request):
    p = principal(request)
    with request.app.state.db.read() as s:
        mine = []
        for c in campaigns.list_for(s, p.user_id):
            roles = sorted(accounts.roles(s, p.user_id, c.id))
            left = None
            if "assessor" in roles:  # what is left of this user's queue
                done = judging.progress(s, c.id, p.user_id)
                left = {"left": done["total"] - done["judged"], "total": done["total"]}
            mine.append((campaigns.summary(s, c), roles, left))
    return render(
        request,
        "campaigns.html",
        campaigns=mine,
        scale=campaigns.DEFAULT_SCALE,
        measures=campaigns.DEFAULT_MEASURES,
    )


@router.post("/campaigns", name="create_campaign_form")
async def create_campaign_form(request: Request):
    db = request.app.state.db
    form = await uploads.receive(
        request, submissions.upload_dir(db), request.app.state.config.max_upload
    )
    try:
        name = await create_from_form(request, form)
    finally:
        form.discard()
    return back(f"/c/{quote(name)}/dashboard", f"campaign {name} created")


@router.get("/c/{name}", name="campaign_page")
def campaign_page(request: Request, name: str):
    roles = principal(request).roles
    for role, page in (
        ("coordinator", "dashboard"),
        ("assessor", "judge"),
        ("participant", "submit"),
    ):
        if role in roles:
            return RedirectResponse(f"/c/{quote(name)}/{page}", status_code=303)
    return RedirectResponse("/campaigns", status_code=303)


# -- coordinator ----------------------------------------------------------------------


@router.get("/c/{name}/dashboard", name="dashboard_page")
def dashboard_page(request: Request, name: str):
    return _dashboard(request, name)


def _dashboard(request: Request, name: str, link: dict | None = None):
    """The dashboard; ``link``: a one-time link just made, shown once on this page (it
    never goes into a URL, where history and logs would keep it)."""
    db = request.app.state.db
    data = quality.dashboard(db, name)
    with db.read() as s:
        c = campaigns.get(s, name)
        run_rows = submissions.runs_of(s, c.id)
        members = {
            role: [u.username for u in accounts.members(s, c.id, role)]
            for role in ("coordinator", "assessor", "participant")
        }
        owners = {u.id: u.username for role in members for u in accounts.members(s, c.id, role)}
        has_results = bool(c.results_json)
        published = c.published_at is not None
    try:
        estimate = estimates.estimates(db, name)
    except CranfieldError as exc:  # e.g. a run file gone: the rest of the page still shows
        estimate = {"available": False, "reason": str(exc)}
    try:
        mtc = mtc_order.status(db, name)
    except CranfieldError as exc:
        mtc = {"enabled": True, "error": str(exc)}
    data["conflicts"].sort(key=lambda x: x["adjudicated"] is not None)  # undecided first
    runs = [(r, owners.get(r.user_id, "?")) for r in run_rows]
    member_rows = [(u, role) for role, names in members.items() for u in names]
    return render(
        request,
        "dashboard.html",
        name=name,
        d=data,
        runs=table_page(request, runs, "runs"),
        members=members,
        member_rows=table_page(request, member_rows, "members"),
        assessor_rows=table_page(request, data["progress"]["assessors"], "assessors", "progress"),
        topic_rows=table_page(request, data["progress"]["topics"], "topics", "progress"),
        activity_rows=table_page(request, data["activity"], "activity", "progress"),
        conflict_rows=table_page(request, data["conflicts"], "conflicts"),
        audit_rows=table_page(request, audit.entries(db, name)[::-1], "audit"),
        pair_rows=keyset_table(request, "pairs", lambda page: pool_page(db, name, page)),
        judgment_rows=keyset_table(
            request, "judgments", lambda page: exports.judgment_page(db, name, page)
        ),
        has_results=has_results,
        steps=steps(data, len(run_rows), has_results, published),
        link=link,
        estimate=estimate,
        mtc=mtc,
        run_names=[r.name for r in run_rows],
    )


#: rows per page of a dashboard table
TABLE_PAGE = 25


def table_page(
    request: Request, rows: list, param: str, anchor: str | None = None, size: int = TABLE_PAGE
) -> dict:
    """One page of a table on a page: the rows of page ``?PARAM=K`` (1 if absent or not
    a page), ``page``, ``pages``, ``total`` and the links to the previous and next pages
    (the other tables keep their pages; ``#anchor`` brings the table back into view)."""
    pages = max(1, -(-len(rows) // size))
    given = request.query_params.get(param, "1")
    page = min(max(int(given), 1), pages) if re.fullmatch(r"[0-9]{1,9}", given) else 1

    def url(k: int) -> str:
        query = {k_: v for k_, v in request.query_params.items() if k_ != "msg"}
        query[param] = str(k)
        from urllib.parse import urlencode

        return f"{request.url.path}?{urlencode(query)}#{anchor or param}"

    return {
        "rows": rows[(page - 1) * size : page * size],
        "page": page,
        "pages": pages,
        "total": len(rows),
        "first": (page - 1) * size + 1,
        "param": param,
        "previous": url(page - 1) if page > 1 else None,
        "next": url(page + 1) if page < pages else None,
    }


def keyset_table(request: Request, param: str, fetch, size: int = TABLE_PAGE) -> dict:
    """One keyset page of a table that grows with a campaign (:mod:`.paging`): the rows
    after the cursor ``?PARAM_after=`` (from the first if absent), ``size`` of them, and
    the links to the first and the next pages (the other tables keep their pages).
    ``fetch(page)`` answers ``(rows, next key)``; a cursor that is not one starts over."""
    from urllib.parse import urlencode

    name = f"{param}_after"
    cursor = request.query_params.get(name)
    try:
        after = None if cursor is None or len(cursor) > 1000 else paging.decode(cursor, int)
    except paging.BadCursor:
        after = None
    rows, next_key = fetch(paging.Page(size, after))

    def url(key) -> str:
        query = {k: v for k, v in request.query_params.items() if k not in ("msg", name)}
        if key is not None:
            query[name] = paging.encode(key)
        return f"{request.url.path}?{urlencode(query)}#{param}"

    return {
        "rows": rows,
        "param": param,
        "start": url(None) if after is not None else None,
        "next": url(next_key) if next_key is not None else None,
    }


def pool_page(db, campaign: str, page: paging.Page) -> tuple[list[dict], int | None]:
    """One page of the pool's pairs by id: ``{"topic", "document", "assessors",
    "judged"}`` (``assessors``: who has the pair in their queue; ``judged``: how many
    labels it has), and the next key."""
    from sqlalchemy import func, select

    from .models import Judgment, Pair, Task, User

    with db.read() as s:
        c = campaigns.get(s, campaign)
        query = select(Pair.id, Pair.topic_id, Pair.doc_id).where(Pair.campaign_id == c.id)
        found, after = paging.rows(s, query, Pair.id, page)
        ids = [i for i, _, _ in found]
        queued: dict[int, list[str]] = {i: [] for i in ids}
        for pair_id, username in s.execute(
            select(Task.pair_id, User.username)
            .join(User, User.id == Task.user_id)
            .where(Task.pair_id.in_(ids))
            .order_by(Task.pair_id, User.username)
        ):
            queued[pair_id].append(username)
        judged = dict(
            s.execute(
                select(Judgment.pair_id, func.count())
                .where(Judgment.pair_id.in_(ids))
                .group_by(Judgment.pair_id)
            ).all()
        )
    rows = [
        {"topic": t, "document": d, "assessors": queued[i], "judged": judged.get(i, 0)}
        for i, t, d in found
    ]
    return rows, after


def steps(d: dict, runs: int, has_results: bool, published: bool) -> list[dict]:
    """The campaign's stages (submissions, pool, assignment, judging, adjudication,
    results), each ``done`` or not, the first not done being ``current``: the
    dashboard's step indicator, each linking to its section."""
    assessors = d["progress"]["assessors"]
    assigned = sum(a["assigned"] for a in assessors)
    judged = sum(a["judged"] for a in assessors)
    undecided = sum(1 for x in d["conflicts"] if x["adjudicated"] is None)
    stages = [
        ("submissions", "runs", runs > 0, f"{runs} runs"),
        ("pool", "pool", d["pool"]["pairs"] > 0, f"{d['pool']['pairs']} pairs"),
        ("assignment", "pool", bool(assessors), f"{len(assessors)} assessors"),
        ("judging", "progress", assigned > 0 and judged == assigned, f"{judged} of {assigned}"),
        ("adjudication", "conflicts", judged > 0 and undecided == 0, f"{undecided} undecided"),
        (
            "results",
            "results",
            published,
            "published" if published else ("computed" if has_results else "not computed"),
        ),
    ]
    out, current = [], False
    for name, anchor, done, detail in stages:
        here = not done and not current
        current = current or here
        out.append(
            {"name": name, "anchor": anchor, "done": done, "current": here, "detail": detail}
        )
    return out


async def _form(request: Request) -> dict:
    form = await request.form()
    return {k: str(v) for k, v in form.items()}


def _int(text: str, what: str, default: int | None = None) -> int | None:
    from ..errors import ParameterError

    text = (text or "").strip()
    if not text:
        return default
    try:
        return int(text)
    except ValueError:
        raise ParameterError(what, "an integer", text) from None


@router.post("/c/{name}/members", name="members_form")
async def members_form(request: Request, name: str):
    f = await _form(request)
    await run_in_threadpool(
        add_member_to,
        request.app.state.db,
        name,
        f.get("username", ""),
        f.get("role", ""),
        f.get("password") or None,
        principal(request),
    )
    audit.note(request, username=f.get("username", ""), role=f.get("role", ""))
    return back(f"/c/{quote(name)}/dashboard", f"{f.get('username')} is now {f.get('role')}")


@router.post("/c/{name}/invite", name="invite_form")
async def invite_form(request: Request, name: str):
    from .api import link_url

    f = await _form(request)
    role = f.get("role", "")
    out = await run_in_threadpool(
        invitations.invite, request.app.state.db, name, role, principal(request).user_id
    )
    audit.note(request, role=role, days=invitations.DEFAULT_DAYS)
    link = {"what": f"invitation as {role}", "url": link_url(request, out["token"]), **out}
    return await run_in_threadpool(_dashboard, request, name, link)


@router.post("/c/{name}/reset", name="reset_form")
async def reset_form(request: Request, name: str):
    from .api import link_url

    f = await _form(request)
    username = f.get("username", "")
    out = await run_in_threadpool(
        invitations.reset, request.app.state.db, name, username, principal(request).user_id
    )
    audit.note(request, username=username, days=invitations.DEFAULT_DAYS)
    link = {"what": f"password reset for {username}", "url": link_url(request, out["token"])}
    return await run_in_threadpool(_dashboard, request, name, {**link, **out})


@router.post("/c/{name}/forget-devices", name="forget_devices_form")
async def forget_devices_form(request: Request, name: str):
    f = await _form(request)
    username = f.get("username", "")
    n = await run_in_threadpool(devices.forget_member_devices, request.app.state.db, name, username)
    audit.note(request, username=username, devices=n)
    return back(
        f"/c/{quote(name)}/dashboard",
        f"{n} device{'s' if n != 1 else ''} of {username} forgotten",
    )


@router.get("/c/{name}/guidelines", name="guidelines_page")
def guidelines_page(request: Request, name: str):
    with request.app.state.db.read() as s:
        c = campaigns.get(s, name)
        text, title = c.guidelines or "", c.title or c.name
    paragraphs = [" ".join(p.split()) for p in text.split("\n\n") if p.strip()]
    return render(request, "guidelines.html", name=name, title=title, paragraphs=paragraphs)


@router.post("/c/{name}/guidelines", name="guidelines_form")
async def guidelines_form(request: Request, name: str):
    f = await _form(request)
    text = f.get("text", "")
    await run_in_threadpool(campaigns.set_guidelines, request.app.state.db, name, text)
    audit.note(request, characters=len(text))
    return back(f"/c/{quote(name)}/guidelines", "guidelines saved")


@router.post("/c/{name}/reassign", name="reassign_form")
async def reassign_form(request: Request, name: str):
    """Give a topic to an assessor (``target``), taking its unjudged pairs from
    ``source`` when one is named."""
    f = await _form(request)
    topic, source, target = (f.get(k, "").strip() for k in ("topic", "source", "target"))
    db = request.app.state.db
    if source:
        out = await run_in_threadpool(pooling.reassign_topic, db, name, topic, source, target)
        note = f"topic {topic}: {out['removed']} pairs from {source}, {out['added']} to {target}"
    else:
        added = await run_in_threadpool(pooling.give_topic, db, name, topic, target)
        out = {"topic": topic, "to": target, "added": added}
        note = f"topic {topic}: {added} pairs to {target}"
    audit.note(request, **out)
    return back(f"/c/{quote(name)}/dashboard", note)


@router.post("/c/{name}/pool/extend", name="extend_form")
async def extend_form(request: Request, name: str):
    await _form(request)
    out = await run_in_threadpool(pooling.extend, request.app.state.db, name)
    audit.note(request, added=out["added"], unassigned=out["unassigned"])
    note = f"{out['added']} new pairs pooled"
    if out["unassigned"]:
        note += "; no assessor has topic " + ", ".join(out["unassigned"])
    return back(f"/c/{quote(name)}/dashboard", note)


@router.post("/c/{name}/reopen", name="reopen_form")
async def reopen_form(request: Request, name: str):
    from .api import parse_deadline

    f = await _form(request)
    deadline = parse_deadline(f.get("deadline"))
    await run_in_threadpool(campaigns.reopen, request.app.state.db, name, deadline)
    audit.note(request, deadline=f.get("deadline", ""))
    return back(f"/c/{quote(name)}/dashboard", "submissions are open again")


@router.post("/c/{name}/pool", name="pool_form")
async def pool_form(request: Request, name: str):
    f = await _form(request)
    info = await run_in_threadpool(
        pooling.build,
        request.app.state.db,
        name,
        strategy=f.get("strategy", "").strip() or "depth",
        depth=_int(f.get("depth", ""), "depth", 10),
    )
    audit.note(request, strategy=info["strategy"], pairs=info["pairs"], gold=info["gold"])
    return back(
        f"/c/{quote(name)}/dashboard", f"pool built: {info['pairs']} pairs ({info['strategy']})"
    )


@router.post("/c/{name}/assign", name="assign_form")
async def assign_form(request: Request, name: str):
    f = await _form(request)
    out = await run_in_threadpool(
        pooling.assign,
        request.app.state.db,
        name,
        per_topic=_int(f.get("per_topic", ""), "assessors per topic"),
    )
    audit.note(request, per_topic=f.get("per_topic", ""), topics=len(out))
    return back(f"/c/{quote(name)}/dashboard", f"{len(out)} topics assigned")


@router.post("/c/{name}/sample", name="sample_form")
async def sample_form(request: Request, name: str):
    from ..errors import ParameterError

    f = await _form(request)
    bounds = sampling.parse_bounds(f.get("strata", ""))
    text = f.get("fraction", "").strip()
    try:
        fraction = float(text)
    except ValueError:
        raise ParameterError("fraction", "a number in (0, 1]", text) from None
    out = await run_in_threadpool(
        sampling.choose,
        request.app.state.db,
        name,
        fraction,
        bounds=bounds,
        seed=_int(f.get("seed", ""), "seed", 0),
        measure=f.get("measure", "").strip() or sampling.DEFAULT_MEASURE,
        units=f.get("units", "").strip() or "pairs",
    )
    audit.note(request, fraction=fraction, strata=bounds, sampled=out["sampled"])
    return back(
        f"/c/{quote(name)}/dashboard",
        f"{out['sampled']} of {out['pairs']} pooled pairs to judge",
    )


@router.post("/c/{name}/mtc", name="mtc_form")
async def mtc_form(request: Request, name: str):
    from ..errors import ParameterError

    f = await _form(request)
    text = f.get("threshold", "").strip()
    try:
        threshold = float(text) if text else mtc_order.DEFAULT_THRESHOLD
    except ValueError:
        raise ParameterError("threshold", "a number in (0, 0.5)", text) from None
    runs = [r for r in (f.get("run1", "").strip(), f.get("run2", "").strip()) if r]
    out = await run_in_threadpool(
        mtc_order.choose,
        request.app.state.db,
        name,
        f.get("measure", "").strip(),
        runs=runs or None,
        threshold=threshold,
    )
    audit.note(request, measure=out["measure"], runs=out["runs"], threshold=out["threshold"])
    return back(
        f"/c/{quote(name)}/dashboard",
        f"queues served in MTC order to decide {out['measure']}",
    )


@router.post("/c/{name}/machine-labels", name="machine_labels_form")
async def machine_labels_form(request: Request, name: str):
    out = await on_upload(request, machine_labels_from_form, request.app.state.db, name)
    audit.note(request, assessor=out["assessor"], labels=out["labels"])
    return back(
        f"/c/{quote(name)}/dashboard",
        f"{out['labels']} machine labels from {out['assessor']}",
    )


@router.post("/c/{name}/adjudicate/{pair}", name="adjudicate_form")
async def adjudicate_form(request: Request, name: str, pair: PairId):
    f = await _form(request)
    label = _int(f.get("label", ""), "label")
    await run_in_threadpool(
        quality.adjudicate, request.app.state.db, name, principal(request).user_id, pair, label
    )
    audit.note(request, pair=pair, label=label)
    return back(f"/c/{quote(name)}/dashboard", f"pair {pair} adjudicated")


@router.post("/c/{name}/results", name="results_form")
async def results_form(request: Request, name: str):
    f = await _form(request)
    baselines = [b for b in re.split(r"[\s,]+", f.get("baselines", "")) if b]
    data = await run_in_threadpool(results.compute, request.app.state.db, name, baselines)
    audit.note(request, baselines=baselines, labelled=data["coverage"]["labelled"])
    note = "results computed (not yet published)"
    if data["coverage"]["warning"]:
        note += "; " + data["coverage"]["warning"]
    return back(f"/c/{quote(name)}/results", note)


@router.post("/c/{name}/publish", name="publish_form")
async def publish_form(request: Request, name: str):
    await _form(request)
    await run_in_threadpool(results.publish, request.app.state.db, name)
    return back(f"/c/{quote(name)}/results", "results published")


# -- participant ----------------------------------------------------------------------


def _submit_page(request: Request, name: str, problems=None, error: str = "", status: int = 200):
    db = request.app.state.db
    with db.read() as s:
        c = campaigns.get(s, name)
        summary = campaigns.summary(s, c)
        mine = submissions.runs_of(s, c.id, principal(request).user_id)
    return render(
        request,
        "submit.html",
        status=status,
        name=name,
        c=summary,
        runs=mine,
        problems=problems or [],
        error=error,
    )


@router.get("/c/{name}/submit", name="submit_page")
def submit_page(request: Request, name: str):
    return _submit_page(request, name)


@router.post("/c/{name}/submit", name="submit_form")
async def submit_post(request: Request, name: str):
    from ..errors import CranfieldError

    db = request.app.state.db
    form = await uploads.receive(
        request, submissions.upload_dir(db), request.app.state.config.max_upload
    )
    try:
        out = await run_in_threadpool(submit_form, request, name, form)
    except Invalid as exc:
        return await run_in_threadpool(_submit_page, request, name, exc.problems, exc.message, 422)
    except CranfieldError as exc:
        status = getattr(exc, "status", 422)
        return await run_in_threadpool(_submit_page, request, name, None, str(exc), status)
    finally:
        form.discard()
    return back(f"/c/{quote(name)}/submit", f"run {out['name']} accepted ({out['rows']} lines)")


# -- assessor -------------------------------------------------------------------------


def terms_of(topic: dict) -> set[str]:
    """The words of the topic's title (and description) to highlight."""
    words = re.findall(r"\w+", f"{topic.get('title', '')} {topic.get('description', '')}".lower())
    return {w for w in words if len(w) > 2 and w not in STOPWORDS}


def highlight(text: str, terms: set[str]):
    """``text`` escaped, with the words in ``terms`` wrapped in ``<mark>``."""
    from markupsafe import Markup, escape

    out = []
    for piece in re.split(r"(\w+)", text):
        if piece and piece.lower() in terms:
            out.append(Markup("<mark>") + escape(piece) + Markup("</mark>"))
        else:
            out.append(escape(piece))
    return Markup("").join(out)


def _judge(request: Request, name: str, view: dict | None):
    db = request.app.state.db
    with db.read() as s:
        c = campaigns.get(s, name)
        summary = campaigns.summary(s, c)
        prog = judging.progress(s, c.id, principal(request).user_id)
    if view is None:
        first = judging.first_pair(db, name, principal(request).user_id)
        return render(
            request, "judge.html", name=name, c=summary, view=None, progress=prog, first=first
        )
    terms = terms_of(view["topic"])
    return render(
        request,
        "judge.html",
        name=name,
        c=summary,
        view=view,
        progress=prog,
        doc_html=highlight(view["document"]["text"], terms),
        title_html=highlight(view["document"]["title"], terms),
        nonce=secrets.token_urlsafe(8),
    )


@router.get("/c/{name}/judge", name="judge_page")
def judge_page(request: Request, name: str):
    view = judging.next_pair(request.app.state.db, name, principal(request).user_id)
    return _judge(request, name, view)


@router.get("/c/{name}/judge/{pair}", name="judge_pair_page")
def judge_pair_page(request: Request, name: str, pair: PairId):
    view = judging.pair_view(request.app.state.db, name, principal(request).user_id, pair)
    return _judge(request, name, view)


@router.post("/c/{name}/judge/{pair}", name="judge_form")
async def judge_form(request: Request, name: str, pair: PairId):
    f = await _form(request)
    label = _int(f.get("label", ""), "label")
    await run_in_threadpool(
        lambda: judging.save(
            request.app.state.db,
            name,
            principal(request).user_id,
            pair,
            label,
            key=f.get("key") or None,
            comment=f.get("comment") or None,
            flags=[x for x in judging.FLAGS if f.get(x)],
        )
    )
    return RedirectResponse(f"/c/{quote(name)}/judge", status_code=303)


@router.post("/c/{name}/skip/{pair}", name="skip_form")
async def skip_form(request: Request, name: str, pair: PairId):
    await _form(request)
    await run_in_threadpool(
        judging.skip, request.app.state.db, name, principal(request).user_id, pair
    )
    return RedirectResponse(f"/c/{quote(name)}/judge", status_code=303)


# -- results --------------------------------------------------------------------------


@router.get("/c/{name}/results", name="results_page")
def results_page(request: Request, name: str):
    p = principal(request)
    db = request.app.state.db
    if "coordinator" in p.roles:
        data = results.stored(db, name)
        with db.read() as s:
            published = campaigns.get(s, name).published_at is not None
        return render(
            request, "results.html", name=name, data=data, coordinator=True, published=published
        )
    data = results.for_participant(db, name, p.user_id)
    return render(request, "results.html", name=name, data=data, coordinator=False, published=True)
