"""Several runs in one engine call (``_engine.evaluate_trec_files``) are evaluated in
parallel (rust/eval/src/runs.rs): the results must be exactly those of each run
evaluated alone, in input order, and a failure must be the first failing run's, as when
the runs are evaluated one after the other."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield import _engine
from cranfield.cli.main import main
from cranfield.core.options import JudgeOptions

SPECS = [
    ("AP", None, {}),
    ("nDCG", 10, {}),
    ("P", 5, {}),
    ("RR", None, {}),
    ("R", 100, {}),
    ("Bpref", None, {}),
    ("NumRet", None, {}),
    ("relstring", 5, {}),
]


def _qrels(tmp_path, rng, queries: int = 8, docs: int = 40) -> str:
    lines = [
        f"q{q} 0 d{d} {int(rng.integers(-1, 4))}\n"
        for q in range(queries)
        for d in range(docs)
        if rng.random() < 0.5
    ]
    path = tmp_path / "qrels.txt"
    path.write_text("".join(lines) or "q0 0 d0 1\n")
    return str(path)


def _run(tmp_path, rng, name: str, tag: str, queries: int = 9, docs: int = 40) -> str:
    """A run with ties, queries absent from the qrels, documents out of order."""
    lines = []
    chosen = rng.permutation(queries)[: int(rng.integers(1, queries + 1))].tolist()
    # q0 (judged) in every run: a run sharing no query with the qrels is an error
    for q in chosen if 0 in chosen else [0, *chosen]:
        for rank, d in enumerate(rng.permutation(docs)[: int(rng.integers(1, docs))]):
            score = float(rng.integers(0, 4)) if rng.random() < 0.5 else float(rng.normal())
            lines.append(f"q{q} Q0 d{d} {rank} {score!r} {tag}\n")
    path = tmp_path / name
    path.write_text("".join(lines))
    return str(path)


def _runs(tmp_path, rng, count: int) -> list[str]:
    # a few tags shared by several runs
    return [_run(tmp_path, rng, f"run{i}.txt", f"tag{i % 4}") for i in range(count)]


def _error(call):
    """The exception's type name and arguments."""
    with pytest.raises(Exception) as info:
        call()
    return type(info.value).__name__, info.value.args


def _as_alone(error, index: int):
    """An error of the run at ``index`` of a call as the same run alone reports it: a
    problem in a run carries the run's index (the fifth argument of a JudgeError)."""
    kind, args = error
    if kind == "JudgeError" and len(args) == 5:
        assert args[4] == index
        return kind, (*args[:4], 0)
    return error


OPTIONS = [
    {},
    {"complete": True},
    {"depth": 7, "judged_only": True},
    {"compat": 9, "rel_level": 2},
    {"duplicates": "first"},
]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_many_runs_in_one_call_are_each_run_alone(tmp_path, seed, options):
    rng = np.random.default_rng(seed)
    qrels = _qrels(tmp_path, rng)
    runs = _runs(tmp_path, rng, 23)
    judging = JudgeOptions(**options)
    topics, together, _ = _engine.evaluate_trec_files(qrels, runs, SPECS, options=judging)
    alone = [_engine.evaluate_trec_files(qrels, [r], SPECS, options=judging) for r in runs]
    assert all(t == topics for t, _, _ in alone)
    assert len(together) == len(runs)
    # repr: byte-identical values (NaN included), names and query ids, in input order
    assert [repr(r) for r in together] == [repr(one[0]) for _, one, _ in alone]
    assert [run[0] for run in together] == [f"tag{i % 4}" for i in range(len(runs))]


def _failing(tmp_path, i: int) -> str:
    """A run failing in one of several ways, its error distinct from other runs'."""
    path = tmp_path / f"bad{i}.txt"
    good = "".join(f"q1 Q0 d{d} {d} {1.0 / (d + 1)!r} bad\n" for d in range(i + 1))
    kind = i % 4
    if kind == 0:  # a document ranked twice (the judge), at line i + 2
        path.write_text(good + "q1 Q0 d0 9 0.5 bad\n")
    elif kind == 1:  # a line the reader refuses, at line i + 2
        path.write_text(good + "q1 Q0 d99 1 not-a-score bad\n")
    elif kind == 2:  # a missing file
        return str(tmp_path / f"missing{i}.txt")
    else:  # no data line
        path.write_text("")
    return str(path)


