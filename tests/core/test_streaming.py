"""Streaming a run in query-aligned pieces gives exactly what reading it whole gives.

Pieces are made tiny (a few hundred bytes, i.e. a few queries) so that every file is
cut many times: at query boundaries, inside a long query (the block grows), after
comment and blank lines. Compared with the in-memory path bit for bit: every
per-query value, every aggregate, the trec_eval text (-q, all_trec, -c/-M/-J/-l,
compat 9), the run name, and the messages (line numbers) of bad input.
"""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from cranfield.cli.main import main
from cranfield.core import streaming
from cranfield.core.evaluation import evaluate
from cranfield.core.qrels import Qrels
from cranfield.core.run import Run
from cranfield.core.trec_eval import run_trec_eval
from cranfield.errors import InputError
from generators import trec_files

MEASURES = ["AP", "nDCG@10", "P@5", "R@20", "RR", "Bpref", "infAP", "rbp", "SetF", "Rprec"]


def write_collection(tmp_path, seed: int, sep: str = " "):
    qrels_text, run_text = trec_files(seed, sep)
    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    qrels.write_text(qrels_text)
    run.write_text(run_text)
    return qrels, run


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes()


OPTIONS = [
    {},
    {"complete": True},
    {"depth": 7, "judged_only": True},
    {"compat": 9, "rel_level": 2},
    {"rel_level": 0, "complete": True, "depth": 3},
]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("chunk", [64, 300, 5000])
def test_stream_equals_in_memory(tmp_path, seed, chunk):
    qrels_path, run_path = write_collection(tmp_path, seed, sep="\t" if seed == 4 else " ")
    qrels = Qrels.read(qrels_path)
    run = Run.read(run_path)
    for opts in OPTIONS:
        whole = evaluate(qrels, run, MEASURES, **opts)
        streamed = streaming.evaluate_file(qrels, run_path, MEASURES, chunk_bytes=chunk, **opts)
        a, b = whole.runs[0], streamed.runs[0]
        assert a.name == b.name == f"tag{seed}"
        assert list(a.query_ids) == list(b.query_ids)
        for m in whole.measures:
            same_bits(a.values[m], b.values[m])
            assert a.aggregates[m] == b.aggregates[m] or (
                np.isnan(a.aggregates[m]) and np.isnan(b.aggregates[m])
            )
        ja, jb = a.judged, b.judged
        for field in ("offsets", "labels", "qrels_offsets", "qrels_grades", "in_run"):
            same_bits(getattr(ja, field), getattr(jb, field))


@pytest.mark.parametrize("seed", range(3))
def test_trec_eval_text_streamed(tmp_path, seed):
    qrels_path, run_path = write_collection(tmp_path, seed)
    qrels = Qrels.read(qrels_path)
    run = Run.read(run_path)
    for opts in OPTIONS:
        text = run_trec_eval(qrels, run, ["all_trec"], per_query=True, **opts)
        judged = streaming.judge_file(qrels, run_path, chunk_bytes=200, **opts)
        assert (
            run_trec_eval(qrels, None, ["all_trec"], per_query=True, judged=judged, **opts) == text
        )


def test_cli_stream_option_and_threshold(tmp_path, capsys, monkeypatch):
    qrels_path, run_path = write_collection(tmp_path, 1)
    monkeypatch.setattr(streaming, "CHUNK_BYTES", 128)
    argv = [str(qrels_path), str(run_path)]
    for cmd in (
        ["trec_eval", "-q", "-m", "all_trec", "-c", *argv],
        ["eval", *argv, "-q", "-m", *MEASURES],
    ):
        assert main(cmd) == 0
        expected = capsys.readouterr().out
        assert main([cmd[0], "--stream", *cmd[1:]]) == 0
        assert capsys.readouterr().out == expected
    calls = []
    real = streaming.judge_file
    monkeypatch.setattr(streaming, "judge_file", lambda *a, **k: calls.append(1) or real(*a, **k))
    # too little memory for the run (but enough for the qrels): streamed unasked
    from cranfield.core import memory

    size = run_path.stat().st_size
    room = memory.NEED_PER_BYTE * size + memory.NEED_BASE - 1
    monkeypatch.setattr(memory, "_meminfo_available", lambda: room / memory.RAM_SHARE)
    assert streaming.should_stream(run_path) and not streaming.should_stream(qrels_path)
    # the compiled engine reads runs of any size itself (in pieces): no NumPy streaming
    assert main(["trec_eval", *argv]) == 0
    assert main(["eval", *argv]) == 0
    assert calls == []
    # where the engine declines, the general path streams what does not fit
    from cranfield.cli import eval_cmd, trec_eval_cmd

    monkeypatch.setattr(trec_eval_cmd, "_engine_path", lambda *a: None)
    monkeypatch.setattr(eval_cmd, "_engine_path", lambda *a: None)
    assert main(["trec_eval", *argv]) == 0
    assert calls == [1]
    assert main(["eval", *argv]) == 0
    assert calls == [1, 1]


