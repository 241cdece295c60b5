"""A run on standard input (``-``) takes the engine path of ``cranfield eval`` and
``cranfield trec_eval``: the same output, stderr and status as the general path on
the same input, without NumPy.

Each case runs twice in a subprocess fed ``input=``: once with NumPy made
unimportable (so only the engine path can succeed or report a problem: standard input
is read once, and a fall back to the general path after the engine has read it would
find it empty), once with the engine path switched off (the general path, the
reference).
"""

from __future__ import annotations

import gzip
import itertools
import os
import subprocess
import sys

import pytest

from fifo import fifo_with_writer

SCRIPT = """
import os, sys
if os.environ.get("PIECE"):  # pieces of this many bytes, in both paths
    from cranfield.core import memory
    piece = int(os.environ["PIECE"])
    reading = memory.engine_reading
    memory.engine_reading = lambda s: {**reading(s), "piece_bytes": piece}
if sys.argv[1] == "engine":
    sys.modules["numpy"] = None  # the general path would fail importing it
elif sys.argv[1] == "general":
    from cranfield.core import files, trec_eval
    files._engine_results = lambda job: None
    trec_eval.trec_eval_by_engine = lambda *a, **k: None
from cranfield.cli.main import main
sys.exit(main(sys.argv[2:]))
"""

QRELS = "".join(
    f"{q} 0 d{d} {g}\n"
    for q, d, g in [(1, 1, 1), (1, 2, 0), (1, 3, 2), (2, 1, 1), (2, 4, 1), (5, 9, 0)]
)
RUN = "".join(
    f"{q} Q0 d{d} {r} {s} tag\n"
    for q, d, r, s in [(1, 1, 1, 9.0), (1, 3, 2, 8.5), (1, 5, 3, 7.0), (2, 4, 1, 3.0)]
    + [(2, 2, 2, 2.0), (3, 1, 1, 1.0)]
)
UNGROUPED = "".join(RUN.splitlines(keepends=True)[i] for i in (0, 3, 1, 5, 4, 2))


def cli(mode: str, argv: list[str], data: bytes, piece: int = 0) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, mode, *argv],
        env={**os.environ, "PIECE": str(piece or "")},
        input=data,
        capture_output=True,
        timeout=60,
        check=False,
    )
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def same(argv: list[str], data: bytes, piece: int = 0) -> tuple[int, str, str]:
    """The engine path's (status, stdout, stderr), asserted equal to the general path's."""
    engine = cli("engine", argv, data, piece)
    assert "Traceback" not in engine[2]
    assert engine == cli("general", argv, data, piece)
    return engine


