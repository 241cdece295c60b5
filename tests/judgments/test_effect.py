"""Effect of the assessor on system rankings (Voorhees 2000)."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield import Qrels, Run, evaluate
from cranfield.errors import InputError
from cranfield.judgments import Judgments
from cranfield.judgments.effect import effect_on_rankings

stats = pytest.importorskip("scipy.stats")


def _runs(rng, n_runs=6, topics=("1", "2", "3"), docs=20):
    return {
        f"r{i}": Run.from_dict(
            {t: {f"d{d}": float(rng.random()) for d in range(docs)} for t in topics}
        )
        for i in range(n_runs)
    }


def test_rankings_under_each_assessor_match_direct_evaluation():
    rng = np.random.default_rng(4)
    runs = _runs(rng)
    truth = {t: {f"d{d}": int(rng.random() < 0.3) for d in range(20)} for t in ("1", "2", "3")}
    other = {
        t: {d: (1 - g if rng.random() < 0.2 else g) for d, g in v.items()} for t, v in truth.items()
    }
    j = Judgments.from_qrels(
        [Qrels.from_dict(truth), Qrels.from_dict(other)], names=["primary", "secondary"]
    )
    result = effect_on_rankings(j, runs, "AP")
    a = evaluate(Qrels.from_dict(truth), runs, ["AP"])
    b = evaluate(Qrels.from_dict(other), runs, ["AP"])
    sa = [a.aggregate(r, "AP") for r in a.run_names]
    sb = [b.aggregate(r, "AP") for r in b.run_names]
    assert result["scores"]["primary"] == pytest.approx(dict(zip(a.run_names, sa, strict=True)))
    (pair,) = result["pairs"]
    assert pair["kendall_tau"] == pytest.approx(stats.kendalltau(sa, sb).statistic)
    assert pair["largest_change"] == pytest.approx(np.max(np.abs(np.subtract(sa, sb))))
    assert result["largest_change"] == pair["largest_change"]


def test_identical_assessors_agree_perfectly_and_one_is_refused():
    rng = np.random.default_rng(5)
    runs = _runs(rng)
    truth = {t: {f"d{d}": int(rng.random() < 0.3) for d in range(20)} for t in ("1", "2")}
    j = Judgments.from_qrels([Qrels.from_dict(truth)] * 2, names=["x", "y"])
    (pair,) = effect_on_rankings(j, runs)["pairs"]
    assert pair["kendall_tau"] == pytest.approx(1.0) and pair["largest_change"] == 0
    with pytest.raises(InputError):
        effect_on_rankings(Judgments.from_qrels([Qrels.from_dict(truth)]), runs)