@pytest.mark.parametrize(
    "failing", [[0], [6], [11], [3, 4], [2, 9], [1, 6, 10], [5, 7, 8, 11], list(range(12))]
)
def test_the_error_is_the_first_failing_runs(tmp_path, failing):
    rng = np.random.default_rng(len(failing))
    qrels = _qrels(tmp_path, rng)
    runs = _runs(tmp_path, rng, 12)
    for i in failing:
        runs[i] = _failing(tmp_path, i)
    error = _error(lambda: _engine.evaluate_trec_files(qrels, runs, SPECS))
    first = _error(lambda: _engine.evaluate_trec_files(qrels, [runs[failing[0]]], SPECS))
    assert _as_alone(error, failing[0]) == first
    for i in failing[1:]:  # a later run's failure is told apart from the first's
        assert _error(lambda i=i: _engine.evaluate_trec_files(qrels, [runs[i]], SPECS)) != first
    # the runs before the first failing one are fine on their own
    _engine.evaluate_trec_files(qrels, runs[: failing[0]], SPECS)


def test_an_earlier_slow_failure_wins_over_a_later_quick_one(tmp_path):
    """A long run failing on its last line, then a missing file: the missing file fails
    first in time, but the long run's error is the one reported (as one after the other)."""
    rng = np.random.default_rng(5)
    qrels = _qrels(tmp_path, rng)
    slow = tmp_path / "slow.txt"
    lines = [f"q{i % 50} Q0 d{i} {i} {1.0 / (i + 1)!r} slow\n" for i in range(60_000)]
    slow.write_text("".join(lines) + "q1 Q0 last 1 not-a-score slow\n")
    runs = [_run(tmp_path, rng, "first.txt", "a"), str(slow), str(tmp_path / "missing.txt")]
    runs += _runs(tmp_path, rng, 4)
    error = _error(lambda: _engine.evaluate_trec_files(qrels, runs, SPECS))
    assert error[1][0] == "read" and error[1][2] == len(lines) + 1
    alone = _error(lambda: _engine.evaluate_trec_files(qrels, [str(slow)], SPECS))
    assert _as_alone(error, 1) == alone


@pytest.mark.parametrize(
    ("refusing", "duplicate", "expected"),
    [([2, 5], 4, "MeasureError"), ([3], 1, "JudgeError"), ([0, 1], 5, "MeasureError")],
)
def test_a_refusal_and_a_bad_run_in_input_order(tmp_path, refusing, duplicate, expected):
    """A measure refusing a run's data (ERR and a grade above its max_grade) and a bad
    run: whichever comes first in input order is reported."""
    rng = np.random.default_rng(3)
    qrels = _qrels(tmp_path, rng)
    with open(qrels, "a") as f:
        f.write("q0 0 high 5\n")
    runs = _runs(tmp_path, rng, 7)
    for i in refusing:
        path = tmp_path / f"high{i}.txt"
        path.write_text(f"q0 Q0 high 1 2.0 hi\nq0 Q0 d{i} 2 1.0 hi\n")
        runs[i] = str(path)
    runs[duplicate] = _failing(tmp_path, 0)
    specs = [("AP", None, {}), ("ERR", 20, {})]
    error = _error(lambda: _engine.evaluate_trec_files(qrels, runs, specs))
    assert error[0] == expected
    assert expected != "JudgeError" or error[1][0] == "duplicate"
    first = min([*refusing, duplicate])
    alone = _error(lambda: _engine.evaluate_trec_files(qrels, [runs[first]], specs))
    assert _as_alone(error, first) == alone


def test_the_command_line_prints_many_runs_as_the_general_path(tmp_path, capsys, monkeypatch):
    """`cranfield eval` on many runs (tags shared: named by their files) prints what the
    general path prints; a failing run is reported by its file, the first in order."""
    from cranfield.core import files

    rng = np.random.default_rng(11)
    qrels = _qrels(tmp_path, rng)
    runs = _runs(tmp_path, rng, 9)
    argv = ["eval", qrels, *runs, "-q", "--format", "json", "-m", "AP", "nDCG@10", "P@5"]
    assert main(argv) == 0
    fast = capsys.readouterr()
    with monkeypatch.context() as m:
        m.setattr(files, "_engine_results", lambda job: None)
        assert main(argv) == 0
        general = capsys.readouterr()
    assert fast.out == general.out and fast.err == general.err
    runs[3], runs[7] = _failing(tmp_path, 4), _failing(tmp_path, 5)
    assert main(["eval", qrels, *runs, "-m", "AP"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad4.txt" in err and "bad5.txt" not in err
