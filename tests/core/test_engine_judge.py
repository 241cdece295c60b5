"""A TREC run judged by the engine for the general path (``core/engine_judge.py``)
gives exactly what reading it whole in Python gives, whatever the size of the pieces.

Pieces are forced tiny (the engine's ``piece_bytes``, through ``memory.engine_reading``)
so that every file is cut many times: at query boundaries, inside a long query, after
comment and blank lines. Compared with ``judge(qrels, Run.read(path))`` bit for bit:
the judged arrays, every per-query value and aggregate, the trec_eval text of the
command line's general path, the run name, and the messages (line numbers) of bad
input.
"""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from cranfield.cli.main import main
from cranfield.core import memory
from cranfield.core.engine_judge import judge_trec
from cranfield.core.evaluation import run_result
from cranfield.core.judged import judge
from cranfield.core.options import JudgeOptions
from cranfield.core.qrels import Qrels
from cranfield.core.run import Run
from cranfield.errors import InputError
from fifo import fifo_with_writer
from generators import trec_files

MEASURES = ["AP", "nDCG@10", "P@5", "R@20", "RR", "Bpref", "infAP", "rbp", "SetF", "Rprec"]

OPTIONS = [
    {},
    {"complete": True},
    {"depth": 7, "judged_only": True},
    {"compat": 9, "rel_level": 2},
    {"rel_level": 0, "complete": True, "depth": 3},
]


def write_collection(tmp_path, seed: int, sep: str = " "):
    qrels_text, run_text = trec_files(seed, sep)
    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    qrels.write_text(qrels_text)
    run.write_text(run_text)
    return qrels, run


@pytest.fixture
def pieces(monkeypatch):
    """``pieces(n)``: from now on the engine reads runs in pieces of ``n`` bytes (no
    run read whole, none regrouped)."""
    reading = memory.engine_reading

    def force(n: int, **more):
        monkeypatch.setattr(
            memory,
            "engine_reading",
            lambda s: {**reading(s), "piece_bytes": n, "whole_bytes": 0, **more},
        )

    return force


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes()


def same_judged(a, b):
    assert list(a.query_ids) == list(b.query_ids) and a.run_name == b.run_name
    for field in ("offsets", "labels", "qrels_offsets", "qrels_grades", "in_run"):
        same_bits(getattr(a, field), getattr(b, field))


def same_values(a, b):
    for m in a.values:
        same_bits(a.values[m], b.values[m])
        assert a.aggregates[m] == b.aggregates[m] or (
            np.isnan(a.aggregates[m]) and np.isnan(b.aggregates[m])
        )


def _error(fn):
    with pytest.raises(InputError) as info:
        fn()
    return str(info.value)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("piece", [64, 300, 5000])
def test_pieces_equal_in_memory(tmp_path, pieces, seed, piece):
    qrels_path, run_path = write_collection(tmp_path, seed, sep="\t" if seed == 4 else " ")
    qrels = Qrels.read(qrels_path)
    run = Run.read(run_path)
    pieces(piece, max_bytes=0)
    from cranfield.core.evaluation import as_measures

    measures = as_measures(MEASURES)
    for opts in OPTIONS:
        options = JudgeOptions(**opts)
        whole = judge(qrels, run, options)
        got = judge_trec(qrels, qrels_path, run_path, options)
        assert got.run_name == f"tag{seed}"
        same_judged(got, whole)
        same_values(run_result(got, got.run_name, measures), run_result(whole, run.name, measures))


def _general(monkeypatch):
    """The command line's general path only (the engine's whole evaluation off), with a
    record of the runs the engine judged for it."""
    from cranfield.core import engine_judge, files, indexed, trec_eval

    monkeypatch.setattr(trec_eval, "trec_eval_by_engine", lambda *a, **k: None)
    monkeypatch.setattr(files, "_engine_results", lambda job: None)
    monkeypatch.setattr(indexed, "evaluate_indexed", lambda *a, **k: None)
    judged = []
    real = engine_judge.judge_trec

    def spy(*args, **kw):
        got = real(*args, **kw)
        judged.append(got is not None)
        return got

    monkeypatch.setattr(engine_judge, "judge_trec", spy)
    return judged


