"""Fractional grades in a TREC qrels file read as integers: the note that says so.

trec_eval reads a qrels grade with C's ``atol``, which truncates ``0.5`` to 0 and
``2.7`` to 2 (get_qrels.c); cranfield does the same unless the qrels are read as real
numbers (``cranfield eval --fractional``). Truncation changes every graded measure
(nDCG@10 0.7375 with the grades kept, 0.6110 truncated, on one soft-label qrels), so the
command line says so on standard error (:func:`truncation_note`). The compiled engine
finds the first grade with a non-zero fractional part as it parses the qrels
(``rust/trec/src/piece.rs``); for qrels it does not read, :func:`first_fractional_grade`
looks at the file again. Standard library only: the engine path imports neither
NumPy nor PyArrow (nor ``re``: a plain command line is read without it).
"""

from __future__ import annotations

import os
import stat

from .source import GZIP_MAGIC

_CHUNK = 8 << 20  # bytes of lines looked at together (memory stays bounded)


def _fractional(grade: bytes) -> bool:
    """``[+-]?digits.digits`` with a non-zero digit after the point (``2.5``, ``.25``;
    not ``2.0``, ``1.``, ``1e3``)."""
    whole, point, fraction = grade.lstrip(b"+-").partition(b".")
    return (
        bool(point)
        and (not whole or whole.isdigit())
        and fraction.isdigit()
        and fraction.strip(b"0") != b""
    )


def first_fractional_grade(path) -> tuple[int, str] | None:
    """``(line, grade)`` of the first qrels line (``qid iter docno rel``) whose grade has
    a non-zero fractional part, or None. Only a regular file (plain or gzip) is looked
    at: standard input and pipes are read once, by the reader."""
    if not isinstance(path, (str, os.PathLike)) or str(path) == "-":
        return None
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        with open(path, "rb") as probe:
            packed = probe.read(2) == GZIP_MAGIC
        if packed:
            import gzip
        with gzip.open(path, "rb") if packed else open(path, "rb") as fh:
            seen = 0  # lines before `block`
            carry = b""  # the start of a line whose end is not read yet
            while True:
                chunk = fh.read(_CHUNK)
                data = carry + chunk
                # whole lines only (all that is left at the end); a file without a "."
                # is looked at a chunk at a time, never split into lines
                cut = data.rfind(b"\n") + 1 if chunk else len(data)
                block, carry = data[:cut], data[cut:]
                if b"." in block:
                    for number, line in enumerate(block.split(b"\n"), seen + 1):
                        fields = line.split()
                        if (
                            len(fields) == 4
                            and not fields[0].startswith(b"#")
                            and _fractional(fields[3])
                        ):
                            return number, fields[3].decode("ascii")
                seen += block.count(b"\n")
                if not chunk:
                    break
    except (OSError, EOFError):  # unreadable: the reader gives the one clear message
        return None
    return None


def truncation_note(found, source: str, fractional_option: str) -> str | None:
    """The note for qrels whose fractional grades are read as integers, or None:
    ``found`` is the first such grade, ``(line, grade)`` (the engine's finding as it
    read the file, or :func:`first_fractional_grade`'s), or None."""
    if found is None:
        return None
    line, grade = found
    return (
        f"note: {source}:{line}: grade {grade} is read as {int(float(grade))} (fractional "
        f"grades are truncated toward zero, as trec_eval does); {fractional_option} keeps them"
    )
