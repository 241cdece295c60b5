"""TREC SGML documents: ``<DOC>`` blocks as in the TREC disks 4-5 (FT, FBIS, LA, FR).

::

    <DOC>
    <DOCNO> FBIS3-1 </DOCNO>
    <HEADER> <H3> <TI> Title of the article </TI> </H3> </HEADER>
    <TEXT> The text ... </TEXT>
    </DOC>

``DOCNO`` is the id. The title is the first of ``HEADLINE``, ``TITLE``, ``TI``,
``HEAD`` that the document holds; the text is every ``TEXT`` element joined (a
document without ``TEXT`` keeps all its content except ``DOCNO``). Markup inside those
elements is removed and character references (``&amp;``) decoded. The file is read one
document at a time (gzip too); between documents only whitespace may appear. Tag names
are matched in any case.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

from ..errors import InputError
from ._fields import Unique, check_id, squeeze
from ._input import lines
from .records import Document

MAX_DOC = 1 << 26
"""The largest document accepted, in characters (64 Mi)."""
TITLE_TAGS = ("headline", "title", "ti", "head")
_DOC = re.compile(r"<\s*(/?)\s*doc\s*>", re.I)
# Tags: [^<>] keeps every match attempt from running past the next '<' (linear time).
_TAG = re.compile(r"<\s*(/?)\s*([A-Za-z][A-Za-z0-9]*)\b[^<>]*>")
_ANY_TAG = re.compile(r"<[^<>]*>")


def _plain(markup: str) -> str:
    """Text of SGML markup: tags removed, references decoded, spaces squeezed per line,
    blank lines dropped."""
    text = html.unescape(_ANY_TAG.sub(" ", markup))
    return "\n".join(filter(None, (" ".join(line.split()) for line in text.splitlines())))


def _parse(doc: str, source: str, line: int) -> Document:
    """One ``<DOC>`` body (without the DOC tags) -> Document."""
    docno: list[str] = []
    texts: list[str] = []
    titles: dict[str, str] = {}
    open_name, open_start, open_end = None, 0, 0
    docno_span = (0, 0)
    for match in _TAG.finditer(doc):
        closing, name = match.group(1) == "/", match.group(2).lower()
        if open_name is None:
            if not closing and name in ("docno", "text", *TITLE_TAGS):
                open_name, open_start, open_end = name, match.start(), match.end()
        elif closing and name == open_name:
            content = doc[open_end : match.start()]
            if open_name == "docno":
                docno.append(content)
                docno_span = (open_start, match.end())
            elif open_name == "text":
                texts.append(_plain(content))
            else:
                titles.setdefault(open_name, squeeze(_plain(content)))
            open_name = None
    if open_name is not None:
        raise InputError(
            f"unterminated <{open_name.upper()}> in the document starting here",
            source=source,
            line=line,
        )
    if not docno:
        raise InputError("document without <DOCNO>", source=source, line=line)
    if len(docno) > 1:
        raise InputError("document with two <DOCNO>", source=source, line=line)
    did = check_id(squeeze(_plain(docno[0])), source, line, "DOCNO")
    if texts:
        text = "\n".join(filter(None, texts))
    else:
        text = _plain(doc[: docno_span[0]] + " " + doc[docno_span[1] :])
    title = next((titles[t] for t in TITLE_TAGS if titles.get(t)), "")
    return Document(did, title, text)


def read(path, source: str) -> Iterator[Document]:
    """The documents of a TREC SGML file, one at a time."""
    unique = Unique(source, "DOCNO")
    parts: list[str] | None = None  # the current document's text, None between documents
    size = start = number = 0
    for number, text in lines(path, source):
        pos = 0
        for match in _DOC.finditer(text):
            segment = text[pos : match.start()]
            pos = match.end()
            closing = match.group(1) == "/"
            if parts is None:
                if segment.strip():
                    raise InputError(
                        f"text outside <DOC>: {squeeze(segment)[:60]!r}", source=source, line=number
                    )
                if closing:
                    raise InputError("</DOC> without <DOC>", source=source, line=number)
                parts, size, start = [], 0, number
                continue
            if not closing:
                raise InputError(
                    f"<DOC> inside a document (the one starting at line {start} has no </DOC>)",
                    source=source,
                    line=number,
                )
            parts.append(segment)
            document = _parse("".join(parts), source, start)
            unique.add(document.id, start)
            parts = None
            yield document
        rest = text[pos:]
        if parts is None:
            if rest.strip():
                raise InputError(
                    f"text outside <DOC>: {squeeze(rest)[:60]!r}", source=source, line=number
                )
        else:
            size += len(rest)
            if size > MAX_DOC:
                raise InputError(
                    f"document longer than {MAX_DOC >> 20} Mi characters (no </DOC>?)",
                    source=source,
                    line=start,
                )
            parts.append(rest)
    if parts is not None:
        raise InputError(
            "unterminated <DOC> (no </DOC> before the end of the file)", source=source, line=start
        )
    if not unique.seen:
        raise InputError("no documents (no <DOC> block)", source=source)
