"""The engine's streamed reading of runs (``rust/eval/src/judge/stream.rs``): a run read
in query-aligned pieces gives, bit for bit, what reading it whole gives.

Pieces are forced tiny (``piece_bytes``) so that every run is cut many times: at query
boundaries, inside long queries (the piece grows), after comments and blank lines, in
gzip input. Compared with the engine's whole-file reading (``piece_bytes=0``), itself
compared with the NumPy path in tests/engine/test_judge.py: every per-query value, the
run name, trec_eval's output; errors past the first piece name the file's lines; a
query reappearing in a later piece is an error naming the line where it reappears
(``memory.regrouped``), unless the run fits the budget for a whole read.
"""

from __future__ import annotations

import gzip
import struct
import subprocess
import sys

import pytest

from cranfield import _engine
from cranfield.core.files import engine_specs
from cranfield.core.memory import engine_error, regrouped
from cranfield.core.options import JudgeOptions
from cranfield.core.results import as_measures
from cranfield.core.trec_eval import columns, engine_columns, select
from cranfield.errors import InputError
from generators import trec_files

MEASURES = ["AP", "nDCG@10", "P@5", "R@20", "RR", "Rprec", "Bpref", "infAP", "SetF"]
SPECS = engine_specs(as_measures(MEASURES), False)[0]
PIECES = [1, 40, 300, 5000]
OPTIONS = [
    {},
    {"complete": True},
    {"depth": 7, "judged_only": True},
    {"compat": 9, "rel_level": 2},
    {"rel_level": 0, "complete": True, "depth": 3, "duplicates": "max"},
]


def write(tmp_path, seed: int, sep: str = " "):
    qrels_text, run_text = trec_files(seed, sep)
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text(qrels_text)
    run.write_text(run_text)
    return qrels, run


def bits(result):
    """The result with every float as its bytes (NaN and -0.0 compared exactly)."""
    topics, runs, truncated = result
    out = []
    for name, ids, cols, *_ in runs:
        packed = [[struct.pack("<d", v) if isinstance(v, float) else v for v in c] for c in cols]
        out.append((name, ids, packed))
    return topics, out, truncated


def evaluate(qrels, run, **kw):
    return bits(_engine.evaluate_trec_files(str(qrels), [str(run)], SPECS, **kw))


def test_the_specs_cover_several_families():
    assert len(SPECS) >= 6


@pytest.mark.parametrize("seed", range(6))
def test_pieces_equal_the_whole_file_bit_for_bit(tmp_path, seed):
    qrels, run = write(tmp_path, seed, sep="\t" if seed == 4 else " ")
    for opts in OPTIONS:
        options = JudgeOptions(**opts)
        whole = evaluate(qrels, run, piece_bytes=0, options=options)
        assert whole[1][0][0] == f"tag{seed}"
        for piece in PIECES:
            # no budget for a whole read: each piece must hold whole queries
            assert (
                evaluate(qrels, run, piece_bytes=piece, max_bytes=0, whole_bytes=0, options=options)
                == whole
            )


@pytest.mark.parametrize("seed", range(3))
def test_trec_eval_output_streamed(tmp_path, seed):
    qrels, run = write(tmp_path, seed)
    described = engine_columns(columns(select(["all_trec"])))
    for complete in (False, True):
        args = (described, str(qrels), str(run), JudgeOptions(complete=complete), True, True)
        whole = _engine.trec_eval_files(*args, piece_bytes=0)
        assert whole is not None
        for piece in PIECES:
            assert (
                _engine.trec_eval_files(*args, piece_bytes=piece, max_bytes=0, whole_bytes=0)
                == whole
            )


def test_gzip_members_and_queries_longer_than_a_piece(tmp_path):
    qrels, run = write(tmp_path, 2)
    text = run.read_bytes()
    gz = tmp_path / "run.gz"
    half = len(text) // 2
    gz.write_bytes(gzip.compress(text[:half]) + gzip.compress(text[half:]))
    whole = evaluate(qrels, run, piece_bytes=0)
    for piece in (16, 700):
        assert evaluate(qrels, gz, piece_bytes=piece, max_bytes=0, whole_bytes=0) == whole


def test_blank_lines_comments_and_line_ends_at_piece_boundaries(tmp_path):
    qrels, run = write(tmp_path, 3)  # a comment and a blank line after every query
    text = run.read_text()
    for variant, content in {
        "crlf": text.replace("\n", "\r\n"),
        "blank": text.replace("\n", "\n\n\n# c\n", 7),
        "bom": "\ufeff" + text,
        "no_end": text.rstrip("\n"),
    }.items():
        path = tmp_path / f"{variant}.txt"
        path.write_bytes(content.encode())
        whole = evaluate(qrels, path, piece_bytes=0)
        for piece in (1, 13, 64, 301):
            assert evaluate(qrels, path, piece_bytes=piece, max_bytes=0, whole_bytes=0) == whole, (
                variant
            )


