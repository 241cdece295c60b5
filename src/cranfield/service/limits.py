"""Request-body caps, applied before any route reads a byte.

Every request body is capped by its kind: a ``multipart/form-data`` body (a run, topics
or documents) at the service's ``--max-upload``; any other body (JSON, a urlencoded
form) at :data:`MAX_BODY`, far above the largest legitimate one (a login, a judgment,
a member). :class:`BodyLimit` refuses a declared ``Content-Length`` above the cap with
413 at once, without reading the body, and counts the bytes of a body sent without a
length (chunked) as they arrive: the first chunk past the cap raises :class:`TooLarge`
inside whatever is reading (an upload streamed to disk); a small body is read whole
here first, so a route never sees one past its cap. At most the cap is ever held in
memory or written to disk.
"""

from __future__ import annotations

from .problems import ServiceError

#: the cap of a body that is not a multipart upload, in bytes
MAX_BODY = 1_000_000


class TooLarge(ServiceError):
    status = 413


def megabytes(n: int) -> str:
    return f"{n / 1e6:g} MB"


def too_large(limit: int) -> TooLarge:
    return TooLarge(f"the request body is larger than the limit of {megabytes(limit)}")


class BodyLimit:
    """Pure ASGI middleware capping every request body (see the module docstring).

    ``upload_limit`` is read from the application's configuration at each request, so
    a test or ``serve`` may set it after the application is built.
    """

    def __init__(self, app, upload_limit, body_limit: int = MAX_BODY):
        self.app = app
        self.upload_limit = upload_limit
        self.body_limit = body_limit

    def limit_of(self, scope) -> int:
        for key, value in scope.get("headers", ()):
            if key == b"content-type":
                kind = value.split(b";", 1)[0].strip().lower()
                if kind == b"multipart/form-data":
                    return self.upload_limit()
                break
        return self.body_limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_of(scope)
        declared = _content_length(scope)
        if declared is not None and declared > limit:
            await _refuse(scope, send, limit)
            return
        if limit == self.body_limit:
            await self._buffered(scope, receive, send, limit)
            return
        size = 0

        async def counted():
            nonlocal size
            message = await receive()
            if message["type"] == "http.request":
                size += len(message.get("body", b""))
                if size > limit:
                    raise too_large(limit)
            return message

        await self.app(scope, counted, send)

    async def _buffered(self, scope, receive, send, limit: int) -> None:
        """A small body read here whole (at most ``limit`` bytes), refused with 413
        before the application sees it, else handed on in one message."""
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await _refuse(scope, send, limit)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        delivered = False

        async def replay():
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def _content_length(scope) -> int | None:
    for key, value in scope.get("headers", ()):
        if key == b"content-length":
            text = value.strip()
            return int(text) if text.isdigit() else None
    return None


async def _refuse(scope, send, limit: int) -> None:
    """413 with the JSON error body (pages get the same: a browser never sends such a
    body from cranfield's forms, which are checked against the limit first)."""
    from ..output import dumps_json

    body = dumps_json({"error": str(too_large(limit))}, indent=None).encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
