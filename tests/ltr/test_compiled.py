"""The compiled objective (the engine's batched kernel) equals the NumPy objective and
cranfield.evaluate, measure by measure, on tie-heavy random data."""

from __future__ import annotations

import numpy as np
import pytest

import cranfield
from cranfield.errors import MeasureError, ParameterError
from cranfield.ltr.data import from_arrays
from cranfield.ltr.objective import Objective, mean_rows
from cranfield.ltr.runs import to_qrels, to_run

from .helpers import random_data

# every measure the kernel computes, at several cutoffs and with parameters
COMPILED = [
    "nDCG@1",
    "nDCG@3",
    "nDCG@10",
    "nDCG",
    "nDCG(gains='1=3,2=7')@5",
    "nDCG(gains='0=-1,2=5')@10",
    "nDCG(dcg=exp-log2)@10",
    "nDCG(judged_only=true)@5",
    "P@1",
    "P@5",
    "P@20",
    "P(rel=2)@5",
    "R@10",
    "R(rel=2)@3",
    "Success@1",
    "Success@5",
    "relative_P@5",
    "AP",
    "AP@5",
    "AP(rel=2)",
    "AP(normalise='min(R,k)')@5",
    "AP(normalise='relret@k')@5",
    "AP(normalise='relret@k')",
    "Rprec",
    "Rprec(rel=2)",
    "RR",
    "RR@3",
    "RR(rel=2)",
    "ERR@1",
    "ERR@10",
    "ERR",
    "ERR(max_grade=2)@5",
    "Bpref",
    "Bpref(rel=2)",
]
LETOR = ["NDCG@1", "NDCG@5", "NDCG@10", "P@1", "P@5", "P@10", "MAP"]


def _weights(seed: int, data, p: int = 7) -> np.ndarray:
    rng = np.random.default_rng(seed)
    w = rng.integers(-2, 3, size=(p, data.num_features)).astype(float)
    w[0] = 0.0  # every score tied
    w[1] = rng.normal(size=data.num_features)
    return w


