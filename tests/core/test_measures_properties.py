"""Hypothesis properties of the measures added for issue 3: bounds, monotonicity when a
relevant document moves up, invariance to the order within tied groups, seed 000's
identity f·p·(1-g) = r·g·(1-p)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from measures_helpers import close, one, per_query, ranking

from cranfield.core.evaluation import evaluate
from cranfield.core.qrels import Qrels
from cranfield.core.run import Run

FAST = settings(max_examples=40, deadline=None)

grades = st.one_of(st.none(), st.integers(0, 3))
rankings = st.lists(grades, min_size=1, max_size=12)

BOUNDED = [
    "P@5",
    "R@5",
    "AP",
    "AP(normalise='min(R,k)')@5",
    "AP(normalise='relret@k')@5",
    "RR@5",
    "Success@3",
    "nDCG(dcg='exp-log2')@5",
    "nDCG(dcg='jk', b=3)@5",
    "ERR(max_grade=3)@5",
    "RBP(rel=1)",
    "AUPRC",
    "AUPRC(method='trapezoid')",
    "Efficiency",
    "PrecAtRecall@0.5",
    "PrecAtRecall(interpolated=False)@0.5",
    "Judged@5",
    "nCG@5",
    "Fallout(collection_size=60)",
    "Generality(collection_size=60)",
    "SetF(beta=2)",
]

# measures that cannot decrease when a relevant document swaps with the non-relevant
# one just above it (AP normalised by relret@k can: a new relevant document at rank k
# lowers the mean of the precisions)
MONOTONE = [
    "P@3",
    "R@3",
    "AP",
    "AP(normalise='min(R,k)')@4",
    "RR@5",
    "Success@2",
    "nDCG@5",
    "nDCG(dcg='exp-log2')@5",
    "nDCG(dcg='jk')@5",
    "ERR(max_grade=1)",
    "RBP(rel=1)",
    "AUPRC",
    "Efficiency",
    "PrecAtRecall@0.5",
    "nCG@3",
]


@FAST
@given(labels=rankings, extra=st.integers(0, 3))
def test_bounds(labels, extra):
    for name in BOUNDED:
        value = one(labels, name, extra_judged=[1] * extra)
        assert -1e-12 <= value <= 1 + 1e-12, (name, value)


@FAST
@given(
    labels=st.lists(st.integers(0, 1), min_size=2, max_size=10),
    at=st.integers(0, 8),
    extra=st.integers(0, 2),
)
def test_monotone_when_a_relevant_document_moves_up(labels, at, extra):
    i = at % (len(labels) - 1)
    if not (labels[i] == 0 and labels[i + 1] == 1):
        labels[i], labels[i + 1] = 0, 1
    better = list(labels)
    better[i], better[i + 1] = 1, 0
    for name in MONOTONE:
        before = one(labels, name, extra_judged=[1] * extra)
        after = one(better, name, extra_judged=[1] * extra)
        assert after >= before - 1e-12, (name, labels, before, after)


def _with_scores(labels, scores):
    qrels = {"q": {f"d{i}": g for i, g in enumerate(labels) if g is not None}}
    qrels["q"]["m"] = 1
    run = {"q": {f"d{i}": float(s) for i, s in enumerate(scores)}}
    return qrels, run


@FAST
@given(labels=rankings, data=st.data())
def test_set_measures_ignore_the_order(labels, data):
    n = len(labels)
    order = data.draw(st.permutations(range(n)))
    tied = [0.0] * n
    for name in ("SetP", "SetR", "SetF(beta=0.5)", "Fallout(collection_size=50)", "NumRet"):
        a = per_query(*_with_scores(labels, list(range(n))), name)["q"]
        b = per_query(*_with_scores(labels, order), name)["q"]
        c = per_query(*_with_scores(labels, tied), name)["q"]
        assert a == b == c, name


@FAST
@given(labels=rankings, k=st.integers(1, 6), data=st.data())
def test_cutoff_measures_ignore_ties_inside_and_outside_the_top_k(labels, k, data):
    n = len(labels)
    # all of the top k tied, all of the rest tied: any tie resolution gives the same sets
    scores = [2.0 if i < k else 1.0 for i in range(n)]
    rename = data.draw(st.permutations(range(n)))
    qrels, run = _with_scores(labels, scores)
    renamed_q = {"q": {f"d{rename[i]}": g for i, g in enumerate(labels) if g is not None}}
    renamed_q["q"]["m"] = 1
    renamed_r = {"q": {f"d{rename[i]}": s for i, s in enumerate(scores)}}
    for name in (f"P@{k}", f"R@{k}", f"CG@{k}", f"nCG@{k}", f"Success@{k}", f"Judged@{k}"):
        assert per_query(qrels, run, name) == per_query(renamed_q, renamed_r, name), name


@FAST
@given(
    labels=st.lists(st.integers(0, 1), min_size=1, max_size=15),
    missing=st.integers(0, 5),
    size=st.integers(25, 200),
)
def test_seed000_identity_fallout_precision_generality_recall(labels, missing, size):
    r_count = sum(labels) + missing
    if r_count == 0:
        return
    q, r = ranking("q", labels, num_rel=r_count)
    names = [
        "SetP",
        "SetR",
        f"Fallout(collection_size={size})",
        f"Generality(collection_size={size})",
    ]
    for how in ("macro", "micro"):
        res = evaluate(Qrels.coerce(q), Run.coerce(r), names, aggregate_by=how)[0]
        p, rec, f, g = (res[n] for n in names)
        assert close(f * p * (1 - g), rec * g * (1 - p), 1e-12)
