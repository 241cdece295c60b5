"""The seed documents' worked examples (/work/shared/seeds) as golden values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from measures_helpers import close, one, per_query, ranking

from cranfield.errors import MeasureError

# seed 000, 1.4: 14 ranks, 5 relevant documents (x at ranks 1, 2, 4, 6, 13)
SEED000 = [1, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0]
SEED000_P = [1.00, 1.00, 0.67, 0.75, 0.60, 0.67, 0.57, 0.50, 0.44, 0.40, 0.36, 0.33, 0.38, 0.36]
SEED000_R = [0.2, 0.4, 0.4, 0.6, 0.6, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 1.0, 1.0]

# seed 004: A = d1..d10 ranked, R = {d2, d5, d8, d15}
SEED004 = [0, 1, 0, 0, 1, 0, 0, 1, 0, 0]
SEED004_11PT = [0.50, 0.50, 0.50, 0.40, 0.40, 0.40, 0.38, 0.38, 0.00, 0.00, 0.00]


def test_seed002_ap_at_5_normalised_by_relevant_retrieved():
    # Q1: relevant at ranks 1, 3, 4 of the top 5; Q2: non-relevant at 1 and 3
    q1 = one([1, 0, 1, 1, 0], "AP(normalise='relret@k')@5", num_rel=4)
    q2 = one([0, 1, 0, 1, 1], "AP(normalise='relret@k')@5", num_rel=4)
    assert round(q1, 2) == 0.81 and round(q2, 2) == 0.53


def test_seed002_ap_at_5_other_normalisations():
    labels = [1, 0, 1, 1, 0]
    s = 1 + 2 / 3 + 3 / 4
    assert close(one(labels, "AP@5", num_rel=4), s / 4)  # trec_eval map_cut: by R
    assert close(one(labels, "AP(normalise='min(R,k)')@5", num_rel=4), s / 4)
    assert close(one(labels, "AP(normalise='min(R,k)')@2", num_rel=4), 1 / 2)
    assert close(one(labels, "AP(normalise='R')@5", num_rel=4), one(labels, "AP@5", num_rel=4))


def test_seed002_precision_and_recall_at_5():
    # documents A..G; A, C, F, G relevant; A, C and G among the top 5
    labels = [1, 0, 1, 0, 1, 1, 0]  # A B C D G | F E
    assert close(one(labels, "P@5"), 3 / 5)
    assert close(one(labels, "R@5"), 3 / 4)


def test_seed000_precision_recall_table():
    from cranfield.report.curves import pr_points

    q, r = ranking("q", SEED000)
    points = pr_points(q, r)
    assert np.allclose(np.round(points["precision"], 2), SEED000_P)
    assert np.allclose(points["recall"], SEED000_R)
    assert list(points["rank"]) == list(range(1, 15))


def test_seed000_system_efficiency():
    # the point closest to (1, 1) is (p, r) = (4/6, 0.8) at rank 6
    d = math.hypot(1 - 4 / 6, 1 - 0.8)
    assert close(one(SEED000, "Efficiency"), 1 - d / math.sqrt(2))
    assert close(one(SEED000, "Efficiency@3"), 1 - math.hypot(0, 0.6) / math.sqrt(2))


@pytest.mark.parametrize(
    "threshold, interpolated, expected",
    [
        (0.2, True, 1.0),
        (0.6, True, 0.75),
        (0.6, False, 0.75),
        (0.8, True, 4 / 6),
        (0.8, False, 4 / 6),
        (1.0, True, 5 / 13),
        (0.5, True, 0.75),  # first reached at rank 4
        (0.3, False, 1.0),  # reached at rank 2 (r = 0.4)
    ],
)
def test_seed000_r_precision_at_recall_threshold(threshold, interpolated, expected):
    name = f"PrecAtRecall(interpolated={interpolated})@{threshold}"
    assert close(one(SEED000, name), expected)


def test_seed000_r_precision_differs_from_first_reached_when_precision_rises():
    # r_t = 0.2 is reached at rank 3 (p = 1/3); precision then rises to 2/4 at rank 4
    labels = [0, 0, 1, 1, 0]
    assert close(one(labels, "PrecAtRecall(interpolated=False)@0.2", num_rel=5), 1 / 3)
    assert close(one(labels, "PrecAtRecall@0.2", num_rel=5), 1 / 2)
    assert one(labels, "PrecAtRecall@0.6", num_rel=5) == 0.0  # never reached


def test_seed004_interpolated_precision_at_11_points():
    from cranfield.report.curves import interpolated_precision

    q, r = ranking("q", SEED004, num_rel=4)
    table = interpolated_precision(q, r)
    assert np.allclose(np.round(table["precision"], 2), SEED004_11PT)
    assert np.allclose(table["recall"], np.linspace(0, 1, 11))


def test_seed004_precision_recall_points():
    from cranfield.report.curves import pr_points

    q, r = ranking("q", SEED004, num_rel=4)
    p = pr_points(q, r)
    rel_rows = [1, 4, 7]
    assert np.allclose(np.round(p["recall"][rel_rows], 2), [0.25, 0.50, 0.75])
    assert np.allclose(np.round(p["precision"][rel_rows], 2), [0.50, 0.40, 0.38])


def test_seed004_dcg_jk_formula():
    # DCG_p = R_1 + sum_{i>=2} R_i / log2 i with binary R_i
    dcg = 1 / math.log2(2) + 1 / math.log2(5) + 1 / math.log2(8)
    ideal = 1 + 1 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)
    assert close(one(SEED004, "DCG(dcg='jk')@10", num_rel=4), dcg)
    assert close(one(SEED004, "IDCG(dcg='jk')@10", num_rel=4), ideal)
    assert close(one(SEED004, "nDCG(dcg='jk')@10", num_rel=4), dcg / ideal)
    # base b: ranks below b are not discounted
    assert close(one([0, 0, 1], "DCG(dcg='jk', b=3)"), 1.0)
    assert close(one([0, 0, 0, 0, 0, 0, 0, 0, 1], "DCG(dcg='jk', b=3)"), 1 / 2)


def test_seed004_err_cascade_with_grade_mapping():
    grades = [2, 0, 3, 1]
    g_max = 3
    stop = [(2**g - 1) / 2**g_max for g in grades]
    expected, reach = 0.0, 1.0
    for i, r in enumerate(stop, start=1):
        expected += reach * r / i
        reach *= 1 - r
    assert close(one(grades, f"ERR(max_grade={g_max})"), expected)
    assert close(one(grades, f"ERR(max_grade={g_max})@2"), stop[0])
    # binary grades with g_max = 1: R = 1/2 per relevant document
    assert close(one([0, 1], "ERR(max_grade=1)"), 0.5 / 2)


def test_err_rejects_grades_above_the_scale():
    with pytest.raises(MeasureError, match="max_grade"):
        one([5, 0], "ERR@10")


def test_seed001_cumulated_gain_normalised_by_k_rel_max():
    # grades 0..3; CG_10 = 15 and 7 documents with grade > 0: nCG_10 = 0.5, P@10 = 0.70
    grades = [3, 2, 3, 0, 1, 2, 0, 3, 1, 0]
    assert close(one(grades, "CG@10"), 15.0)
    assert close(one(grades, "nCG@10"), 0.5)
    assert close(one(grades, "nCG(max_gain=3)@10"), 0.5)
    assert close(one(grades, "P@10"), 0.7)
    # binary relevance: nCG@k is P@k
    assert close(one([1, 0, 1], "nCG@5"), one([1, 0, 1], "P@5"))


def test_seed000_boolean_measures_and_identity():
    # |A| = 100, R = 5 (3 retrieved), F = 8 retrieved
    labels = [1, 0, 1, 0, 0, 1, 0, 0]
    n = 100
    p, r = 3 / 8, 3 / 5
    f = one(labels, f"Fallout(collection_size={n})", num_rel=5)
    g = one(labels, f"Generality(collection_size={n})", num_rel=5)
    assert close(f, 5 / 95) and close(g, 5 / 100)
    assert close(f * p * (1 - g), r * g * (1 - p))


def test_fallout_needs_the_collection_size():
    with pytest.raises(MeasureError, match=r"collection_size=N"):
        one([1, 0], "Fallout")
    with pytest.raises(MeasureError, match="Generality"):
        one([1, 0], "Generality")
    with pytest.raises(MeasureError, match="smaller than"):
        one([1, 0, 0], "Fallout(collection_size=2)")
    with pytest.raises(MeasureError, match="collection_size"):
        one([1, 0], "Fallout(collection_size=0)")


def test_seed000_f_measure_with_true_beta():
    labels = [1, 0, 1, 0, 0, 1, 0, 0]
    p, r = 3 / 8, 3 / 5
    for beta in (0.5, 1.0, 2.0):
        expected = (beta**2 + 1) * p * r / (beta**2 * p + r)
        assert close(one(labels, f"SetF(beta={beta})", num_rel=5), expected)
        # trec_eval's set_F parameter is beta squared
        assert close(one(labels, f"set_F.{beta**2}", num_rel=5), expected)
    assert close(one(labels, "SetF(beta=0)", num_rel=5), p)


def test_seed000_macro_and_micro_averaging():
    q1, r1 = ranking("1", [1, 0, 0, 0], num_rel=1)  # p = 1/4, r = 1
    q2, r2 = ranking("2", [1, 1, 1, 0, 0, 0, 0, 0, 0, 0], num_rel=30)  # p = 3/10, r = 0.1
    q, r = {**q1, **q2}, {**r1, **r2}
    from cranfield.core.evaluation import evaluate
    from cranfield.core.qrels import Qrels
    from cranfield.core.run import Run

    names = ["SetP", "SetR", "Fallout(collection_size=1000)", "Generality(collection_size=1000)"]
    macro = evaluate(Qrels.coerce(q), Run.coerce(r), names)[0]
    micro = evaluate(Qrels.coerce(q), Run.coerce(r), names, aggregate_by="micro")[0]
    assert close(macro["SetP"], (1 / 4 + 3 / 10) / 2)
    assert close(micro["SetP"], 4 / 14)
    assert close(macro["SetR"], (1 + 0.1) / 2)
    assert close(micro["SetR"], 4 / 31)
    assert close(micro["Fallout(collection_size=1000)"], (3 + 7) / (999 + 970))
    assert close(micro["Generality(collection_size=1000)"], 31 / 2000)


def test_rbp_and_residual():
    labels = [1, None, 0, 2]
    p = 0.8
    assert close(one(labels, "RBP(rel=1)"), (1 - p) * (1 + p**3))
    assert close(one(labels, "RBP"), (1 - p) * (1 + 2 * p**3))
    assert close(one(labels, "RBP(rel=1)@3"), (1 - p) * 1)
    # residual: the unjudged rank 2 and everything after rank 4
    assert close(one(labels, "RBPResidual(rel=1)"), (1 - p) * p + p**4)
    assert close(one(labels, "RBPResidual(rel=1)@1"), p)
    assert close(one(labels, "RBPResidual"), 2 * ((1 - p) * p + p**4))


def test_judged_at_k():
    labels = [1, None, 0, None, None]
    assert close(one(labels, "Judged@2"), 0.5)
    assert close(one(labels, "Judged@10"), 2 / 5)  # divides by the ranking length
    assert close(one(labels, "Judged"), 2 / 5)


def test_auprc_interpolated_and_trapezoid():
    # seed 004 ranking: interpolated precision 0.5, 0.4, 0.375 at the relevant ranks
    assert close(one(SEED004, "AUPRC", num_rel=4), (0.5 + 0.4 + 0.375) / 4)
    trapezoid = ((0 + 0.5) / 2 + (1 / 4 + 2 / 5) / 2 + (2 / 7 + 3 / 8) / 2) / 4
    assert close(one(SEED004, "AUPRC(method='trapezoid')", num_rel=4), trapezoid)
    assert close(one([1, 1], "AUPRC(method='trapezoid')"), 1.0)


def test_queries_without_relevant_documents_score_zero_or_are_skipped():
    q1, r1 = ranking("1", [1, 0])
    q2, r2 = ranking("2", [0, 0])
    q, r = {**q1, **q2}, {**r1, **r2}
    for name in ("AUPRC", "Efficiency", "PrecAtRecall@0.5", "AP(normalise='relret@k')@5"):
        values = per_query(q, r, name)
        assert values["2"] == 0.0
        from cranfield.core.evaluation import evaluate
        from cranfield.core.qrels import Qrels
        from cranfield.core.run import Run

        skipped = evaluate(Qrels.coerce(q), Run.coerce(r), [name], skip_no_relevant=True)[0]
        assert skipped[name] == values["1"]
