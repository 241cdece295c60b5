"""Topics in CSV: a header row naming the columns ``id``, ``title``, ``description``,
``narrative`` (any order, any case; ``id`` and ``title`` required, other columns
ignored), then one topic per row. Quoted fields may span lines (RFC 4180). A header
with tabs and no commas is read as tab-separated.
"""

from __future__ import annotations

import csv

from ..errors import InputError
from ._fields import Unique, check_id, squeeze
from ._input import lines
from .records import Topic

COLUMNS = ("id", "title", "description", "narrative")


class _Lines:
    """The file's lines for the csv module, remembering the current line number."""

    def __init__(self, path, source: str):
        self._it = lines(path, source)
        self.number = 0

    def __iter__(self):
        return self

    def __next__(self) -> str:
        self.number, text = next(self._it)
        return text


def read(path, source: str) -> list[Topic]:
    """The topics of a CSV file, in file order."""
    stream = _Lines(path, source)
    first = next(stream, None)
    if first is None:
        raise InputError("no topics (empty file)", source=source)
    delimiter = "\t" if "\t" in first and "," not in first else ","

    def rows():
        yield first
        yield from stream

    # Fields are limited by the csv module's field_size_limit (128 KiB by default).
    reader = csv.reader(rows(), delimiter=delimiter, strict=True)
    try:
        header = [h.strip().lower() for h in next(reader)]
        missing = [c for c in ("id", "title") if c not in header]
        if missing:
            raise InputError(
                f"CSV topics need columns id and title (missing {', '.join(missing)}); "
                f"header: {','.join(header)[:100]}",
                source=source,
                line=1,
            )
        for column in COLUMNS:
            if header.count(column) > 1:
                raise InputError(f"column {column!r} appears twice", source=source, line=1)
        where = {c: header.index(c) for c in COLUMNS if c in header}
        unique = Unique(source, "topic id")
        topics = []
        start = stream.number + 1
        for row in reader:
            line, start = start, stream.number + 1
            if not row or all(not f.strip() for f in row):
                continue
            if len(row) != len(header):
                raise InputError(
                    f"expected {len(header)} fields as in the header, got {len(row)}",
                    source=source,
                    line=line,
                )
            values = {c: squeeze(row[i]) for c, i in where.items()}
            tid = check_id(values["id"], source, line, "topic id")
            if not values["title"]:
                raise InputError(f"topic {tid!r} has an empty title", source=source, line=line)
            unique.add(tid, line)
            topics.append(
                Topic(
                    tid, values["title"], values.get("description", ""), values.get("narrative", "")
                )
            )
    except csv.Error as exc:
        raise InputError(f"bad CSV: {exc}", source=source, line=stream.number) from None
    if not topics:
        raise InputError("no topics (a header and no rows)", source=source)
    return topics
