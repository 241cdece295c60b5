"""JudgeOptions: one validated value for the judging options, taken by every front end."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield import Qrels, Run
from cranfield.cli.main import main
from cranfield.core.engine_judge import judge_trec
from cranfield.core.evaluation import evaluate
from cranfield.core.judged import judge
from cranfield.core.options import JudgeOptions
from cranfield.core.trec_eval import run_trec_eval
from cranfield.errors import ParameterError, invalid_value
from generators import adversarial_case


@pytest.mark.parametrize(
    "field, value, allowed",
    [
        ("rel_level", 1.5, "an integer grade"),
        ("rel_level", "1", "an integer grade"),
        ("rel_level", True, "an integer grade"),
        ("rel_level", 2**63, "an integer grade"),
        ("depth", 0, "a positive integer"),
        ("depth", 2.0, "a positive integer"),
        ("judged_only", 1, "True or False"),
        ("complete", "yes", "True or False"),
        ("compat", 8, "9 or 10"),
        ("compat", True, "9 or 10"),
        ("duplicates", "last", "one of 'error', 'first', 'max'"),
    ],
)
def test_each_bad_value_is_one_parameter_error(field, value, allowed):
    with pytest.raises(ParameterError) as err:
        JudgeOptions(**{field: value})
    assert str(err.value) == invalid_value(field, allowed, value)


def test_numpy_values_are_accepted_as_python_values():
    o = JudgeOptions(rel_level=np.int64(2), depth=np.int32(5), judged_only=np.bool_(True))
    assert (o.rel_level, o.depth, o.judged_only) == (2, 5, True)
    assert type(o.rel_level) is int and type(o.judged_only) is bool
    with pytest.raises(AttributeError):
        o.depth = 3  # frozen


def test_of_applies_changes_and_refuses_unknown_names():
    base = JudgeOptions(rel_level=2)
    assert JudgeOptions.of(base, depth=10) == JudgeOptions(rel_level=2, depth=10)
    assert JudgeOptions.of(None) == JudgeOptions()
    with pytest.raises(TypeError, match="rel_lvl"):
        JudgeOptions.of(base, rel_lvl=2)
    with pytest.raises(ParameterError, match="options"):
        JudgeOptions.of({"rel_level": 2})


@pytest.mark.parametrize("seed", range(6))
def test_options_equal_the_keywords_everywhere(seed, tmp_path):
    qrels_d, run_d = adversarial_case(seed)
    qrels = Qrels.from_dict(qrels_d)
    run = Run.from_dict(run_d or {"zz": {"x": 1.0}}, name="r")
    path = tmp_path / "run.txt"
    run.to_trec(path)
    kw = dict(rel_level=2, depth=7, judged_only=True, complete=True, compat=9)
    opts = JudgeOptions(**kw)
    a = judge(qrels, run, opts)
    b = judge(qrels, run, **kw)
    assert np.array_equal(a.labels, b.labels) and np.array_equal(a.offsets, b.offsets)
    assert (a.rel_level, a.compat) == (2, 9)
    measures = ["AP", "nDCG@5", "P@3", "NumRelRet"]
    r1 = evaluate(qrels, run, measures, options=opts)
    r2 = evaluate(qrels, run, measures, **kw)
    assert r1.to_json(per_query=True) == r2.to_json(per_query=True)
    assert r1.options == r2.options == opts.as_dict()
    e = judge_trec(qrels, None, path, opts)  # the engine's judge (qrels given as text)
    assert np.array_equal(e.labels, a.labels) and np.array_equal(e.offsets, a.offsets)
    t1 = run_trec_eval(qrels, run, ["all_trec"], opts, per_query=True)
    t2 = run_trec_eval(qrels, run, ["all_trec"], per_query=True, **kw)
    assert t1 == t2


def test_options_and_a_changed_keyword_together_are_refused():
    qrels = Qrels.from_dict({"1": {"a": 1}})
    run = Run.from_dict({"1": {"a": 1.0}})
    with pytest.raises(ParameterError, match="rel_level"):
        evaluate(qrels, run, ["AP"], rel_level=2, options=JudgeOptions())
    with pytest.raises(ParameterError, match="depth"):
        judge(qrels, run, JudgeOptions(), depth=3)
    # keywords left at their defaults do not override the options
    res = evaluate(qrels, run, ["AP"], rel_level=1, options=JudgeOptions(rel_level=2))
    assert res.options["rel_level"] == 2


def test_evaluate_reads_path_runs_with_the_duplicates_policy(tmp_path):
    path = tmp_path / "dup.txt"
    path.write_text("1 Q0 a 1 2 r\n1 Q0 a 2 1 r\n")
    qrels = Qrels.from_dict({"1": {"a": 1}})
    with pytest.raises(Exception, match="twice|duplicate"):
        evaluate(qrels, str(path), ["AP"])
    res = evaluate(qrels, str(path), ["AP"], options=JudgeOptions(duplicates="first"))
    assert res.aggregate(0, "AP") == 1.0


def test_the_command_line_names_the_option(tmp_path, capsys):
    q = tmp_path / "q"
    q.write_text("1 0 a 1\n")
    r = tmp_path / "r"
    r.write_text("1 Q0 a 1 1 r\n")
    assert main(["eval", str(q), str(r), "-M", "0"]) == 2
    assert (
        "invalid value for --depth: expected a positive integer, got 0" in capsys.readouterr().err
    )
