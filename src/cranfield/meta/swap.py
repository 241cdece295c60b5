"""Stability of a measure against the choice of topics: swap rates by topic-set size
(Voorhees & Buckley, SIGIR 2002) and the error rate of Buckley & Voorhees (SIGIR 2000).

Topics are split repeatedly into two disjoint random sets of ``c`` topics each. For
every pair of runs, the difference of their mean scores on the first set falls in a
bin of width ``bin_width``; a *swap* is a split where the two sets order the pair
differently (the differences have opposite signs). The swap rate of a bin is the
share of swaps among its (pair, split) cases: how often a difference that large on
``c`` topics is reversed on another ``c`` topics.
"""

from __future__ import annotations

import math

from .._lazy import lazy
from ..core.declarations import Param, integer_in, number_in
from ..errors import InputError, ParameterError
from .power import _BLOCK, MAX_PAIRS, pairs
from .registry import META_STATISTICS, SEED, MetaStatistic

np = lazy("numpy", __name__, "np")


__all__ = ["swap_rates", "default_sizes"]

#: Most splits one topic-set size draws.
MAX_TRIALS = 100_000


def default_sizes(n: int) -> list[int]:
    """5, 10, ... up to half the topics (1, 2, ... when there are fewer than 10)."""
    half = n // 2
    step = 5 if half >= 5 else 1
    return list(range(step, half + 1, step))


def swap_rates(
    scores,
    sizes=None,
    trials: int = 100,
    bin_width: float = 0.01,
    fuzziness: float = 0.05,
    seed: int = 0,
) -> list[dict]:
    r"""Swap rates per topic-set size and difference bin, and the error rate per size.

    ``scores``: runs x topics. For each size :math:`c` in ``sizes`` (default
    :func:`default_sizes`), ``trials`` splits are drawn: a permutation of the topics
    (``argsort`` of ``default_rng(seed).random((trials, n))``, one generator for all
    sizes in turn), its first :math:`c` topics the set :math:`A`, the next :math:`c`
    the set :math:`B`. For runs :math:`x, y`: :math:`d_A = \bar x_A - \bar y_A`, its
    bin :math:`\lfloor |d_A| / w \rfloor`, and a swap when :math:`d_A d_B < 0`.

    The error rate (Buckley & Voorhees 2000) looks at each of the :math:`2\,trials`
    sets alone: a pair is tied on a set when :math:`|d| \le f \max(\bar x, \bar y)`
    (``fuzziness`` :math:`f`), else ordered; with :math:`G, L, E` the counts of
    :math:`x` ahead, behind and tied, error rate :math:`= \sum \min(G, L) / \sum (G + L
    + E)` and tie rate :math:`= \sum E / \sum(G + L + E)` over all pairs.

    Returns one dict per size: ``size``, ``error_rate``, ``tie_rate`` and ``bins``
    (``low``, ``high``, ``cases``, ``swaps``, ``swap_rate``; only bins with cases).
    """
    m = np.asarray(scores, dtype=np.float64)
    if m.ndim != 2 or m.shape[0] < 2:
        raise InputError("swap rates need at least two runs (one pair)", "scores")
    k, n = m.shape
    if n < 2:
        raise InputError("swap rates need at least two topics (two disjoint sets)", "scores")
    sizes = default_sizes(n) if sizes is None else sorted(set(int(c) for c in sizes))
    for c in sizes:
        if not 1 <= c <= n // 2:
            raise ParameterError(
                "--sizes", f"topic-set sizes from 1 to {n // 2} (half of {n} topics)", c
            )
    if not (isinstance(bin_width, float) and bin_width > 0 and math.isfinite(bin_width)):
        raise ParameterError("--bin-width", "a positive number", bin_width)
    if k * (k - 1) // 2 > MAX_PAIRS:
        raise InputError(
            f"{k:,} runs make {k * (k - 1) // 2:,} pairs: at most {MAX_PAIRS:,} are compared",
            "scores",
        )
    i, j = pairs(k)
    rng = np.random.default_rng(seed)
    out = []
    for c in sizes:
        order = np.argsort(rng.random((trials, n)), axis=1)
        sets = (order[:, :c], order[:, c : 2 * c])
        means = [m[:, s].mean(axis=2) for s in sets]  # runs x trials, each
        both = np.concatenate(means, axis=1)  # runs x 2 trials: each set alone
        found, fewest, tied, total = [], 0, 0, 0
        step = max(1, _BLOCK // (2 * trials))
        for first in range(0, i.size, step):  # pairs in blocks: bounded memory
            a, b = i[first : first + step], j[first : first + step]
            da, db = means[0][a] - means[0][b], means[1][a] - means[1][b]  # pairs x trials
            binned = np.floor(np.abs(da) / bin_width).ravel()
            keys, inverse = np.unique(binned, return_inverse=True)  # (no bins without cases)
            cases = np.bincount(inverse)
            swapped = np.bincount(inverse, weights=((da * db) < 0).ravel(), minlength=keys.size)
            found.append((keys, cases, swapped))
            d = both[a] - both[b]
            tie = np.abs(d) <= fuzziness * np.maximum(both[a], both[b])
            ahead = np.count_nonzero((d > 0) & ~tie, axis=1)
            behind = np.count_nonzero((d < 0) & ~tie, axis=1)
            fewest += int(np.minimum(ahead, behind).sum())
            tied += int(np.count_nonzero(tie))
            total += d.size
        keys, at = np.unique(np.concatenate([f[0] for f in found]), return_inverse=True)
        cases = np.bincount(at, weights=np.concatenate([f[1] for f in found]))
        swapped = np.bincount(at, weights=np.concatenate([f[2] for f in found]))
        bins = [
            {
                "low": float(key * bin_width),
                "high": float((key + 1) * bin_width),
                "cases": int(n_cases),
                "swaps": int(n_swaps),
                "swap_rate": float(n_swaps / n_cases),
            }
            for key, n_cases, n_swaps in zip(keys, cases, swapped, strict=True)
        ]
        out.append(
            {
                "size": c,
                "error_rate": fewest / total,
                "tie_rate": tied / total,
                "bins": bins,
            }
        )
    return out


TRIALS = Param(
    "trials", int, 100, "splits per topic-set size (--trials)", **integer_in(1, MAX_TRIALS)
)
BIN_WIDTH = Param(
    "bin_width", float, 0.01, "width of the difference bins (--bin-width)", **number_in(1e-9, 1e6)
)
FUZZINESS = Param(
    "fuzziness",
    float,
    0.05,
    "a relative difference up to this is a tie (--fuzziness)",
    **number_in(0, 1, open_hi=True),
)
META_STATISTICS.register(
    MetaStatistic(
        "swap_rate",
        swap_rates,
        "Share of run pairs whose order on c topics is reversed on c other topics, per difference bin.",
        "$\\#\\{d_A d_B < 0\\} / \\#$cases, binned by $\\lfloor |d_A|/w \\rfloor$",
        "Voorhees & Buckley 2002 (SIGIR); Sanderson & Zobel 2005 (SIGIR)",
        (TRIALS, BIN_WIDTH, SEED),
        command="swap",
        label="swap rate",
    )
)
META_STATISTICS.register(
    MetaStatistic(
        "error_rate",
        swap_rates,
        "Buckley & Voorhees's error rate: minority orderings of each pair over topic sets.",
        "$\\sum \\min(G, L) / \\sum (G + L + E)$, tie when $|d| \\le f \\max(\\bar x, \\bar y)$",
        "Buckley & Voorhees 2000 (SIGIR)",
        (TRIALS, FUZZINESS, SEED),
        command="swap",
        label="error rate",
    )
)
