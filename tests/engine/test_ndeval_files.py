"""``cranfield ndeval`` reads plain regular files in the engine: the report equals the
one from bytes read in Python, and every file the Python reader would refuse or
decompress (gzip, a NUL byte, a line over the limit, over the memory budget, not a
regular file) is handed back (None) for the Python reader to name its problem."""

from __future__ import annotations

import gzip
import random

import pytest

from cranfield import _engine
from cranfield.cli.ndeval_cmd import parse

OPTIONS = parse(["qrels", "run"])  # ndeval's defaults, as the command line makes them
BIG = 1 << 40


def files(tmp_path, seed: int):
    rng = random.Random(seed)
    qrels, run = [], []
    for t in range(1, rng.randint(2, 6)):
        docs = [f"d{i}" for i in range(30)]
        for d in rng.sample(docs, 10):
            qrels += [f"{t} {s} {d} {int(rng.random() < 0.3)}\n" for s in range(1, 4)]
        ranked = rng.sample(docs, rng.randint(1, 25))
        run += [f"{t} Q0 {d} {r} {50 - r} sys\n" for r, d in enumerate(ranked, 1)]
    q, r = tmp_path / f"q{seed}.txt", tmp_path / f"r{seed}.txt"
    q.write_text("".join(qrels))
    r.write_text("".join(run))
    return q, r


@pytest.mark.parametrize("seed", range(20))
def test_the_engine_reads_what_python_would_give_it(tmp_path, seed):
    q, r = files(tmp_path, seed)
    base = (r, "base") if seed % 2 else None
    got = _engine.ndeval_report_files((q, "q"), (r, "r"), base, OPTIONS, 1 << 26, BIG)
    given = (r.read_bytes(), "base") if base else None
    want = _engine.ndeval_report((q.read_bytes(), "q"), (r.read_bytes(), "r"), given, OPTIONS)
    assert got == want and got.startswith("runid,topic,")


def test_files_the_python_reader_must_see_are_handed_back(tmp_path):
    q, r = files(tmp_path, 1)
    zipped = tmp_path / "q.gz"
    zipped.write_bytes(gzip.compress(q.read_bytes()))
    nul = tmp_path / "nul.txt"
    nul.write_bytes(q.read_bytes() + b"1 1 d\0 1\n")
    cases = [
        (zipped, r, 1 << 26, BIG),  # compressed
        (nul, r, 1 << 26, BIG),  # a NUL byte
        (q, r, 8, BIG),  # a line longer than the limit
        (q, r, 1 << 26, 10),  # more than the budget
        (tmp_path, r, 1 << 26, BIG),  # a directory
        (tmp_path / "missing", r, 1 << 26, BIG),
        (q, zipped, 1 << 26, BIG),  # the run too
    ]
    for qrels, run, max_line, budget in cases:
        assert (
            _engine.ndeval_report_files((qrels, "q"), (run, "r"), None, OPTIONS, max_line, budget)
            is None
        )
    bad_base = (nul, "b")
    got = _engine.ndeval_report_files((q, "q"), (r, "r"), bad_base, OPTIONS, 1 << 26, BIG)
    assert got is None


def test_a_bad_line_is_still_reported_from_the_engine(tmp_path):
    q, r = files(tmp_path, 2)
    q.write_text(q.read_text() + "x y z w\n")
    with pytest.raises(Exception, match="syntax error") as caught:
        _engine.ndeval_report_files((q, "q"), (r, "r"), None, OPTIONS, 1 << 26, BIG)
    assert caught.value.line == q.read_text().count("\n")


