"""Fractional relevance (soft labels): Qrels(fractional=True) through judging and measures.

* integer-valued float qrels give exactly the integer results, for every measure;
* graded measures use the fraction as the gain (hand-computed nDCG; DCG is linear in
  the gains);
* binary measures binarise at the relevance level: on fractional qrels they equal the
  same measures on the qrels rounded down (v >= L <=> floor(v) >= L for whole L);
* measures that read whole grades refuse non-integer values with one InputError;
* readers: TREC text, CSV, pandas, dicts; ``cranfield trec_eval`` keeps atol.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from measures_helpers import instances

from cranfield import Qrels, Run
from cranfield.core.evaluation import evaluate
from cranfield.core.judged import judge
from cranfield.core.measures.names import parse
from cranfield.core.measures.registry import FRACTIONAL, all_definitions
from cranfield.errors import InputError, ParameterError
from generators import adversarial_case, collections

# (the diversity and sampled families read subtopic or sampled qrels, whose grades are
# whole numbers: no fractional form; tests/core/test_all_measures_robust.py runs them)
ALL = [
    m
    for d in all_definitions()
    if d.family not in ("diversity", "sampled")
    for m in instances(d, collection_size=10**6)
]
BY_USE = {use: [m for m in ALL if m.definition.fractional_use == use] for use in FRACTIONAL}


def _as_float(qrels: dict) -> dict:
    return {q: {d: float(g) for d, g in docs.items()} for q, docs in qrels.items()}


def _values(qrels: Qrels, run: Run, measures, **options) -> dict:
    jr = judge(qrels, run, **options)
    return {str(m): m.compute(jr) for m in measures}


def _same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for name in a:
        x, y = a[name], b[name]
        if x.dtype == object:
            assert list(x) == list(y), name
        else:
            assert np.array_equal(x, y, equal_nan=True), name  # bit for bit (same floats)


def test_every_family_declares_a_known_use():
    assert sum(len(v) for v in BY_USE.values()) == len(ALL)
    uses = {d.name: d.fractional_use for d in all_definitions()}
    assert uses["nDCG"] == uses["ERR"] == uses["G"] == uses["RBP"] == "gain"
    assert uses["AP"] == uses["P"] == uses["Bpref"] == "threshold"
    assert uses["relstring"] == uses["rbp"] == "refused"
    assert uses["Judged"] == uses["rbp_resid"] == "judged"


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("options", [{}, {"complete": True, "judged_only": True}, {"rel_level": 2}])
def test_integer_valued_float_qrels_give_the_integer_results(seed, options):
    qrels, run = adversarial_case(seed)
    ints = Qrels.from_dict(qrels)
    floats = Qrels.from_dict(_as_float(qrels), fractional=True)
    assert floats.fractional and not ints.fractional
    r = Run.from_dict(run, name="r") if run else Run.from_dict({"zz": {"x": 1.0}}, name="r")
    assert not judge(floats, r, **options).fractional  # whole numbers: not fractional
    _same(_values(ints, r, ALL, **options), _values(floats, r, ALL, **options))


def test_hand_computed_fractional_ndcg():
    # query 1 ranks c (0), b (0.5), a (1.5); query 2 ranks y (unjudged), x (1)
    qrels = Qrels.from_dict({"1": {"a": 1.5, "b": 0.5, "c": 0.0}, "2": {"x": 1.0}}, fractional=True)
    run = Run.from_dict({"1": {"c": 3.0, "b": 2.0, "a": 1.0}, "2": {"y": 2.0, "x": 1.0}})
    dcg1 = 0.5 / math.log2(3) + 1.5 / math.log2(4)
    idcg1 = 1.5 / math.log2(2) + 0.5 / math.log2(3)
    ndcg2 = (1.0 / math.log2(3)) / 1.0
    res = evaluate(qrels, run, ["nDCG", "DCG", "AP", "P@3"])
    pq = res.per_query(0)
    assert pq["1"]["nDCG"] == pytest.approx(dcg1 / idcg1, abs=1e-15)
    assert pq["2"]["nDCG"] == pytest.approx(ndcg2, abs=1e-15)
    assert pq["1"]["DCG"] == pytest.approx(dcg1, abs=1e-15)
    # binary: relevant when the gain is >= 1 (a in query 1 at rank 3; x at rank 2)
    assert pq["1"]["AP"] == pytest.approx(1 / 3)
    assert pq["1"]["P@3"] == pytest.approx(1 / 3)
    assert pq["2"]["AP"] == pytest.approx(1 / 2)
    # the mean of the hand values
    assert res.aggregate(0, "nDCG") == pytest.approx((dcg1 / idcg1 + ndcg2) / 2, abs=1e-15)


def test_fractional_err_uses_the_gain_as_grade():
    qrels = Qrels.from_dict({"1": {"a": 0.5, "b": 1.5}}, fractional=True)
    run = Run.from_dict({"1": {"a": 2.0, "b": 1.0}})
    r1 = (2**0.5 - 1) / 16
    r2 = (2**1.5 - 1) / 16
    expected = r1 + (1 - r1) * r2 / 2
    assert evaluate(qrels, run, ["ERR"]).per_query(0, "ERR")["1"] == pytest.approx(expected)


@pytest.mark.parametrize("name", ["relstring", "rbp", "nDCG(gains={1:2})", "P@5"])
def test_refused_where_a_fraction_has_no_meaning(name):
    qrels = Qrels.from_dict({"1": {"a": 0.5, "b": 2.0}}, fractional=True)
    run = Run.from_dict({"1": {"a": 2.0, "b": 1.0}})
    whole = Qrels.from_dict({"1": {"a": 0.0, "b": 2.0}}, fractional=True)
    evaluate(whole, run, [name])  # integer-valued floats: fine
    if name == "P@5":  # a binary measure binarises instead
        assert evaluate(qrels, run, [name]).per_query(0, name)["1"] == pytest.approx(0.2)
        return
    with pytest.raises(InputError, match="fractional"):
        evaluate(qrels, run, [name])


# -- properties --------------------------------------------------------------------------

_QUARTERS = st.integers(-4, 16).map(lambda k: k / 4)  # -1 .. 4 in steps of 0.25


@st.composite
def fractional_collections(draw):
    qrels, run = draw(collections(ties=True))
    fracs = {q: {d: draw(_QUARTERS) for d in docs} for q, docs in qrels.items()}
    return fracs, run


@settings(max_examples=60, deadline=None)
@given(fractional_collections(), st.sampled_from([0, 1, 2]))
def test_binary_measures_binarise_at_the_relevance_level(case, rel_level):
    fracs, run = case
    floors = {q: {d: int(math.floor(g)) for d, g in docs.items()} for q, docs in fracs.items()}
    r = Run.from_dict(run, name="r")
    measures = BY_USE["threshold"] + BY_USE["judged"]
    got = _values(Qrels.from_dict(fracs, fractional=True), r, measures, rel_level=rel_level)
    want = _values(Qrels.from_dict(floors), r, measures, rel_level=rel_level)
    _same(got, want)


@settings(max_examples=60, deadline=None)
@given(fractional_collections())
def test_linear_gain_measures_scale_with_the_gains(case):
    # quarter gains are 1/4 of whole grades: DCG, IDCG, CG scale by 1/4, nDCG and nCG
    # stay; the fractional path must agree with the integer one
    fracs, run = case
    times4 = {q: {d: int(g * 4) for d, g in docs.items()} for q, docs in fracs.items()}
    r = Run.from_dict(run, name="r")
    names = ["nDCG", "nDCG@3", "DCG", "IDCG@2", "CG@3", "ndcg_rel", "Rndcg", "G"]
    measures = [parse(n) for n in names]
    got = _values(Qrels.from_dict(fracs, fractional=True), r, measures)
    want = _values(Qrels.from_dict(times4), r, measures)
    for name in ("DCG", "IDCG@2", "CG@3"):
        np.testing.assert_allclose(got[name] * 4, want[name], rtol=1e-12, atol=1e-12)
    for name in ("nDCG", "nDCG@3", "ndcg_rel"):
        np.testing.assert_allclose(got[name], want[name], rtol=1e-12, atol=1e-12)
    for name in ("Rndcg", "G"):  # relevance counts and costs are not scale-free
        assert np.all(np.isfinite(got[name])) and np.all(got[name] >= 0)


# -- readers -------------------------------------------------------------------------------


def test_trec_text_reads_fractions_only_when_asked(tmp_path):
    path = tmp_path / "soft.qrels"
    path.write_text("1 0 a 0.25\n1 0 b 1.5\n1 0 c -.5\n2 0 x 2\n")
    soft = Qrels.read(path, fractional=True)
    assert soft.table["relevance"].to_pylist() == [0.25, 1.5, -0.5, 2.0]
    hard = Qrels.read(path)  # trec_eval's atol: truncated toward zero
    assert hard.table["relevance"].to_pylist() == [0, 1, 0, 2]
    path.write_text("1 0 a 2.5e-1\n1 0 b 15E-1\n")
    assert Qrels.read(path, fractional=True).table["relevance"].to_pylist() == [0.25, 1.5]


@pytest.mark.parametrize("bad", ["nan", "inf", "1e999", "0x1", "1,5", "--1"])
def test_trec_text_rejects_what_is_not_a_finite_number(tmp_path, bad):
    path = tmp_path / "bad.qrels"
    path.write_text(f"1 0 a 1\n1 0 b {bad}\n")
    with pytest.raises(InputError, match=r":2: relevance grade .* is not a finite number"):
        Qrels.read(path, fractional=True)


def test_tabular_readers_take_fractions_with_the_switch(tmp_path):
    pd = pytest.importorskip("pandas")
    csv = tmp_path / "q.csv"
    csv.write_text("qid,docno,rel\n1,a,0.5\n1,b,2\n")
    with pytest.raises(InputError, match="not an integer"):
        Qrels.read(csv)  # unchanged default
    assert Qrels.read(csv, fractional=True).table["relevance"].to_pylist() == [0.5, 2.0]
    df = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "rel": [0.5, 2.0]})
    assert Qrels.from_pandas(df, fractional=True).table["relevance"].to_pylist() == [0.5, 2.0]
    bad = pd.DataFrame({"qid": ["1"], "docno": ["a"], "rel": [float("inf")]})
    with pytest.raises(InputError, match="not a finite number in row 1"):
        Qrels.from_pandas(bad, fractional=True)
    bad = pd.DataFrame({"qid": ["1"], "docno": ["a"], "rel": [float("nan")]})  # pandas: null
    with pytest.raises(InputError, match="missing"):
        Qrels.from_pandas(bad, fractional=True)
    with pytest.raises(InputError, match="not a number"):
        Qrels.from_dict({"1": {"a": "x"}}, fractional=True)
    with pytest.raises(ParameterError, match="fractional"):
        Run.from_dict({"1": {"a": 1.0}}, fractional=True)


def test_duplicates_max_keeps_the_highest_fraction():
    import pyarrow as pa

    table = pa.table({"qid": ["1", "1"], "docno": ["a", "a"], "rel": [0.25, 0.75]})
    q = Qrels(table, duplicates="max", fractional=True)
    assert q.table["relevance"].to_pylist() == [0.75]


def test_written_fractions_read_back_bit_for_bit(tmp_path):
    values = [1 / 3, 2 / 3, 1e-20, 2.5e20, 0.1, 7.0]
    q = Qrels.from_dict({"1": {f"d{i}": v for i, v in enumerate(values)}}, fractional=True)
    q.to_trec(tmp_path / "out.qrels")
    back = Qrels.read(tmp_path / "out.qrels", fractional=True)
    assert back.table["relevance"].to_pylist() == values