def test_cli_general_path_judges_with_the_engine(tmp_path, capsys, monkeypatch, pieces):
    qrels_path, run_path = write_collection(tmp_path, 1)
    argv = [str(qrels_path), str(run_path)]
    commands = [
        ["trec_eval", "-q", "-m", "all_trec", "-c", *argv],
        ["trec_eval", "-q", "-M", "5", "-J", "--compat", "9", *argv],
        ["eval", *argv, "-q", "-m", *MEASURES],
        ["eval", *argv, "-q", "--complete", "-l", "2", "-m", *MEASURES],
    ]
    expected = []
    for cmd in commands:  # the engine path, the run read whole
        assert main(cmd) == 0
        expected.append(capsys.readouterr())
    judged = _general(monkeypatch)
    pieces(128)
    for cmd, want in zip(commands, expected, strict=True):
        for stream in ([], ["--stream"], ["--no-stream"]):
            assert main([cmd[0], *stream, *cmd[1:]]) == 0
            assert capsys.readouterr() == want, (cmd, stream)
    assert judged == [True] * 3 * len(commands)


def test_gzip_and_queries_longer_than_a_piece(tmp_path, pieces):
    qrels_path, run_path = write_collection(tmp_path, 2)
    gz = tmp_path / "run.gz"
    gz.write_bytes(gzip.compress(run_path.read_bytes()))
    named = tmp_path / "plain.gz"  # plain text named .gz
    named.write_bytes(run_path.read_bytes())
    qrels = Qrels.read(qrels_path)
    whole = judge(qrels, Run.read(run_path), JudgeOptions())
    pieces(16)  # every query longer than a piece: the piece grows until it ends
    same_judged(judge_trec(qrels, qrels_path, gz, JudgeOptions()), whole)
    same_judged(judge_trec(qrels, qrels_path, named, JudgeOptions()), whole)


@pytest.mark.parametrize("piece", [50, 400])
def test_bad_lines_and_duplicates_report_file_lines(tmp_path, pieces, piece):
    qrels_path, run_path = write_collection(tmp_path, 5)
    qrels = Qrels.read(qrels_path)
    lines = run_path.read_text().splitlines()
    cases = {
        "short": lines[:40] + ["7 Q0 D1 1"] + lines[40:],
        "nan": lines[:33] + [lines[33].rsplit(" ", 2)[0] + " nan tagX"] + lines[34:],
        "dup": lines[:30] + [lines[28]] + lines[30:],
    }
    pieces(piece)
    for name, content in cases.items():
        bad = tmp_path / f"{name}.txt"
        bad.write_text("\n".join(content) + "\n")
        expected = _error(lambda b=bad: Run.read(b))
        got = _error(lambda b=bad: judge_trec(qrels, qrels_path, b, JudgeOptions()))
        assert got == expected, name
        assert f"{bad}:" in got


def test_duplicate_policies(tmp_path, pieces):
    qrels_path, run_path = write_collection(tmp_path, 3)
    lines = run_path.read_text().splitlines()
    dup = tmp_path / "dup.txt"
    dup.write_text("\n".join(lines[:20] + [lines[15].replace(" Q0 ", " Q1 ")] + lines[20:]) + "\n")
    qrels = Qrels.read(qrels_path)
    pieces(100)
    for policy in ("first", "max"):
        options = JudgeOptions(duplicates=policy)
        whole = judge(qrels, Run.read(dup, duplicates=policy), options)
        same_judged(judge_trec(qrels, qrels_path, dup, options), whole)


def test_query_lines_not_together(tmp_path, pieces, capsys, monkeypatch):
    qrels_path, run_path = write_collection(tmp_path, 1)
    lines = [ln for ln in run_path.read_text().splitlines() if ln]
    first_q = lines[0].split()[0]
    moved = lines[1:] + lines[:1]  # the first query's first line goes to the end
    bad = tmp_path / "scattered.txt"
    bad.write_text("\n".join(moved) + "\n")
    qrels = Qrels.read(qrels_path)
    whole = judge(qrels, Run.read(bad), JudgeOptions())
    pieces(64)  # read whole instead when it fits the budget
    same_judged(judge_trec(qrels, qrels_path, bad, JudgeOptions()), whole)
    pieces(64, max_bytes=0)  # when it does not: the streaming error, naming the line
    message = _error(lambda: judge_trec(qrels, qrels_path, bad, JudgeOptions()))
    assert message.startswith(f"{bad}:{len(moved)}:")
    assert repr(first_q) in message and "together" in message
    # --stream on the command line: pieces only, the same error, one line, status 2
    _general(monkeypatch)
    pieces(64)
    assert main(["eval", "--stream", str(qrels_path), str(bad)]) == 2
    assert capsys.readouterr().err == f"cranfield eval: error: {message}\n"


