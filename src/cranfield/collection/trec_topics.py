"""TREC topic files: ``<top>`` blocks as distributed with TREC 1-8 and the Robust track.

::

    <top>
    <num> Number: 301
    <title> International Organized Crime
    <desc> Description:
    Identify organizations that participate in international criminal activity ...
    <narr> Narrative:
    A relevant document must as a minimum identify the organization ...
    </top>

A field runs from its tag to the next tag; closing tags (``</title>``, ...) are allowed
but not needed, as in the original files. The labels TREC writes after a tag
(``Number:``, ``Topic:``, ``Description:``, ``Narrative:``) are dropped, and whitespace
runs become one space. The other fields of TREC 1-3 topics (``<dom>``, ``<con>``,
``<def>``, ``<fac>``, ``<smry>``, ``<nat>``, ``<head>``) end the previous field and are
not kept. Each topic needs ``<num>`` and a non-empty ``<title>``; a ``</top>`` may be
left out only when the next ``<top>`` follows (a file that closes its topics must close
the last one too, so a truncated file is reported).

Reference: Voorhees & Harman (eds.), *TREC: Experiment and Evaluation in Information
Retrieval*, MIT Press 2005, ch. 2 (the topic format).
"""

from __future__ import annotations

import re

from ..errors import InputError
from ._fields import Unique, check_id, squeeze
from ._input import lines
from .records import Topic

KEPT = {"num": "id", "title": "title", "desc": "description", "narr": "narrative"}
IGNORED = {"dom", "con", "def", "fac", "smry", "nat", "head"}
_TAG = re.compile(r"<\s*(/?)\s*(top|num|title|desc|narr|dom|con|def|fac|smry|nat|head)\s*>", re.I)
_LABEL = {
    "id": re.compile(r"^\s*number\s*:", re.I),
    "title": re.compile(r"^\s*topic\s*:", re.I),
    "description": re.compile(r"^\s*description\s*:", re.I),
    "narrative": re.compile(r"^\s*narrative\s*:", re.I),
}
MAX_FIELD = 1 << 20
"""The longest field accepted, in characters (a topic statement is a few sentences)."""


class _Topic:
    def __init__(self, line: int):
        self.line = line
        self.fields: dict[str, list[str]] = {}
        self.sizes: dict[str, int] = {}


def read(path, source: str) -> list[Topic]:
    """The topics of a TREC topic file, in file order."""
    topics: list[Topic] = []
    unique = Unique(source, "topic id")
    current: _Topic | None = None
    field: str | None = None  # the field being read (a key of _LABEL), None when ignoring
    closed_any = False
    number = 0

    def finish(end_line: int) -> None:
        nonlocal current
        assert current is not None
        values = {k: squeeze("".join(v)) for k, v in current.fields.items()}
        for key, pattern in _LABEL.items():
            if key in values:
                values[key] = squeeze(pattern.sub("", values[key], count=1))
        if "id" not in values:
            raise InputError("topic without <num>", source=source, line=current.line)
        tid = check_id(values["id"], source, current.line, "topic number")
        if not values.get("title"):
            raise InputError(f"topic {tid!r} has no <title>", source=source, line=current.line)
        unique.add(tid, current.line)
        topics.append(
            Topic(tid, values["title"], values.get("description", ""), values.get("narrative", ""))
        )
        current = None

    def add_text(text: str, line: int) -> None:
        if current is None:
            if text.strip():
                raise InputError(
                    f"text outside <top>: {squeeze(text)[:60]!r}", source=source, line=line
                )
            return
        if field is None:
            return
        size = current.sizes.get(field, 0) + len(text)
        if size > MAX_FIELD:
            raise InputError(
                f"topic field longer than {MAX_FIELD >> 20} MiB", source=source, line=line
            )
        current.sizes[field] = size
        current.fields.setdefault(field, []).append(text)

    for number, text in lines(path, source):
        pos = 0
        for match in _TAG.finditer(text):
            add_text(text[pos : match.start()], number)
            pos = match.end()
            closing, name = match.group(1) == "/", match.group(2).lower()
            if name == "top":
                if closing:
                    if current is None:
                        raise InputError("</top> without <top>", source=source, line=number)
                    finish(number)
                    closed_any = True
                else:
                    if current is not None:
                        finish(number)
                    current, field = _Topic(number), None
                continue
            if current is None:
                raise InputError(f"<{name}> outside <top>", source=source, line=number)
            if closing:
                field = None
            elif name in IGNORED:
                field = None
            else:
                field = KEPT[name]
                if field in current.fields:
                    raise InputError(f"second <{name}> in one topic", source=source, line=number)
                current.fields[field] = []
        add_text(text[pos:], number)
    if current is not None:
        if closed_any:
            raise InputError(
                "unterminated <top> (no </top> before the end of the file)",
                source=source,
                line=current.line,
            )
        finish(number)
    if not topics:
        raise InputError("no topics (no <top> block)", source=source)
    return topics
