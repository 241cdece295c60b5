"""JSON Lines: one JSON object per line, for topics and for documents.

Topics: ``{"id": "301", "title": "...", "description": "...", "narrative": "..."}``
(``id`` and ``title`` required). Documents: ``{"id": "d1", "title": "...", "text":
"..."}`` (``id`` and ``text`` required, ``title`` may be missing or null). An ``id`` is a
string or an integer; the other fields are strings (or null where optional); other keys
are ignored. Blank lines are skipped. Documents are read one line at a time.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from ..errors import InputError
from ._fields import Unique, check_id
from ._input import lines
from .records import Document, Topic


def _objects(path, source: str) -> Iterator[tuple[int, dict]]:
    for number, text in lines(path, source):
        if not text.strip():
            continue
        try:
            value = json.loads(text)
        except RecursionError:
            raise InputError("JSON nested too deeply", source=source, line=number) from None
        except json.JSONDecodeError as exc:
            raise InputError(
                f"bad JSON: {exc.msg} (column {exc.colno})", source=source, line=number
            ) from None
        if not isinstance(value, dict):
            raise InputError(
                f"expected a JSON object per line, got {type(value).__name__}",
                source=source,
                line=number,
            )
        yield number, value


def _id(obj: dict, source: str, line: int) -> str:
    if "id" not in obj or obj["id"] is None:
        raise InputError('missing "id"', source=source, line=line)
    value = obj["id"]
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise InputError(
            f'"id" must be a string or an integer, got {type(value).__name__}',
            source=source,
            line=line,
        )
    return check_id(str(value), source, line)


def _text(obj: dict, key: str, source: str, line: int, required: bool) -> str:
    value = obj.get(key)
    if value is None:
        if required:
            raise InputError(f'missing "{key}"', source=source, line=line)
        return ""
    if not isinstance(value, str):
        raise InputError(
            f'"{key}" must be a string, got {type(value).__name__}', source=source, line=line
        )
    return value


def read_topics(path, source: str) -> list[Topic]:
    """The topics of a JSONL file, in file order."""
    unique = Unique(source, "topic id")
    topics = []
    for line, obj in _objects(path, source):
        tid = _id(obj, source, line)
        title = _text(obj, "title", source, line, required=True).strip()
        if not title:
            raise InputError(f"topic {tid!r} has an empty title", source=source, line=line)
        unique.add(tid, line)
        topics.append(
            Topic(
                tid,
                title,
                _text(obj, "description", source, line, required=False).strip(),
                _text(obj, "narrative", source, line, required=False).strip(),
            )
        )
    if not topics:
        raise InputError("no topics (no JSON object)", source=source)
    return topics


def read_documents(path, source: str) -> Iterator[Document]:
    """The documents of a JSONL file, one line at a time."""
    unique = Unique(source, "document id")
    for line, obj in _objects(path, source):
        did = _id(obj, source, line)
        text = _text(obj, "text", source, line, required=True)
        title = _text(obj, "title", source, line, required=False)
        unique.add(did, line)
        yield Document(did, title, text)
    if not unique.seen:
        raise InputError("no documents (no JSON object)", source=source)
