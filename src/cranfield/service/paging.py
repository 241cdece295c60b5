"""Paging of the lists that grow with a campaign (keyset pagination).

A list answers at most ``limit`` items (default :data:`DEFAULT`, at most :data:`MAX`) in
a fixed order of a unique key; when more follow, the response carries
``Link: <URL>; rel="next"`` (RFC 8288, as GitHub's API does) whose ``after`` parameter
is the cursor: the last key sent, encoded (base64url JSON; opaque to a client, which
follows the link). The body stays a JSON list, so a client that ignores the header
reads the first page.

Keyset pagination ("seek method", Winand, *SQL Performance Explained*, 2012, ch. 7)
rather than offsets: the next page is the rows whose key is greater than the cursor,
so a row can never be sent twice, and a row that existed when the walk began is sent
exactly once however many rows are inserted meanwhile (an offset would shift under an
insert, repeating or skipping rows). A row inserted during the walk comes in a later
page if its key is after the cursor, otherwise in the next walk.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any

from fastapi import Query

from .problems import ServiceError

DEFAULT = 100
MAX = 1000


class BadCursor(ServiceError):
    status = 422


@dataclass(frozen=True)
class Page:
    """What a client asked for: ``limit`` items after the key ``after`` (None: from
    the first)."""

    limit: int = DEFAULT
    after: Any = None


def encode(key: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(key).encode()).decode().rstrip("=")


def decode(cursor: str, kind: type) -> Any:
    """The key in ``cursor``, which must be of ``kind`` (int or str); 422 otherwise."""
    try:
        key = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (ValueError, UnicodeDecodeError):
        raise BadCursor("after: not a cursor of this list (follow the Link header)") from None
    if type(key) is not kind or (kind is int and not -(2**63) <= key < 2**63):
        raise BadCursor("after: not a cursor of this list (follow the Link header)")
    return key


def params(
    limit: int = Query(DEFAULT, ge=1, le=MAX, description=f"items per page (at most {MAX})"),
    after: str | None = Query(
        None, max_length=1000, description="the cursor of the Link header's next page"
    ),
) -> tuple[int, str | None]:
    """The paging query parameters of a list route (a FastAPI dependency)."""
    return limit, after


def page_of(given: tuple[int, str | None], kind: type) -> Page:
    limit, after = given
    return Page(limit, None if after is None else decode(after, kind))


def rows(s, query, key, page: Page) -> tuple[list, Any]:
    """``(rows, next key or None)``: ``query`` (a SQLAlchemy select) restricted to the
    rows after ``page.after`` in the order of ``key`` (a unique column), ``limit`` of
    them (one more is read to know whether a next page exists)."""
    if page.after is not None:
        query = query.where(key > page.after)
    found = s.execute(query.order_by(key).limit(page.limit + 1)).all()

    def key_of(row):
        mapping = row._mapping
        return mapping[key] if key in mapping else getattr(row[0], key.key)

    return _split(found, page.limit, key_of)


def items(sorted_items: list, key, page: Page) -> tuple[list, Any]:
    """The same over a list already in ``key`` order (``key(item)`` unique)."""
    if page.after is not None:
        sorted_items = [x for x in sorted_items if key(x) > page.after]
    return _split(sorted_items[: page.limit + 1], page.limit, key)


def _split(found: list, limit: int, key) -> tuple[list, Any]:
    if len(found) > limit:
        return found[:limit], key(found[limit - 1])
    return found, None


def link(request, response, next_key: Any) -> None:
    """Set the ``Link: <…>; rel="next"`` header when there is a next page."""
    if next_key is None:
        return
    url = request.url.include_query_params(after=encode(next_key))
    response.headers["Link"] = f'<{url.path}?{url.query}>; rel="next"'
