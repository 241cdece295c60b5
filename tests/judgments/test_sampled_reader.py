"""The sampled-qrels reader (:func:`cranfield.core.sampled.read_sampled_qrels`, whole
Arrow arrays) against the line-by-line reading it replaced, transcribed here as the
specification: the same topics, documents, strata, grades, labels and probabilities
(the same dict orders: statAP sums in them), or the same error at the same line, on
generated files with blank lines, tabs, leading zeros, signs, exponents, repeats and
bad fields."""

from __future__ import annotations

import math
import random

import pytest

from cranfield.core.sampled import read_sampled_qrels
from cranfield.errors import InputError


def line_by_line(text: str):
    """The reader as it was: ``(topics, None)`` or ``(None, (message, line))``."""
    topics: dict = {}
    width = None
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        width = width or (6 if len(fields) == 6 else 5)
        if len(fields) != width:
            return None, ("fields", number)
        topic, _, doc, stratum, rel = fields[:5]
        try:
            grade = int(rel)
        except ValueError:
            return None, ("not an integer", number)
        entry = topics.setdefault(topic.lstrip("0"), ({}, {}))
        if doc in entry[0]:
            return None, ("listed twice", number)
        entry[0][doc] = (stratum, grade, rel)
        if width == 6:
            try:
                p = float(fields[5])
            except ValueError:
                p = math.nan
            if not 0 < p <= 1:
                return None, ("probability", number)
            entry[1][doc] = p
    if not topics:
        return None, ("empty", None)
    return topics, None


GRADES = ["0", "1", "2", "-1", "+1", "01", "10", "x", "1.0", "1_0", "٣"]
PROBABILITIES = ["0.5", "1", "1e-1", ".25", "0", "1.5", "nan", "inf", "-0.1", "p", "0x1p-2", "1_0"]


def generated(rng: random.Random) -> str:
    six = rng.random() < 0.5
    lines = []
    for _ in range(rng.randint(0, 25)):
        if rng.random() < 0.08:
            lines.append(rng.choice(["", "   ", "\t"]))
            continue
        topic = rng.choice(["1", "01", "2", "002", "10", "0"])
        fields = [topic, "0", f"d{rng.randint(0, 12)}", rng.choice(["1", "2", "10"])]
        fields.append(rng.choice(GRADES) if rng.random() < 0.2 else rng.choice(["0", "1", "-1"]))
        if six:
            fields.append(rng.choice(PROBABILITIES) if rng.random() < 0.2 else "0.5")
        if rng.random() < 0.04:
            fields = fields[:-1]
        lines.append(rng.choice([" ", "\t", "  "]).join(fields))
    return "\n".join(lines) + rng.choice(["", "\n"])


@pytest.mark.parametrize("seed", range(300))
def test_the_reader_reads_as_the_line_by_line_one(tmp_path, seed):
    text = generated(random.Random(seed))
    path = tmp_path / "s.txt"
    path.write_text(text, encoding="utf-8")
    want, problem = line_by_line(text)
    if problem is not None:
        with pytest.raises(InputError) as caught:
            read_sampled_qrels(str(path))
        words, line = problem
        message = str(caught.value)
        assert (f"s.txt:{line}:" in message) if line else "empty" in message, message
        assert {"fields": "fields", "not an integer": "not an integer"}.get(words, words) in message
        return
    got = read_sampled_qrels(str(path))
    assert list(got) == list(want)
    for t, (docs, probability) in want.items():
        assert list(got[t].docs.items()) == list(docs.items())
        assert list(got[t].probability.items()) == list(probability.items())


def frame_line_by_line(text: str):
    """The sampling-frame reader as it was: ``(columns, None)`` or ``(None, line)``."""
    cols: tuple[list, ...] = ([], [], [], [], [])
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 5:
            return None, number
        try:
            p = float(fields[3])
        except ValueError:
            p = math.nan
        if not (0 < p <= 1) or fields[4] not in ("0", "1"):
            return None, number
        for col, value in zip(cols, (*fields[:3], p, fields[4] == "1"), strict=True):
            col.append(value)
    if not cols[0]:
        return None, None
    return cols, None


def generated_frame(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randint(0, 20)):
        if rng.random() < 0.08:
            lines.append(rng.choice(["", "  "]))
            continue
        p = rng.choice(PROBABILITIES) if rng.random() < 0.15 else rng.choice(["0.5", "1", "0.25"])
        flag = rng.choice(["0", "1", "2", "yes"]) if rng.random() < 0.1 else rng.choice("01")
        fields = [rng.choice(["1", "01"]), f"d{rng.randint(0, 9)}", rng.choice("12"), p, flag]
        if rng.random() < 0.04:
            fields.append("x")
        lines.append(rng.choice([" ", "\t"]).join(fields))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(150))
def test_the_frame_reader_reads_as_the_line_by_line_one(tmp_path, seed):
    from cranfield.pooling.sampling import read_frame

    text = generated_frame(random.Random(seed))
    path = tmp_path / "f.txt"
    path.write_text(text, encoding="utf-8")
    want, line = frame_line_by_line(text)
    if want is None:
        with pytest.raises(InputError) as caught:
            read_frame(str(path))
        assert (f"f.txt:{line}:" in str(caught.value)) if line else "empty" in str(caught.value)
        return
    topic, doc, stratum, p, sampled = read_frame(str(path))
    got = (topic.to_pylist(), doc.to_pylist(), stratum.to_pylist(), p.tolist(), sampled.tolist())
    assert got == tuple(want)
