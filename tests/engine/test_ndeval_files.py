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