def large_files(tmp_path, seed: int, topics: int = 40, ranked: int = 1200):
    """Qrels and a run of over 1 MB each (each read in halves, piece by piece), topics
    in a random order, blank-free, with a 300 kB docno in the run's second half."""
    rng = random.Random(seed)
    qrels, run = [], []
    order = rng.sample(range(1, topics + 1), topics)
    for t in order:
        docs = [f"doc{t}-{i:05d}" for i in range(ranked + 200)]
        for d in rng.sample(docs, 300):
            qrels += [f"{t} {s} {d} {int(rng.random() < 0.3)}\n" for s in range(1, 6)]
        picked = rng.sample(docs, ranked)
        if t == order[-2]:
            picked[3] = "L" * 300_000
        run += [f"{t} Q0 {d} {r} {ranked - r}.5 sys\n" for r, d in enumerate(picked, 1)]
    q, r = tmp_path / f"bigq{seed}.txt", tmp_path / f"bigr{seed}.txt"
    q.write_text("".join(qrels))
    r.write_text("".join(run))
    assert q.stat().st_size > 1 << 20 and r.stat().st_size > 1 << 20
    return q, r


def bytes_report(q, r, base=None, options=OPTIONS):
    given = (base[0].read_bytes(), base[1]) if base else None
    return _engine.ndeval_report((q.read_bytes(), "q"), (r.read_bytes(), "r"), given, options)


@pytest.mark.parametrize("seed", range(3))
def test_large_files_read_in_pieces_give_the_report_of_their_bytes(tmp_path, seed):
    q, r = large_files(tmp_path, seed)
    options = parse(["-traditional", "qrels", "run"]) if seed == 2 else OPTIONS
    base = (r, "base") if seed == 1 else None
    got = _engine.ndeval_report_files((q, "q"), (r, "r"), base, options, 1 << 26, BIG)
    assert got == bytes_report(q, r, base, options)
    # the long docno is a line of its own size: a shorter limit hands the run back
    assert _engine.ndeval_report_files((q, "q"), (r, "r"), None, OPTIONS, 250_000, BIG) is None


def test_a_bad_line_deep_in_a_large_file_is_named_as_in_its_bytes(tmp_path):
    q, r = large_files(tmp_path, 4)
    for path, bad in ((q, "1 x doc 1\n"), (r, "1 Q0 doc x 1 sys\n")):
        lines = path.read_text().splitlines(keepends=True)
        at = len(lines) * 9 // 10  # in the second half, past its first pieces
        path.write_text("".join(lines[:at] + [bad] + lines[at:]))
        with pytest.raises(Exception) as engine:
            _engine.ndeval_report_files((q, "q"), (r, "r"), None, OPTIONS, 1 << 26, BIG)
        with pytest.raises(Exception) as python:
            bytes_report(q, r)
        assert engine.value.line == python.value.line == at + 1
        assert str(engine.value) == str(python.value)
        path.write_text("".join(lines))


def test_a_nul_byte_anywhere_in_a_large_file_hands_it_back(tmp_path):
    q, r = large_files(tmp_path, 5)
    text = r.read_bytes()
    for at in (10, len(text) // 2 + 100, len(text) - 5):
        r.write_bytes(text[:at] + b"\0" + text[at:])
        assert _engine.ndeval_report_files((q, "q"), (r, "r"), None, OPTIONS, 1 << 26, BIG) is None
    # after a bad line, the rest of the file is still read for a NUL byte
    lines = text.splitlines(keepends=True)
    r.write_bytes(b"".join(lines[:5] + [b"bad line\n"] + lines[5:-1] + [b"x\0\n"]))
    assert _engine.ndeval_report_files((q, "q"), (r, "r"), None, OPTIONS, 1 << 26, BIG) is None
    # a bad run and a baseline with a NUL byte: handed back, as when files were read whole
    r.write_bytes(b"".join(lines[:5] + [b"bad line\n"] + lines[5:]))
    nul = tmp_path / "nul.txt"
    nul.write_bytes(text[:100] + b"\0" + text[100:])
    got = _engine.ndeval_report_files((q, "q"), (r, "r"), (nul, "b"), OPTIONS, 1 << 26, BIG)
    assert got is None
