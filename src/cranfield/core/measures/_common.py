"""Helpers shared by measure kernels."""

from __future__ import annotations

import math
from functools import cache

from ..._lazy import lazy
from .. import segments

np = lazy("numpy", __name__, "np")


def level(jr, rel) -> int:
    """The relevance threshold: the measure's ``rel`` parameter or the run's default."""
    return jr.rel_level if rel is None else int(rel)


def count_at(jr, mask, k) -> np.ndarray:
    """Number of True entries of ``mask`` among the top ``k`` (a number, or one per
    query) of every ranking.

    ``mask`` is a boolean array over the ranked documents or a
    :class:`cranfield.core.judged.Positions` selection (then nothing is scanned but it).
    """
    if isinstance(mask, np.ndarray):
        idx, sub = segments.compress(mask, jr.offsets)
        per = np.diff(sub)
        rank = idx - np.repeat(jr.offsets[:-1], per) + 1
    else:
        sub, rank = mask.offsets, mask.rank
        per = np.diff(sub)
    limit = np.repeat(k, per) if np.ndim(k) else k  # k may differ per query
    return segments.int_sum(rank - 1 < limit, sub)


def in_top(jr, k: int | None) -> np.ndarray:
    """Mask of ranked documents at rank <= k (all when k is None)."""
    if k is None:
        return np.ones(len(jr.labels), dtype=bool)
    return jr.rank <= k


def safe_div(num, den) -> np.ndarray:
    """num / den where den != 0, else 0 (trec_eval's default for undefined values)."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.zeros(np.broadcast(num, den).shape, dtype=np.float64)
    np.divide(num, den, out=out, where=den != 0)
    return out


# NumPy's SIMD log/exp differ from the C library in the last bit on some CPUs; these
# scalar-per-query helpers keep results identical to trec_eval. They are applied to
# one value per query (or per relevant document), never in the per-document hot path.
def _c_math(f, at_zero: float):
    """``f`` as the C library answers outside its domain: ``-inf`` at 0 and NaN
    (``-nan``, sign set, as glibc prints it) below, instead of Python's ValueError;
    ``inf`` instead of OverflowError."""

    def call(x: float) -> float:
        try:
            return f(x)
        except ValueError:
            return at_zero if x == 0 else -math.nan
        except OverflowError:
            return math.inf

    return call


@cache
def _ufunc(name: str):
    """The C library's ``name`` as a NumPy ufunc (made on first use)."""
    f, at_zero = {
        "log": (math.log, -math.inf),
        "exp": (math.exp, math.nan),
        "log2": (math.log2, -math.inf),
    }[name]
    return np.frompyfunc(_c_math(f, at_zero), 1, 1)


def libm_log(x) -> np.ndarray:
    return np.asarray(_ufunc("log")(np.asarray(x, dtype=np.float64)), dtype=np.float64)


def libm_exp(x) -> np.ndarray:
    with np.errstate(over="ignore"):  # exp overflows to inf, as in C
        return np.asarray(_ufunc("exp")(np.asarray(x, dtype=np.float64)), dtype=np.float64)


def libm_log2(x) -> np.ndarray:
    return np.asarray(_ufunc("log2")(np.asarray(x, dtype=np.float64)), dtype=np.float64)


def discounts(jr) -> np.ndarray:
    """log2(rank + 1) for every ranked document."""
    return segments.log2_discounts(max(jr.max_len, 1))[jr.rank - 1]
