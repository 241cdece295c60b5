"""The value classes of the CLI's cold path (cranfield._record.Record) behave as the
dataclasses they replace: equality and hashing over the fields, repr, frozen values,
copies and pickles; and the path helpers that replace pathlib agree with it."""

from __future__ import annotations

import copy
import itertools
import pickle
from pathlib import PurePath

import pytest

from cranfield.core.io.formats import file_suffixes, infer_format
from cranfield.core.measures.registry import Measure, MeasureDef, Param, TrecEval, lookup
from cranfield.core.options import DEFAULTS, JudgeOptions
from cranfield.core.results import Results, RunResult, _name, default_run_name
from cranfield.core.trec_eval import Column, Evaluated


def test_measures_compare_and_hash_by_their_fields():
    a, b = Measure.of("nDCG", cutoff=10), Measure("nDCG", (), 10)
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != Measure.of("nDCG", cutoff=5) and a != ("nDCG", (), 10)
    assert Measure.of("P", cutoff=5) != Measure.of("P", cutoff=10)
    assert repr(a) == "Measure('nDCG@10')"


@pytest.mark.parametrize(
    "value, field",
    [
        (Measure.of("AP"), "name"),
        (JudgeOptions(), "depth"),
        (TrecEval("x", 999), "order"),
        (Param("k", int, 1, "doc"), "default"),
    ],
)
def test_frozen_values_refuse_changes(value, field):
    before = getattr(value, field)
    with pytest.raises(AttributeError, match=f"cannot assign to field '{field}'"):
        setattr(value, field, 3)
    with pytest.raises(AttributeError, match=f"cannot delete field '{field}'"):
        delattr(value, field)
    with pytest.raises(AttributeError):
        value.new_attribute = 1  # no __dict__: nothing can be added either
    assert getattr(value, field) == before


@pytest.mark.parametrize(
    "value",
    [
        Measure.of("nDCG", cutoff=10, gains="0=0,1=1,2=3"),
        JudgeOptions(rel_level=2, depth=5, judged_only=True, compat=9, duplicates="max"),
        TrecEval("P", 3, cutoffs="5,10", family="P"),
        lookup("AP"),
    ],
)
def test_copies_and_pickles_are_equal(value):
    copies = [copy.copy(value), copy.deepcopy(value)]
    if not isinstance(value, MeasureDef):  # (its parameters' checks may be lambdas)
        copies.append(pickle.loads(pickle.dumps(value)))
    for other in copies:
        assert other == value and hash(other) == hash(value)
        assert type(other) is type(value)


def test_repr_is_the_dataclass_repr():
    assert repr(JudgeOptions(depth=3)) == (
        "JudgeOptions(rel_level=1, depth=3, judged_only=False, complete=False, compat=10, "
        "duplicates='error')"
    )
    assert repr(TrecEval("map", 5)) == (
        "TrecEval(name='map', order=5, nicknames=('all_trec',), cutoffs=None, values=(), "
        "pairs=None, kind='', reset_with_c=False, recount_with_c=False, family=None)"
    )
    d = lookup("AP")
    shown = [f for f in MeasureDef._fields if f not in ("behaviour", "micro", "check")]
    assert shown[:3] == ["name", "summary", "formula"] and len(shown) == 15
    assert repr(d) == "MeasureDef(" + ", ".join(f"{f}={getattr(d, f)!r}" for f in shown) + ")"


def test_measure_defs_keep_their_declaration():
    d = lookup("nDCG")
    assert isinstance(d, MeasureDef) and d.kernel is not None
    assert d == MeasureDef(*(getattr(d, f) for f in MeasureDef._fields))
    with pytest.raises(ValueError, match="bad fractional"):
        MeasureDef("x", len, "s", "f", "r", fractional="sometimes")


def test_judge_options_replace_and_defaults():
    o = JudgeOptions(rel_level=2)
    assert JudgeOptions.of(o, depth=4) == JudgeOptions(2, 4)
    assert JudgeOptions.of(o) is o
    assert DEFAULTS == {
        "rel_level": 1,
        "depth": None,
        "judged_only": False,
        "complete": False,
        "compat": 10,
        "duplicates": "error",
    }
    assert o.as_dict() == {
        "rel_level": 2,
        "depth": None,
        "judged_only": False,
        "complete": False,
        "compat": 10,
    }


def test_mutable_values_are_unhashable_and_assignable():
    col = Column("map", "float", Measure.of("AP"))
    assert col == Column("map", "float", Measure.of("AP"), False, False, False)
    col.blank = True
    assert col != Column("map", "float", Measure.of("AP"))
    run = RunResult("r", ["1"], {}, {})
    run.name = "s"
    results = Results([], [run])
    assert results.options == {} and results.runs[0].name == "s"
    assert Results([], []).options is not Results([], []).options  # a new dict each
    for value in (col, run, results, Evaluated(b"", [], [])):
        with pytest.raises(TypeError, match="unhashable"):
            hash(value)
    assert "judged=" not in repr(run)


def _paths(alphabet: str, longest: int):
    for n in range(longest + 1):
        for chars in itertools.product(alphabet, repeat=n):
            yield "".join(chars)


def test_file_name_helpers_agree_with_pathlib():
    for path in _paths("a./", 6):
        assert file_suffixes(path) == PurePath(path).suffixes, path
        assert _name(path) == PurePath(path).name, path
    assert infer_format("dir/run.CSV.gz", None) == "csv"
    assert infer_format("a.parquet/.", None) == "parquet"
    assert default_run_name("x/y/run1.txt.gz") == "run1"
    assert default_run_name("<stdin>") == "run"


