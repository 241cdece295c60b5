"""The JSON API (OpenAPI at ``/openapi.json``): everything the pages do.

Each endpoint is a thin wrapper of a domain function; who may call it is decided by
:data:`cranfield.service.access.RULES` (by the route's name) before it runs.
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Header, Request
from pydantic import BaseModel, Field, StrictInt
from starlette.concurrency import run_in_threadpool
from starlette.responses import PlainTextResponse, Response

from . import (
    accounts,
    audit,
    campaigns,
    devices,
    estimates,
    exports,
    invitations,
    judging,
    machine_labels,
    mtc_order,
    paging,
    pooling,
    quality,
    results,
    sampling,
    submissions,
    uploads,
)
from .auth import COOKIE, principal
from .params import DeviceId, PairId

router = APIRouter(prefix="/api")


class Credentials(BaseModel):
    username: str = Field(max_length=64)
    password: str = Field(max_length=1024)


class Label(BaseModel):
    label: StrictInt
    seconds: float | None = None


class JudgmentBody(Label):
    """A label with the assessor's notes: a comment, unsure, a broken document."""

    comment: str | None = Field(default=None, max_length=2000)
    unsure: bool = False
    broken: bool = False


class Member(BaseModel):
    username: str
    role: str
    password: str | None = None


class InviteRequest(BaseModel):
    role: str
    days: StrictInt = 7


class ResetRequest(BaseModel):
    username: str = Field(max_length=64)
    days: StrictInt = 7


class MemberRequest(BaseModel):
    username: str = Field(max_length=64)


class UseLink(BaseModel):
    username: str | None = Field(default=None, max_length=64)
    password: str = Field(max_length=1024)


class PasswordChange(BaseModel):
    current: str = Field(max_length=1024)
    new: str = Field(max_length=1024)


class Guidelines(BaseModel):
    text: str = Field(max_length=100_000)


class TopicAssessor(BaseModel):
    username: str = Field(max_length=64)


class Reassign(BaseModel):
    source: str = Field(max_length=64)
    target: str = Field(max_length=64)


class Reopen(BaseModel):
    deadline: str | None = None


class PoolRequest(BaseModel):
    depth: StrictInt | None = 10
    strategy: str = "depth"
    per_group: StrictInt | None = None


class AssignRequest(BaseModel):
    per_topic: StrictInt | None = None
    seed: StrictInt = 0


class SampleRequest(BaseModel):
    fraction: float
    strata: list[StrictInt] = Field(default=[], max_length=100)
    seed: StrictInt = 0
    measure: str = Field(default=sampling.DEFAULT_MEASURE, max_length=100)
    units: str = Field(default="pairs", max_length=20)


class MtcRequest(BaseModel):
    measure: str = Field(max_length=100)
    runs: list[str] | None = Field(default=None, max_length=2)
    threshold: float = mtc_order.DEFAULT_THRESHOLD


class ResultsRequest(BaseModel):
    baselines: list[str] = []


def db_of(request: Request):
    return request.app.state.db


def user_id(request: Request) -> int:
    return principal(request).user_id


def set_cookie(request: Request, response: Response, name: str, value: str, days: int) -> None:
    """An ``HttpOnly; SameSite=Strict`` cookie (``Secure`` with ``--secure-cookies``)."""
    response.set_cookie(
        name,
        value,
        max_age=days * 86400,
        httponly=True,
        samesite="strict",
        secure=request.app.state.config.secure_cookies,
        path="/",
    )


def set_session_cookie(request: Request, response: Response, token: str) -> None:
    from .security import SESSION_DAYS

    set_cookie(request, response, COOKIE, token, SESSION_DAYS)


async def do_login(request: Request, username: str, password: str, response: Response):
    """``(token, csrf)`` or a 401/429 error (:mod:`cranfield.service.throttle`); a
    success sets a new device cookie on ``response`` (:mod:`cranfield.service.devices`),
    and a valid one presented puts the attempt in its device's lane."""
    db = db_of(request)
    throttle = request.app.state.throttle
    address = request.client.host if request.client else "?"
    cookie = request.cookies.get(devices.COOKIE)
    # a flood carries no valid device cookie: the owner's device has threads of its own
    known = await throttle.runner(trusted=bool(cookie))(accounts.credentials, db, username)
    device = None if known is None else devices.verify(cookie, *known)
    if device is not None and not await throttle.runner(trusted=True)(devices.is_known, db, device):
        device = None  # signed, but forgotten: an unknown device again
    run = throttle.runner(trusted=device is not None)
    attempt = await run(throttle.reserve, username, address, device)
    try:
        slot = await throttle.verification_slot(trusted=device is not None)
    except BaseException:
        await run(throttle.release, attempt)
        raise
    async with slot:
        found = await run(accounts.login, db, username, password)
    if found is None:
        from .auth import Unauthorized

        raise Unauthorized("wrong user name or password")
    await run(throttle.succeeded, username, address, attempt, device)
    if known is not None:
        agent = request.headers.get("user-agent", "")
        cookie = await run(devices.after_login, db, *known, device, agent)
        set_cookie(request, response, devices.COOKIE, cookie, devices.DAYS)
    return found[0], found[1]


