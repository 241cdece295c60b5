"""``cranfield eval`` on TREC files takes the engine path (read, judge and measure in
the compiled engine, no NumPy or PyArrow needed) and prints exactly what the general
path prints, for every output format and judging option; anything the engine does not
do falls back to the general path."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from cranfield import _engine
from cranfield.cli.main import main
from cranfield.core import files


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


def _both(capsys, monkeypatch, argv, engine_alone=True):
    """(engine path's output, general path's output), asserting the engine ran (and,
    with ``engine_alone``, that the general path did not)."""
    calls = []
    real = _engine.evaluate_trec_files
    monkeypatch.setattr(
        _engine, "evaluate_trec_files", lambda *a, **k: calls.append(1) or real(*a, **k)
    )
    with monkeypatch.context() as m:
        if engine_alone:
            _engine_alone(m)
        status = main(argv)
    fast = capsys.readouterr()
    assert calls, "the engine path was not taken"
    with monkeypatch.context() as m:
        m.setattr(files, "_engine_results", lambda job: None)
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


# option sets the engine path took over from the general path, with the measures
# they concern: the judged-only view, skipped queries, the collection size and the
# run checks of Fallout and Generality (a refusal when it is too small)
MORE_OPTIONS = [
    ["--skip-no-relevant", "-q"],
    ["--skip-no-relevant", "-c", "--format", "json"],
    ["-m", "P(judged_only=True)@5", "AP(judged_only=True)", "nDCG@10", "-q"],
    ["-m", "nDCG(judged_only=True)@10", "bpref", "RR(judged_only=True)", "-J", "-q"],
    ["-m", "Fallout@5", "Generality", "P@5", "-N", "1000", "-q", "--format", "csv"],
    ["-m", "Fallout", "Generality(collection_size=7)", "-N", "25", "-q"],
    ["-m", "Fallout@3", "-N", "3", "--skip-no-relevant", "-q"],
    ["-m", "AP", "Fallout(collection_size=2)@2", "ERR@20", "-q"],
    ["-m", "Generality", "-q"],  # no collection size: the general path's refusal
    ["--aggregate", "micro", "-m", "P@5", "R@10", "SetP", "SetR", "SetF", "set_F", "-q"],
    ["--aggregate", "micro", "-m", "SetF(beta=0.5)", "set_F(x=0.25)", "P(rel=2)@3", "-c"],
    ["--aggregate", "micro", "-m", "Fallout@4", "Generality", "-N", "500", "-J"],
    ["--aggregate", "micro", "-m", "P(judged_only=True)@5", "SetR(rel=2)", "-l", "2"],
    ["--aggregate", "micro", "-m", "P@2", "SetP", "--skip-no-relevant", "--format", "json"],
]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("options", MORE_OPTIONS, ids=" ".join)
def test_options_on_the_engine_path(tmp_path, capsys, monkeypatch, seed, options):
    qrels, runs = _files(tmp_path, seed, tags=("a", "b"))
    argv = ["eval", qrels, *runs, *(options if "-m" in options else ["-m", *MEASURES, *options])]
    fast, general = _both(capsys, monkeypatch, argv, engine_alone=options[1] != "Generality")
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
    """A micro average of a measure that has none is the general path's refusal."""
    qrels, runs = _files(tmp_path, 1)
    calls = []
    real = _engine.evaluate_trec_files
    monkeypatch.setattr(
        _engine, "evaluate_trec_files", lambda *a, **k: calls.append(1) or real(*a, **k)
    )
    assert main(["eval", qrels, *runs, "--aggregate", "micro", "-m", "P@5", "AP"]) == 2
    assert not calls
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "micro averaging is defined for" in err