def test_gzip_and_long_query(tmp_path):
    qrels_path, run_path = write_collection(tmp_path, 2)
    gz = tmp_path / "run.gz"
    gz.write_bytes(gzip.compress(run_path.read_bytes()))
    qrels = Qrels.read(qrels_path)
    whole = evaluate(qrels, Run.read(run_path), MEASURES)
    # pieces of 16 bytes: every query is longer than a piece, blocks grow until it ends
    streamed = streaming.evaluate_file(qrels, gz, MEASURES, chunk_bytes=16)
    for m in whole.measures:
        same_bits(whole.runs[0].values[m], streamed.runs[0].values[m])


def _error(fn):
    with pytest.raises(InputError) as info:
        fn()
    return str(info.value)


@pytest.mark.parametrize("chunk", [50, 400])
def test_bad_lines_and_duplicates_report_file_lines(tmp_path, chunk):
    qrels_path, run_path = write_collection(tmp_path, 5)
    qrels = Qrels.read(qrels_path)
    lines = run_path.read_text().splitlines()
    cases = {
        "short": lines[:40] + ["7 Q0 D1 1"] + lines[40:],
        "nan": lines[:33] + [lines[33].rsplit(" ", 2)[0] + " nan tagX"] + lines[34:],
        "dup": lines[:30] + [lines[28]] + lines[30:],
    }
    for name, content in cases.items():
        bad = tmp_path / f"{name}.txt"
        bad.write_text("\n".join(content) + "\n")
        expected = _error(lambda b=bad: Run.read(b))
        got = _error(lambda b=bad: streaming.judge_file(qrels, b, chunk_bytes=chunk))
        assert got == expected, name
        assert f"{bad}:" in got


def test_duplicate_policies_streamed(tmp_path):
    qrels_path, run_path = write_collection(tmp_path, 3)
    lines = run_path.read_text().splitlines()
    dup = tmp_path / "dup.txt"
    dup.write_text("\n".join(lines[:20] + [lines[15].replace(" Q0 ", " Q1 ")] + lines[20:]) + "\n")
    qrels = Qrels.read(qrels_path)
    for policy in ("first", "max"):
        whole = evaluate(qrels, Run.read(dup, duplicates=policy), MEASURES)
        streamed = streaming.evaluate_file(qrels, dup, MEASURES, chunk_bytes=100, duplicates=policy)
        for m in whole.measures:
            same_bits(whole.runs[0].values[m], streamed.runs[0].values[m])


def test_query_lines_not_together(tmp_path):
    qrels_path, run_path = write_collection(tmp_path, 1)
    lines = [ln for ln in run_path.read_text().splitlines() if ln]
    first_q = lines[0].split()[0]
    moved = lines[1:] + lines[:1]  # the first query's first line goes to the end
    bad = tmp_path / "scattered.txt"
    bad.write_text("\n".join(moved) + "\n")
    message = _error(lambda: streaming.judge_file(Qrels.read(qrels_path), bad, chunk_bytes=64))
    assert f"{bad}:{len(moved)}:" in message
    assert repr(first_q) in message and "together" in message
    # in one piece (large blocks) the same file is accepted and equals the in-memory result
    qrels = Qrels.read(qrels_path)
    whole = evaluate(qrels, Run.read(bad), MEASURES)
    streamed = streaming.evaluate_file(qrels, bad, MEASURES, chunk_bytes=1 << 20)
    for m in whole.measures:
        same_bits(whole.runs[0].values[m], streamed.runs[0].values[m])


def test_empty_and_bad_parameters(tmp_path):
    qrels_path, _ = write_collection(tmp_path, 0)
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n")
    assert "no run lines" in _error(lambda: streaming.judge_file(Qrels.read(qrels_path), empty))
    from cranfield.errors import ParameterError

    with pytest.raises(ParameterError, match="chunk_bytes"):
        streaming.judge_file(Qrels.read(qrels_path), empty, chunk_bytes=0)


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


