"""The progress bar of the engine's reading (``cranfield.progress.ReadProgress``).

The engine counts the bytes it reads from each input (as stored: compressed for gzip)
in a ``ReadCounter`` the caller polls from a thread; on a terminal the evaluation draws
a bar from it, elsewhere it draws nothing and passes no counter.
"""

from __future__ import annotations

import gzip
import io
import os

import pytest

from cranfield import _engine, progress
from cranfield.core.engine_judge import judge_trec
from cranfield.core.evaluation import evaluate_files
from cranfield.core.options import JudgeOptions
from cranfield.core.qrels import Qrels
from generators import trec_files


class Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture
def files(tmp_path):
    qrels_text, run_text = trec_files(7)
    qrels, run, packed = tmp_path / "qrels", tmp_path / "run", tmp_path / "run.gz"
    qrels.write_text(qrels_text)
    run.write_text(run_text)
    packed.write_bytes(gzip.compress(run_text.encode()))
    return qrels, run, packed


@pytest.mark.parametrize("name", ["run", "packed"])
def test_the_engine_counts_every_byte_of_its_inputs_once(files, name):
    qrels, run, packed = files
    path = run if name == "run" else packed
    for function, args in [
        (_engine.evaluate_trec_files, (str(qrels), [str(path)], [("AP", None, {})])),
        (_engine.judge_trec_files, (str(path), str(qrels))),
    ]:
        # read whole, and streamed in pieces
        for reading in ({"piece_bytes": 0}, {"piece_bytes": 64, "whole_bytes": 0}):
            counter = _engine.ReadCounter()
            function(*args, progress=counter, **reading)
            assert counter.bytes == os.path.getsize(qrels) + os.path.getsize(path)


def test_an_evaluation_draws_its_reading_on_a_terminal_only(files, monkeypatch):
    qrels, run, _ = files
    monkeypatch.setattr(progress, "MIN_BYTES", 0)
    monkeypatch.setattr(progress, "DELAY", 0)
    quiet = evaluate_files(qrels, [run], ["AP", "P@5"])
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    drawn = evaluate_files(qrels, [run], ["AP", "P@5"])
    assert drawn.dumps(per_query=True) == quiet.dumps(per_query=True)
    out = terminal.getvalue()
    assert "reading [" + "#" * 30 + "]" in out  # every byte read: the bar full
    assert out.endswith("\r" + " " * 120 + "\r")  # then cleared


def test_the_general_paths_judge_draws_too(files, monkeypatch):
    qrels, run, _ = files
    monkeypatch.setattr(progress, "MIN_BYTES", 0)
    monkeypatch.setattr(progress, "DELAY", 0)
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    judged = judge_trec(Qrels.read(str(qrels)), str(qrels), str(run), JudgeOptions())
    assert judged is not None and "reading [" + "#" * 30 + "]" in terminal.getvalue()


def test_no_counter_without_a_bar(files, monkeypatch, tmp_path):
    qrels, run, _ = files
    assert progress.ReadProgress([qrels, run], "reading").counter is None  # not a terminal
    monkeypatch.setattr("sys.stderr", Terminal())
    assert progress.ReadProgress([qrels, run], "reading").counter is None  # small inputs
    monkeypatch.setattr(progress, "MIN_BYTES", 0)
    assert progress.ReadProgress([qrels, run], "reading").counter is not None
    # no size to count against: standard input, a directory, a missing file
    for other in ["-", tmp_path, tmp_path / "missing"]:
        assert progress.ReadProgress([qrels, other], "reading").counter is None


def test_trec_eval_draws_its_reading_too(files, monkeypatch):
    from cranfield.core.trec_eval import trec_eval_files

    qrels, run, _ = files
    quiet = trec_eval_files(str(qrels), str(run), ["map"])
    monkeypatch.setattr(progress, "MIN_BYTES", 0)
    monkeypatch.setattr(progress, "DELAY", 0)
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    drawn = trec_eval_files(str(qrels), str(run), ["map"])
    assert drawn.text == quiet.text
    assert "reading [" + "#" * 30 + "]" in terminal.getvalue()
