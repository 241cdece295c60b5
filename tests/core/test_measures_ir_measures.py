"""Agreement with ir_measures 0.4 (test-only dependency) on generated collections.

Providers available here: pytrec_eval (trec_eval 9.x semantics), gdeval.pl (nDCG with
exp-log2 gains and ERR@k), judged and msmarco (RR@k). RBP's providers (cwl_eval,
trectools) are not installed, so RBP is checked against its formula instead.

Ties: pytrec_eval and gdeval order ties by document id descending, like cranfield
(trec_eval); ir_measures' judged and msmarco providers sort ties by document id
*ascending*. Those two are compared on tie-free runs only; a dedicated test shows the
difference on a tie.
"""

from __future__ import annotations

import ir_measures
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ir_measures import Qrel, ScoredDoc

from cranfield.core.evaluation import evaluate
from cranfield.core.measures import parse
from cranfield.core.qrels import Qrels
from cranfield.core.run import Run
from generators import collections

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _ours(qrels, run, measure):
    res = evaluate(Qrels.coerce(qrels), Run.coerce(run), [measure], compat=9)
    return res.per_query(0, measure)


def _theirs(provider, qrels, run, measure):
    q = [Qrel(qid, d, g) for qid, docs in qrels.items() for d, g in docs.items()]
    r = [ScoredDoc(qid, d, s) for qid, docs in run.items() for d, s in docs.items()]
    m = ir_measures.parse_measure(measure)
    return {x.query_id: x.value for x in provider.iter_calc([m], q, r)}


def _agree(ours, theirs, tol=1e-9, missing_is_zero=False, name=""):
    if missing_is_zero:
        assert set(theirs) <= set(ours)
        theirs = {q: theirs.get(q, 0.0) for q in ours}
    else:
        assert set(ours) == set(theirs)
    for q in ours:
        assert abs(ours[q] - theirs[q]) <= tol, (name, q, ours[q], theirs[q])


PYTREC = [
    "P@1",
    "P@5",
    "P(rel=2)@5",
    "R@3",
    "R@10",
    "AP",
    "AP@5",
    "AP(rel=2)",
    "RR",
    "RR(rel=3)",
    "Rprec",
    "nDCG",
    "nDCG@5",
    "Success@3",
    "SetP",
    "SetP(relative=True)",
    "SetR",
    "SetF",
    "SetAP",
    "IPrec@0.3",
    "Bpref",
    "infAP",
    "NumRet",
    "NumRet(rel=1)",
    "NumRel",
]


@pytest.mark.parametrize("ties", [False, True])
@SETTINGS
@given(data=st.data())
def test_pytrec_eval_measures_agree(ties, data):
    qrels, run = data.draw(collections(ties=ties))
    for name in PYTREC:
        ours = _ours(qrels, run, name)
        _agree(ours, _theirs(ir_measures.pytrec_eval, qrels, run, name), name=name)


@SETTINGS
@given(data=st.data())
def test_setf_beta_is_true_beta_where_ir_measures_passes_beta_squared(data):
    # ir_measures documents beta as the true F-beta parameter but hands it to
    # trec_eval's set_F, whose parameter is beta squared: its SetF(beta=b) computes
    # F with beta = sqrt(b). cranfield's SetF(beta=...) is the true beta (seed 000).
    qrels, run = data.draw(collections())
    for b in (0.25, 2.0, 4.0):
        theirs = _theirs(ir_measures.pytrec_eval, qrels, run, f"SetF(beta={b})")
        _agree(_ours(qrels, run, f"SetF(beta={b**0.5})"), theirs, tol=1e-12)
        _agree(_ours(qrels, run, f"set_F.{b}"), theirs, tol=1e-12)


@SETTINGS
@given(data=st.data())
def test_judged_only_agrees(data):
    qrels, run = data.draw(collections())
    for name in ("P(judged_only=True)@5", "AP(judged_only=True)", "nDCG(judged_only=True)@5"):
        _agree(_ours(qrels, run, name), _theirs(ir_measures.pytrec_eval, qrels, run, name))


@pytest.mark.process  # ir_measures runs gdeval, a Perl script
@pytest.mark.parametrize("ties", [False, True])
@SETTINGS
@given(data=st.data())
def test_gdeval_ndcg_exp_log2_and_err_agree(ties, data):
    qrels, run = data.draw(collections(ties=ties))
    for name in ("nDCG(dcg='exp-log2')@5", "nDCG(dcg='exp-log2')@20", "ERR@5", "ERR@20"):
        # gdeval prints 5 decimals and reports only topics with a positive judgment
        theirs = _theirs(ir_measures.gdeval, qrels, run, name)
        _agree(_ours(qrels, run, name), theirs, tol=5.1e-6, missing_is_zero=True)


@SETTINGS
@given(data=st.data())
def test_judged_and_rr_at_k_agree_without_ties(data):
    qrels, run = data.draw(collections())
    for name in ("Judged@1", "Judged@5", "Judged@100"):
        _agree(_ours(qrels, run, name), _theirs(ir_measures.judged, qrels, run, name))
    for name in ("RR@3", "RR@10"):
        theirs = _theirs(ir_measures.msmarco, qrels, run, name)
        _agree(_ours(qrels, run, name), theirs, missing_is_zero=True)