@router.get("/health", name="api_health")
def health() -> dict:
    return {"status": "ok"}


@router.post("/session", name="api_login")
async def login(request: Request, body: Credentials, response: Response) -> dict:
    """Log in: a session cookie and ``{"token", "csrf"}`` (the token also works as
    ``Authorization: Bearer``)."""
    token, csrf = await do_login(request, body.username, body.password, response)
    set_session_cookie(request, response, token)
    return {"token": token, "csrf": csrf}


@router.delete("/session", name="api_logout")
def logout(request: Request, response: Response) -> dict:
    accounts.logout(db_of(request), principal(request).token)
    response.delete_cookie(COOKIE, path="/")
    return {"status": "logged out"}


@router.get("/me", name="api_me")
def me(request: Request) -> dict:
    p = principal(request)
    db = db_of(request)
    with db.read() as s:
        out = []
        for c in campaigns.list_for(s, p.user_id):
            out.append({"name": c.name, "roles": sorted(accounts.roles(s, p.user_id, c.id))})
    return {"username": p.username, "site_coordinator": p.site, "campaigns": out, "csrf": p.csrf}


@router.get("/campaigns", name="api_campaigns")
def list_campaigns(request: Request) -> list:
    p = principal(request)
    with db_of(request).read() as s:
        return [campaigns.summary(s, c) for c in campaigns.list_for(s, p.user_id)]


async def create_from_form(request: Request, form: uploads.Form) -> str:
    """Create a campaign from form fields (and topic/document files, or ``sample``)."""

    from ..errors import InputError, ParameterError
    from . import demo

    db = db_of(request)
    f = form.fields
    name = campaigns.check_name(f.get("name", ""))

    def integer(key: str, default: int) -> int:
        text = f.get(key, "").strip()
        if not text:
            return default
        try:
            return int(text)
        except ValueError:
            raise ParameterError(key.replace("_", " "), "an integer", text) from None

    deadline = parse_deadline(f.get("deadline"))
    settings = campaigns.Settings(
        title=f.get("title", "")[:200],
        scale=f.get("scale", "").strip() or campaigns.DEFAULT_SCALE,
        deadline=deadline,
        max_runs=integer("max_runs", 5),
        per_topic=integer("per_topic", 1),
        aggregation=f.get("aggregation", "").strip() or "majority",
        measures=f.get("measures", "").strip() or campaigns.DEFAULT_MEASURES,
    )
    yes = ("1", "on", "true", "yes")
    if f.get("sample") in yes:
        await run_in_threadpool(
            lambda: demo.sample_campaign(db, name, settings, with_runs=f.get("sample_runs") in yes)
        )
    else:
        topics_path, docs_path = form.files.get("topics"), form.files.get("documents")
        docs_id = f.get("documents_id", "").strip()
        has_docs = (docs_path is not None and form.filenames.get("documents")) or docs_id
        if topics_path is None or not has_docs or not form.filenames.get("topics"):
            raise InputError(
                "give a topics file and a documents file (or a collection id, irds:ID), "
                "or choose the sample collection"
            )
        if docs_id and docs_path is not None and form.filenames.get("documents"):
            raise InputError("give a documents file or a collection id, not both")

        def create() -> None:
            from ..collection import read_documents, read_topics

            topics = _read_named(read_topics, topics_path, form.filenames.get("topics", ""))
            if docs_id:  # a collection by id: its documents stored as runs name them
                docs = docs_id if docs_id.startswith("irds:") else f"irds:{docs_id}"
            else:
                docs = _read_named(
                    lambda p: list(read_documents(p)),
                    docs_path,
                    form.filenames.get("documents", ""),
                )
            campaigns.create_campaign(db, name, topics, docs, settings)

        await run_in_threadpool(create)
    accounts.grant(db, principal(request).username, name, "coordinator")
    return name