@pytest.fixture
def qrels(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text(QRELS)
    return str(path)


@pytest.mark.parametrize("command", ["eval", "trec_eval"])
@pytest.mark.parametrize("text", [RUN, UNGROUPED], ids=["grouped", "ungrouped"])
@pytest.mark.parametrize("packed", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize("stream", [[], ["--no-stream"]])
def test_standard_input_is_evaluated_by_the_engine(qrels, command, text, packed, stream):
    data = gzip.compress(text.encode()) if packed else text.encode()
    measures = ["-m", "AP", "P@2", "nDCG"] if command == "eval" else ["-m", "all_trec"]
    status, out, _ = same([command, "-q", *measures, *stream, qrels, "-"], data)
    assert status == 0
    assert "0.5" in out  # AP of query 2: its one relevant document of two at rank 1


def _lines(*replacements: tuple[int, str]) -> bytes:
    lines = RUN.splitlines()
    for at, line in replacements:
        lines[at] = line
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape")


PROBLEMS = {
    "fields": _lines((2, "1 Q0 d5 3 7.0")),
    "qrels_line": _lines((2, "1 0 d5 1")),
    "nan": _lines((4, "2 Q0 d2 2 nan tag")),
    "score": _lines((4, "2 Q0 d2 2 high tag")),
    "nul": _lines((1, "1 Q0 d3 2 8.5 t\0ag")),
    "utf8": _lines((3, "\udcff Q0 d4 1 3.0 tag")),
    "duplicate": _lines((1, "1 Q0 d1 2 8.5 tag")),
    "empty": b"",
    "blank": b"\n\n",
    "no_query": b"7 Q0 d1 1 1.0 tag\n8 Q0 d2 1 1.0 tag\n",
    "missing_topic": b"1 Q0 d1 1 1.0 tag\n",
    "bad_gzip": gzip.compress(RUN.encode())[:-9],
    "not_gzip": b"\x1f\x8b\x08\x00garbage",
}


@pytest.mark.parametrize("command", ["eval", "trec_eval"])
@pytest.mark.parametrize("problem", sorted(PROBLEMS))
def test_every_problem_on_standard_input_is_reported_as_the_general_path_does(
    qrels, command, problem
):
    # (map.5: a parameter ignored, with a note after reading the inputs)
    measures = ["-m", "AP"] if command == "eval" else ["-m", "map.5"]
    status, _, err = same([command, *measures, qrels, "-"], PROBLEMS[problem])
    if problem == "missing_topic" or (problem == "utf8" and command == "trec_eval"):
        assert status == 0 and "qrels topic" in err  # (trec_eval reads ids as Latin-1)
    else:
        lines = err.strip().splitlines()  # (the note comes only when both inputs are read)
        assert (
            status == 2
            and "error" in lines[-1]
            and len(lines) == 1 + (problem == "no_query" and command == "trec_eval")
        )


def test_eval_reports_what_follows_the_reading(qrels, tmp_path):
    # no query with a relevant document, and queries without one skipped
    unjudged = b"5 Q0 d2 1 1.0 tag\n"
    status, _, err = same(["eval", "-m", "AP", "--skip-no-relevant", qrels, "-"], unjudged)
    assert status == 2 and "relevant document" in err
    # a problem in another run, before or after the one on standard input
    missing = str(tmp_path / "absent.txt")
    for runs in (["-", missing], [missing, "-"]):
        status, _, err = same(["eval", "-m", "AP", qrels, *runs], RUN.encode())
        assert status == 2 and "no such file" in err
    bad_qrels = tmp_path / "bad.qrels"
    bad_qrels.write_text("1 0 d1\n")
    status, _, err = same(["eval", "-m", "AP", str(bad_qrels), "-"], RUN.encode())
    assert status == 2 and "bad.qrels" in err


def test_trec_eval_reports_zscores_after_the_run(qrels, tmp_path):
    zscores = tmp_path / "z.txt"
    zscores.write_text("1 map nope 1\n")
    for data in (RUN.encode(), PROBLEMS["nan"]):
        status, _, err = same(["trec_eval", "-Z", str(zscores), qrels, "-"], data)
        assert status == 2 and len(err.strip().splitlines()) == 1


def test_eval_several_runs_with_standard_input_among_them(qrels, tmp_path):
    other = tmp_path / "other.txt"
    other.write_text(RUN.replace("tag", "other"))
    status, out, _ = same(["eval", "-m", "AP", "P@2", qrels, str(other), "-"], UNGROUPED.encode())
    assert status == 0 and "other" in out and "tag" in out


def test_other_runs_that_are_not_regular_files_go_to_the_general_path(qrels, tmp_path):
    # decided before reading standard input: the general path names the directory
    argv = ["eval", "-m", "AP", qrels, "-", str(tmp_path)]
    done = cli("plain", argv, RUN.encode())
    assert done == cli("general", argv, RUN.encode())
    assert done[0] == 2 and "is a directory" in done[2]


PIPES = itertools.count()


def piped(tmp_path, mode: str, argv: list[str], data: bytes, piece: int = 0):
    """``cli`` with ``data`` in the named pipe that ``{pipe}`` in ``argv`` names (and
    in the output)."""
    fifo, writer = fifo_with_writer(tmp_path / f"run-{next(PIPES)}.pipe", data)
    try:
        done = cli(mode, [str(fifo) if a == "{pipe}" else a for a in argv], b"", piece)
        return tuple(x.replace(str(fifo), "{pipe}") if isinstance(x, str) else x for x in done)
    finally:
        os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))  # never leave the writer waiting
        writer.join(timeout=10)