def test_empty_truncated_gzip_and_zeros(tmp_path, pieces):
    qrels_path, run_path = write_collection(tmp_path, 0)
    qrels = Qrels.read(qrels_path)
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n")
    data = gzip.compress(run_path.read_bytes())
    truncated = tmp_path / "run.gz"
    truncated.write_bytes(data[: len(data) // 2])
    zeros = tmp_path / "zeros.txt"  # /dev/zero itself: tests/adversarial (memory-limited)
    zeros.write_bytes(b"1 Q0 a 1 1 t\n" + bytes(1 << 18))
    pieces(1 << 16)
    for path in (empty, truncated, zeros):
        expected = _error(lambda p=path: Run.read(p))
        assert _error(lambda p=path: judge_trec(qrels, qrels_path, p, JudgeOptions())) == expected
    assert "NUL byte" in expected and expected.startswith(f"{zeros}:2:")


def test_named_pipe_run_and_qrels_of_another_format(tmp_path, capsys, pieces):
    """A run in a named pipe is read once by the engine for the general path (here
    taken for qrels in CSV, which the engine path does not read), in pieces; the qrels
    reach the engine as TREC text written from the Qrels (fractional gains exact)."""
    qrels_path, run_path = write_collection(tmp_path, 4)
    rng = np.random.default_rng(4)
    rows = [line.split() for line in qrels_path.read_text().splitlines() if line.strip()]
    gains = [float(g) for g in rng.random(len(rows)) * 3]
    qrels_path.write_text(
        "".join(f"{q} 0 {d} {g!r}\n" for (q, _, d, _), g in zip(rows, gains, strict=True))
    )
    csv = tmp_path / "qrels.csv"
    csv.write_text(
        "query_id,doc_id,relevance\n"
        + "".join(f"{q},{d},{g!r}\n" for (q, _, d, _), g in zip(rows, gains, strict=True))
    )
    argv = ["-q", "--fractional", "-m", "AP", "nDCG@10", "P@5", "R@20", "RR"]
    assert main(["eval", str(qrels_path), str(run_path), *argv]) == 0  # the engine path
    expected = capsys.readouterr()
    pieces(200)
    fifo, writer = fifo_with_writer(tmp_path / "pipe", gzip.compress(run_path.read_bytes()))
    assert main(["eval", str(csv), str(fifo), *argv]) == 0
    writer.join(timeout=5)
    got = capsys.readouterr()
    assert got == expected


def test_stdin_replaced_by_a_stream_is_read_in_python(tmp_path, monkeypatch):
    """The engine reads file descriptor 0: standard input replaced by a stream (a
    program calling ``main``) is left to ``Run.read``."""
    import io

    qrels_path, run_path = write_collection(tmp_path, 2)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(run_path.read_bytes())))
    assert judge_trec(Qrels.read(qrels_path), qrels_path, "-", JudgeOptions()) is None


def test_gather_in_batches_equals_slices():
    from cranfield.core.judged import _gather

    rng = np.random.default_rng(0)
    for _ in range(200):
        lens = rng.integers(0, 9, int(rng.integers(0, 30)))
        total = int(lens.sum()) + int(rng.integers(0, 5))
        values = rng.integers(-2, 5, max(total, 1)).astype(np.int8)
        first = np.array([rng.integers(0, max(total - k, 0) + 1) for k in lens], dtype=np.int64)
        got = _gather(values, first, lens, batch=int(rng.integers(1, 12)))
        want = [values[f : f + k] for f, k in zip(first, lens, strict=True)]
        same_bits(got, np.concatenate(want) if want else np.zeros(0, np.int8))


