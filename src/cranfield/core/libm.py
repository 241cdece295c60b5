"""The C library's transcendental functions over NumPy arrays: cranfield's
floating-point convention.

The engine (Rust) computes ``log``, ``log2``, ``log1p``, ``exp`` and ``exp2`` with the
platform's C library (``f64::ln`` and friends call libm), as trec_eval does. NumPy does
not always: on CPUs with AVX-512, NumPy 2.x replaces them (and ``np.power``) with its
own SIMD versions, which differ from libm in the last bit for a few percent of the
arguments. Every number cranfield computes in Python that the engine (or trec_eval)
also computes therefore goes through these functions, never ``np.log``/``np.exp2``/
``np.power`` (:func:`power` here): the result is then the same on every CPU and bit-identical to the
engine's. Python's :mod:`math` calls the C library, so the functions here apply it
element by element (:func:`numpy.frompyfunc`). That costs about 0.1 µs an element, so
they serve one value per query, per distinct label, or a test's specification kernel,
never a per-document hot path of production.

Arithmetic that is correctly rounded by IEEE 754 (``+ - * /``, ``sqrt``, integer
powers of 2 by :func:`numpy.ldexp`) needs none of this: it is the same everywhere.
"""

from __future__ import annotations

import math
from functools import cache

from .._lazy import lazy

np = lazy("numpy", __name__, "np")


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


def _log1p(x: float) -> float:
    # log1p(-1) is -inf and below -1 NaN in C; Python raises ValueError for both
    return math.log1p(x) if x > -1.0 else (-math.inf if x == -1.0 else -math.nan)


def _c_exp2(prefer_math: bool = True):
    """``math.exp2`` (Python 3.11+), else the C library's ``exp2`` through ctypes."""
    if prefer_math and hasattr(math, "exp2"):
        return math.exp2
    import ctypes

    try:
        # the C library this process has loaded (CPython links libm); not
        # ctypes.util.find_library, which runs ldconfig or a compiler to find it
        f = ctypes.CDLL(None).exp2
    except (OSError, TypeError, AttributeError):  # Windows: pow(2, x) is the closest C function
        return lambda x: math.pow(2.0, x)
    f.restype, f.argtypes = ctypes.c_double, (ctypes.c_double,)
    return f


@cache
def _ufunc(name: str):
    """The C library's ``name`` as a NumPy ufunc (made on first use)."""
    f = {
        "log": _c_math(math.log, -math.inf),
        "log2": _c_math(math.log2, -math.inf),
        "exp": _c_math(math.exp, math.nan),
        "exp2": _c_math(_c_exp2(), math.nan),
        "log1p": _log1p,
    }[name]
    return np.frompyfunc(f, 1, 1)


def _apply(name: str, x) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):  # inf and NaN, as in C
        return np.asarray(_ufunc(name)(x), dtype=np.float64).reshape(x.shape)


def log(x) -> np.ndarray:
    """Natural logarithm, element-wise, by the C library's ``log``."""
    return _apply("log", x)


def log2(x) -> np.ndarray:
    """Base-2 logarithm, element-wise, by the C library's ``log2``."""
    return _apply("log2", x)


def log1p(x) -> np.ndarray:
    """``log(1 + x)``, element-wise, by the C library's ``log1p``."""
    return _apply("log1p", x)


def exp(x) -> np.ndarray:
    """``e^x``, element-wise, by the C library's ``exp`` (``inf`` on overflow, as C)."""
    return _apply("exp", x)


def _c_pow(x: float, y: float) -> float:
    try:
        return math.pow(x, y)
    except ValueError:  # 0 to a negative power is inf in C; a negative base, NaN
        return math.inf if x == 0 else math.nan
    except OverflowError:
        return -math.inf if x < 0 and y == int(y) and int(y) % 2 else math.inf


def power(x, y) -> np.ndarray:
    """``x^y``, element-wise (broadcast), by the C library's ``pow``: Python's
    ``x ** y`` for floats, and what ``np.power`` answers on CPUs without AVX-512."""
    with np.errstate(all="ignore"):
        out = _power()(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    return np.asarray(out, dtype=np.float64)


@cache
def _power():
    return np.frompyfunc(_c_pow, 2, 1)


def exp2(x) -> np.ndarray:
    """``2^x``, element-wise, by the C library's ``exp2`` (``inf`` on overflow, as C)."""
    return _apply("exp2", x)
