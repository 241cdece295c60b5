"""The one-line messages of problems in TREC inputs, whichever reader finds them.

The Python readers (``trec.py``, ``dedup.py``) and the engine's whole evaluation of
TREC files (``cranfield eval`` and ``cranfield trec_eval`` on files, which raise
``_engine.JudgeError``) report a problem with the same :class:`InputError`: same
source, line and text. This module imports neither NumPy nor PyArrow, so the engine
path reports problems without them.
"""

from __future__ import annotations

import os

from ...errors import InputError
from .source import MAX_LINE, _os_error, too_large

FIELDS = {"run": "qid iter docno rank score tag", "qrels": "qid iter docno rel"}


def shown(value: bytes | str, limit: int = 60) -> str:
    """A field quoted for a one-line message, cut to ``limit`` characters."""
    if isinstance(value, bytes):
        try:
            value = value.decode("utf-8")
        except UnicodeDecodeError:
            text = repr(value)[1:]  # b'...' without the b
            return text if len(text) <= limit else f"{text[: limit - 5]}...' ({len(value)} bytes)"
    text = repr(value)
    if len(text) > limit:
        text = f"{text[: limit - 5]}...{text[-1]} ({len(value)} characters)"
    return text


def read_problem(
    what: str, line: int | None, detail, kind: str, source: str, *, fractional: bool = False
) -> InputError:
    """The message for a problem the engine's reader found (its kind, line and detail)
    in a ``kind`` ("run" or "qrels") input."""
    if what == "fields":
        return field_error(kind, detail, source, line)
    if what == "gzip":
        return InputError(detail, source=source)
    if what == "too_large":
        return too_large(detail, source)
    if what == "memory":  # the engine could not have memory for its buffers or columns
        return InputError(f"not enough memory to read the {kind}", source=source)
    messages = {
        "nul": "NUL byte: this is binary data, not a text file",
        "long_line": f"line longer than {MAX_LINE >> 20} MiB (the most one line may hold)",
        "nan": "score is NaN",
        "score": lambda: f"score {shown(detail)} is not a number",
        "grade": lambda: (
            f"relevance grade {shown(detail)} is "
            + (
                "not a finite number"
                if fractional
                else "out of range (a grade is a 64-bit integer, -2^63 to 2^63-1)"
                if _decimal(detail)
                else "not an integer"
            )
        ),
        "query_id": lambda: f"query_id is not valid UTF-8: {shown(detail)}",
        "doc_id": lambda: f"doc_id is not valid UTF-8: {shown(detail)}",
    }
    message = messages.get(what, lambda: f"internal error in the reader ({what}: {detail})")
    return InputError(message if isinstance(message, str) else message(), source=source, line=line)


def _decimal(field: bytes | str) -> bool:
    """Whether ``field`` is a decimal number as the grade reader takes one (``-12``,
    ``3.``, ``+4.50``): one it refused is then out of range, not malformed."""
    text = field.decode("latin-1") if isinstance(field, bytes) else str(field)
    body = text[1:] if text[:1] in ("+", "-") else text
    whole, _, fraction = body.partition(".")
    return (whole + fraction).isascii() and (whole + fraction).isdigit()


def field_error(kind: str, got: int, source: str, line: int) -> InputError:
    fields = FIELDS[kind]
    if kind == "run":
        msg = f"expected 6 fields ({fields}), got {got}"
        if got == 4:
            msg += " — is this a qrels file?"
    else:
        msg = f"expected 4 fields ({fields}), got {got}"
        if got >= 6:
            msg += " — is this a run file?"
    return InputError(msg, source=source, line=line)


def no_lines(kind: str, source: str) -> InputError:
    """An input without a data line."""
    return InputError(f"no {kind} lines found (empty file?)", source=source)


def duplicate(
    doc: str,
    query: str,
    where: tuple[int, int],
    source: str | None,
    *,
    line: int | None,
    unit: str = "line",
) -> InputError:
    """A document listed twice for one query under the 'error' policy: ``where`` are
    the numbers (``unit``: lines, rows) of its two occurrences, ``line`` the line of
    the error."""
    return InputError(
        f"document {doc!r} appears twice for query {query!r} "
        f"({unit}s {where[0]} and {where[1]}); "
        "to keep one, use duplicates='first' or 'max' (cranfield eval --duplicates)",
        source=source,
        line=line,
    )


def no_query(name: str) -> InputError:
    """A run and the qrels share no query: a mean over no query is undefined."""
    return InputError(f"no query to evaluate: run {name!r} and the qrels share no query")


def no_relevant(name: str) -> InputError:
    """No query of a run has a relevant document, and such queries are skipped."""
    return InputError(
        f"no query to evaluate: no query of run {name!r} has a relevant document "
        "and queries without one are skipped"
    )


def engine_error(exc: Exception, paths: dict[str, str], *, fractional: bool = False):
    """The :class:`InputError` the general path raises for what the engine's
    ``JudgeError`` reports, or None when the general path must read the input itself
    (standard input, not a regular file) or the engine failed for another reason.

    ``paths``: the ``run`` and ``qrels`` paths the engine read (the source names of
    messages are the paths as given); ``fractional``: qrels relevance read as reals.
    Ids are decoded from the engine's UTF-8 (Latin-1 input comes re-encoded).
    """
    what, which, line, detail = exc.args[:4]
    if what == "no_query":
        return no_query(detail)
    if what == "no_relevant":
        return no_relevant(detail)
    if which not in paths:
        return None
    path = paths[which]
    source = "<stdin>" if path == "-" else path
    if what == "read":
        problem, value = detail
        return read_problem(problem, line, value, which, source, fractional=fractional)
    if what == "empty":
        return no_lines(which, source)
    if what == "duplicate":
        query, doc, first, second = detail
        doc, query = doc.decode("utf-8"), query.decode("utf-8")
        return duplicate(doc, query, (first, second), source, line=second)
    if what == "io":
        if detail[0] == "os":
            code, text = detail[1], detail[2]
            error = OSError(code, os.strerror(code)) if code is not None else OSError(text)
            return _os_error(error, path, source)
        return read_problem(detail[0], None, detail[1], which, source)
    return None


def unread(exc: Exception, sources) -> Exception | None:
    """For an engine failure that :func:`engine_error` leaves to the general path, when
    the engine was reading inputs that can be read only once (``sources``: standard input
    as ``-``, named pipes): None if the failure came before any input was read (an option
    refused, qrels that are not a regular file: the general path may still read
    everything), else the error to report — such an input is consumed, and the general
    path would find it empty."""
    from ...errors import CranfieldError

    what, which, _, detail = exc.args[:4]
    if what == "options" or (what == "unsupported" and which == "qrels"):
        return None
    return CranfieldError(
        f"internal error in the engine reading {read_once_names(sources)} ({what}: {detail})"
    )


def read_once_names(sources) -> str:
    """Inputs read once (standard input as ``-``, named pipes) as a message names them."""
    return ", ".join("standard input" if str(s) == "-" else str(s) for s in sources)
