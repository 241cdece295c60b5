"""``cranfield eval`` on TREC files takes the engine path (read, judge and measure in
the compiled engine, no NumPy or PyArrow needed) and prints exactly what the general
path prints, for every output format and judging option; anything the engine does not
do falls back to the general path."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from cranfield import _engine
from cranfield.cli import eval_cmd
from cranfield.cli.main import main


def _files(tmp_path, seed: int, tags=("sysA",)):
    """Qrels and runs with ties, unjudged documents, negative grades, queries only in
    the qrels or only in the run."""
    rng = np.random.default_rng(seed)
    qrels, runs = [], [[] for _ in tags]
    for q in range(int(rng.integers(1, 9))):
        docs = [f"d{i}" for i in range(int(rng.integers(1, 30)))]
        if q % 4 != 3:
            for d in docs:
                if rng.random() < 0.6:
                    qrels.append(f"q{q} 0 {d} {int(rng.integers(-1, 4))}\n")
        if q % 5 == 4:
            continue
        for lines, tag in zip(runs, tags, strict=True):
            for rank, d in enumerate(rng.permutation(docs)[: int(rng.integers(1, len(docs) + 1))]):
                score = float(rng.integers(0, 5)) if seed % 2 else float(rng.normal())
                lines.append(f"q{q} Q0 {d} {rank} {score!r} {tag}\n")
    if not qrels:
        qrels.append("q0 0 d0 1\n")
    qpath = tmp_path / "qrels.txt"
    qpath.write_text("".join(qrels))
    paths = []
    for i, lines in enumerate(runs):
        path = tmp_path / f"run{i}.txt"
        path.write_text("".join(lines))
        paths.append(str(path))
    return str(qpath), paths


def _both(capsys, monkeypatch, argv):
    """(engine path's output, general path's output), asserting the engine ran."""
    calls = []
    real = _engine.evaluate_trec_files
    monkeypatch.setattr(
        _engine, "evaluate_trec_files", lambda *a, **k: calls.append(1) or real(*a, **k)
    )
    status = main(argv)
    fast = capsys.readouterr()
    assert calls, "the engine path was not taken"
    monkeypatch.setattr(eval_cmd, "_engine_path", lambda args: None)
    assert main(argv) == status
    general = capsys.readouterr()
    return fast, general


OPTIONS = [
    [],
    ["-q"],
    ["-q", "--format", "json"],
    ["--format", "csv", "-q"],
    ["--format", "trec", "-q"],
    ["--format", "markdown"],
    ["-c", "-q"],
    ["-M", "3", "-q"],
    ["-J", "-q", "--format", "json"],
    ["-l", "2", "-q"],
    ["--compat", "9", "-q", "--format", "json"],
]
MEASURES = ["AP", "nDCG@10", "P@5", "RR", "R@100", "bpref", "GMAP", "ERR@20", "num_ret"]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("options", OPTIONS, ids=" ".join)
def test_engine_path_prints_what_the_general_path_prints(
    tmp_path, capsys, monkeypatch, seed, options
):
    qrels, runs = _files(tmp_path, seed)
    fast, general = _both(capsys, monkeypatch, ["eval", qrels, *runs, "-m", *MEASURES, *options])
    assert fast.out == general.out and fast.err == general.err


def test_runs_of_one_tag_gzip_and_relstring(tmp_path, capsys, monkeypatch):
    """Two runs with the same tag are named by their files; a gzip run reads as plain;
    text measures (relstring) and measures with parameters go through the engine."""
    qrels, runs = _files(tmp_path, 3, tags=("same", "same"))
    zipped = tmp_path / "zipped.run"
    zipped.write_bytes(gzip.compress(open(runs[1], "rb").read()))
    argv = ["eval", qrels, runs[0], str(zipped), "-q", "-m", "relstring@5", "P(rel=2)@3"]
    fast, general = _both(capsys, monkeypatch, argv)
    assert fast.out == general.out and "zipped" in fast.out


def test_what_the_engine_does_not_do_takes_the_general_path(tmp_path, capsys, monkeypatch):
    """Other formats, standard input, micro averages, a measure with a run check, and
    problems in the input (the general path's message) are not the engine path's."""
    qrels, runs = _files(tmp_path, 1)
    calls = []
    real = _engine.evaluate_trec_files
    monkeypatch.setattr(
        _engine, "evaluate_trec_files", lambda *a, **k: calls.append(1) or real(*a, **k)
    )
    for extra in (
        ["--aggregate", "micro", "-m", "P@5"],
        ["-m", "Fallout@5", "--collection-size", "1000"],
        ["-m", "P(judged_only=True)@5"],
    ):
        assert main(["eval", qrels, *runs, *extra]) == 0
    assert not calls
    bad = tmp_path / "bad.txt"
    bad.write_text("q0 Q0 d0 1 1.0 t\nq0 Q0 d0 2 0.5 t\n")  # a document ranked twice
    assert main(["eval", qrels, str(bad), "-m", "AP"]) == 2
    assert calls  # the engine was asked, refused, and the general path reported it
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad.txt" in err