def _read_named(reader, path, filename: str):
    """Read an uploaded file with ``reader``, the file's extension being the original
    one (readers choose the format by it)."""
    import os
    from pathlib import Path

    suffix = "".join(Path(filename).suffixes[-2:]) if filename else ""
    named = Path(str(path) + suffix)
    os.replace(path, named)
    try:
        return reader(str(named))
    finally:
        named.unlink(missing_ok=True)


@router.post("/campaigns", name="api_create_campaign", status_code=201)
async def create_campaign(request: Request) -> dict:
    """Create a campaign (multipart form: ``name``, ``title``, ``scale``, ``deadline``,
    ``max_runs``, ``per_topic``, ``aggregation``, ``measures``, and ``sample=1`` (the
    sample collection's topics and documents; ``sample_runs=1``: also its runs, pooled)
    or the files ``topics`` and ``documents`` (or ``documents_id``, a collection's
    ir_datasets id: its documents stored as runs name them). The creator becomes its
    coordinator."""
    db = db_of(request)
    form = await uploads.receive(request, uploads_dir(request), request.app.state.config.max_upload)
    try:
        name = await create_from_form(request, form)
    finally:
        form.discard()
    with db.read() as s:
        return campaigns.summary(s, campaigns.get(s, name))


def uploads_dir(request: Request):
    return submissions.upload_dir(db_of(request))


@router.get("/campaigns/{name}", name="api_campaign")
def campaign(request: Request, name: str) -> dict:
    with db_of(request).read() as s:
        out = campaigns.summary(s, campaigns.get(s, name))
    out["roles"] = sorted(principal(request).roles)
    return out


@router.post("/campaigns/{name}/users", name="api_add_member", status_code=201)
def add_member(request: Request, name: str, body: Member) -> dict:
    """Give a user a role in the campaign: a member of the caller's campaigns (a site
    coordinator: any user), or a new user with a ``password``."""
    add_member_to(db_of(request), name, body.username, body.role, body.password, principal(request))
    audit.note(request, username=body.username, role=body.role)
    return {"username": body.username, "role": body.role}


def add_member_to(db, name: str, username: str, role: str, password: str | None, by) -> None:
    """Give ``username`` a role in campaign ``name``, on behalf of the principal ``by``.

    A coordinator may add a user of their own campaigns (a site coordinator: any user)
    or create a new one (with a password); anyone else's account is out of reach, and
    the answer does not say whether it exists unless a password is given for it (a new
    account cannot take a name in use).
    """
    from sqlalchemy import select

    from ..errors import InputError
    from .models import User
    from .problems import Conflict

    accounts.check_username(username)
    accounts.check_role(role)
    with db.read() as s:
        found = s.scalar(select(User.id).where(User.username == username))
        reachable = found is not None and (by.site or accounts.known_to(s, found, by.user_id))
    if reachable:
        accounts.grant(db, username, name, role)
    elif not password:
        raise InputError(
            f"no user {username!r} among the members of your campaigns: give a password "
            "to create a new user"
        )
    elif found is not None:
        raise Conflict(f"the user name {username!r} is taken: choose another")
    else:
        accounts.add_user(db, username, password, role=role, campaign=name)


@router.post("/campaigns/{name}/runs", name="api_upload_run", status_code=201)
async def upload_run(request: Request, name: str) -> dict:
    """Submit a run (multipart form: ``file``, optional ``name``, ``description``,
    ``priority``). 422 with ``problems`` (``{"line", "message"}``) when it is not
    valid; nothing is stored then."""
    return await on_upload(request, submit_form, request, name)


async def on_upload(request: Request, work, *args):
    """Receive the request's form (capped, files streamed to disk), run ``work(*args,
    form)`` in a worker thread, and remove what is left of the upload whatever
    happened."""
    form = await uploads.receive(request, uploads_dir(request), request.app.state.config.max_upload)
    try:
        return await run_in_threadpool(work, *args, form)
    finally:
        form.discard()


def submit_form(request: Request, name: str, form: uploads.Form) -> dict:
    from ..errors import InputError, ParameterError

    path = form.files.pop("file", None)
    if path is None:
        raise InputError("no run file in the form (field 'file')")
    prio_text = form.fields.get("priority", "").strip() or "1"
    try:
        priority = int(prio_text)
    except ValueError:
        path.unlink(missing_ok=True)
        raise ParameterError("priority", "an integer from 1 to 1000", prio_text) from None
    uid, on_behalf = run_owner(request, name, form.fields.get("owner", "").strip())
    out = submissions.submit(
        db_of(request),
        name,
        uid,
        path,
        name=form.fields.get("name", "").strip() or None,
        description=form.fields.get("description", ""),
        priority=priority,
        check_deadline=not on_behalf,
    )
    if on_behalf:
        audit.note(request, run=out["name"], owner=form.fields["owner"].strip())
    return out