def test_evaluate_judges_run_files_with_the_engine(tmp_path, pieces, monkeypatch):
    """``cranfield.evaluate`` given a TREC run by its path evaluates it with the engine
    (in pieces when large: the bounded-memory evaluation from Python), with the values
    of the run read whole: against a ``Qrels`` object's index
    (``evaluate_trec_files(qrels.index(), ...)``: the qrels are not written back as
    text), or, given the qrels by their path too, reading both (``evaluate_files``,
    the command line's path); ``judge_trec`` (the JudgedRun of a TREC file) is not
    needed."""
    from cranfield import _engine, evaluate
    from cranfield.core import engine_judge

    qrels_path, run_path = write_collection(tmp_path, 3)
    gz = tmp_path / "run.gz"
    gz.write_bytes(gzip.compress(run_path.read_bytes()))
    qrels = Qrels.read(qrels_path)
    calls = []
    real = engine_judge.judge_trec
    monkeypatch.setattr(
        engine_judge, "judge_trec", lambda *a, **k: calls.append(1) or real(*a, **k)
    )
    engine_calls = []
    real_files = _engine.evaluate_trec_files
    monkeypatch.setattr(
        _engine,
        "evaluate_trec_files",
        lambda *a, **k: engine_calls.append(1) or real_files(*a, **k),
    )
    pieces(100, max_bytes=0)
    for opts in OPTIONS:
        whole = evaluate(qrels, Run.read(run_path), MEASURES, **opts)
        for given in (str(run_path), gz, [run_path]):
            for q in (qrels, qrels_path):
                got = evaluate(q, given, MEASURES, **opts)
                assert got.runs[0].name == whole.runs[0].name == "tag3"
                same_values(got.runs[0], whole.runs[0])
    assert not calls and len(engine_calls) == 6 * len(OPTIONS)
    # one tag, and file names alike but for their extensions: named by the files as
    # given, whatever the qrels are (a path, an object)
    for q in (qrels, qrels_path):
        both = evaluate(q, [run_path, gz], MEASURES)
        assert [r.name for r in both.runs] == [str(run_path), str(gz)]
    renamed = evaluate(qrels, {"mine": run_path}, ["AP"])  # a mapping renames: Run.read
    assert renamed.runs[0].name == "mine"


def test_a_failure_after_reading_once_names_the_consumed_inputs():
    """An engine failure the general path would take over, once standard input or a
    named pipe is consumed, is reported naming them (the general path would read them
    empty); one before any reading is left to the general path."""
    from cranfield.core.io.problems import unread

    late = Exception("io", "run", None, "broken")
    got = unread(late, ["-"])
    assert str(got) == "internal error in the engine reading standard input (io: broken)"
    got = unread(late, ["/tmp/q.fifo", "-"])
    assert "reading /tmp/q.fifo, standard input (io: broken)" in str(got)
    assert unread(Exception("options", None, None, "bad"), ["-"]) is None
    assert unread(Exception("unsupported", "qrels", None, "pipe"), ["/tmp/q.fifo"]) is None


def test_qrels_objects_are_judged_against_by_their_index(tmp_path, monkeypatch):
    """Qrels that are not a TREC file (a dict here; CSV, Parquet, standard input) are
    given to the engine as the object's index (``Qrels.index()``, made once), whatever
    their ids: an id TREC text cannot hold (a space) once left the run to Python."""
    from cranfield import _engine

    _, run_path = write_collection(tmp_path, 5)
    run = Run.read(run_path)
    docs = run.table["doc_id"].to_pylist()
    queries = run.table["query_id"].to_pylist()
    qrels_dict: dict = {}
    for i, (q, d) in enumerate(zip(queries, docs, strict=True)):
        if i % 3 == 0:
            qrels_dict.setdefault(q, {})[d] = i % 4 - 1
    qrels_dict.setdefault(queries[0], {})["not in any run"] = 2
    qrels = Qrels.from_dict(qrels_dict)
    made = []
    real = _engine.QrelsIndex
    monkeypatch.setattr(_engine, "QrelsIndex", lambda *a: made.append(1) or real(*a))
    for options in OPTIONS:
        options = JudgeOptions(**options)
        got = judge_trec(qrels, None, run_path, options)
        assert got is not None
        same_judged(got, judge(qrels, run, options))
    assert made == [1]