def _result_values():
    """One value of each result class that was a dataclass (issue 39: no
    ``dataclasses`` on the ``--help`` paths), built as the library builds them."""
    import numpy as np

    from cranfield.classification import BinaryConfusion, ConfusionMatrix
    from cranfield.classification.roc import roc_table, threshold_counts
    from cranfield.classification.thresholds import select_threshold
    from cranfield.clicks.log import ClickLog
    from cranfield.clustering import contingency_table, evaluate_clustering
    from cranfield.compare import compare
    from cranfield.compare.stats import paired_t_test, tukey_hsd
    from cranfield.rec.data import Interactions

    truth, scores = [1, 0, 1, 1, 0, 0], [0.9, 0.8, 0.7, 0.7, 0.2, 0.1]
    per_query = {
        "AP": {"x": {"q1": 0.5, "q2": 1.0, "q3": 0.25}, "y": {"q1": 0.4, "q2": 0.0, "q3": 0.5}}
    }
    comparison = compare(per_query, baseline="x")
    return [
        BinaryConfusion.from_labels(truth, [1, 1, 0, 1, 0, 0]),
        ConfusionMatrix.from_labels(["a", "b", "a"], ["a", "a", "b"]),
        threshold_counts(truth, scores),
        roc_table(truth, scores),
        select_threshold(truth, scores),
        ClickLog(
            np.zeros(2, np.int64),
            np.zeros((2, 3), np.int64),
            np.ones((2, 3), bool),
            np.array(["q"]),
            np.array(["d"]),
            source="x.tsv",
        ),  # fmt: skip
        paired_t_test([0.1, 0.5, 0.3], [0.2, 0.1, 0.0]),
        tukey_hsd(np.array([[0.1, 0.5, 0.3], [0.2, 0.1, 0.0], [0.3, 0.3, 0.2]])),
        evaluate_clustering([0, 0, 1, 1, 2], [0, 0, 1, 2, 2]),
        contingency_table([0, 0, 1, 1, 2], [0, 0, 1, 2, 2]),
        Interactions(np.array(["u1", "u2"]), np.array(["i1", "i1"]), None, None, "x.csv"),
        comparison,
        comparison.rows[0],
    ]


def _same_fields(a, b) -> bool:
    import numpy as np

    for name in a._fields:
        x, y = getattr(a, name), getattr(b, name)
        if isinstance(x, np.ndarray):
            if not (isinstance(y, np.ndarray) and x.dtype == y.dtype and np.array_equal(x, y)):
                return False
        elif hasattr(x, "_fields"):
            if not _same_fields(x, y):
                return False
        elif x != y and not (x != x and y != y):  # NaN equals NaN here
            return False
    return True


def test_result_classes_copy_pickle_and_refuse_changes():
    values = _result_values()
    assert len({type(v) for v in values}) == len(values)
    for value in values:
        for other in (copy.copy(value), copy.deepcopy(value), pickle.loads(pickle.dumps(value))):
            assert type(other) is type(value) and _same_fields(other, value), type(value)
        field = value._fields[0]
        with pytest.raises(AttributeError, match="cannot assign"):
            setattr(value, field, None)


def test_keyword_result_classes_name_a_missing_or_unknown_field():
    from cranfield.compare.compare import ComparisonRow

    row = _result_values()[-1]
    fields = {name: getattr(row, name) for name in row._fields}
    assert ComparisonRow(**fields) == row
    with pytest.raises(TypeError, match=r"missing \['wins'\], unknown \['win'\]"):
        ComparisonRow(**{("win" if k == "wins" else k): v for k, v in fields.items()})


def test_clustering_scores_compare_by_their_scores_not_the_table():
    """As the dataclass did (``compare=False``): equal scores from different tables are
    equal, and hash alike."""
    from cranfield.clustering import evaluate_clustering

    a = evaluate_clustering([0, 0, 1, 1], [0, 0, 1, 1])
    b = evaluate_clustering(["x", "x", "y", "y"], [5, 5, 7, 7])
    assert a.contingency.classes.tolist() != b.contingency.classes.tolist()
    assert a == b and hash(a) == hash(b)
    assert a != evaluate_clustering([0, 0, 1, 1], [0, 1, 0, 1])
    assert "contingency" not in repr(a) and "class_sizes" not in repr(a.contingency)


def test_the_bases_init_takes_fields_as_a_dataclass_does():
    """Positionally or by keyword, the trailing ones defaulting (a mutable default copied
    for each value, as a ``default_factory``); too many, twice, missing or unknown ones
    are a ``TypeError``."""
    import numpy as np

    from cranfield.clicks.log import ClickLog
    from cranfield.compare.compare import Comparison

    arrays = (np.zeros(1, np.int64), np.zeros((1, 1), np.int64), np.ones((1, 1), bool))
    names = (np.array(["q"]), np.array(["d"]))
    log = ClickLog(*arrays, *names)
    assert (log.times, log.user, log.source) == (None, None, "<log>")
    assert ClickLog(*arrays, names[0], doc_names=names[1], source="x").source == "x"
    fields = dict.fromkeys(Comparison._fields[:-1], ())
    a, b = Comparison(**fields), Comparison(**fields)
    assert a.settings == {} and a.settings is not b.settings
    with pytest.raises(TypeError, match="given twice"):
        ClickLog(*arrays, *names, query=arrays[0])
    with pytest.raises(TypeError, match="9 values"):
        ClickLog(*arrays, *names, None, None, "x", "extra")
    with pytest.raises(TypeError, match=r"missing \['doc_names'\]"):
        ClickLog(*arrays, names[0])
