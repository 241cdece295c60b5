"""What the report and ``cranfield plot asl|swap`` show of the meta-evaluation: per
measure, the discriminative power (both tests, ASL curves), the swap rates at one
topic-set size, and the ANOVA's variance shares, on the topics every run has."""

from __future__ import annotations

import math

from .._lazy import lazy
from .anova import _sums
from .power import discriminative_power
from .swap import default_sizes, swap_rates

np = lazy("numpy", __name__, "np")


__all__ = ["complete_columns", "trust"]


def complete_columns(matrix: np.ndarray) -> np.ndarray:
    """The columns (topics) of a runs x topics matrix without a missing (NaN) value."""
    m = np.asarray(matrix, dtype=np.float64)
    return m[:, np.all(np.isfinite(m), axis=0)]


def trust(
    matrices: dict,
    alpha: float = 0.05,
    samples: int = 1000,
    trials: int = 100,
    bin_width: float = 0.05,
    seed: int = 0,
) -> dict:
    """``{measure: {...}}`` for matrices of at least 2 runs x 2 topics (after dropping
    topics a run lacks): ``topics``, ``pairs``, ``bootstrap``/``tukey`` (share,
    significant, ASL curve), ``swap`` (the size, bins of :func:`swap_rates` at the
    largest default size), ``system_share`` and ``topic_share`` (eta squared, NaN when
    every score is equal). Measures with fewer runs or topics are left out."""
    out = {}
    for measure, matrix in matrices.items():
        m = complete_columns(matrix)
        if m.shape[0] < 2 or m.shape[1] < 2:
            continue
        power = discriminative_power(
            {measure: ((), (), m)}, alpha=alpha, n_samples=samples, seed=seed
        )[measure]
        size = default_sizes(m.shape[1])[-1]
        swap = swap_rates(m, [size], trials, bin_width, seed=seed)[0]
        ss_s, ss_t, _, ss = _sums(m)
        out[measure] = {
            "topics": int(m.shape[1]),
            "pairs": power["pairs"],
            "bootstrap": power["bootstrap"],
            "tukey": power["tukey"],
            "swap": swap,
            "system_share": ss_s / ss if ss > 0 else math.nan,
            "topic_share": ss_t / ss if ss > 0 else math.nan,
        }
    return out