def run_owner(request: Request, name: str, owner: str) -> tuple[int, bool]:
    """Whose run an upload is: the caller's own (a participant), or, from a coordinator
    with ``owner``, that participant's (uploaded on their behalf, deadline waived; the
    audit log records it). Returns ``(user id, on behalf)``."""
    from sqlalchemy import select

    from ..errors import InputError
    from .models import User
    from .problems import Forbidden

    p = principal(request)
    if not owner:
        if "participant" not in p.roles:
            raise InputError("a coordinator names the participant the run is for (field 'owner')")
        return p.user_id, False
    if "coordinator" not in p.roles:
        raise Forbidden("only a coordinator uploads a run for another participant")
    with db_of(request).read() as s:
        c = campaigns.get(s, name)
        uid = s.scalar(select(User.id).where(User.username == owner))
        if uid is None or "participant" not in accounts.roles(s, uid, c.id):
            raise InputError(f"{owner!r} is not a participant of campaign {name!r}")
    return uid, True


Paged = Depends(paging.params)


@router.get("/campaigns/{name}/runs", name="api_runs")
def runs(request: Request, response: Response, name: str, given=Paged) -> list:
    """The campaign's runs by name, paged (a participant sees only its own)."""
    from .models import Run

    p = principal(request)
    page = paging.page_of(given, str)
    with db_of(request).read() as s:
        c = campaigns.get(s, name)
        query = submissions.runs_query(c.id, None if "coordinator" in p.roles else p.user_id)
        found, after = paging.rows(s, query, Run.name, page)
    paging.link(request, response, after)
    return [
        {
            "id": r.id,
            "name": r.name,
            "description": r.description,
            "priority": r.priority,
            "rows": r.rows,
            "submitted": r.created_at.isoformat() + "Z",
        }
        for (r,) in found
    ]


@router.get("/campaigns/{name}/pairs", name="api_pairs")
def pool_pairs(request: Request, response: Response, name: str, given=Paged) -> list:
    """The pool's pairs by id (topic, then document), paged: ``[{"id", "topic",
    "document", "gold", "judgments"}]`` (``gold``: the known label of a gold pair)."""
    from sqlalchemy import func, select

    from .models import Judgment, Pair

    page = paging.page_of(given, int)
    with db_of(request).read() as s:
        c = campaigns.get(s, name)
        judged = (
            select(func.count())
            .where(Judgment.pair_id == Pair.id)
            .correlate(Pair)
            .scalar_subquery()
            .label("judgments")
        )
        query = select(Pair.id, Pair.topic_id, Pair.doc_id, Pair.gold_label, judged).where(
            Pair.campaign_id == c.id
        )
        found, after = paging.rows(s, query, Pair.id, page)
    paging.link(request, response, after)
    return [
        {"id": i, "topic": t, "document": d, "gold": g, "judgments": n} for i, t, d, g, n in found
    ]


@router.get("/campaigns/{name}/judgments.json", name="api_judgment_list")
def judgment_list(request: Request, response: Response, name: str, given=Paged) -> list:
    """The current judgments in the order first saved, paged: ``[{"id", "pair",
    "topic", "document", "assessor", "label", "seconds", "comment", "flags",
    "updated"}]`` (the whole list at once: ``judgments``, TSV)."""
    page = paging.page_of(given, int)
    found, after = exports.judgment_page(db_of(request), name, page)
    paging.link(request, response, after)
    return found


@router.get("/campaigns/{name}/members", name="api_members")
def member_list(request: Request, response: Response, name: str, given=Paged) -> list:
    """The campaign's members in the order they joined, paged: ``[{"username",
    "role"}]`` (a user with two roles is two entries)."""
    from sqlalchemy import select

    from .models import Membership, User

    page = paging.page_of(given, int)
    with db_of(request).read() as s:
        c = campaigns.get(s, name)
        query = (
            select(Membership.id, User.username, Membership.role)
            .join(User, User.id == Membership.user_id)
            .where(Membership.campaign_id == c.id)
        )
        found, after = paging.rows(s, query, Membership.id, page)
    paging.link(request, response, after)
    return [{"username": u, "role": r} for _, u, r in found]


