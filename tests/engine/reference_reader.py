"""A slow, plain-Python reader of TREC text: the specification the engine is tested against.

It reads a whole input held in memory (one of the engine's pieces: inputs under 8 MiB)
line by line, as trec_eval and cranfield's reader before the engine did, and returns
``("ok", rows, lines, tag)`` or ``("error", message, line)`` with the messages of
``cranfield.core.io.trec``. Scores are converted by Arrow's CSV reader (the converter
cranfield used before the engine), grades by the regular expression of C's ``atol``
forms. Problems are reported in one order: a NUL byte; the first line that is too long
or has the wrong number of fields; the first score that is not a number; the first NaN
score or grade that is not a number; the first grade out of the 64-bit range; the first
query id, then doc id, that is not UTF-8.
"""

from __future__ import annotations

import math
import re

import pyarrow as pa
import pyarrow.csv as pacsv

BOM = b"\xef\xbb\xbf"
GRADE = re.compile(rb"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)")
FIELDS = {"run": "qid iter docno rank score tag", "qrels": "qid iter docno rel"}


def arrow_double(token: bytes) -> float | None:
    """The token as Arrow's CSV reader converts a float64 column, None when it refuses."""
    try:
        table = pacsv.read_csv(
            pa.BufferReader(token),
            read_options=pacsv.ReadOptions(column_names=["x"]),
            parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False),
            convert_options=pacsv.ConvertOptions(
                column_types={"x": pa.float64()}, null_values=[], strings_can_be_null=False
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    return table["x"][0].as_py()


def shown(value: bytes) -> str:
    from cranfield.core.io.trec import shown as trec_shown

    return trec_shown(value)


def read(data: bytes, kind: str, encoding: str = "utf-8", max_line: int = 1 << 26):
    want = 6 if kind == "run" else 4
    if encoding == "utf-8" and data.startswith(BOM):
        data = data[len(BOM) :]
    nul = data.find(b"\0")
    if nul >= 0:
        line = len(data[: nul + 1].splitlines())
        return ("error", "NUL byte: this is binary data, not a text file", line)
    rows, lines = [], []
    for number, line in enumerate(data.splitlines(), 1):
        if len(line) > max_line:
            message = f"line longer than {max_line >> 20} MiB (the most one line may hold)"
            return ("error", message, number)
        fields = line.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        if len(fields) < want or (kind == "qrels" and len(fields) > want):
            got = len(fields)
            message = f"expected {want} fields ({FIELDS[kind]}), got {got}"
            if kind == "run" and got == 4:
                message += " — is this a qrels file?"
            if kind == "qrels" and got >= 6:
                message += " — is this a run file?"
            return ("error", message, number)
        rows.append(fields)
        lines.append(number)
    late: list = [None] * 4
    values = []
    for i, fields in enumerate(rows):
        if kind == "run":
            score = arrow_double(fields[4])
            if score is None:
                return ("error", f"score {shown(fields[4])} is not a number", lines[i])
            if math.isnan(score) and late[0] is None:
                late[0] = ("error", "score is NaN", lines[i])
            values.append(score)
        else:
            grade = fields[3]
            if not GRADE.fullmatch(grade):
                late[0] = late[0] or ("error", _grade(grade), lines[i])
                values.append(None)
                continue
            whole = int(grade.lstrip(b"+-").split(b".")[0] or b"0")
            whole = -whole if grade.startswith(b"-") else whole
            if not -(2**63) <= whole < 2**63:
                late[1] = late[1] or ("error", _grade(grade, "range"), lines[i])
            values.append(whole)
        for column, name, field in ((2, "query_id", fields[0]), (3, "doc_id", fields[2])):
            if encoding == "utf-8" and late[column] is None:
                try:
                    field.decode("utf-8")
                except UnicodeDecodeError:
                    late[column] = ("error", f"{name} is not valid UTF-8: {shown(field)}", lines[i])
    for problem in late:
        if problem is not None:
            return problem
    ids = [(f[0].decode(encoding), f[2].decode(encoding)) for f in rows]
    tag = rows[-1][5].decode(encoding, "replace") if kind == "run" and rows else None
    return ("ok", [(q, d, v) for (q, d), v in zip(ids, values, strict=True)], lines, tag)


def _grade(grade: bytes, why: str = "syntax") -> str:
    if why == "range":
        return (
            f"relevance grade {shown(grade)} is out of range "
            "(a grade is a 64-bit integer, -2^63 to 2^63-1)"
        )
    return f"relevance grade {shown(grade)} is not an integer"
