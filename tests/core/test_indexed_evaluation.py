"""``evaluate`` of ``Qrels``/``Run`` objects in the engine, against the qrels' index
(``Qrels.index()``, ``_engine.evaluate_arrow``), checked against the path that judges
each run into a ``JudgedRun`` and measures it (``run_result``: the engine's kernels and
the NumPy specification where it has none, the aggregates and micro averages of the
declarations) on generated collections, bit for bit; and the index made once per
``Qrels`` object and reused across calls."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from cranfield import Qrels, Run, _engine, evaluate
from cranfield.core.evaluation import evaluate_objects
from cranfield.core.options import JudgeOptions
from cranfield.errors import InputError
from generators import judging_case

MEASURES = ["AP", "nDCG@10", "P@5", "R@10", "RR", "bpref", "NumRet", "relstring@5"]
MICRO = ["P@5", "R@10", "SetP", "SetR", "SetF", "Fallout@5"]
OPTIONS = [
    {},
    {"complete": True},
    {"depth": 7, "judged_only": True},
    {"compat": 9, "rel_level": 2},
    {"rel_level": 0, "complete": True, "depth": 3},
]


def _bits(results) -> list:
    out = []
    for r in results.runs:
        values = {str(m): _column_bits(v) for m, v in r.values.items()}
        aggregates = {
            str(m): None if a is None else np.float64(a).view(np.uint64).item()
            for m, a in r.aggregates.items()
        }
        out.append((r.name, [str(q) for q in r.query_ids], values, aggregates))
    return out


def _column_bits(values) -> list:
    """A column's values, numbers as their bits (lists from the engine, arrays from
    ``run_result``)."""
    if len(values) and isinstance(values[0], str):
        return list(values)
    return np.asarray(values, dtype=np.float64).view(np.uint64).tolist()


def _both(qrels, runs, measures, options, **kw):
    engine, _ = evaluate_objects(qrels, runs, measures, options, **kw)
    judged, _ = evaluate_objects(qrels, runs, measures, options, keep_judged=True, **kw)
    assert all(r.judged is None for r in engine.runs)
    assert all(r.judged is not None for r in judged.runs)
    return engine, judged


@pytest.mark.parametrize("seed", range(60))
def test_the_engine_entry_gives_the_judged_runs_values(seed):
    fractional = seed % 6 == 5
    qrels_dict, run_dict = judging_case(seed, fractional=fractional)
    qrels = Qrels.from_dict(qrels_dict, fractional=fractional)
    runs = {"a": Run.from_dict(run_dict), "b": Run.from_dict(judging_case(seed + 100)[1])}
    options = JudgeOptions(**OPTIONS[seed % len(OPTIONS)])
    measures = MEASURES if not fractional else MEASURES[:4]
    for kw in ({}, {"skip_no_relevant": True}, {"aggregate_by": "micro"}):
        kw["collection_size"] = 1000
        chosen = MICRO if kw.get("aggregate_by") else measures
        try:
            engine, judged = _both(qrels, runs, chosen, options, **kw)
        except InputError as exc:  # no query to evaluate: both paths refuse alike
            with pytest.raises(InputError) as raised:
                evaluate_objects(qrels, runs, chosen, options, keep_judged=True, **kw)
            assert str(raised.value) == str(exc)
            continue
        assert _bits(engine) == _bits(judged)


def test_the_qrels_are_indexed_once_per_object(monkeypatch):
    qrels = Qrels.from_dict({"q1": {"a": 1, "b": 0}, "q2": {"c": 2}})
    made = []
    real = _engine.QrelsIndex
    monkeypatch.setattr(_engine, "QrelsIndex", lambda *a: made.append(1) or real(*a))
    runs = [Run.from_dict({"q1": {"a": 1.0, "b": 2.0}, "q2": {"c": float(i)}}) for i in range(5)]
    first = [evaluate(qrels, run, ["AP", "P@1"]).aggregate() for run in runs]
    assert made == [1]
    assert qrels.index().topics == 2 and qrels.index().rows == 3
    qrels.table = qrels.table.slice(0, 2)  # a new table: indexed again
    evaluate(qrels, runs[0], ["AP"])
    assert made == [1, 1]
    assert first[0] == {"AP": 0.75, "P@1": 0.5}  # q1 ranks b (grade 0) first
    copy = pickle.loads(pickle.dumps(qrels))  # (a Dask worker's) indexes its own
    assert copy.index().rows == 2 and made == [1, 1, 1]


def test_run_objects_paths_and_other_formats_agree(tmp_path):
    qrels_dict, run_dict = judging_case(3)
    qrels = Qrels.from_dict(qrels_dict)
    run = Run.from_dict(run_dict, name="r")
    trec, csv = tmp_path / "r.txt", tmp_path / "r.csv"
    run.to_trec(trec)
    csv.write_text(
        "query_id,doc_id,score\n"
        + "".join(f"{q},{d},{s!r}\n" for q, docs in run_dict.items() for d, s in docs.items())
    )
    want = _bits(evaluate(qrels, {"r": run}, MEASURES, collection_size=9))
    for given in (trec, str(trec), [trec], {"r": csv}):
        assert _bits(evaluate(qrels, given, MEASURES, collection_size=9)) == want


def test_the_engine_job_is_remembered_but_each_caller_gets_its_own_lists():
    from cranfield.core.files import engine_job
    from cranfield.core.results import as_measures

    measures = as_measures(["AP", "nDCG@10", "P@10"])
    specs, how = engine_job(measures, False, "macro", False)
    specs.clear()
    how["judged_only_specs"].append(True)
    again, how_again = engine_job(measures, False, "macro", False)
    assert [name for name, _, _ in again] == ["AP", "nDCG", "P"]
    assert how_again["judged_only_specs"] == [False, False, False]
    # other arguments, other answers
    assert engine_job(measures, False, "macro", True)[1]["skip_no_relevant"] is True


@pytest.mark.parametrize("keep_judged", [False, True])
def test_run_files_sharing_a_tag_are_named_by_their_files_whatever_the_qrels(tmp_path, keep_judged):
    """Two run files with one TREC tag are named after their files, as ``cranfield
    eval`` and ``evaluate(qrels path, ...)`` name them, also against a ``Qrels``
    object (the index's path and the judged path); two Run objects sharing a name are
    still refused (their names are the caller's)."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\n")
    paths = []
    for name, first in (("bm25.run", "d1"), ("dense.run", "d2")):
        other = "d2" if first == "d1" else "d1"
        (tmp_path / name).write_text(f"q1 Q0 {first} 1 2.0 same\nq1 Q0 {other} 2 1.0 same\n")
        paths.append(str(tmp_path / name))
    by_path = evaluate(str(qrels), paths, ["AP"])
    assert [r.name for r in by_path.runs] == ["bm25", "dense"]
    results, _ = evaluate_objects(
        Qrels.read(qrels), paths, ["AP"], JudgeOptions(), keep_judged=keep_judged
    )
    assert [r.name for r in results.runs] == ["bm25", "dense"]
    assert [r.aggregates for r in results.runs] == [r.aggregates for r in by_path.runs]
    runs = [Run.read(p) for p in paths]
    with pytest.raises(InputError, match="two runs are named 'same'"):
        evaluate(Qrels.read(qrels), runs, ["AP"])


@pytest.mark.parametrize(
    "names, sources, expected",
    [
        (["a", "b"], ["x/a.txt", "y/b.txt"], ["a", "b"]),  # their own names
        (["t", "t"], ["x/bm25.txt", "y/dense.run"], ["bm25", "dense"]),  # file names
        (["t", "t"], ["x/run.txt", "y/run.txt"], ["x/run.txt", "y/run.txt"]),  # files
        (["t", "t"], ["run.txt", "run.txt.gz"], ["run.txt", "run.txt.gz"]),
        (["t", "t"], ["run.txt", "run.txt"], ["run", "run"]),  # one file twice: refused later
        (["t", "t"], [None, "run.txt"], ["run", "run"]),  # an object among them: refused later
    ],
)
def test_runs_are_named_apart_by_their_tags_then_file_names_then_files(names, sources, expected):
    from cranfield.core.results import distinct_run_names

    assert distinct_run_names(names, sources) == expected