@router.get("/campaigns/{name}/activity", name="api_activity")
def activity(request: Request, response: Response, name: str, given=Paged) -> list:
    """Per assessor, by user name, paged: saves, last seen, last hour's pace, median
    seconds (:func:`cranfield.service.quality.activity`)."""
    page = paging.page_of(given, str)
    found, after = paging.items(
        quality.activity(db_of(request), name), lambda a: a["assessor"], page
    )
    paging.link(request, response, after)
    return found


@router.post("/campaigns/{name}/pool", name="api_pool")
def pool(request: Request, name: str, body: PoolRequest) -> dict:
    info = pooling.build(
        db_of(request), name, strategy=body.strategy, depth=body.depth, per_group=body.per_group
    )
    audit.note(request, strategy=info["strategy"], pairs=info["pairs"], gold=info["gold"])
    return info


@router.post("/campaigns/{name}/assignments", name="api_assign")
def assign(request: Request, name: str, body: AssignRequest) -> dict:
    out = pooling.assign(db_of(request), name, per_topic=body.per_topic, seed=body.seed)
    audit.note(request, per_topic=body.per_topic, seed=body.seed, topics=len(out))
    return out


@router.post("/campaigns/{name}/machine-labels", name="api_machine_labels", status_code=201)
async def upload_machine_labels(request: Request, name: str) -> dict:
    """Import a machine assessor's labels of the pool (multipart form: ``file``, qrels of
    pooled pairs; ``assessor``, the model and its prompt). 422 when a pair is not pooled
    or a label is not on the scale; nothing is stored then. The model runs elsewhere
    (``cranfield judge``), never in the service."""
    out = await on_upload(request, machine_labels_from_form, db_of(request), name)
    audit.note(request, assessor=out["assessor"], labels=out["labels"])
    return out


def machine_labels_from_form(db, name: str, form: uploads.Form) -> dict:
    """Read the form's label file (its extension chooses the format) and import it."""
    from ..errors import InputError

    assessor = machine_labels.check_assessor(form.fields.get("assessor", ""))
    path = form.files.get("file")
    if path is None:
        raise InputError("no label file in the form (field 'file')")
    filename = form.filenames.get("file", "")
    source = filename or "the label file"
    qrels = _read_named(lambda p: machine_labels.read(p, source=source), path, filename)
    return machine_labels.import_labels(db, name, qrels, assessor)


@router.post("/campaigns/{name}/sample", name="api_sample")
def sample(request: Request, name: str, body: SampleRequest) -> dict:
    """Choose the pooled pairs people judge (before the assignment): ``units="pairs"``,
    ``fraction`` of each stratum of best ranks (``strata``: increasing rank bounds; none:
    uniform) and a measure linear in the labels (``P@k`` or ``DCG@k``); ``units="topics"``,
    ``fraction`` of the topics, each judged over its whole pool, and any measure."""
    out = sampling.choose(
        db_of(request),
        name,
        body.fraction,
        bounds=body.strata,
        seed=body.seed,
        measure=body.measure,
        units=body.units,
    )
    audit.note(request, fraction=body.fraction, strata=body.strata, sampled=out["sampled"])
    return out


@router.post("/campaigns/{name}/mtc", name="api_mtc")
def mtc(request: Request, name: str, body: MtcRequest) -> dict:
    """Serve the assessors' queues in the order of minimal test collections: the question is
    ``measure`` (``AP``, ``P@k`` or ``DCG@k``) between two named ``runs``, or the ranking
    of all the runs (none named); a decision is taken when the probability that it would
    change falls below ``threshold`` (default 0.05). After the pool; not with a human
    sample; setting it again replaces the question; a bad one stores nothing
    (:func:`cranfield.service.mtc_order.choose`)."""
    out = mtc_order.choose(
        db_of(request), name, body.measure, runs=body.runs, threshold=body.threshold
    )
    audit.note(request, measure=out["measure"], runs=out["runs"], threshold=out["threshold"])
    return out


@router.get("/campaigns/{name}/mtc", name="api_mtc_status")
def mtc_status(request: Request, name: str) -> dict:
    """The MTC question and, per topic, each pair of runs' expected difference and the
    probability that its sign would change, from the aggregated labels; ``decided``:
    every topic is, judging may stop (:func:`cranfield.service.mtc_order.status`)."""
    return mtc_order.status(db_of(request), name)


