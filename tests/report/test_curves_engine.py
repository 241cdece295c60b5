"""The curves come from the engine (``IPrec``, ``P@k``, ``R@k``): equal, bit for bit, to
their NumPy specification (trec_eval's ``iprec_at_recall`` and the pooled hits at k of
``core/measures``) on generated judged runs."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield import Qrels, Run
from cranfield.core.judged import judge
from cranfield.core.measures.common import count_at, safe_div
from cranfield.core.measures.precision import interpolated_precision as iprec_at_recall
from cranfield.report import curves
from generators import judging_case

LEVELS = (0.0, 0.1, 0.25, 1 / 3, 0.5, 0.7, 0.9, 1.0)
RANKS = (1, 2, 3, 5, 10, 30)


def _judged(seed: int):
    qrels, run = judging_case(seed)
    if not qrels or not run:
        return None
    jr = judge(Qrels.from_dict(qrels), Run.from_dict(run), rel_level=1 + seed % 2)
    return jr if jr.num_queries else None


def _bits(values) -> list:
    return np.asarray(values, dtype=np.float64).view(np.uint64).tolist()


@pytest.mark.parametrize("seed", range(40))
def test_curves_equal_their_specification(seed):
    jr = _judged(seed)
    if jr is None:
        return
    got = curves.average_interpolated(jr, recall=LEVELS, convention="trec_eval")["precision"]
    spec = iprec_at_recall(jr, np.asarray(LEVELS), jr.rel_level)
    assert _bits(got) == _bits(spec.mean(axis=0))
    for skip in (False, True):
        keep = jr.num_rel() > 0 if skip else np.ones(jr.num_queries, bool)
        got = curves.average_at_ranks(jr, ranks=RANKS, skip_no_relevant=skip)
        if not keep.any():
            continue
        relevant, num_rel = jr.relevant(), jr.num_rel()
        for i, k in enumerate(RANKS):
            hits = count_at(jr, relevant, k)[keep]
            assert _bits(got["precision"][i]) == _bits(hits.sum() / (k * keep.sum()))
            assert _bits(got["recall"][i]) == _bits(safe_div(hits, num_rel[keep]).mean())


def test_the_curves_are_computed_by_the_engine(monkeypatch):
    from cranfield.core.measures import engine

    jr = _judged(2)
    asked = []
    real = engine.compute_many
    monkeypatch.setattr(
        engine, "compute_many", lambda ms, run: asked.extend(m.name for m in ms) or real(ms, run)
    )
    curves.average_interpolated(jr, recall=LEVELS, convention="trec_eval")
    curves.average_at_ranks(jr, ranks=RANKS)
    assert asked == ["IPrec"] * len(LEVELS) + ["P", "R"] * len(RANKS)
    assert {"IPrec", "P", "R"} <= engine.families()
