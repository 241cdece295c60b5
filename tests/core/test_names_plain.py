"""The measure-name parser reads bare names and integers without ``re`` (a cold CLI):
those shortcuts must read exactly what the patterns they stand for read."""

from __future__ import annotations

import random
import re

from cranfield.core.measures import names

ALPHABET = "AP_-9z0 +\t٣\u00a0(@.)=,x"


def texts():
    rng = random.Random(7)
    yield from ["", "-", "+", "AP", "-AP", "_", "nDCG@10", "٣", "+12", " 5 ", "1\n", "P_5"]
    for _ in range(4000):
        yield "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 6)))


def test_is_integer_is_the_pattern():
    for text in texts():
        assert names._is_integer(text) == bool(re.fullmatch(r"[+-]?\d+", text)), text
        assert names._is_integer(text.strip()) == bool(re.fullmatch(r"\s*[+-]?\d+\s*", text)), text


def test_bare_names_are_read_as_the_pattern_reads_them():
    for text in texts():
        bare = text[:1] not in ("", "-") and names._WORD.issuperset(text)
        if bare:
            m = re.match(names._READABLE, text)
            assert m is not None and m.group("name") == text, text
            assert m.group("args") is None and m.group("cut") is None
    for text in ("AP", "nDCG", "P", "num_q", "Rprec_mult", "no_such-name", "9", "rbp", "RBP"):
        assert _read(text) == _read(text, pattern=True)


def _read(text, pattern=False):
    saved = names._WORD
    if pattern:
        names._WORD = frozenset()  # every text through the pattern
    try:
        return names._parse_readable(text)
    except ValueError as exc:  # MeasureError
        return str(exc)
    finally:
        names._WORD = saved


def test_names_with_a_cutoff_are_read_as_the_pattern_reads_them():
    for text in texts():
        name, at, cut = text.partition("@")
        short = (
            at
            and cut
            and name[:1] not in ("", "-")
            and names._WORD.issuperset(name)
            and names._CUT >= set(cut)
        )
        if short:
            m = re.match(names._READABLE, text)
            assert m is not None and (m.group("name"), m.group("cut")) == (name, cut), text
            assert m.group("args") is None
    cases = ["nDCG@10", "P@5", "R@100", "P@0", "P@-1", "AP@x", "P@1.5", "nDCG@", "@10"]
    cases += ["RBP@10", "P@1@2", "nDCG@ 10", "-P@5", "P@5 ", "no_such@3", "err_ia@20"]
    for text in cases:
        assert _read(text) == _read(text, pattern=True), text