QRELS = "q0 0 d0 1\nq0 0 d1 0\nq1 0 d2 2\n"
RUN = "q0 Q0 d0 1 2.0 t\nq0 Q0 d1 2 1.0 t\nq1 Q0 d2 1 0.5 t\n"
# (name, qrels, run, second run or None, extra options): problems in an input, each
# reported by the engine path with the general path's message and status
PROBLEMS = [
    ("duplicate_in_run", QRELS, RUN + "q0 Q0 d0 3 0.1 t\n", None, []),
    ("duplicate_in_qrels", QRELS + "q0 0 d0 0\n", RUN, None, []),
    ("duplicate_in_qrels_and_bad_run", QRELS + "q0 0 d0 0\n", RUN + "q0 Q0 d9 x\n", None, []),
    ("empty_qrels_and_bad_run", "\n# nothing\n", RUN + "q0 Q0 d9 1 x t\n", None, []),
    ("duplicates_first", QRELS, RUN + "q0 Q0 d0 3 9 t\n", None, ["--duplicates", "first"]),
    ("duplicates_max", QRELS, RUN + "q0 Q0 d0 3 9 t\n", None, ["--duplicates", "max"]),
    ("bad_score", QRELS, RUN + "q1 Q0 d3 2 x t\n", None, []),
    ("nan_score", QRELS, RUN + "q1 Q0 d3 2 nan t\n", None, []),
    ("qrels_as_run", QRELS, QRELS, None, []),
    ("run_as_qrels", RUN, RUN, None, []),
    ("five_fields", QRELS, RUN + "q1 Q0 d3 2 t\n", None, []),
    ("bad_grade", QRELS + "q1 0 d4 x\n", RUN, None, []),
    ("bad_fractional_grade", QRELS + "q1 0 d4 inf\n", RUN, None, ["--fractional"]),
    ("nul_byte", QRELS, RUN + "q1 Q0 d\x003 2 0 t\n", None, []),
    ("invalid_utf8", QRELS, RUN + "q1 Q0 d\udce93 2 0 t\n", None, []),
    ("empty_run", QRELS, "", None, []),
    ("empty_qrels", "", RUN, None, []),
    ("no_shared_query", "q9 0 d0 1\n", RUN, None, []),
    ("no_shared_query_first_of_two", "q9 0 d0 1\nq1 0 d2 1\n", "q0 Q0 d0 1 1 a\n", RUN, []),
    ("second_run_bad", QRELS, RUN, RUN + "q1 Q0 d3 2 x u\n", []),
    ("second_run_duplicate", QRELS, RUN, RUN + "q1 Q0 d2 2 0 u\n", []),
    ("nothing_relevant_skipped", "q0 0 d0 0\n", RUN, None, ["--skip-no-relevant", "-m", "AP"]),
    (
        "second_run_nothing_relevant",
        "q0 0 d0 1\nq1 0 d2 0\n",
        RUN,
        "q1 Q0 d2 1 1 u\n",
        ["--skip-no-relevant", "-m", "AP"],
    ),
    (
        "refusal_before_second_run_bad",
        QRELS + "q1 0 d5 9\n",
        RUN + "q1 Q0 d5 2 0 t\n",
        "q1 Q0 x\n",
        ["-m", "AP", "ERR@20"],
    ),
    ("measure_refuses", QRELS + "q1 0 d5 9\n", RUN + "q1 Q0 d5 2 0 t\n", None, ["-m", "ERR@20"]),
]


def _write(path, text: str) -> str:
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    return str(path)


def _engine_alone(monkeypatch):
    """Make any reading by the general path fail the test."""
    from cranfield.core.qrels import Qrels
    from cranfield.core.run import Run

    def general(*a, **k):
        raise AssertionError("the general path ran")

    monkeypatch.setattr(Qrels, "read", general)
    monkeypatch.setattr(Run, "read", general)


def _compare(capsys, monkeypatch, argv, engine_alone=True):
    """(status, stderr) of the engine path, asserted equal to the general path's."""
    with monkeypatch.context() as m:
        if engine_alone:
            _engine_alone(m)
        status = main(argv)
        fast = capsys.readouterr()
    with monkeypatch.context() as m:
        m.setattr(files, "_engine_results", lambda job: None)
        assert main(argv) == status, fast.err
        general = capsys.readouterr()
    assert (fast.out, fast.err) == (general.out, general.err)
    return status, fast.err


@pytest.mark.parametrize(
    ("name", "qrels", "run", "second", "extra"), PROBLEMS, ids=[p[0] for p in PROBLEMS]
)
def test_input_problems_reported_by_the_engine_path(
    tmp_path, capsys, monkeypatch, name, qrels, run, second, extra
):
    runs = [_write(tmp_path / "a.run", run)]
    if second is not None:
        runs.append(_write(tmp_path / "b.run", second))
    argv = ["eval", _write(tmp_path / "q.txt", qrels), *runs, "-q", *(extra or ["-m", "AP"])]
    status, err = _compare(capsys, monkeypatch, argv)
    if name.startswith("duplicates_"):
        assert status == 0
    else:
        assert status == 2 and err.count("\n") == 1 and err.startswith("cranfield eval: error:")


def test_file_problems_reported_by_the_engine_path(tmp_path, capsys, monkeypatch):
    """Missing files, dangling links and gzip problems: the engine path's messages are
    the general path's (a directory is not a regular file: the general path reads it)."""
    qrels = _write(tmp_path / "q.txt", QRELS)
    run = _write(tmp_path / "r.txt", RUN)
    data = gzip.compress(RUN.encode())
    (tmp_path / "truncated.gz").write_bytes(data[:-9])
    (tmp_path / "trailing.gz").write_bytes(data + b"junk")
    (tmp_path / "corrupt.gz").write_bytes(data[:12] + b"\xff" * 8 + data[20:])
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    for argv in (
        [qrels, str(tmp_path / "absent")],
        [str(tmp_path / "absent"), run],
        [qrels, str(tmp_path / "dangling")],
        [qrels, str(tmp_path / "truncated.gz")],
        [qrels, str(tmp_path / "trailing.gz")],
        [qrels, str(tmp_path / "corrupt.gz")],
        [str(tmp_path / "truncated.gz"), run],
    ):
        status, err = _compare(capsys, monkeypatch, ["eval", *argv, "-m", "AP"])
        assert status == 2 and err.count("\n") == 1, err
    status, err = _compare(capsys, monkeypatch, ["eval", qrels, str(tmp_path)], False)
    assert status == 2 and "directory" in err