def test_progress_bar_only_on_a_terminal_after_a_second(tmp_path, monkeypatch):
    import io

    qrels_path, run_path = write_collection(tmp_path, 2)
    qrels = Qrels.read(qrels_path)

    class Tty(io.StringIO):
        def isatty(self):
            return True

    clock = iter(range(0, 10_000, 2))  # every reading of the clock: 2 s later
    monkeypatch.setattr(streaming.time, "monotonic", lambda: next(clock))
    for stream, drawn in ((Tty(), True), (io.StringIO(), False)):
        monkeypatch.setattr("sys.stderr", stream)
        streaming.judge_file(qrels, run_path, chunk_bytes=300)
        assert ("evaluating [" in stream.getvalue()) is drawn
    quiet = Tty()
    monkeypatch.setattr("sys.stderr", quiet)
    monkeypatch.setattr(streaming.time, "monotonic", lambda: 0.0)  # fast work: no bar
    streaming.judge_file(qrels, run_path, chunk_bytes=300)
    assert quiet.getvalue() == ""


# -- hostile input (issue 13) -------------------------------------------------------------------


def test_truncated_gzip_is_an_input_error(tmp_path):
    """A truncated gzip raised EOFError (a traceback on the command line)."""
    qrels_path, run_path = write_collection(tmp_path, 1)
    data = gzip.compress(run_path.read_bytes())
    gz = tmp_path / "run.gz"
    gz.write_bytes(data[: len(data) // 2])
    qrels = Qrels.read(qrels_path)
    message = _error(lambda: streaming.judge_file(qrels, gz, chunk_bytes=64))
    assert str(gz) in message and "gzip" in message


def test_plain_text_named_gz_streams(tmp_path):
    qrels_path, run_path = write_collection(tmp_path, 4)
    named = tmp_path / "run.gz"
    named.write_bytes(run_path.read_bytes())
    qrels = Qrels.read(qrels_path)
    whole = evaluate(qrels, Run.read(run_path), MEASURES)
    streamed = streaming.evaluate_file(qrels, named, MEASURES, chunk_bytes=100)
    for m in whole.measures:
        same_bits(whole.runs[0].values[m], streamed.runs[0].values[m])


def test_named_pipe_streams_once(tmp_path):
    """The input is opened once (reopening a pipe blocks forever)."""
    import os
    import threading

    qrels_path, run_path = write_collection(tmp_path, 5)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)

    def feed():
        with open(fifo, "wb") as fh:
            fh.write(gzip.compress(run_path.read_bytes()))

    thread = threading.Thread(target=feed, daemon=True)
    thread.start()
    qrels = Qrels.read(qrels_path)
    result: list = []
    reader = threading.Thread(
        target=lambda: result.append(
            streaming.evaluate_file(qrels, fifo, MEASURES, chunk_bytes=200)
        ),
        daemon=True,
    )
    reader.start()
    reader.join(20)  # a reader that reopens the pipe blocks: fail, do not hang
    assert result, "the reader blocked (or failed)"
    streamed = result[0]
    thread.join(timeout=5)
    whole = evaluate(qrels, Run.read(run_path), MEASURES)
    for m in whole.measures:
        same_bits(whole.runs[0].values[m], streamed.runs[0].values[m])


def test_zeros_and_endless_lines_stop(tmp_path, monkeypatch):
    qrels_path, _ = write_collection(tmp_path, 0)
    qrels = Qrels.read(qrels_path)
    zeros = tmp_path / "zeros.txt"  # /dev/zero itself: tests/adversarial (memory-limited)
    zeros.write_bytes(b"1 Q0 a 1 1 t\n" + bytes(1 << 18))
    message = _error(lambda: streaming.judge_file(qrels, zeros, chunk_bytes=1 << 16))
    assert message.startswith(f"{zeros}:2:") and "NUL byte" in message
    monkeypatch.setattr(streaming, "MAX_LINE", 1000)
    endless = tmp_path / "endless.txt"
    endless.write_bytes(b"1 Q0 a 1 1 t\n" + b"x" * 5000)
    message = _error(lambda: streaming.judge_file(qrels, endless, chunk_bytes=256))
    assert message.startswith(f"{endless}:2:") and "longer than" in message
