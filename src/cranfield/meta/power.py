"""Discriminative power of an evaluation measure (Sakai, SIGIR 2006; Sakai, SIGIR 2012).

Given the per-topic scores of ``k`` runs under a measure, every one of the
:math:`k(k-1)/2` pairs of runs is tested; the *achieved significance levels* (ASL)
sorted increasingly form the ASL curve, and the share of pairs with ASL below a level
:math:`\\alpha` is the measure's discriminative power: how often it tells systems apart
on this collection. Two tests:

* the paired bootstrap test (Sakai 2006): one set of resamples of the topics shared by
  all pairs, so that all pairs and resamples are two matrix products;
* the randomised Tukey HSD (Sakai 2012, after Carterette 2012): the scores of each
  topic are shuffled among the runs, and a pair's ASL is the share of shuffles whose
  largest difference between run means reaches the pair's observed difference. It
  controls the family-wise error over all pairs at once.
"""

from __future__ import annotations

import math

from .._lazy import lazy
from ..compare.stats import CHUNK
from ..core.declarations import Param, integer_in
from ..errors import InputError
from .registry import META_STATISTICS, SEED, MetaStatistic

np = lazy("numpy", __name__, "np")


__all__ = [
    "bootstrap_asl",
    "randomised_tukey_asl",
    "difference_required",
    "discriminative_power",
    "POWER_METHODS",
]

#: Most resamples / shuffles one run of ``meta power`` draws.
MAX_SAMPLES = 1_000_000
# Elements of one block of work (pairs x resamples, trials x topics x runs): bounds memory.
_BLOCK = 1 << 20
#: Most pairs of runs one call compares (4,472 runs): the ASL curves alone are this long.
MAX_PAIRS = 10_000_000
_TOL = 1e-12


def pairs(k: int) -> tuple[np.ndarray, np.ndarray]:
    """Row indices ``(i, j)`` of every pair ``i < j`` of ``k`` runs, in row-major order."""
    return np.triu_indices(k, 1)


def _check(scores) -> np.ndarray:
    m = np.asarray(scores, dtype=np.float64)
    if m.ndim != 2:
        raise InputError(f"expected a runs x topics matrix, got shape {m.shape}", "scores")
    if m.shape[0] < 2:
        raise InputError("discriminative power needs at least two runs (one pair)", "scores")
    if m.shape[1] < 2:
        raise InputError("discriminative power needs at least two topics", "scores")
    if m.shape[0] * (m.shape[0] - 1) // 2 > MAX_PAIRS:
        raise InputError(
            f"{m.shape[0]:,} runs make {m.shape[0] * (m.shape[0] - 1) // 2:,} pairs: at most "
            f"{MAX_PAIRS:,} pairs (4,472 runs) are compared",
            "scores",
        )
    if not np.all(np.isfinite(m)):
        raise InputError("scores contain NaN or infinite values", "scores")
    return m