def test_gzip_beyond_the_memory_budget(tmp_path, capsys, monkeypatch):
    """A gzip run beyond what may be read whole is read by the engine in pieces (bounded
    memory): the values of the same run read from a plain file."""
    from cranfield.core import memory
    from cranfield.core.io import trec

    def copies(text: str) -> str:  # the queries renamed in each of 100 copies
        return "".join(text.replace("q0", f"q0{i}").replace("q1", f"q1{i}") for i in range(100))

    qrels = _write(tmp_path / "q.txt", copies(QRELS))
    text = copies(RUN)
    plain = _write(tmp_path / "r.txt", text)
    (tmp_path / "r.gz").write_bytes(gzip.compress(text.encode()))
    assert main(["eval", "-q", qrels, plain]) == 0
    expected = capsys.readouterr()
    monkeypatch.setattr(memory, "input_budget", lambda: 1 << 10)
    monkeypatch.setattr(trec, "input_budget", lambda: 1 << 10)
    with monkeypatch.context() as m:
        _engine_alone(m)
        assert main(["eval", "-q", qrels, str(tmp_path / "r.gz")]) == 0
    assert capsys.readouterr() == expected


@pytest.mark.parametrize(
    "measures",
    [["AP", "relstring@5", "rbp"], ["P(judged_only=True)@5", "rbp", "ERR@20"], ["nDCG@5", "rbp"]],
    ids=" ".join,
)
@pytest.mark.parametrize("soft", [True, False])
def test_families_refusing_fractional_grades(tmp_path, capsys, monkeypatch, measures, soft):
    """With --fractional, relstring and rbp refuse qrels with fractional grades (the
    first refusing measure in order is reported), and take whole-valued ones."""
    grades = "0.5" if soft else "2.0"
    qrels = _write(tmp_path / "q.txt", QRELS + f"q1 0 d3 {grades}\n")
    run = _write(tmp_path / "r.txt", RUN)
    argv = ["eval", qrels, run, "--fractional", "-q", "-m", *measures]
    fast, general = _both(capsys, monkeypatch, argv)
    assert (fast.out, fast.err) == (general.out, general.err)
    assert ("not defined for fractional relevance" in fast.err) == soft


def test_every_micro_average_is_the_engines(tmp_path, capsys, monkeypatch):
    """Each family the registry gives a micro average (``MeasureDef.micro``) has one in
    the engine (rust/eval/src/micro.rs), equal to the general path's."""
    from cranfield.core.measures.registry import all_definitions

    qrels, runs = _files(tmp_path, 4)
    names = [d.name for d in all_definitions() if d.micro is not None]
    assert len(names) >= 8
    for name in names:
        d = next(d for d in all_definitions() if d.name == name)
        measure = name + ("@5" if d.cutoff_required else "")
        argv = ["eval", qrels, *runs, "--aggregate", "micro", "-N", "300", "-m", measure]
        fast, general = _both(capsys, monkeypatch, argv)
        assert fast.out == general.out and fast.err == general.err and fast.out, name


def test_options_and_problems_import_neither_numpy_nor_pyarrow(tmp_path):
    """The options the engine path took over, and the problems it reports, need
    neither NumPy nor PyArrow in the process."""
    import subprocess
    import sys

    qrels = _write(tmp_path / "q.txt", QRELS)
    run = _write(tmp_path / "r.txt", RUN)
    dup = _write(tmp_path / "d.txt", RUN + "q0 Q0 d0 3 0.1 t\n")
    cases = [
        [qrels, run, "--aggregate", "micro", "-m", "P@5", "SetF", "--skip-no-relevant"],
        [qrels, run, "-m", "P(judged_only=True)@5", "Fallout@5", "Generality", "-N", "100"],
        [qrels, dup, "-m", "AP"],
        [qrels, str(tmp_path / "absent"), "-m", "AP"],
    ]
    script = (
        "import sys, contextlib, io\n"
        "from cranfield.cli.main import main\n"
        f"for argv in {cases!r}:\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n"
        "        status = main(['eval', *argv])\n"
        "    print(status, sorted(m for m in ('numpy', 'pyarrow') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.stdout.splitlines() == ["0 []", "0 []", "2 []", "2 []"], done.stderr
