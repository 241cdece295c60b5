"""The one aggregation (``core.results.aggregate``, computed by the engine) equals the
NumPy definition it replaced: left-to-right sums from the first value (``cumsum``), the
mean over ``num_queries``, the geometric mean floored at 1e-5."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cranfield.core.results import MIN_GEO_MEAN, aggregate


def _numpy(values: np.ndarray, how: str, n: int | None) -> float:
    n = len(values) if n is None else n
    if how == "sum":
        return float(np.cumsum(values)[-1]) if len(values) else 0.0
    if n == 0:
        return 0.0
    if how == "gmean":
        with np.errstate(divide="ignore", invalid="ignore"):
            logs = np.array([math.log(v) for v in np.maximum(values, MIN_GEO_MEAN)])
        total = float(np.cumsum(logs)[-1]) if len(values) else 0.0
        total += (n - len(values)) * math.log(MIN_GEO_MEAN)
        return math.exp(total / n)
    return (float(np.cumsum(values)[-1]) if len(values) else 0.0) / n


def _same(a: float, b: float) -> bool:
    return np.float64(a).view(np.int64) == np.float64(b).view(np.int64) or (a != a and b != b)


@pytest.mark.parametrize("how", ["mean", "sum", "gmean"])
def test_aggregate_is_the_numpy_definition(how):
    rng = np.random.default_rng(7)
    for size in [0, 1, 2, 7, 100, 5000]:
        for scale in [1e-8, 1.0, 1e12]:
            values = rng.random(size) * scale
            values[rng.random(size) < 0.1] = 0.0
            for n in (None, size + 3):
                want = _numpy(values, how, n)
                for given in (values, values.tolist()):  # an array or a list
                    assert _same(aggregate(given, how, n), want), (how, size, scale, n)


def test_edge_values():
    assert math.copysign(1, aggregate([-0.0], "sum")) == -1  # cumsum keeps a lone -0.0
    assert aggregate([], "mean") == 0.0 and aggregate([], "sum") == 0.0
    assert math.isnan(aggregate([1.0, math.nan], "mean"))
    assert math.isnan(aggregate([math.nan], "gmean"))
    assert aggregate([1.0], "none") is None
    with pytest.raises(ValueError, match="how"):
        aggregate([1.0], "median")
