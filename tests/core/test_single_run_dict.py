"""``evaluate(qrels_dict, run_dict)`` with one run in the pytrec_eval / ranx /
ir_measures shape ``{qid: {docid: score}}`` evaluates that run (as those tools do)."""

from __future__ import annotations

import numpy as np
import pytest
import pytrec_eval

import cranfield
from cranfield.errors import InputError


def _random(rng):
    qrels, run = {}, {}
    for q in range(int(rng.integers(1, 8))):
        docs = [f"d{i}" for i in range(int(rng.integers(1, 15)))]
        qrels[f"q{q}"] = {d: int(rng.integers(0, 3)) for d in docs if rng.random() < 0.7} or {
            docs[0]: 1
        }
        run[f"q{q}"] = {d: float(rng.integers(0, 5)) for d in docs}
    return qrels, run


@pytest.mark.parametrize("seed", range(20))
def test_one_run_dict_gives_pytrec_evals_numbers(seed):
    qrels, run = _random(np.random.default_rng(seed))
    results = cranfield.evaluate(qrels, run, ["map", "ndcg_cut.10", "P.5"])
    (name,) = [r.name for r in results.runs]
    assert name == "run"
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P.5"}).evaluate(run)
    for measure, trec in (("AP", "map"), ("nDCG@10", "ndcg_cut_10"), ("P@5", "P_5")):
        got = results.per_query(name, measure)
        for q, values in expected.items():
            assert got[q] == pytest.approx(values[trec], abs=1e-12), (q, measure)


def test_a_dict_of_runs_is_still_a_dict_of_runs():
    qrels, run = _random(np.random.default_rng(1))
    results = cranfield.evaluate(qrels, {"a": run, "b": run}, ["AP"])
    assert [r.name for r in results.runs] == ["a", "b"]
    assert results["a"] == results["b"] == cranfield.evaluate(qrels, run, ["AP"])["run"]


def test_a_mixed_shape_says_what_was_expected():
    qrels, run = _random(np.random.default_rng(2))
    with pytest.raises(InputError, match=r"run 'x': .*a dict of runs is \{name: \{qid"):
        cranfield.evaluate(qrels, {"good": run, "x": {"d1": 1.0}}, ["AP"])
