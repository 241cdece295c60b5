"""The batched objective equals cranfield.evaluate on the runs the weights score."""

from __future__ import annotations

import numpy as np
import pytest

import cranfield
from cranfield.errors import MeasureError, ParameterError
from cranfield.ltr.objective import Objective, parse_objective
from cranfield.ltr.runs import to_qrels, to_run, trec_run_text

from .helpers import random_data

MEASURES = ["nDCG@10", "AP", "P@5", "ERR@10", "nDCG", "RR", "Bpref", "R@10", "P@1", "Rprec"]


def _evaluate(data, w, measures):
    qrels = to_qrels(data)
    run = to_run(data, data.features @ w, "w")
    return cranfield.evaluate(qrels, run, measures)


@pytest.mark.parametrize("seed", range(25))
def test_objective_equals_evaluate_per_query_and_mean(seed):
    data = random_data(seed, levels=3 + seed % 3)
    rng = np.random.default_rng(1000 + seed)
    w = rng.integers(-2, 3, size=(6, data.num_features)).astype(float)
    w[0] = 0.0  # every score tied: the ranking is the document-id order alone
    for name in MEASURES:
        obj = Objective(data, name)
        batched = obj(w)
        per_query = obj.per_query(w)[0]
        for i in range(len(w)):
            res = _evaluate(data, w[i], [name])
            expected = res.aggregate("w")[name]
            assert batched[i] == expected, (name, i)
            pq = res.per_query("w", name)
            got = dict(zip(obj.layout.query_ids, per_query[i], strict=True))
            assert got == pytest.approx(pq, abs=0) and got.keys() == pq.keys()


@pytest.mark.parametrize("seed", range(5))
def test_objective_equals_evaluate_on_written_trec_files(seed, tmp_path):
    data = random_data(50 + seed)
    w = np.random.default_rng(seed).normal(size=(3, data.num_features))
    w[1] = np.round(w[1])  # ties among non-zero scores
    qrels = tmp_path / "qrels"
    to_qrels(data).to_trec(qrels)
    obj = Objective(data, "nDCG@10")
    values = obj(w)
    for i in range(3):
        run = tmp_path / f"run{i}"
        run.write_text(trec_run_text(data, data.features @ w[i], f"r{i}"))
        res = cranfield.evaluate(str(qrels), str(run), ["nDCG@10"])
        assert values[i] == res.aggregate(0)["nDCG@10"]


def test_weighted_combination_is_the_weighted_mean():
    data = random_data(7)
    w = np.random.default_rng(7).normal(size=(4, data.num_features))
    combo = Objective(data, "3*nDCG@10 + 1*AP")(w)
    a = Objective(data, "nDCG@10")(w)
    b = Objective(data, "AP")(w)
    assert np.allclose(combo, 0.75 * a + 0.25 * b, rtol=0, atol=1e-15)


@pytest.mark.parametrize("seed", range(8))
def test_batched_equals_one_at_a_time(seed):
    data = random_data(200 + seed, queries=20)
    w = np.random.default_rng(seed).integers(-3, 4, size=(17, data.num_features)) / 2
    for name in ("nDCG@10", "AP", "0.5*P@5 + 0.5*ERR@10"):
        obj = Objective(data, name)
        obj.batch = 5  # several memory blocks
        batched = obj(w)
        single = np.array([obj(w[i])[0] for i in range(len(w))])
        assert np.array_equal(batched, single)
    assert obj.evaluations == 34


def test_objective_counts_evaluations_and_checks_weights():
    data = random_data(1)
    obj = Objective(data, "AP")
    obj(np.zeros((3, data.num_features)))
    assert obj.evaluations == 3
    with pytest.raises(ParameterError):
        obj(np.zeros(data.num_features + 1))
    with pytest.raises(ParameterError):
        obj(np.full(data.num_features, np.nan))


@pytest.mark.parametrize("bad", ["", "nDCG@0", "0*AP", "-1*AP", "x*AP", "relstring@10", "NumRel"])
def test_bad_objectives_are_refused(bad):
    with pytest.raises((MeasureError, ParameterError)):
        parse_objective(bad)


def test_objective_parsing_keeps_measure_parameters():
    terms = parse_objective("2*nDCG(gains='1=1,2=3')@10 + P@5")
    assert [t.weight for t in terms] == [2.0, 1.0]
    assert str(terms[0].measure).startswith("nDCG(")


@pytest.mark.parametrize("seed", range(20))
def test_top_order_is_the_head_of_a_stable_sort(seed):
    from cranfield.ltr.objective import top_order

    rng = np.random.default_rng(seed)
    width = int(rng.integers(2, 40))
    neg = rng.integers(0, 1 + seed % 5, size=(3, 7, width)).astype(float)  # many ties
    neg[0, 0, -3:] = np.inf  # padding
    for k in (1, width // 2 or 1, width - 1, width):
        expected = np.argsort(neg, axis=-1, kind="stable")[..., :k]
        assert np.array_equal(top_order(neg, k)[..., :k], expected)


def test_objective_given_as_names_or_weighted_pairs():
    data = random_data(9)
    w = np.random.default_rng(9).normal(size=(3, data.num_features))
    a = Objective(data, "nDCG@10")(w)
    b = Objective(data, "AP")(w)
    assert np.allclose(Objective(data, ("nDCG@10", "AP"))(w), (a + b) / 2, rtol=0, atol=1e-15)
    assert np.allclose(Objective(data, [(3, "nDCG@10"), (1, "AP")])(w), 0.75 * a + 0.25 * b,
                       rtol=0, atol=1e-15)  # fmt: skip


def test_a_population_is_one_kernel_call_whatever_the_documents():
    """The fused kernel writes no P x N scores: a population of 48 at 90,000 documents
    is one call (before, the bound of the score matrix cut off its last individual,
    which then read all the features again on its own), with the same values."""
    from cranfield.ltr.data import from_arrays

    rng = np.random.default_rng(0)
    n = 90_000
    qids = (np.arange(n) // 18).astype(str)
    data = from_arrays(rng.random((n, 3)), rng.integers(0, 3, n), qids)
    obj = Objective(data, "nDCG@10", backend="engine")

    class Counting:
        def __init__(self, kernel):
            self.kernel, self.calls = kernel, 0

        def objective_weights(self, *args):
            self.calls += 1
            return self.kernel.objective_weights(*args)

    w = rng.normal(size=(48, 3))
    singles = np.array([obj(row)[0] for row in w])
    obj.kernel = spy = Counting(obj.kernel)
    assert np.array_equal(obj(w), singles)
    assert spy.calls == 1
