"""Checks shared by the readers: identifiers, whitespace, duplicates."""

from __future__ import annotations

import re

from ..errors import InputError

_SPACE = re.compile(r"\s+")
MAX_ID = 1024
"""The longest identifier accepted, in characters."""


def squeeze(text: str) -> str:
    """``text`` with every run of whitespace made one space, stripped."""
    return _SPACE.sub(" ", text).strip()


def check_id(value: str, source: str, line: int | None, what: str = "id") -> str:
    """A topic or document identifier: non-empty, no whitespace, at most :data:`MAX_ID`."""
    if not value:
        raise InputError(f"empty {what}", source=source, line=line)
    if len(value) > MAX_ID:
        raise InputError(f"{what} longer than {MAX_ID} characters", source=source, line=line)
    if any(c.isspace() for c in value) or not value.isprintable():
        raise InputError(
            f"{what} {value[:80]!r} holds whitespace or control characters "
            "(qrels and runs separate fields by whitespace)",
            source=source,
            line=line,
        )
    return value


class Unique:
    """Remembers the identifiers seen (and where) to report the second of a pair.

    Memory grows with the number of identifiers (a set of strings), never with the text.
    """

    def __init__(self, source: str, what: str):
        self.source = source
        self.what = what
        self.seen: dict[str, str | None] = {}

    def add(self, value: str, line: int | None = None, at: str | None = None) -> None:
        """Record ``value``, found at ``line`` (or at a place described by ``at``, such as
        ``"row 5"``, when the input has no lines)."""
        if value in self.seen:
            first = self.seen[value]
            prefix = f"{at}: " if at else ""
            where = f" (first at {first})" if first else ""
            raise InputError(
                f"{prefix}duplicate {self.what} {value!r}{where}", source=self.source, line=line
            )
        self.seen[value] = at or (f"line {line}" if line is not None else None)
