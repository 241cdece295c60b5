"""``read_topics``: topic files in any supported format, recognised from their content."""

from __future__ import annotations

import os
import re

from ..errors import InputError, ParameterError
from . import csv_topics, jsonl, trec_topics
from ._input import peek_text
from .records import Topic

READERS = {"trec": trec_topics.read, "jsonl": jsonl.read_topics, "csv": csv_topics.read}
"""Topic formats by name (the values ``format=`` accepts)."""

_CSV_HEADER = re.compile(r"^[^\n]*\bid\b[^\n]*\btitle\b|^[^\n]*\btitle\b[^\n]*\bid\b", re.I)


def detect(path: str | os.PathLike, source: str | None = None) -> str:
    """The format of a topic file, from its first characters: ``"trec"`` (starts with
    ``<top>``), ``"jsonl"`` (starts with ``{``) or ``"csv"`` (a header naming ``id`` and
    ``title``)."""
    source = source or str(path)
    head = peek_text(path, source)
    if not head:
        raise InputError("no topics (empty file)", source=source)
    if re.match(r"<\s*top\s*>", head, re.I):
        return "trec"
    if head.startswith("{"):
        return "jsonl"
    if _CSV_HEADER.match(head):
        return "csv"
    raise InputError(
        "unknown topic format: expected TREC <top> blocks, JSON Lines, "
        "or CSV with a header naming id and title",
        source=source,
        line=1,
    )


def read_topics(path: str | os.PathLike, format: str | None = None) -> list[Topic]:
    """Read a topic file: TREC ``<top>`` blocks, JSON Lines or CSV; or a collection's
    topics by its ir_datasets id (``irds:ID``, docs/collections.md).

    Parameters
    ----------
    path
        The file (gzip-compressed files are recognised by their content), or
        ``irds:ID``.
    format
        ``"trec"``, ``"jsonl"`` or ``"csv"``; by default recognised from the content.

    Returns
    -------
    list of Topic
        In file order; topic ids are unique.

    Raises
    ------
    InputError
        With the file and line of the first problem (a duplicate id, a topic without
        number or title, bad JSON or CSV, binary data, an unknown format).
    """
    from ..core.io.collections import collection_id

    named = collection_id(path)
    if named is not None:
        return _collection_topics(named)
    source = str(path)
    if format is None:
        format = detect(path, source)
    elif format not in READERS:
        raise ParameterError("format", "one of " + ", ".join(READERS), format)
    return READERS[format](path, source)


def _collection_topics(named: str) -> list[Topic]:
    """The topics of an ir_datasets collection (a query's text is its title)."""
    from ..core.io.collections import Collection

    collection = Collection.load(named)
    rows = collection.topics_table().to_pylist()
    if not rows:
        raise InputError("the collection has no topics", source=collection.source)
    return [
        Topic(
            str(r["query_id"]),
            r.get("title") or "",
            r.get("description") or "",
            r.get("narrative") or "",
        )
        for r in rows
    ]