def _studentised(mean: np.ndarray, sd: np.ndarray, n: int) -> np.ndarray:
    """mean / (sd / sqrt n), with 0/0 = 0 and x/0 = ±inf."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / (sd / math.sqrt(n))
    return np.where(sd > 0, t, np.where(mean == 0, 0.0, np.copysign(np.inf, mean)))


def bootstrap_asl(scores, n_samples: int = 1000, seed: int = 0) -> np.ndarray:
    r"""The paired bootstrap ASL of every pair of runs (rows of ``scores``, a runs x
    topics matrix), in the order of :func:`pairs`.

    For a pair, :math:`z_t` is the per-topic difference, :math:`t(z) = \bar z /
    (s_z/\sqrt n)` and :math:`w = z - \bar z` the differences shifted to the null. Each
    of :math:`B` resamples draws :math:`n` topics with replacement; the ASL is the share
    :math:`\#\{b : |t(w^{*b})| \ge |t(z)|\}/B` (Sakai 2006, fig. 2; Efron & Tibshirani
    1993, alg. 16.2). A resample is a row of topic counts :math:`c`, so its sums
    :math:`c\cdot w` and :math:`c\cdot w^2` for all pairs are two matrix products.
    Resample indices are drawn as ``numpy.random.default_rng(seed).integers(0, n,
    (rows, n))`` in blocks of :data:`~cranfield.compare.stats.CHUNK` rows: the draws of
    ``compare``'s bootstrap test, so a pair's ASL is its hits over :math:`B` there.
    A resample without variance counts as extreme unless its mean is 0.
    """
    return _bootstrap(_check(scores), n_samples, seed)[0] / n_samples


def _bootstrap(m: np.ndarray, n_samples: int, seed: int, keep: int = 0):
    """(hits, the ``keep``-th largest |t*| (or None), s_z) of every pair of rows of
    ``m``: pairs in blocks bound memory (rows x pairs sums); each block sees the same
    draws."""
    i, j = pairs(m.shape[0])
    hits = np.zeros(i.size, dtype=np.int64)
    kth = np.zeros(i.size) if keep else None
    z_sd = np.zeros(i.size)
    step = max(1, _BLOCK // max(m.shape[1], CHUNK + keep))
    for first in range(0, i.size, step):
        block = slice(first, first + step)
        z = m[i[block]] - m[j[block]]
        z_sd[block] = z.std(axis=1, ddof=1)
        found = _bootstrap_hits(z, n_samples, seed, keep)
        hits[block] = found[0]
        if keep:
            kth[block] = found[1]
    return hits, kth, z_sd


def difference_required(scores, alpha: float = 0.05, n_samples: int = 1000, seed: int = 0):
    r"""Sakai's (2006, fig. 3) estimated performance difference required for a
    significant difference at level :math:`\alpha`: over all pairs of runs,
    :math:`\max\, t^{*}_{(B\alpha)}\, s_z / \sqrt n`, with :math:`t^{*}_{(B\alpha)}` the
    :math:`\lfloor B\alpha \rfloor`-th largest :math:`|t(w^{*b})|` of the pair's
    resamples (the draws of :func:`bootstrap_asl`) and :math:`s_z` the standard
    deviation (n-1) of its per-topic differences. NaN when :math:`B\alpha < 1`.
    """
    return _bootstrap_power(_check(scores), n_samples, seed, alpha)["difference_required"]


def _bootstrap_power(m: np.ndarray, n_samples: int, seed: int, alpha: float) -> dict:
    keep = int(math.floor(n_samples * alpha + 1e-9))
    hits, kth, z_sd = _bootstrap(m, n_samples, seed, keep)
    required = math.nan
    if keep:
        with np.errstate(invalid="ignore"):
            required = float(np.max(kth * z_sd / math.sqrt(m.shape[1])))
    return {"asl": hits / n_samples, "difference_required": required}


def _bootstrap_hits(z: np.ndarray, n_samples: int, seed: int, keep: int = 0):
    """Resamples at least as extreme as the data, for each row (pair) of ``z``; and,
    when ``keep``, the ``keep``-th largest |t*| of each (else None)."""
    n = z.shape[1]
    mean = z.mean(axis=1)
    t = _studentised(mean, z.std(axis=1, ddof=1), n)
    w = z - mean[:, None]
    scale = np.abs(z).sum(axis=1) * 1e-10  # means below this are 0 (summation order)
    w = np.where(np.abs(w) <= scale[:, None] / n, 0.0, w)
    w2 = w * w
    with np.errstate(invalid="ignore"):
        bound = np.where(np.isinf(t), np.inf, np.abs(t) - _TOL * np.maximum(1.0, np.abs(t)))
    hits = np.zeros(z.shape[0], dtype=np.int64)
    top = np.full((z.shape[0], keep), -np.inf) if keep else None
    rng = np.random.default_rng(seed)
    for start in range(0, n_samples, CHUNK):
        rows = min(CHUNK, n_samples - start)
        idx = rng.integers(0, n, (rows, n))
        counts = (
            np.bincount((np.arange(rows)[:, None] * n + idx).ravel(), minlength=rows * n)
            .reshape(rows, n)
            .astype(np.float64)
        )
        s1 = counts @ w.T  # rows x pairs
        s2 = counts @ w2.T
        mean_b = s1 / n
        var_b = np.maximum(s2 - n * mean_b * mean_b, 0.0) / (n - 1)
        flat = var_b <= 1e-12 * s2 / n  # a constant resample: no variance left
        zero = np.abs(s1) <= scale[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            tb = np.abs(mean_b) / np.sqrt(var_b / n)
        tb = np.where(zero, 0.0, np.where(flat, np.inf, tb))
        hits += np.count_nonzero(tb >= bound[None, :], axis=0)
        if keep:  # the keep largest so far, of each pair
            top = np.partition(np.hstack([top, tb.T]), -keep, axis=1)[:, -keep:]
    return hits, (top.min(axis=1) if keep else None)


def randomised_tukey_asl(scores, n_samples: int = 1000, seed: int = 0) -> np.ndarray:
    r"""The randomised Tukey HSD ASL of every pair of runs, in the order of :func:`pairs`.

    Each of :math:`B` trials permutes, topic by topic, the :math:`k` scores among the
    runs and takes the range :math:`r^{*b} = \max_s \bar x^{*b}_s - \min_s \bar
    x^{*b}_s` of the run means; the ASL of runs :math:`i, j` is
    :math:`\#\{b : r^{*b} \ge |\bar x_i - \bar x_j|\}/B` (Carterette 2012, alg. 1;
    Sakai 2012). Permutations are ``argsort`` of ``numpy.random.default_rng(seed)
    .random((rows, n, k))`` in blocks.
    """
    m = _check(scores)
    k, n = m.shape
    means = m.mean(axis=1)
    i, j = pairs(k)
    observed = np.abs(means[i] - means[j])
    by_topic = np.ascontiguousarray(m.T)[None, :, :]  # 1 x topics x runs
    ranges = np.empty(n_samples)
    rows = max(1, min(CHUNK, _BLOCK // (n * k)))
    rng = np.random.default_rng(seed)
    for start in range(0, n_samples, rows):
        r = min(rows, n_samples - start)
        perm = np.argsort(rng.random((r, n, k)), axis=2)
        shuffled = np.take_along_axis(np.broadcast_to(by_topic, (r, n, k)), perm, axis=2)
        mb = shuffled.mean(axis=1)
        ranges[start : start + r] = mb.max(axis=1) - mb.min(axis=1)
    ranges.sort()
    tol = _TOL * np.maximum(1.0, observed) + 1e-10 * np.abs(m).max() / n
    below = np.searchsorted(ranges, observed - tol, side="left")
    return (n_samples - below) / n_samples


#: ``meta power --method`` names -> ASL function (the registry's ``power`` statistics).
POWER_METHODS = ("bootstrap", "tukey")


def _tukey_power(m: np.ndarray, n_samples: int, seed: int, alpha: float) -> dict:
    return {"asl": randomised_tukey_asl(m, n_samples, seed)}


def discriminative_power(
    aligned: dict,
    methods=POWER_METHODS,
    alpha: float = 0.05,
    n_samples: int = 1000,
    seed: int = 0,
) -> dict:
    """Discriminative power of each measure of ``aligned`` (``{measure: (runs, topics,
    runs x topics)}``, :func:`cranfield.compare.align_scores`).

    Returns ``{measure: {"pairs", "runs", "topics", METHOD: {"significant", "share",
    ..., "asl"}}}`` with ``asl`` the sorted ASL curve and, for the bootstrap,
    ``difference_required`` (:func:`difference_required`); every measure uses the same
    draws (``seed``), so their curves differ only by the measures.
    """
    out = {}
    for measure, (runs, topics, m) in aligned.items():
        entry: dict = {"runs": len(runs), "topics": len(topics)}
        for name in methods:
            found = META_STATISTICS.lookup(name).behaviour(_check(m), n_samples, seed, alpha)
            asl = found.pop("asl")
            significant = int(np.count_nonzero(asl < alpha))
            entry["pairs"] = int(asl.size)
            entry[name] = {
                "significant": significant,
                "share": significant / asl.size,
                **found,
                "asl": np.sort(asl).tolist(),
            }
        out[measure] = entry
    return out


_SAMPLES = Param(
    "samples", int, 1000, "bootstrap resamples / shuffles (--samples)", **integer_in(1, MAX_SAMPLES)
)
for _name, _fn, _summary, _formula, _ref, _label in (
    (
        "bootstrap",
        _bootstrap_power,
        "Paired bootstrap test of every pair of runs; share of pairs with ASL < alpha, "
        "and the difference required (Sakai 2006, fig. 3).",
        "$\\#\\{b: |t(w^{*b})| \\ge |t(z)|\\}/B$, $w = z - \\bar z$",
        "Sakai 2006 (SIGIR); Efron & Tibshirani 1993, alg. 16.2",
        "bootstrap",
    ),
    (
        "tukey",
        _tukey_power,
        "Randomised Tukey HSD over all runs; share of pairs with ASL < alpha.",
        "$\\#\\{b: \\max_s \\bar x^{*b}_s - \\min_s \\bar x^{*b}_s \\ge |\\bar x_i - \\bar x_j|\\}/B$",
        "Carterette 2012 (TOIS), alg. 1; Sakai 2012 (WWW)",
        "randomised Tukey HSD",
    ),
):
    META_STATISTICS.register(
        MetaStatistic(
            _name, _fn, _summary, _formula, _ref, (_SAMPLES, SEED), command="power", label=_label
        )
    )