@pytest.mark.parametrize("command", ["eval", "trec_eval"])
@pytest.mark.parametrize("piece", [0, 40])
def test_a_named_pipe_is_read_by_the_engine(qrels, tmp_path, command, piece):
    # read once by the engine path (NumPy unimportable), as standard input is; the
    # general path (the engine judging for it) gives the same
    for data in (UNGROUPED.encode(), gzip.compress(RUN.encode())):
        argv = [command, "-q", qrels, "{pipe}"]
        got = piped(tmp_path, "engine", argv, data, piece)
        assert got == cli("engine", [command, "-q", qrels, "-"], data, piece)
        assert got[0] == 0
        assert got == piped(tmp_path, "general", argv, data, piece)
    # a problem after reading: one line, status 2, from both paths alike
    bad = (RUN + "3 Q0 d9 1 high tag\n").encode()
    argv = [command, qrels, "{pipe}"]
    got = piped(tmp_path, "engine", argv, bad, piece)
    assert got[0] == 2 and got[2].count("\n") == 1 and ":7:" in got[2]
    assert got == piped(tmp_path, "general", argv, bad, piece)


@pytest.mark.parametrize("command", ["eval", "trec_eval"])
def test_a_stream_put_in_place_of_standard_input_is_read(qrels, command, monkeypatch, capsys):
    # the engine reads descriptor 0: a sys.stdin that is not it goes to the general path
    import io

    from cranfield.cli.main import main

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(RUN.encode())))
    assert main([command, qrels, "-"]) == 0
    assert "0.7500" in capsys.readouterr().out  # mean AP: (1 + 0.5) / 2


@pytest.mark.parametrize("command", ["eval", "trec_eval"])
def test_standard_input_in_pieces(qrels, command):
    # pieces of 40 bytes: a run not grouped by query is read whole from what was kept of
    # standard input; with --stream, a query reappearing in a later piece is an error
    data = UNGROUPED.encode()
    assert same([command, "-q", qrels, "-"], data, piece=40) == same(
        [command, "-q", qrels, "-"], data
    )
    status, _, err = same([command, "--stream", qrels, "-"], data, piece=40)
    assert status == 2 and "<stdin>:3: query '1' appears again" in err
    grouped = gzip.compress(RUN.encode())
    assert same([command, "--stream", qrels, "-"], grouped, piece=40)[0] == 0


def test_after_reading_standard_input_nothing_is_left_to_the_general_path():
    from cranfield import _engine
    from cranfield.core.files import engine_problem
    from cranfield.errors import CranfieldError

    for failure in [("internal", None, None, "a panic"), ("wrong_kind", "run", None, None)]:
        error = engine_problem(_engine.JudgeError(*failure, 0), "q.txt", ["-"])
        assert isinstance(error, CranfieldError)
        assert "internal error in the engine" in str(error)
        # with the run in a file, the general path reads it again
        assert engine_problem(_engine.JudgeError(*failure, 0), "q.txt", ["r"]) is None
    # found before anything was read: the general path can still read standard input
    for failure in [
        ("options", None, None, "bad"),
        ("unsupported", "qrels", None, "not a regular file"),
    ]:
        assert engine_problem(_engine.JudgeError(*failure), "q.txt", ["-"]) is None


@pytest.mark.parametrize("command", ["eval", "trec_eval"])
def test_qrels_in_a_named_pipe(qrels, tmp_path, command):
    # read once by the engine path (NumPy unimportable)
    run = tmp_path / "run.txt"
    run.write_text(UNGROUPED)
    fifo, writer = fifo_with_writer(tmp_path / "qrels.pipe", QRELS.encode())
    try:
        got = cli("engine", [command, "-q", str(fifo), str(run)], b"")
    finally:
        os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
        writer.join(timeout=10)
    assert got[0] == 0 and got == cli("engine", [command, "-q", qrels, str(run)], b"")


@pytest.mark.parametrize("command", ["eval", "trec_eval"])
def test_qrels_on_standard_input(tmp_path, command):
    # read by the engine path, as the general path reads them; problems alike
    run = tmp_path / "run.txt"
    run.write_text(UNGROUPED)
    for data in (QRELS.encode(), gzip.compress(QRELS.encode())):
        status, out, _ = same([command, "-q", "-", str(run)], data)
        assert status == 0 and "0.7500" in out
    status, _, err = same([command, "-", str(run)], (QRELS + "7 0 d1 high\n").encode())
    assert status == 2 and err.count("\n") == 1 and "<stdin>:7:" in err
    # with a directory for a run: decided before reading, the general path reads both
    argv = [command, "-", str(tmp_path)]
    done = cli("plain", argv, QRELS.encode())
    assert done == cli("general", argv, QRELS.encode())
    assert done[0] == 2 and done[2].count("\n") == 1 and "directory" in done[2]