def _per_query_close(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert x.shape == y.shape
        np.testing.assert_allclose(x, y, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", range(12))
def test_compiled_equals_numpy_for_every_measure(seed):
    data = random_data(300 + seed, queries=10 + seed, levels=2 + seed % 3, max_docs=25)
    w = _weights(seed, data)
    for name in COMPILED:
        if "max_grade=2" in name and data.labels.max() > 2:
            continue  # NumPy's path: see test_errors_of_the_numpy_path_are_kept
        engine = Objective(data, name, backend="engine")
        numpy = Objective(data, name, backend="general")
        assert engine.backend == "engine" and numpy.backend == "general"
        _per_query_close(engine.per_query(w), numpy.per_query(w))
        batched = engine(w)
        np.testing.assert_allclose(batched, numpy(w), rtol=0, atol=1e-12, err_msg=name)
        single = np.array([engine(w[i])[0] for i in range(len(w))])
        assert np.array_equal(batched, single), name


@pytest.mark.parametrize("seed", range(6))
def test_compiled_equals_evaluate_on_the_runs(seed):
    data = random_data(400 + seed, queries=9, max_docs=20)
    w = _weights(seed, data, p=4)
    qrels = to_qrels(data)
    for name in COMPILED:
        obj = Objective(data, name, backend="engine")
        values = obj(w)
        per_query = obj.per_query(w)[0]
        for i in range(len(w)):
            res = cranfield.evaluate(qrels, to_run(data, data.features @ w[i], "w"), [name])
            key = next(iter(res.aggregate("w")))
            assert values[i] == pytest.approx(res.aggregate("w")[key], abs=1e-12), name
            expected = res.per_query("w", key)
            got = dict(zip(obj.layout.query_ids, per_query[i], strict=True))
            assert got.keys() == expected.keys()
            assert got == pytest.approx(expected, abs=1e-12), name


@pytest.mark.parametrize("seed", range(8))
def test_letor_convention_compiled_equals_numpy(seed):
    data = random_data(500 + seed, queries=12, levels=3, max_docs=14)
    w = _weights(seed, data)
    for name in LETOR:
        engine = Objective(data, name, "letor", backend="engine")
        numpy = Objective(data, name, "letor", backend="general")
        _per_query_close(engine.per_query(w), numpy.per_query(w))
        np.testing.assert_allclose(engine(w), numpy(w), rtol=0, atol=1e-12)


def test_weighted_combinations_and_batches():
    data = random_data(7, queries=30, max_docs=30)
    w = _weights(7, data, p=23)
    for name in ("0.7*nDCG@10 + 0.3*P@10", "nDCG@5 + AP + ERR@10 + Bpref + RR"):
        engine = Objective(data, name, backend="engine")
        engine._kernel_batch = 5  # several batches
        numpy = Objective(data, name, backend="general")
        np.testing.assert_allclose(engine(w), numpy(w), rtol=0, atol=1e-12)
        _per_query_close(engine.per_query(w), numpy.per_query(w))
        assert engine.evaluations == len(w)
        # the kernel's own weighted means: the bits of mean_rows' weighted sum
        expected = np.zeros(len(w))
        for share, values in zip(engine.weights, engine.per_query(w), strict=True):
            expected += share * mean_rows(values)
        assert np.array_equal(engine(w), expected), name


def test_many_individuals_on_threads_equal_numpy():
    # enough work (individuals x documents) for the kernel to split it over threads
    data = random_data(11, queries=150, max_docs=40, features=5)
    w = np.random.default_rng(11).integers(-3, 4, size=(400, data.num_features)) / 2
    engine = Objective(data, "nDCG@10 + AP", backend="engine")
    engine._threads = 4
    numpy = Objective(data, "nDCG@10 + AP", backend="general")
    np.testing.assert_allclose(engine(w), numpy(w), rtol=0, atol=1e-12)


def test_scores_computed_by_the_engine():
    # whole-number features and weights: every dot product is exact, so the engine's
    # scores equal NumPy's bit for bit, ties included
    data = random_data(13, queries=20, max_docs=25)
    w = np.random.default_rng(13).integers(-3, 4, size=(9, data.num_features)).astype(float)
    for name in ("nDCG@10", "AP", "P@5 + ERR@10"):
        own = Objective(data, name, backend="engine-scores")
        numpy = Objective(data, name, backend="general")
        np.testing.assert_allclose(own(w), numpy(w), rtol=0, atol=1e-12)
        assert np.array_equal(own(w), np.array([own(x)[0] for x in w]))


@pytest.mark.parametrize("name", ["nDCG(dcg=jk)@10", "DCG@10", "infAP", "RBP", "nCG@5"])
def test_other_measures_fall_back_to_numpy(name):
    data = random_data(3)
    obj = Objective(data, name)
    assert obj.backend == "general"
    w = _weights(3, data, p=3)
    np.testing.assert_array_equal(obj(w), Objective(data, name, backend="general")(w))
    with pytest.raises(ParameterError, match="backend"):
        Objective(data, name, backend="engine")


def test_the_former_numpy_backend_is_the_general_path_with_a_deprecation_warning():
    data = random_data(2)
    w = _weights(2, data, p=3)
    with pytest.warns(DeprecationWarning, match="'general'"):
        old = Objective(data, "nDCG@10", backend="numpy")
    assert old.backend == "general"
    np.testing.assert_array_equal(old(w), Objective(data, "nDCG@10", backend="general")(w))


def test_unknown_backend_is_refused():
    with pytest.raises(ParameterError, match="backend"):
        Objective(random_data(1), "AP", backend="gpu")


def test_errors_of_the_numpy_path_are_kept():
    # a grade above ERR's max_grade: refused when ranked within the cutoff, as before
    x = np.array([[1.0], [0.0], [0.5]])
    data = from_arrays(x, np.array([0, 3, 1]), np.array(["q", "q", "q"]))
    obj = Objective(data, "ERR(max_grade=2)@1")
    assert obj.backend == "general"
    assert obj(np.array([1.0]))[0] == 0.0  # the grade-3 document is ranked last
    with pytest.raises(MeasureError, match="max_grade"):
        obj(np.array([-1.0]))


def test_non_finite_scores_are_a_parameter_error():
    data = random_data(2)
    data.features[0, 0] = 1e300
    for backend in ("engine", "engine-scores"):
        obj = Objective(data, "nDCG@10", backend=backend)
        w = np.full((2, data.num_features), 1e300)
        with np.errstate(over="ignore"), pytest.raises(ParameterError, match="finite"):
            obj(w)
        with np.errstate(over="ignore"), pytest.raises(ParameterError, match="finite"):
            obj(w[0])


def test_the_kernel_refuses_bad_input_cleanly():
    from cranfield import _engine

    data = random_data(4)
    obj = Objective(data, "AP", backend="engine")
    kernel = obj.kernel
    with pytest.raises(ValueError):
        kernel.evaluate(np.zeros((2, data.num_docs + 1)), 1)
    with pytest.raises(ValueError):
        kernel.evaluate(np.zeros((data.num_docs, 2)).T, 1)  # not C-contiguous
    with pytest.raises(ValueError):
        kernel.evaluate_weights(np.zeros((2, data.num_features + 2)), 1)
    with pytest.raises(ValueError, match="shares"):
        kernel.objective_weights(np.zeros((2, data.num_features)), np.ones(2), 1)
    with pytest.raises(ValueError):
        kernel.objective_weights(np.zeros((2, data.num_features + 1)), np.ones(1), 1)
    assert kernel.objective_weights(np.zeros((0, data.num_features)), np.ones(1), 1).shape == (0,)
    with pytest.raises(FloatingPointError):
        kernel.evaluate(np.full((1, data.num_docs), np.nan), 1)
    empty = kernel.evaluate(np.zeros((0, data.num_docs)), 2)
    assert empty.shape == (0, 1, data.num_queries)
    one = np.zeros(1, dtype=np.int64)
    ok = np.zeros(1, dtype=np.float64)
    spec = ("ap", 0, 1, "R", False, None, None)
    for offsets, labels, specs in [
        (np.array([0, 2]), one, [spec]),  # offsets past the documents
        (np.array([0, 1]), one, []),  # no measure
        (np.array([0, 1]), one, [("ndcg", 1, 1, "R", False, None, None)]),  # no gains
        (np.array([0, 1]), one, [("nope", 1, 1, "R", False, None, None)]),
        (np.array([-1, 1]), one, [spec]),
    ]:
        with pytest.raises(ValueError):
            _engine.LtrKernel(offsets, labels, ok, specs, np.zeros((1, 1)), np.zeros(0, np.int64))


@pytest.mark.parametrize("seed", range(3))
def test_long_queries_take_the_sorting_paths(seed):
    # queries of up to 150 documents, most of them relevant: ranks come from the top-k
    # insertion (cutoffs) and from a full sort (whole rankings), not by counting
    data = random_data(600 + seed, queries=6, max_docs=150, levels=3)
    w = _weights(seed, data, p=5)
    for name in ("nDCG@10", "nDCG@100", "AP", "Bpref", "Rprec", "RR", "ERR", "P@50"):
        engine = Objective(data, name, backend="engine")
        numpy = Objective(data, name, backend="general")
        _per_query_close(engine.per_query(w), numpy.per_query(w))
        np.testing.assert_allclose(engine(w), numpy(w), rtol=0, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("seed", range(8))
def test_fused_groups_equal_scores_ranked_one_at_a_time(seed):
    # evaluate_weights takes whole groups of 8 individuals side by side (their scores in
    # one lane each, ranked together, nDCG@k summed for the group) and the rest in tiles;
    # the unfused path computes every score first and ranks individual by individual:
    # the same values bit for bit, for populations around the group size, 1 feature or
    # many, single-document queries, tied and real-valued scores, both conventions
    features = (1, 3, 60)[seed % 3]
    data = random_data(
        900 + seed,
        queries=17 + seed,
        features=features,
        max_docs=(3, 30)[seed % 2],
        tie_prone=seed % 4 < 2,
    )
    rng = np.random.default_rng(seed)
    w = rng.normal(size=(33, features))
    w[3] = 0.0  # every score tied
    for name, convention in [
        ("nDCG@10", "trec"),
        ("nDCG@3", "trec"),
        ("nDCG@10", "letor"),
        ("nDCG@10 + AP", "trec"),
        ("P@5", "trec"),
    ]:
        fused = Objective(data, name, convention, backend="engine")
        unfused = Objective(data, name, convention, backend="engine-scores")
        numpy = Objective(data, name, convention, backend="general")
        for p in (1, 7, 8, 9, 16, 17, 33):
            got, want = fused.per_query(w[:p]), unfused.per_query(w[:p])
            for a, b in zip(got, want, strict=True):
                assert np.array_equal(a, b), (name, convention, p)
            assert np.array_equal(fused(w[:p]), unfused(w[:p]))
            _per_query_close(got, numpy.per_query(w[:p]))
        single = np.array([fused(w[i])[0] for i in range(len(w))])
        assert np.array_equal(fused(w), single), (name, convention)