def test_judged_divides_by_the_documents_retrieved_not_by_k():
    # 3 documents retrieved, 2 judged: Judged@10 is 2/3 (min(k, n) = 3), as ir_measures
    qrels = {"1": {"a": 1, "b": 0}}
    run = {"1": {"a": 3.0, "b": 2.0, "c": 1.0}}
    assert _ours(qrels, run, "Judged@10")["1"] == pytest.approx(2 / 3, rel=1e-15)
    assert _theirs(ir_measures.judged, qrels, run, "Judged@10")["1"] == pytest.approx(2 / 3)
    assert _ours(qrels, run, "P@10")["1"] == pytest.approx(0.1)  # P@k divides by k


def test_judged_tie_order_differs_from_trec_eval():
    # two documents tied; trec_eval ranks "b" first (doc id descending), ir_measures "a"
    qrels = {"1": {"a": 1}}
    run = {"1": {"a": 1.0, "b": 1.0}}
    assert _ours(qrels, run, "Judged@1")["1"] == 0.0
    assert _theirs(ir_measures.judged, qrels, run, "Judged@1")["1"] == 1.0


NAMES = [
    "nDCG@10",
    "nDCG(dcg='exp-log2')@10",
    "P(rel=2)@5",
    "RBP(p=0.8)",
    "RBP(p=0.5,rel=2)",
    "ERR@20",
    "Judged@10",
    "SetF(beta=2)",
    "IPrec@0.3",
    "R@100",
    "AP@5",
    "AP(rel=2)",
    "RR@10",
    "Success@1",
    "NumRet",
    "NumRet(rel=1)",
    "Rprec",
    "Bpref",
    "infAP",
    "SetP",
    "SetP(relative=True)",
    "SetAP",
    "SetR",
    "NumRel",
    "NumQ",
    "P(judged_only=True)@5",
    "nDCG(gains={0:0,1:1,2:3})@10",
]


@pytest.mark.parametrize("name", NAMES)
def test_ir_measures_names_mean_the_same(name):
    theirs = ir_measures.parse_measure(name)
    ours = parse(name)
    assert ours.name == theirs.NAME
    their_cutoff = theirs.params.get("cutoff", theirs.params.get("recall"))
    assert ours.cutoff == their_cutoff
    values = ours.param_values()
    for key, value in theirs.params.items():
        if key in ("cutoff", "recall"):
            continue
        if key == "gains":
            assert dict(values["gains"]) == {k: float(v) for k, v in value.items()}
        else:
            assert values[key] == value, key
    # our canonical name parses back to an equal value in both libraries
    assert parse(str(ours)) == ours
    back = ir_measures.parse_measure(str(ours).replace(", ", ","))
    assert back.NAME == theirs.NAME and _full(back) == _full(theirs)


def _full(m) -> dict:
    """ir_measures parameters with defaults filled in."""
    return {k: m.params.get(k, p.default) for k, p in m.SUPPORTED_PARAMS.items()}


@pytest.mark.parametrize(
    "alias, canonical",
    [
        ("MAP", "AP"),
        ("MRR@10", "RR@10"),
        ("NDCG@10", "nDCG@10"),
        ("BPref", "Bpref"),
        ("RPrec", "Rprec"),
        ("Precision@5", "P@5"),
        ("Recall@5", "R@5"),
        ("SetRelP", "SetRelP"),
        ("NumRelRet", "NumRelRet"),
        ("ndcg_cut.10", "nDCG@10"),
        ("ndcg_cut_10", "nDCG@10"),
        ("P_5", "P@5"),
        ("P.5", "P@5"),
    ],
)
def test_aliases_map(alias, canonical):
    assert str(parse(alias)) == canonical


def test_ir_measures_defaults_match():
    for name, params in {
        "RBP": {"p": 0.8, "rel": None},
        "nDCG": {"dcg": "log2", "judged_only": False},
        "SetF": {"beta": 1.0, "rel": None},
        "AP": {"normalise": "R", "judged_only": False},
        "ERR": {"max_grade": 4},
    }.items():
        values = parse(name).param_values()
        for key, value in params.items():
            assert values[key] == value, (name, key)
    assert ir_measures.measures.RBP.SUPPORTED_PARAMS["p"].default == 0.8
    assert ir_measures.measures.SetF.SUPPORTED_PARAMS["beta"].default == 1.0


def test_rbp_formula_on_generated_rankings():
    rng = np.random.default_rng(7)
    for _ in range(30):
        n = int(rng.integers(1, 15))
        grades = rng.integers(-1, 4, size=n)
        qrels = {"1": {f"d{i}": int(g) for i, g in enumerate(grades) if g >= 0}}
        qrels["1"].setdefault("zz", 1)
        run = {"1": {f"d{i}": float(n - i) for i in range(n)}}
        p = float(rng.choice([0.5, 0.8, 0.95]))
        for rel in (None, 1, 2):
            gains = np.where(grades > 0, grades, 0) if rel is None else (grades >= rel)
            expected = (1 - p) * sum(g * p**i for i, g in enumerate(gains))
            name = f"RBP(p={p})" if rel is None else f"RBP(p={p}, rel={rel})"
            assert abs(_ours(qrels, run, name)["1"] - expected) < 1e-12