def _evaluate(qrels, run, **kw):
    return _engine.evaluate_trec_files(str(qrels), [str(run)], SPECS, **kw)


def _engine_failure(call):
    with pytest.raises(_engine.JudgeError) as info:
        call()
    return info.value.args


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("chunk", [64, 500])
def test_a_query_reappearing_is_the_streaming_error(tmp_path, seed, chunk):
    qrels, run = write(tmp_path, seed)
    lines = [ln for ln in run.read_text().splitlines() if ln and not ln.startswith("#")]
    # a line of an early query moved far down: the query reappears in a later piece
    moved = lines[1:] + lines[:1] if seed % 2 else lines[:3] + lines[4:] + lines[3:4]
    bad = tmp_path / "scattered.txt"
    bad.write_text("\n".join(moved) + "\n")
    # the moved line, the last, is where its query reappears after other queries
    expected = regrouped(moved[-1].split()[0], str(bad), len(moved))
    args = _engine_failure(
        lambda: _engine.evaluate_trec_files(
            str(qrels), [str(bad)], SPECS, piece_bytes=chunk, max_bytes=0, whole_bytes=0
        )
    )
    assert args[0] == "regrouped"
    error = engine_error(_engine.JudgeError(*args))
    assert isinstance(error, InputError) and str(error) == str(expected)
    assert error.line == expected.line == len(moved)
    # within the budget for a whole read: evaluated as the whole file is
    whole = evaluate(qrels, bad, piece_bytes=0)
    assert (
        evaluate(qrels, bad, piece_bytes=chunk, max_bytes=bad.stat().st_size, whole_bytes=0)
        == whole
    )
    assert evaluate(qrels, bad, piece_bytes=chunk, whole_bytes=0) == whole  # no budget: no limit
    assert evaluate(qrels, bad, piece_bytes=chunk, max_bytes=0) == whole  # a small file: whole
    args = _engine_failure(
        lambda: _engine.evaluate_trec_files(
            str(qrels),
            [str(bad)],
            SPECS,
            piece_bytes=chunk,
            max_bytes=bad.stat().st_size - 1,
            whole_bytes=0,
        )
    )
    assert args[0] == "regrouped"


def test_errors_past_the_first_piece_name_the_files_lines(tmp_path):
    qrels, run = write(tmp_path, 5)
    lines = run.read_text().splitlines()
    at = len(lines) * 3 // 4
    cases = {
        "short": lines[:at] + ["7 Q0 D1 1"] + lines[at:],
        "nan": lines[:at] + [lines[at].rsplit(" ", 2)[0] + " nan tagX"] + lines[at + 1 :],
        "dup": lines[:at] + [lines[at - 1]] + lines[at:],
        "utf8": lines[:at] + ["q\udcff Q0 D1 1 1 t"] + lines[at:],
    }
    for name, content in cases.items():
        bad = tmp_path / f"{name}.txt"
        bad.write_bytes("\n".join(content).encode("utf-8", "surrogateescape") + b"\n")
        whole = _engine_failure(lambda b=bad: _evaluate(qrels, b, piece_bytes=0))
        streamed = _engine_failure(
            lambda b=bad: _evaluate(qrels, b, piece_bytes=50, max_bytes=0, whole_bytes=0)
        )
        assert streamed == whole, name
        assert whole[2] is not None and whole[2] > at, name


STDIN_SCRIPT = """
import sys
from cranfield import _engine
specs = [("AP", None, {"rel": None, "normalise": "R"}), ("P", 5, {"rel": None})]
print(repr(_engine.evaluate_trec_files(sys.argv[1], ["-"], specs, piece_bytes=int(sys.argv[2]),
      max_bytes=int(sys.argv[3]))))
"""


def _stdin_eval(qrels, data: bytes, piece: int, budget: int) -> str:
    done = subprocess.run(
        [sys.executable, "-c", STDIN_SCRIPT, str(qrels), str(piece), str(budget)],
        input=data,
        capture_output=True,
        timeout=60,
        check=False,
    )
    return done.stdout.decode() + done.stderr.decode()


def test_standard_input_plain_and_gzip_streamed(tmp_path):
    qrels, run = write(tmp_path, 1)
    text = run.read_bytes()
    expected = _stdin_eval(qrels, text, 0, 1 << 40)
    assert expected.startswith("(") and "tag1" in expected
    assert _stdin_eval(qrels, text, 100, 0) == expected
    assert _stdin_eval(qrels, gzip.compress(text), 100, 0) == expected
    lines = [ln for ln in text.decode().splitlines() if ln]
    scattered = ("\n".join(lines[1:] + lines[:1]) + "\n").encode()
    # read whole from what was kept of the input while it fits the budget
    whole = _stdin_eval(qrels, scattered, 0, 1 << 40)
    assert _stdin_eval(qrels, scattered, 64, len(scattered)) == whole
    assert "regrouped" in _stdin_eval(qrels, scattered, 64, len(scattered) - 1)