@router.get("/campaigns/{name}/estimates", name="api_estimates")
def estimate_list(request: Request, name: str) -> dict:
    """Each run's prediction-powered estimate of the mean measure with its 95% interval,
    the judged fraction, and whether adjacent runs' intervals separate
    (:func:`cranfield.service.estimates.estimates`)."""
    return estimates.estimates(db_of(request), name)


@router.get("/campaigns/{name}/topics", name="api_topics")
def topic_list(request: Request, response: Response, name: str, given=Paged) -> list:
    """The campaign's topics by id, paged: ``[{"id", "title", "description",
    "narrative"}]``."""
    from .models import Topic

    page = paging.page_of(given, str)
    with db_of(request).read() as s:
        c = campaigns.get(s, name)
        found, after = paging.rows(s, campaigns.topics_query(c.id), Topic.topic_id, page)
    paging.link(request, response, after)
    return [
        {"id": t.topic_id, "title": t.title, "description": t.description, "narrative": t.narrative}
        for (t,) in found
    ]


@router.get(
    "/campaigns/{name}/topics.txt", name="api_topics_trec", response_class=PlainTextResponse
)
def topics_trec(request: Request, name: str):
    """The topics as TREC ``<top>`` blocks."""
    with db_of(request).read() as s:
        return PlainTextResponse(campaigns.topics_trec(s, campaigns.get(s, name).id))


@router.get("/campaigns/{name}/guidelines", name="api_guidelines")
def guidelines(request: Request, name: str) -> dict:
    with db_of(request).read() as s:
        return {"text": campaigns.get(s, name).guidelines or ""}


@router.put("/campaigns/{name}/guidelines", name="api_set_guidelines")
def set_guidelines(request: Request, name: str, body: Guidelines) -> dict:
    """Set the campaign's guidelines (plain text; paragraphs separated by blank lines)."""
    campaigns.set_guidelines(db_of(request), name, body.text)
    audit.note(request, characters=len(body.text))
    return {"text": body.text.strip()}


@router.post("/campaigns/{name}/topics/{topic}/assessors", name="api_give_topic")
def give_topic(request: Request, name: str, topic: str, body: TopicAssessor) -> dict:
    """Give a topic to one more assessor (its pairs join the end of their queue)."""
    added = pooling.give_topic(db_of(request), name, topic, body.username)
    audit.note(request, topic=topic, username=body.username, added=added)
    return {"topic": topic, "username": body.username, "added": added}


@router.delete("/campaigns/{name}/topics/{topic}/assessors/{username}", name="api_take_topic")
def take_topic(request: Request, name: str, topic: str, username: str) -> dict:
    """Take a topic from an assessor: their unjudged pairs of it leave their queue."""
    removed = pooling.take_topic(db_of(request), name, topic, username)
    audit.note(request, topic=topic, username=username, removed=removed)
    return {"topic": topic, "username": username, "removed": removed}


@router.post("/campaigns/{name}/topics/{topic}/reassign", name="api_reassign")
def reassign(request: Request, name: str, topic: str, body: Reassign) -> dict:
    """Move a topic's unjudged pairs from ``source`` to ``target``."""
    out = pooling.reassign_topic(db_of(request), name, topic, body.source, body.target)
    audit.note(request, **out)
    return out


@router.post("/campaigns/{name}/pool/extend", name="api_extend_pool")
def extend_pool(request: Request, name: str) -> dict:
    """Pool the runs submitted since, with the pool's own strategy (judgments kept)."""
    out = pooling.extend(db_of(request), name)
    audit.note(request, added=out["added"], unassigned=out["unassigned"])
    return out


@router.post("/campaigns/{name}/reopen", name="api_reopen")
def reopen(request: Request, name: str, body: Reopen) -> dict:
    """Accept runs again, until ``deadline`` (ISO 8601, UTC; none: no deadline)."""
    deadline = parse_deadline(body.deadline)
    campaigns.reopen(db_of(request), name, deadline)
    audit.note(request, deadline=body.deadline)
    return {"status": "submission", "deadline": body.deadline}


def parse_deadline(text: str | None):
    """An ISO 8601 date and time (UTC), or None for an empty text."""
    import datetime as dt

    from ..errors import ParameterError

    if text is None or not str(text).strip():
        return None
    try:
        value = dt.datetime.fromisoformat(str(text).strip())
    except ValueError:
        raise ParameterError("deadline", "an ISO 8601 date, e.g. 2026-06-30T23:59", text) from None
    if value.tzinfo is not None:
        value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
    return value


