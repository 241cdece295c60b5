"""The ASGI application: the JSON API, the HTML pages, static files, error handling.

``create_app(db)`` builds a FastAPI application over an open
:class:`~cranfield.service.db.Database`. Every route of both routers passes
:func:`~cranfield.service.auth.authorize` and :func:`~cranfield.service.auth.check_csrf`;
responses carry a strict Content-Security-Policy (scripts and styles only from the
service itself: it works offline, with no CDN). JSON is written by
:func:`cranfield.output.dumps_json` (undefined values as ``null``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from fastapi import Request

from . import auth
from .audit import AuditTrail
from .db import Database
from .limits import BodyLimit
from .throttle import Limits, Throttle
from .uploads import DEFAULT_LIMIT

HERE = Path(__file__).resolve().parent
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
REPORT_CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data:; frame-ancestors 'none'"
)


@dataclass
class Config:
    """Settings of a running service."""

    max_upload: int = DEFAULT_LIMIT
    secure_cookies: bool = False
    logins: Limits = field(default_factory=Limits)


def json_response_class():
    from starlette.responses import Response

    from ..output import dumps_json

    class JSON(Response):
        media_type = "application/json"

        def render(self, content) -> bytes:
            return dumps_json(content, indent=None).encode("utf-8")

    return JSON


def authorize(request: Request):
    """Dependency of every route: the access rule (:func:`auth.authorize`)."""
    return auth.authorize(request)


async def csrf(request: Request):
    """Dependency of every route: the CSRF check (:func:`auth.check_csrf`)."""
    await auth.check_csrf(request)


class SecurityHeaders:
    """Pure ASGI middleware adding the Content-Security-Policy and the other security
    headers to every response (Starlette's ``BaseHTTPMiddleware`` costs a task and a
    stream per request; this only wraps ``send``). A header the route set is kept."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        extra = [
            (
                b"content-security-policy",
                (REPORT_CSP if path.endswith("/report") else CSP).encode(),
            ),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"same-origin"),
        ]
        if not path.startswith("/static/"):
            extra.append((b"cache-control", b"no-store"))

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {k.lower() for k, _ in headers}
                headers.extend((k, v) for k, v in extra if k not in present)
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def create_app(db: Database, config: Config | None = None):
    """The service's ASGI application over ``db``."""
    from fastapi import Depends, FastAPI
    from fastapi.exceptions import RequestValidationError
    from starlette.exceptions import HTTPException
    from starlette.staticfiles import StaticFiles

    from .. import __version__
    from ..errors import CranfieldError
    from . import api, web
    from .problems import Invalid, ServiceError

    config = config or Config()
    JSON = json_response_class()
    app = FastAPI(
        title="cranfield campaign service",
        version=__version__,
        description="Run submission, pooling, blind relevance judging, qrels and results.",
        docs_url=None,
        redoc_url=None,
        default_response_class=JSON,
    )
    app.state.db = db
    app.state.config = config
    app.state.throttle = Throttle(db, config.logins)
    app.state.templates = web.templates()

    guards = [Depends(authorize), Depends(csrf)]
    app.include_router(api.router, dependencies=guards)
    app.include_router(web.router, dependencies=guards)
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")

    def wants_html(request) -> bool:
        return not request.url.path.startswith("/api/") and request.url.path != "/openapi.json"

    def problem(request, status: int, message: str, extra: dict | None = None):
        if wants_html(request):
            if status == 401:
                from starlette.responses import RedirectResponse

                return RedirectResponse("/login", status_code=303)
            return web.error_page(request, status, message)
        return JSON({"error": message, **(extra or {})}, status_code=status)

    @app.exception_handler(ServiceError)
    async def service_error(request, exc: ServiceError):
        extra = {"problems": exc.problems} if isinstance(exc, Invalid) else None
        return problem(request, exc.status, exc.message, extra)

    @app.exception_handler(CranfieldError)
    async def input_error(request, exc: CranfieldError):
        return problem(request, 422, str(exc))

    @app.exception_handler(RequestValidationError)
    async def validation_error(request, exc: RequestValidationError):
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(x) for x in first.get("loc", ()) if x != "body")
        return problem(request, 422, f"{where}: {first.get('msg', 'invalid request')}".strip(": "))

    @app.exception_handler(HTTPException)
    async def http_error(request, exc: HTTPException):
        return problem(request, exc.status_code, str(exc.detail))

    app.add_middleware(AuditTrail, db=db)
    app.add_middleware(BodyLimit, upload_limit=lambda: app.state.config.max_upload)
    app.add_middleware(SecurityHeaders)
    return app


def routes(app) -> list[tuple[str | None, str, frozenset[str]]]:
    """``(name, path, methods)`` of every route of ``app``, included routers unfolded
    (the authorization test enumerates these)."""
    out = []

    def walk(items) -> None:
        for r in items:
            original = getattr(r, "original_router", None)
            if original is not None:
                walk(original.routes)
                continue
            methods = frozenset(getattr(r, "methods", None) or {"GET"})
            out.append((getattr(r, "name", None), getattr(r, "path", ""), methods))

    walk(app.routes)
    return out


def from_environment():
    """The application of one worker process of ``cranfield serve --workers N``: the
    settings come from the environment (``CRANFIELD_SERVE_SETTINGS``, written by the
    parent, which migrated the database once before starting the workers)."""
    import json
    import os

    from .db import open_database

    settings = json.loads(os.environ["CRANFIELD_SERVE_SETTINGS"])
    db = open_database(settings["target"], data_dir=settings["data_dir"])
    config = Config(max_upload=settings["max_upload"], secure_cookies=settings["secure_cookies"])
    return create_app(db, config)
