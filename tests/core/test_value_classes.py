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
