"""Measure names: a Hypothesis fuzzer over the name grammar, and the CLI's answer to bad names.

The promise (docs/measure-language.md): a name either parses into a measure whose
canonical name (``str``) parses back to the same measure, or raises ``MeasureError``
with one line -- never another exception; every parameter is checked against a
declared range, so a parsed measure evaluates to finite values on any run.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cranfield.core.evaluation import evaluate
from cranfield.core.measures.names import _TREC_CUTOFF, parse, parse_many
from cranfield.core.measures.registry import MAX_RANK, Measure, all_definitions, all_names
from cranfield.core.qrels import Qrels
from cranfield.core.run import Run
from cranfield.errors import MeasureError

from .harness import assert_clean_failure, assert_success, run_cli

DEFS = all_definitions()
PARAM_NAMES = sorted({p.name for d in DEFS for p in d.params} | {"cutoff", "", "x y", "P"})
FAMILIES = sorted(set(all_names()) | set(_TREC_CUTOFF) | {"Nope", "Rbp", "NDCG", "ndcg_cut"})
# values a user (or an attacker) might write: huge, tiny, negative, not finite, strings,
# containers, nested and unclosed brackets, repeated keys
VALUES = [
    *("0", "1", "-1", "2", "4", "0.5", "0.0", "-0", "1e9", "1e100", "1e101", "1e308"),
    *("-1e308", "1e400", "-1e400", "1e-320", "5e-324", "99999999999999999999", "2**64"),
    *("nan", "inf", "-inf", "'x'", "x", "True", "False", "None", "'R'", "'min(R,k)'", "jk"),
    *("exp-log2", "'1=3'", "'1=3,2=x'", "1,2", "[1,2]", "()", "1j", "b'1'", "{1,2}"),
    *("{0:0,1:1}", "{1:1e308}", "{1:2,2:1e100}", "{1:{}}", "{1:2,1:3}", "{1.5:2}", "{-1:1}"),
    *("{True:1}", "{1:True}", "{1:'x'}", "{'a':1}", "{1:5e-324}", "{600:1}", "{2**64:1}"),
    *("(", ")", "{", "'", '"', "((" * 200 + "1", "[" * 300 + "]" * 300, "1" * 5000),
]
CUTOFFS = [
    *("1", "5", "0", "-1", "0.3", "0.5", "1.0", "2", "1e3", str(MAX_RANK), str(MAX_RANK + 1)),
    *("1e20", "99999999999999999999", "1e400", "nan", "inf", "x", "", "5)", "1_000"),
]
TREC_PARAMS = [
    *VALUES[:30],
    *(f"{k}={v}" for k in ("1", "2", "-1", "p", "x", "") for v in ("3", "x", "1e308", "0.5", "")),
]


@st.composite
def measure_names(draw) -> str:
    """Near-valid names: readable, trec_eval dotted, or random characters of the grammar."""
    kind = draw(st.integers(0, 4))
    family = draw(st.sampled_from(FAMILIES))
    if kind <= 2:
        text = family
        if draw(st.booleans()):
            own = [p.name for d in DEFS if family in (d.name, *d.aliases) for p in d.params]
            keys = (
                st.sampled_from(own)
                if own and draw(st.booleans())
                else st.sampled_from(PARAM_NAMES)
            )
            args = draw(st.lists(st.tuples(keys, st.sampled_from(VALUES)), max_size=3))
            text += "(" + ", ".join(f"{k}={v}" for k, v in args)
            text += draw(st.sampled_from([")", ")", ")", "", "))", "(", "]"]))
        if draw(st.booleans()):
            text += "@" + draw(st.sampled_from(CUTOFFS))
        return text
    if kind == 3:
        values = draw(st.lists(st.sampled_from(TREC_PARAMS), max_size=4))
        return family + draw(st.sampled_from([".", "_"])) + ",".join(values)
    return draw(st.text(alphabet="PAnDCGRbrp@()[]{}=,._'\" 0123456789e-+x", max_size=24))


def _adversarial_inputs():
    """Ties, unjudged and unpooled documents, negative and large grades, a query without
    relevant documents, an empty-ish ranking, extreme scores."""
    qrels = Qrels.coerce(
        {
            "q1": {"d1": 2, "d2": 0, "d3": 1, "d4": 4, "d9": 3},
            "q2": {"a": 0},
            "q3": {"z": -1, "y": 40},
        }
    )
    run = Run.coerce(
        {
            "q1": {"d1": 1.0, "d2": 1.0, "d5": 0.5, "d4": 0.1, "d3": -1e308},
            "q2": {"a": 1.0, "b": 1.0},
            "q3": {"y": 3.0},
        }
    )
    return qrels, run


QRELS, RUN = _adversarial_inputs()
SEEN = {"parsed": 0, "refused": 0}


def _check_values(measure: Measure) -> None:
    try:
        res = evaluate(QRELS, RUN, [measure], collection_size=100)
    except MeasureError:
        return  # documented: e.g. ERR with a grade above max_grade, exp-log2 gains > 512
    r = res.runs[0]
    (m,) = res.measures
    values = r.values[m]
    if m.definition.kind == "str":
        return
    assert np.all(np.isfinite(values.astype(np.float64))), (str(measure), values)
    assert math.isfinite(r.aggregates[m]), (str(measure), r.aggregates[m])


@settings(
    max_examples=2000,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(measure_names())
def test_fuzzed_names_parse_canonically_or_raise_measure_error(text):
    try:
        measures = parse_many(text)
    except MeasureError as exc:
        SEEN["refused"] += 1
        assert "\n" not in str(exc) and str(exc)
        return
    SEEN["parsed"] += 1
    for m in measures:
        again = parse(str(m))
        assert again == m and str(again) == str(m), (text, str(m), str(again))
        _check_values(m)


def test_the_fuzzer_reached_both_outcomes():
    # runs after the fuzzer (file order): it must have produced both valid and invalid names
    if not SEEN["parsed"]:
        test_fuzzed_names_parse_canonically_or_raise_measure_error()
    assert SEEN["parsed"] >= 100 and SEEN["refused"] >= 100, SEEN


ANY_VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.binary(max_size=4),
    st.lists(st.integers(-3, 3), max_size=3),
    st.dictionaries(st.integers(-3, 600), st.floats(), max_size=3),
    st.tuples(st.integers(), st.text(max_size=2)),
)


@settings(max_examples=500, derandomize=True, deadline=None, database=None)
@given(
    st.sampled_from(sorted({d.name for d in DEFS})),
    st.one_of(st.none(), ANY_VALUE),
    st.dictionaries(st.sampled_from(PARAM_NAMES), ANY_VALUE, max_size=2),
)
def test_measure_of_with_any_python_values(family, cutoff, params):
    # the Python API (Measure.of) checks the same ranges as the name parser
    params.pop("cutoff", None)
    try:
        m = Measure.of(family, cutoff=cutoff, **params)
    except MeasureError as exc:
        assert "\n" not in str(exc)
        return
    assert parse(str(m)) == m


def test_measure_of_a_non_string_name():
    with pytest.raises(MeasureError, match="unknown measure 123"):
        Measure.of(123)


# ---------------------------------------------------------------- the defects reported


@pytest.mark.parametrize(
    "text, mention",
    [
        ("nDCG(", "unclosed '(' at position 5"),
        ("P((rel=1)@5", "unclosed '(' at position 2"),
        ("nDCG@10)", "unmatched ')' at position 8"),
        ("nDCG(gains={1:2)", "unmatched ')' at position 16"),
        ("P(rel='1)@5", "unclosed quote ' at position 7"),
        ("P(rel=1, rel=2)@5", "parameter 'rel' given twice"),
        ("nDCG(gains={1:2,1:3})", "gives a key twice"),
        ("ndcg.1=3,1=4", "parameter gains"),
        ("rbp.p=0.5,p=0.6", "parameter 'p' given twice"),
        ("P(cutoff=5)@5", "cutoff is given twice"),
        ("ndcg.1=3,2=x", "expected a number, got 'x'"),
        ("ndcg.1=3,2", "malformed pair parameters"),
        ("P(cutoff=x)", "cutoff"),
        ("AP(" + "(" * 500 + ")", "unclosed"),
        ("nDCG(gains=" + "[" * 300 + "]" * 300 + ")", "gains"),
        ("P" * 20000, "at most 10000"),
    ],
)
def test_malformed_names_are_measure_errors(text, mention):
    with pytest.raises(MeasureError) as info:
        parse_many(text)
    assert mention in str(info.value)
    assert "\n" not in str(info.value)


def test_cutoff_as_a_parameter_is_the_cutoff():
    assert parse("P(cutoff=5)") == parse("P@5")
    assert parse("nDCG(cutoff=10, dcg=jk)") == parse("nDCG(dcg=jk)@10")


@pytest.mark.parametrize(
    "text, mention",
    [
        ("NumRet@99999999999999999999", "a positive integer rank in [1, 2^63-1]"),
        ("P@1e400", "a positive integer rank in [1, 2^63-1]"),
        ("ERR(max_grade=1e9)", "an integer in [0, 53]"),
        ("nDCG(gains={1: 1e308})", "magnitude in [1e-100, 1e100]"),
        ("nDCG(gains={1: 5e-324})", "magnitude in [1e-100, 1e100]"),
        ("RBP(p=1)", "a number in (0, 1)"),
        ("RBP(p=-0.5)", "a number in (0, 1)"),
        ("rbp.p=1e308", "a number in (0, 1)"),
        ("SetF(beta=1e308)", "a number in [0, 1e50]"),
        ("set_F.1e308", "a number in [0, 1e100]"),
        ("utility.1e308,-1,0,0", "magnitude in [1e-100, 1e100]"),
        ("utility(collection_size=1e30)", "an integer in [0, 2^53]"),
        ("Fallout(collection_size=0)", "an integer in [1, 2^53]"),
        ("nCG(max_gain=1e-320)@5", "a number in [1e-100, 1e100]"),
        ("P(rel=99999999999999999999)@5", "an integer grade in [-2^63, 2^63-1]"),
        ("Rprec_mult@1e7", "a positive number in (0, 1e6]"),
        ("IPrec@nan", "invalid cutoff"),
        ("11pt_avg(points='" + ",".join(["0.5"] * 1001) + "')", "1 to 1000 numbers"),
        ("nDCG(dcg=jk, b=1e101)", "a number in (1, 1e100]"),
    ],
)
def test_unbounded_parameters_are_refused_with_their_range(text, mention):
    with pytest.raises(MeasureError) as info:
        parse_many(text)
    assert mention in str(info.value), str(info.value)


def test_every_parameter_declares_its_range():
    for d in DEFS:
        for p in d.params:
            assert p.allowed_text, (d.name, p.name)
            if p.kind in (int, float, "gains", "floats"):
                assert p.allowed and p.check is not None, (d.name, p.name)


def test_huge_cutoffs_cost_only_the_run():
    # a cutoff beyond every ranking is computed in O(documents): same value as no cutoff
    # (a kernel allocating by the cutoff would need 16 GiB here)
    res = evaluate(QRELS, RUN, [f"NumRet@{MAX_RANK}", "NumRet", f"nDCG@{MAX_RANK}", "nDCG"])
    agg = res.aggregate(0)
    assert agg[f"NumRet@{MAX_RANK}"] == agg["NumRet"] == 8
    assert agg[f"nDCG@{MAX_RANK}"] == agg["nDCG"]
    for d in DEFS:
        if d.cutoff == "rank":
            params = {"collection_size": 100} if d.name in ("Fallout",) else {}
            _check_values(Measure.of(d.name, cutoff=MAX_RANK, **params))


def test_largest_gains_stay_finite():
    big = "nDCG(gains={1:1e100,2:1e100,3:1e100,4:1e100})"
    values = evaluate(QRELS, RUN, [big, "DCG(gains={4:1e100})", "utility.1e100,-1e100,0,0"])
    for v in values.aggregate(0).values():
        assert math.isfinite(v)
    assert values.aggregate(0, big) > 0


def test_exponential_gains_too_large_are_refused():
    # a grade of 600 with dcg='exp-log2' would be 2^600 - 1 per document: an error, not inf
    with pytest.raises(MeasureError, match="above 512"):
        evaluate(QRELS, RUN, ["nDCG(dcg='exp-log2', gains={1:600})"])
    ok = evaluate(QRELS, RUN, ["nDCG(dcg='exp-log2', gains={1:512})"]).aggregate(0)
    assert all(math.isfinite(v) for v in ok.values())


def test_err_at_its_largest_grade_is_finite():
    value = evaluate(QRELS, RUN, ["ERR(max_grade=53)"]).aggregate(0)["ERR(max_grade=53)"]
    assert math.isfinite(value) and 0 <= value <= 1


# ------------------------------------------------------------------ names differing by case


def test_rbp_in_readable_syntax_is_refused_as_ambiguous():
    with pytest.raises(MeasureError, match="ambiguous") as info:
        parse("rbp(p=0.8)")
    assert "RBP(" in str(info.value) and "rbp.p=" in str(info.value)


def test_look_alike_families_print_every_parameter():
    # rbp (trec_eval: p = 0.9, gains normalised) and RBP (ir_measures: p = 0.8, graded)
    assert str(parse("rbp")) == "rbp.p=0.9"
    assert str(parse("rbp.p=0.8")) == "rbp.p=0.8"
    assert str(parse("RBP")) == "RBP(p=0.8)"
    assert parse("RBP(p=0.8)") == parse("RBP")
    assert parse("rbp.p=0.9") == parse("rbp")
    assert str(parse("rbp")).lower() != str(parse("RBP")).lower()


def test_ambiguous_case_names_list_both():
    with pytest.raises(MeasureError) as info:
        parse("Rbp")
    assert "RBP (ir_measures)" in str(info.value) and "rbp (trec_eval)" in str(info.value)


def test_unique_case_insensitive_names_still_resolve():
    assert parse("NDCG@10") == parse("nDCG@10")
    assert parse("map") == parse("AP")


# ---------------------------------------------------------------------------- the CLI


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("names")
    qrels, run = d / "qrels.txt", d / "run.txt"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n2 0 a 1\n")
    run.write_text("1 Q0 d1 1 3.0 r\n1 Q0 d2 2 2.0 r\n1 Q0 d9 3 1.0 r\n2 Q0 a 1 1.0 r\n")
    return qrels, run


@pytest.mark.parametrize(
    "cmd, name, mention",
    [
        ("eval", "P(cutoff=5)@5", "cutoff is given twice"),
        ("eval", "nDCG(", "unclosed '('"),
        ("eval", "NumRet@99999999999999999999", "2^63-1"),
        ("eval", "ERR(max_grade=1e9)", "[0, 53]"),
        ("eval", "rbp(p=0.8)", "ambiguous"),
        ("eval", "ndcg.1=3,2=x", "expected a number"),  # trec_eval reads 'x' as 0, as atof
        # trec_eval reads cutoffs with atol: P.1e400 is P_1 and a huge one saturates
        # (tests/reference compares those with the binary); 0 or no digits is refused
        ("trec_eval", "P.0", "cutoffs must be positive"),
        ("trec_eval", "P.x", "cutoffs must be positive"),
    ],
)
def test_bad_names_on_the_command_line_are_one_line(files, cmd, name, mention):
    qrels, run = files
    # trec_eval's front end exits 1 on a bad measure, as trec_eval does (docs/trec_eval.md)
    status = 1 if cmd == "trec_eval" else 2
    assert_clean_failure(run_cli(cmd, qrels, run, "-m", name), mention, status=status)


@pytest.mark.parametrize(
    "name, mention",
    [("nDCG(", "unclosed '(' at position 5"), ("ERR(max_grade=1e9)", "[0, 53]")],
)
def test_measures_command_shows_the_parse_error(name, mention):
    assert_clean_failure(run_cli("measures", name), mention)


def test_report_max_depth_is_bounded(files, tmp_path):
    qrels, run = files
    out = tmp_path / "r.html"
    outcome = run_cli("report", qrels, run, "--max-depth", "100000", "-o", out)
    assert_clean_failure(outcome, "--max-depth", "[1, 1000]")
    assert not out.exists()


def test_report_accepts_cutoff_parameter(files, tmp_path):
    qrels, run = files
    out = tmp_path / "r.html"
    assert_success(run_cli("report", qrels, run, "-m", "P(cutoff=5)", "-o", out))
    assert "P@5" in out.read_text(encoding="utf-8")


def test_eval_headers_are_canonical_names(files):
    qrels, run = files
    outcome = run_cli("eval", qrels, run, "--format", "csv", "-m", "RBP", "rbp", "P(cutoff=5)")
    assert_success(outcome)
    header = outcome.stdout.decode().splitlines()[0].split(",")
    assert header[-3:] == ["RBP(p=0.8)", "rbp.p=0.9", "P@5"]


@pytest.mark.parametrize(
    "text",
    [
        "P." + "1" * 5000,
        "ndcg_cut.5," + "9" * 4400,
        "P@" + "1" * 5000,
        "P(cutoff=" + "1" * 5000 + ")",
    ],
)
def test_numbers_too_long_to_convert_are_one_measure_error(text):
    # more digits than Python converts to an int (4300): a MeasureError, not a ValueError
    with pytest.raises(MeasureError) as err:
        parse_many(text)
    assert type(err.value) is MeasureError and "\n" not in str(err.value)
