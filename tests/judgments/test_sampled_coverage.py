"""The coverage benchmark (benchmarks/sampled_coverage.py) in small: the whole path
``pool --sample`` -> ``pool sampled`` -> ``sample_eval`` on a generated collection with
complete judgments, repeated 20% samples. statAP and infNDCG: mean error within noise of
0 and the intervals of the mean covering the full-judgment mean; infAP: sample_eval's
estimator under-estimates at a 20% uniform sample (its smoothing, docs/sampling.md), the
stratified design less so. The full figures (100 samples) are in benchmarks/README.md."""

from __future__ import annotations

import importlib.util
from pathlib import Path


def _benchmark():
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "sampled_coverage.py"
    spec = importlib.util.spec_from_file_location("sampled_coverage", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_small_coverage_run():
    result = _benchmark().simulate(reps=6, rate=0.2, topics=20, seed=3, quiet=True)
    for name in ("statAP", "infNDCG", "infNDCG strat."):
        r = result[name]
        assert abs(r["mean_error"]) <= 4 * r["standard_error"] + 0.01, (name, r)
        assert r["coverage"] >= 0.85, (name, r)
    # infAP: biased low at a uniform 20% sample, less so stratified (dense at the top)
    assert result["infAP"]["mean_error"] < result["infAP strat."]["mean_error"] < 0.01