@router.get(
    "/campaigns/{name}/next",
    name="api_next",
    responses={204: {"description": "nothing left to judge"}},
)
def next_pair(request: Request, name: str):
    """The next pair to judge (blind: no run, rank, score or other label), or 204."""
    view = judging.next_pair(db_of(request), name, user_id(request))
    if view is None:
        return Response(status_code=204)
    return view


@router.get("/campaigns/{name}/pairs/{pair}", name="api_pair")
def pair(request: Request, name: str, pair: PairId) -> dict:
    return judging.pair_view(db_of(request), name, user_id(request), pair)


@router.put("/campaigns/{name}/judgments/{pair}", name="api_judge")
def judge(
    request: Request,
    name: str,
    pair: PairId,
    body: JudgmentBody,
    response: Response,
    idempotency_key: str | None = Header(default=None),
) -> dict:
    """Save a label (201 first time, 200 after), with an optional ``comment`` and the
    flags ``unsure`` and ``broken`` (a document that cannot be judged); repeating a
    request with the same ``Idempotency-Key`` changes nothing and gets the same answer."""
    status, out = judging.save(
        db_of(request),
        name,
        user_id(request),
        pair,
        body.label,
        key=idempotency_key,
        seconds=body.seconds,
        comment=body.comment,
        flags=[f for f in judging.FLAGS if getattr(body, f)],
    )
    response.status_code = status
    return out


@router.post(
    "/campaigns/{name}/skips/{pair}",
    name="api_skip",
    responses={204: {"description": "nothing left to judge"}},
)
def skip(request: Request, name: str, pair: PairId):
    """Set an unjudged pair aside ("come back later": it comes after the rest of the
    queue); answers the next pair to judge, or 204."""
    view = judging.skip(db_of(request), name, user_id(request), pair)
    if view is None:
        return Response(status_code=204)
    return view


@router.get("/campaigns/{name}/judgments/{pair}/history", name="api_history")
def history(request: Request, name: str, pair: PairId) -> list:
    """Your labels for a pair, oldest first."""
    return judging.history(db_of(request), name, user_id(request), pair)


@router.get("/campaigns/{name}/dashboard", name="api_dashboard")
def dashboard(request: Request, name: str) -> dict:
    return quality.dashboard(db_of(request), name)


@router.put("/campaigns/{name}/adjudications/{pair}", name="api_adjudicate")
def adjudicate(request: Request, name: str, pair: PairId, body: Label) -> dict:
    quality.adjudicate(db_of(request), name, user_id(request), pair, body.label)
    audit.note(request, pair=pair, label=body.label)
    return {"pair": pair, "label": body.label}


@router.get("/campaigns/{name}/qrels", name="api_qrels", response_class=PlainTextResponse)
def qrels(request: Request, name: str):
    """The qrels (TREC format), aggregated by the campaign's rule."""
    return PlainTextResponse(exports.qrels_text(db_of(request), name))


@router.get("/campaigns/{name}/judgments", name="api_judgments", response_class=PlainTextResponse)
def judgments(request: Request, name: str):
    """The current judgments (TSV: topic, document, assessor, label, seconds)."""
    return PlainTextResponse(exports.judgments_tsv(db_of(request), name))


@router.get("/campaigns/{name}/log", name="api_log", response_class=PlainTextResponse)
def log(request: Request, name: str):
    """Every label ever saved, in order (TSV)."""
    return PlainTextResponse(exports.log_tsv(db_of(request), name))


@router.post("/campaigns/{name}/results", name="api_compute_results")
def compute_results(request: Request, name: str, body: ResultsRequest) -> dict:
    """Compute (not publish) the results; ``coverage.warning`` says when part of the
    pool has no label yet."""
    data = results.compute(db_of(request), name, body.baselines)
    audit.note(request, baselines=body.baselines, labelled=data["coverage"]["labelled"])
    return {
        "runs": sorted(data["runs"]),
        "measures": data["measures"],
        "qrels_pairs": data["qrels_pairs"],
        "coverage": data["coverage"],
    }


@router.post("/campaigns/{name}/publish", name="api_publish")
def publish(request: Request, name: str) -> dict:
    results.publish(db_of(request), name)
    return {"published": True}


@router.get("/campaigns/{name}/results", name="api_results")
def get_results(request: Request, name: str) -> dict:
    """Coordinator: every run. Participant (once published): its own runs and the
    per-topic best, median and worst."""
    p = principal(request)
    if "coordinator" in p.roles:
        data = results.stored(db_of(request), name)
        if data is None:
            from .problems import NotFound

            raise NotFound("no results computed yet")
        return data
    return results.for_participant(db_of(request), name, p.user_id)


