"""The data drawn by the report's figures: seed worked examples and brute-force oracles."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield import evaluate
from cranfield.errors import ParameterError
from cranfield.report import data

# seed 000, 1.4: 14 ranks, relevant at 1, 2, 4, 6, 13, R = 5
SEED000 = [1, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0]
SEED000_P = [1.00, 1.00, 0.67, 0.75, 0.60, 0.67, 0.57, 0.50, 0.44, 0.40, 0.36, 0.33, 0.38, 0.36]
SEED000_R = [0.2, 0.4, 0.4, 0.6, 0.6, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 1.0, 1.0]
LEVELS = [i / 10 for i in range(11)]  # the 11 standard recall levels, exactly as curves uses


def collection(labels_by_query: dict, num_rel: dict | None = None, unjudged=()):
    """Qrels and a run whose ranking of each query has the given grades (None: unjudged)."""
    qrels, run = {}, {}
    for q, labels in labels_by_query.items():
        qrels[q], run[q] = {}, {}
        for i, g in enumerate(labels):
            run[q][f"{q}-d{i:03d}"] = float(len(labels) - i)
            if g is not None:
                qrels[q][f"{q}-d{i:03d}"] = int(g)
        found = sum(1 for g in labels if g)
        for j in range((num_rel or {}).get(q, found) - found):
            qrels[q][f"{q}-m{j:03d}"] = 1
        qrels[q]["zzz"] = 0
    return qrels, run


def brute_interp(labels, num_rel, r):
    """max {p_k : r_k >= r}, 0 when no rank reaches r (seed 004)."""
    best, hits = 0.0, 0
    for k, g in enumerate(labels, start=1):
        hits += bool(g)
        if num_rel and hits / num_rel >= r:
            best = max(best, hits / k)
    return best


def step_value(x, y, r):
    """Value of a steps-pre curve at recall r: y[j] on (x[j-1], x[j]], y[0] at x[0]."""
    j = int(np.searchsorted(x, r, side="left"))
    return y[min(j, len(y) - 1)]


def test_seed000_sawtooth_and_step_curve():
    qrels, run = collection({"Q": SEED000})
    d = data.pr_data(qrels, {"sys": run}, query="Q")["sys"]
    assert np.allclose(np.round(d["raw_precision"], 2), SEED000_P)
    assert np.allclose(d["raw_recall"], SEED000_R)
    # step curve: interpolated precision at each relevant document, from recall 0
    assert np.allclose(d["interp_recall"], [0, 0.2, 0.4, 0.6, 0.8, 1.0])
    assert np.allclose(d["interp_precision"], [1, 1, 1, 0.75, 4 / 6, 5 / 13])


def test_step_curve_drops_to_zero_beyond_last_recall():
    # seed 004: R = 4, relevant at 2, 5, 8; the fourth is never retrieved
    qrels, run = collection({"Q": [0, 1, 0, 0, 1, 0, 0, 1, 0, 0]}, num_rel={"Q": 4})
    d = data.pr_data(qrels, {"s": run}, query="Q")["s"]
    x, y = d["interp_recall"], d["interp_precision"]
    assert x[-1] == 1.0 and y[-1] == 0.0
    expected = [0.50, 0.50, 0.50, 0.40, 0.40, 0.40, 0.38, 0.38, 0.00, 0.00, 0.00]
    got = [round(step_value(x, y, r), 2) for r in LEVELS]
    assert got == expected


@pytest.mark.parametrize("seed", range(25))
def test_step_curve_equals_interpolated_precision_everywhere(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 30))
    labels = list(rng.integers(0, 2, n) * (rng.random(n) < 0.6))
    num_rel = sum(labels) + int(rng.integers(0, 4))
    if num_rel == 0:
        num_rel = 1
    qrels, run = collection({"Q": labels}, num_rel={"Q": num_rel})
    d = data.pr_data(qrels, {"s": run}, query="Q")["s"]
    x, y = d["interp_recall"], d["interp_precision"]
    assert np.all(np.diff(y[1:]) <= 1e-12)  # non-increasing
    for r in np.concatenate((np.linspace(0, 1, 41), x)):
        assert np.isclose(step_value(x, y, r), brute_interp(labels, num_rel, r))


def test_averaged_curves_are_means_of_evaluate_and_brute_force():
    labels = {"a": [1, 0, 1, 0, 0, 1], "b": [0, 0, 1, 1, 0, 0], "c": [0, 1, 0, 0, 0, 0]}
    num_rel = {"a": 4, "b": 2, "c": 3}
    qrels, run = collection(labels, num_rel)
    d = data.pr_data(qrels, {"s": run})["s"]
    res = evaluate(qrels, {"s": run}, [f"P@{k}" for k in range(1, 7)])
    assert np.allclose(d["raw_precision"], [res.aggregate("s", f"P@{k}") for k in range(1, 7)])
    rec = [np.mean([sum(labels[q][:k]) / num_rel[q] for q in labels]) for k in range(1, 7)]
    assert np.allclose(d["raw_recall"], rec)
    levels = np.array(LEVELS)
    assert np.allclose(d["interp_recall"], levels)
    want = [np.mean([brute_interp(labels[q], num_rel[q], r) for q in labels]) for r in levels]
    assert np.allclose(d["interp_precision"], want)


def test_averages_both_ways_of_seed000():
    labels = {"a": SEED000, "b": [0] * 4 + [1] + [0] * 9}
    qrels, run = collection(labels, {"a": 5, "b": 2})
    d = data.averages_data(qrels, {"s": run}, ranks=(5, 10))["s"]
    assert list(d["rank"]) == [5, 10]
    assert np.allclose(d["rank_precision"], [(3 / 5 + 1 / 5) / 2, (4 / 10 + 1 / 10) / 2])
    assert np.allclose(d["rank_recall"], [(3 / 5 + 1 / 2) / 2, (4 / 5 + 1 / 2) / 2])
    want = [
        np.mean([brute_interp(labels[q], n, r) for q, n in (("a", 5), ("b", 2))]) for r in LEVELS
    ]
    assert np.allclose(d["precision"], want)


def test_delta_sorted_over_common_queries():
    scores = {
        "base": {"1": 0.5, "2": 0.2, "3": 0.9, "4": 0.1},
        "new": {"1": 0.7, "2": 0.2, "3": 0.4},  # query 4 missing
        "other": {"1": 0.5, "2": 0.6, "3": 0.9, "4": 0.0},
    }
    d = data.delta_data(scores, "base")
    assert set(d) == {"new", "other"}
    assert list(d["new"]["query_id"]) == ["1", "2", "3"]
    assert np.allclose(d["new"]["delta"], [0.2, 0.0, -0.5])
    assert list(d["other"]["query_id"]) == ["2", "1", "3", "4"]  # ties by query id
    assert np.allclose(d["other"]["delta"], [0.4, 0.0, 0.0, -0.1])
    assert set(data.delta_data(scores)) == {"new", "other"}  # first run is the default
    with pytest.raises(ParameterError, match="baseline"):
        data.delta_data(scores, "nope")


def test_distribution_in_query_order():
    d = data.distribution_data({"a": {"2": 0.5, "1": 0.25}, "b": {"9": 1.0}})
    assert list(d["a"]) == [0.25, 0.5] and list(d["b"]) == [1.0]


def test_depth_data_equals_evaluate_at_each_k():
    labels = {"a": [2, 0, 1, 0, 1], "b": [0, 1, 0, 0, 0, 3]}
    qrels, run = collection(labels)
    runs = {"s": run, "t": {q: {d: -s for d, s in docs.items()} for q, docs in run.items()}}
    d = data.depth_data(qrels, runs, ("P", "nDCG"), 6)
    assert list(d["P"]["k"]) == list(range(1, 7))
    res = evaluate(qrels, runs, [f"{m}@{k}" for m in ("P", "nDCG") for k in range(1, 7)])
    for m in ("P", "nDCG"):
        for name in ("s", "t"):
            assert np.allclose(d[m][name], [res.aggregate(name, f"{m}@{k}") for k in range(1, 7)])
    # P@k by hand for run s
    p = [np.mean([sum(g > 0 for g in labels[q][:k]) / k for q in labels]) for k in range(1, 7)]
    assert np.allclose(d["P"]["s"], p)
    with pytest.raises(ParameterError, match="cutoff"):
        data.depth_data(qrels, runs, ("P@5",))
    with pytest.raises(ParameterError, match="max_depth"):
        data.depth_data(qrels, runs, ("P",), 0)


def test_depth_data_at_chosen_cutoffs_is_the_full_curve_sampled():
    labels = {"a": [2, 0, 1, 0, 1, 0, 0, 1], "b": [0, 1, 0, 0, 0, 3, 1]}
    qrels, run = collection(labels)
    full = data.depth_data(qrels, {"s": run}, ("P", "nDCG"), 8)
    ks = [1, 3, 8]
    sparse = data.depth_data(qrels, {"s": run}, ("P", "nDCG"), ks=ks)
    for m in ("P", "nDCG"):
        assert list(sparse[m]["k"]) == ks
        assert np.array_equal(sparse[m]["s"], full[m]["s"][np.array(ks) - 1])
    for bad in ([], [0, 2], [3, 2]):
        with pytest.raises(ParameterError, match="ks"):
            data.depth_data(qrels, {"s": run}, ("P",), ks=bad)


@pytest.mark.parametrize("depth", [1, 7, 10, 20, 37, 100, 1000])
def test_depth_cutoffs_are_increasing_and_end_at_the_depth(depth):
    k = data.depth_cutoffs(depth)
    assert k[0] == 1 and k[-1] == depth and np.all(np.diff(k) > 0)
    assert set(range(1, min(depth, 10) + 1)) <= set(k.tolist())
    assert len(k) <= 55


def test_coverage_is_judged_fraction_of_top_k():
    labels = {"a": [1, None, 0, None, None], "b": [None, 0, 0], "c": [0, 1, 1, 0]}
    qrels, run = collection(labels)
    d = data.coverage_data(qrels, {"s": run}, depths=(1, 2, 4, 10))["s"]

    def judged(q, k):
        top = labels[q][:k]
        return sum(g is not None for g in top) / len(top)

    for i, k in enumerate((1, 2, 4, 10)):
        assert np.isclose(d["judged"][i], np.mean([judged(q, k) for q in labels]))
        assert np.isclose(d["complete"][i], np.mean([judged(q, k) == 1 for q in labels]))
    with pytest.raises(ParameterError, match="depths"):
        data.coverage_data(qrels, {"s": run}, depths=(0,))


def test_column_medians_are_numpys_nanmedian_bit_for_bit():
    """The report's per-topic medians (``nan_medians``, which avoids the ``numpy.ma``
    that ``numpy.nanmedian`` imports) against NumPy's own on random matrices: NaNs
    anywhere, whole NaN columns, ties, signed zeros, both sides of 600 rows."""
    import warnings

    from cranfield.report.html import nan_medians

    rng = np.random.default_rng(39)
    for case in range(3000):
        rows = int(rng.integers(1, 14)) if case % 500 else int(rng.integers(590, 610))
        cols = int(rng.integers(1, 9))
        mat = rng.normal(size=(rows, cols)) * 10.0 ** int(rng.integers(-3, 4))
        if case % 3 == 0:
            mat = np.round(mat, 1)
        if case % 4 == 0:
            zeros = rng.choice([0.0, -0.0, 1.0, 0.5], size=(rows, cols))
            mat = rng.integers(-1, 3, size=(rows, cols)) * zeros
        mat[rng.random(mat.shape) < rng.random() * 0.7] = np.nan
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            want = np.nanmedian(mat, axis=0)
        got = nan_medians(mat)
        same = (want.view(np.uint64) == got.view(np.uint64)) | (np.isnan(want) & np.isnan(got))
        assert same.all(), (case, mat, want, got)


def test_distinct_is_numpys_unique():
    """The figures' ``distinct`` (no ``numpy.ma``) against ``numpy.unique`` on random
    integer and float arrays without NaN, empty ones included."""
    from cranfield.report.chart import distinct

    rng = np.random.default_rng(40)
    for case in range(2000):
        size = int(rng.integers(0, 40))
        values = rng.integers(-5, 6, size) if case % 2 else np.round(rng.normal(size=size), 1)
        want, got = np.unique(values), distinct(values)
        assert got.dtype == want.dtype and np.array_equal(got, want), (case, values)
