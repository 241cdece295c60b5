"""Move-to-front pooling against a one-topic-at-a-time reference."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield import Qrels, Run
from cranfield.pooling.adaptive import MoveToFront
from generators import pool_qrels, pool_runs

from . import reference as ref


def simulate(mtf: MoveToFront, oracle: dict) -> dict[str, list[str]]:
    order: dict[str, list[str]] = {}
    for _ in range(10_000):
        batch = mtf.next_batch()
        if not batch:
            break
        for q, d in batch:
            order.setdefault(q, []).append(d)
        mtf.judge({(q, d): oracle.get(q, {}).get(d, 0) for q, d in batch})
    assert mtf.done()
    return order


@pytest.mark.parametrize("seed", range(25))
def test_judging_order_equals_the_reference(seed):
    rng = np.random.default_rng(1300 + seed)
    runs = pool_runs(rng, int(rng.integers(1, 5)))
    oracle = pool_qrels(rng)
    depth = None if seed % 2 else int(rng.integers(1, 6))
    objs = [Run.from_dict(r, name=f"r{i}") for i, r in enumerate(runs)]
    got = simulate(MoveToFront(objs, depth=depth), oracle)
    want = ref.move_to_front(runs, oracle, depth=depth)
    assert got == {q: v for q, v in want.items() if v}


def test_relevant_documents_keep_the_run_in_front():
    a = Run.from_dict({"1": {"a1": 3.0, "a2": 2.0, "a3": 1.0}}, name="a")
    b = Run.from_dict({"1": {"b1": 3.0, "b2": 2.0}}, name="b")
    oracle = {"1": {"a1": 1, "a2": 0, "b1": 0}}
    assert simulate(MoveToFront([a, b]), oracle) == {"1": ["a1", "a2", "b1", "a3", "b2"]}


def test_prior_judgments_are_not_asked_again_and_unanswered_pairs_come_back():
    run = Run.from_dict({"1": {"x": 2.0, "y": 1.0}, "2": {"z": 1.0}}, name="r")
    mtf = MoveToFront([run], qrels=Qrels.from_dict({"1": {"x": 1}}))
    assert mtf.next_batch() == [("1", "y"), ("2", "z")]
    mtf.judge({("1", "y"): 0})
    assert mtf.next_batch() == [("2", "z")]  # not answered yet: asked again
    mtf.judge({("2", "z"): 2, ("9", "unknown"): 1})  # pairs no run has are ignored
    assert mtf.next_batch() == [] and mtf.done()
    assert mtf.judged == {("1", "x"): 1, ("1", "y"): 0, ("2", "z"): 2}


def test_bad_judgments():
    from cranfield.errors import InputError

    mtf = MoveToFront([Run.from_dict({"1": {"x": 1.0}})])
    with pytest.raises(InputError):
        mtf.judge({("1", "x"): "relevant"})