def link_url(request: Request, token: str) -> str:
    """The absolute address of a one-time link (as the caller reached the service)."""
    return str(request.base_url).rstrip("/") + "/link/" + token


@router.post("/campaigns/{name}/invitations", name="api_invite", status_code=201)
def invite(request: Request, name: str, body: InviteRequest) -> dict:
    """A one-time link that creates an account with ``role`` in the campaign
    (``days``: 1 to 90, default 7); the link is in the answer only."""
    out = invitations.invite(db_of(request), name, body.role, user_id(request), body.days)
    audit.note(request, role=body.role, days=body.days)
    return {"link": link_url(request, out["token"]), "expires": out["expires"]}


@router.post("/campaigns/{name}/password-resets", name="api_reset_link", status_code=201)
def reset_link(request: Request, name: str, body: ResetRequest) -> dict:
    """A one-time link that sets a new password for a member of the campaign."""
    out = invitations.reset(db_of(request), name, body.username, user_id(request), body.days)
    audit.note(request, username=body.username, days=body.days)
    return {"link": link_url(request, out["token"]), "expires": out["expires"]}


@router.get("/links/{token}", name="api_link")
def link(request: Request, token: str) -> dict:
    """What a one-time link does (404 when unknown, used or expired)."""
    return invitations.peek(db_of(request), token)


@router.post("/links/{token}", name="api_use_link")
def use_link(request: Request, token: str, body: UseLink) -> dict:
    """Use a one-time link: an invitation with ``username`` and ``password``, a reset
    with ``password``."""
    name = invitations.accept(db_of(request), token, body.password, body.username)
    return {"username": name}


@router.post("/me/password", name="api_change_password")
def change_password(request: Request, body: PasswordChange) -> dict:
    """Change one's own password (the other sessions end)."""
    p = principal(request)
    invitations.change_password(db_of(request), p.user_id, body.current, body.new, p.token)
    return {"changed": True}


@router.get("/me/devices", name="api_devices")
def my_devices(request: Request) -> dict:
    """The caller's known devices (:mod:`cranfield.service.devices`), most recently used
    first; ``this_device`` marks the one making the request."""
    p = principal(request)
    cookie = request.cookies.get(devices.COOKIE)
    return {"devices": devices.listed(db_of(request), p.user_id, cookie)}


@router.delete("/me/devices/{device}", name="api_forget_device")
def forget_device(request: Request, device: DeviceId) -> dict:
    """Forget one of the caller's devices: its cookie no longer counts as known."""
    devices.forget(db_of(request), principal(request).user_id, device)
    return {"forgotten": device}


@router.post("/campaigns/{name}/forget-devices", name="api_forget_member_devices")
def forget_member_devices(request: Request, name: str, body: MemberRequest) -> dict:
    """Forget every device of a member of the campaign (a lost laptop, a shared one)."""
    n = devices.forget_member_devices(db_of(request), name, body.username)
    audit.note(request, username=body.username, devices=n)
    return {"username": body.username, "forgotten": n}


@router.get("/campaigns/{name}/audit", name="api_audit")
def audit_log(request: Request, response: Response, name: str, given=Paged) -> list:
    """The coordinator actions in the campaign, oldest first, paged (the whole log at
    once: ``audit.tsv``)."""
    found, after = audit.entries(db_of(request), name, paging.page_of(given, int))
    paging.link(request, response, after)
    return found


@router.get("/campaigns/{name}/audit.tsv", name="api_audit_tsv", response_class=PlainTextResponse)
def audit_tsv(request: Request, name: str):
    """The audit log as TSV (``time user action detail``)."""
    return PlainTextResponse(audit.entries_tsv(db_of(request), name))


@router.get(
    "/campaigns/{name}/results.csv", name="api_results_csv", response_class=PlainTextResponse
)
def results_csv(request: Request, name: str):
    """The results as CSV (per run and topic; a participant: its own runs, once
    published)."""
    data = get_results(request, name)
    return PlainTextResponse(results.as_csv(data), media_type="text/csv")


@router.get("/campaigns/{name}/report", name="api_report", response_class=Response)
def report(request: Request, name: str):
    """The HTML evaluation report of every run."""
    from starlette.responses import FileResponse

    from .problems import NotFound

    path = results.report_path(db_of(request), name)
    if path is None:
        raise NotFound("no results computed yet")
    return FileResponse(path, media_type="text/html")
