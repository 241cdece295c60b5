"""ir_metadata annotations in the header of a TREC run file (Breuer et al. 2022).

A run annotated with ir_metadata starts with comment lines (``#`` then the YAML text)
between ``ir_metadata.start`` and ``ir_metadata.end``: the PRIMAD components (platform,
research goal, implementation, method, actor, data), the schema version and the run's
tag. trec_eval and cranfield's readers skip comment lines, so an annotated run evaluates
as it is; :func:`read_metadata` gives the annotations themselves.

Reference: T. Breuer, J. Keller and P. Schaer. "ir_metadata: An Extensible Metadata
Schema for IR Experiments." SIGIR 2022. https://www.ir-metadata.org
"""

from __future__ import annotations

import os
import stat

from ...errors import InputError
from .source import GZIP_MAGIC

START, END = "ir_metadata.start", "ir_metadata.end"
#: the header is read up to this many bytes (a run's annotations are a few kB)
MAX_HEADER = 1 << 20


def _comment(line: bytes) -> str | None:
    """The text of a comment line without its ``#`` and one space; None otherwise."""
    stripped = line.lstrip(b" \t")
    if not stripped.startswith(b"#"):
        return None
    text = stripped[1:].decode("utf-8", errors="replace").rstrip("\r\n")
    return text[1:] if text.startswith(" ") else text


def header_lines(path: str | os.PathLike) -> list[tuple[int, str]]:
    """``(line number, text)`` of the comment lines before a run's first data line (plain
    or gzip; at most :data:`MAX_HEADER` bytes). Standard input and pipes are read once,
    by the run reader: they have no header here."""
    if str(path) == "-" or not stat.S_ISREG(os.stat(path).st_mode):
        return []
    with open(path, "rb") as probe:
        packed = probe.read(2) == GZIP_MAGIC
    import gzip

    out: list[tuple[int, str]] = []
    size = 0
    with gzip.open(path, "rb") if packed else open(path, "rb") as fh:
        for number, line in enumerate(fh, 1):
            size += len(line)
            if size > MAX_HEADER:
                break
            if not line.strip():
                continue
            text = _comment(line)
            if text is None:
                break
            out.append((number, text))
    return out


def read_metadata(path: str | os.PathLike, source: str | None = None) -> dict | None:
    """The ir_metadata annotations of a TREC run file as a dict, or None without them.

    Raises
    ------
    InputError
        ``ir_metadata.start`` without ``ir_metadata.end`` in the header, YAML that does
        not parse, or annotations that are not a mapping: one line naming the file and
        the line.
    """
    shown = source or str(path)
    lines = header_lines(path)
    begin = next((i for i, (_, t) in enumerate(lines) if t.strip() == START), None)
    if begin is None:
        return None
    end = next((i for i, (_, t) in enumerate(lines) if i > begin and t.strip() == END), None)
    if end is None:
        raise InputError(
            f"{START} without {END} in the comment lines at the top of the file",
            source=shown,
            line=lines[begin][0],
        )
    from ...errors import require

    yaml = require("yaml", "metadata")
    text = "\n".join(t for _, t in lines[begin + 1 : end])
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = lines[begin + 1 + mark.line][0] if mark is not None else lines[begin][0]
        problem = getattr(exc, "problem", None) or "not YAML"
        raise InputError(f"ir_metadata: {problem}", source=shown, line=line) from None
    if doc is None:
        return {}
    if not isinstance(doc, dict):
        raise InputError(
            "ir_metadata: expected key: value annotations", source=shown, line=lines[begin][0]
        )
    return doc
