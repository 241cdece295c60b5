"""LETOR's Eval-Score-4.0 rules, each checked on a hand-computed example."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cranfield.errors import MeasureError
from cranfield.ltr.data import from_arrays
from cranfield.ltr.objective import Objective


def _value(ranked_labels, measure, queries=None):
    """The measure of rankings given as label lists, best score first."""
    queries = queries or [ranked_labels]
    x, labels, qids = [], [], []
    for qi, labs in enumerate(queries):
        n = len(labs)
        x += [[float(n - i)] for i in range(n)]  # descending scores: file order = rank
        labels += list(labs)
        qids += [f"q{qi}"] * n
    data = from_arrays(np.array(x), labels, qids)
    return Objective(data, measure, convention="letor")(np.array([1.0]))[0]


def test_gains_are_2_to_the_label_minus_1_and_rank_3_is_discounted_by_log2_3():
    # DCG = 0 + 1*1 + 3/log2(3); ideal [2,1,0] = 3 + 1 + 0
    expected = (1 + 3 / math.log2(3)) / 4
    assert _value([0, 1, 2], "NDCG@3") == pytest.approx(expected, rel=1e-15)


def test_ranks_1_and_2_are_not_discounted():
    # [1, 2]: 1 + 3 = 4 = ideal 3 + 1 (a log2(r+1) discount would give less than 1)
    assert _value([1, 2], "NDCG@2") == 1.0
    assert _value([0, 2, 0, 1], "NDCG@4") == pytest.approx((3 + 1 / 2) / (3 + 1), rel=1e-15)


def test_ndcg_at_k_is_0_for_a_query_with_fewer_than_k_documents():
    assert _value([2, 1, 0], "NDCG@3") == 1.0
    assert _value([2, 1, 0], "NDCG@4") == 0.0


def test_a_query_without_relevant_documents_scores_0_and_counts_in_the_mean():
    assert _value(None, "NDCG@2", queries=[[1, 0], [0, 0]]) == 0.5
    assert _value(None, "MAP", queries=[[1, 0], [0, 0]]) == 0.5
    assert _value(None, "P@1", queries=[[1, 0], [0, 0]]) == 0.5


def test_ties_keep_file_order():
    # every score tied: the ranking is the file order, whatever the document ids
    data = from_arrays(np.zeros((3, 1)), [0, 0, 2], ["q"] * 3, ["a", "b", "c"])
    letor = Objective(data, "NDCG@3", convention="letor")(np.array([1.0]))[0]
    assert letor == pytest.approx(1 / math.log2(3), rel=1e-15)
    swapped = from_arrays(np.zeros((3, 1)), [2, 0, 0], ["q"] * 3, ["c", "a", "b"])
    assert Objective(swapped, "NDCG@3", convention="letor")(np.array([1.0]))[0] == 1.0
    # trec_eval's order (document id descending) ranks "c" first in both
    assert Objective(data, "nDCG@1")(np.array([1.0]))[0] == 1.0
    assert Objective(swapped, "nDCG@1")(np.array([1.0]))[0] == 1.0


def test_precision_and_average_precision():
    assert _value([1, 0, 1], "P@2") == 0.5
    assert _value([1, 0, 1], "P@5") == pytest.approx(2 / 5)
    assert _value([1, 0, 1], "MAP") == pytest.approx((1 + 2 / 3) / 2, rel=1e-15)
    assert _value([0, 2, 1], "MAP") == pytest.approx((1 / 2 + 2 / 3) / 2, rel=1e-15)


@pytest.mark.parametrize("name", ["ERR@10", "Bpref", "nDCG@0", "R@10"])
def test_measures_outside_the_convention_are_refused(name):
    data = from_arrays(np.zeros((2, 1)), [0, 1], ["q", "q"])
    with pytest.raises(MeasureError, match="letor"):
        Objective(data, name, convention="letor")


def test_labels_too_large_for_exponential_gains_are_refused():
    data = from_arrays(np.zeros((2, 1)), [0, 2000], ["q", "q"])
    with pytest.raises(MeasureError, match="<= 60"):
        Objective(data, "NDCG@2", convention="letor")(np.array([1.0]))


def _reference(labels_by_query, scores_by_query, measure, k=None):
    """A direct, query-by-query reading of LETOR's rules (ties: file order)."""
    values = []
    for labs, sc in zip(labels_by_query, scores_by_query, strict=True):
        order = sorted(range(len(sc)), key=lambda i: -sc[i])  # stable: file order on ties
        ranked = [labs[i] for i in order]
        ideal = sorted(labs, reverse=True)
        if measure == "ndcg":
            if len(ranked) < k:
                values.append(0.0)
                continue
            disc = [1.0 if r <= 2 else 1 / math.log2(r) for r in range(1, k + 1)]
            dcg = sum((2**g - 1) * d for g, d in zip(ranked[:k], disc, strict=False))
            idcg = sum((2**g - 1) * d for g, d in zip(ideal[:k], disc, strict=False))
            values.append(dcg / idcg if idcg > 0 else 0.0)
        elif measure == "p":
            values.append(sum(g >= 1 for g in ranked[:k]) / k)
        else:
            hits, total = 0, 0.0
            for r, g in enumerate(ranked, 1):
                if g >= 1:
                    hits += 1
                    total += hits / r
            nrel = sum(g >= 1 for g in labs)
            values.append(total / nrel if nrel else 0.0)
    return values


@pytest.mark.parametrize("seed", range(12))
def test_letor_values_equal_a_query_by_query_reading_of_the_rules(seed):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 40, size=15)
    x = rng.integers(0, 3, size=(int(sizes.sum()), 3)).astype(float)  # many ties
    labels = rng.integers(0, 3, size=len(x))
    qids = np.repeat([f"q{i}" for i in range(len(sizes))], sizes)
    data = from_arrays(x, labels, qids)
    w = rng.normal(size=3)
    scores = x @ w
    bounds = np.cumsum(sizes)[:-1]
    labs = [list(v) for v in np.split(labels, bounds)]
    scs = [list(v) for v in np.split(scores, bounds)]
    for name, kind, k in [("NDCG@10", "ndcg", 10), ("NDCG@3", "ndcg", 3), ("P@5", "p", 5),
                          ("MAP", "map", None)]:  # fmt: skip
        got = Objective(data, name, convention="letor").per_query(w)[0][0]
        assert got == pytest.approx(_reference(labs, scs, kind, k), rel=1e-12, abs=1e-15)
