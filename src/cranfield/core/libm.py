"""The C library's transcendental functions over NumPy arrays: cranfield's
floating-point convention.

The engine (Rust) computes ``log``, ``log2``, ``log1p``, ``exp``, ``exp2`` and ``pow``
with the platform's C library (``f64::ln`` and friends call libm), as trec_eval does.
NumPy does not always: on CPUs with AVX-512, NumPy 2.x replaces them (and ``np.power``)
with its own SIMD versions, which differ from libm in the last bit for a few percent of
the arguments. Every number cranfield computes in Python that the engine (or trec_eval)
also computes therefore goes through these functions, never ``np.log``/``np.exp2``/
``np.power``: the result is then the same on every CPU and bit-identical to the
engine's. They call the C library a whole array at a time through the engine
(``_engine.libm_unary``, ``_engine.libm_pow``: a few nanoseconds an element), with C's
answers outside the domain (``-inf`` at 0 and NaN below for the logarithms, ``inf`` on
overflow); ``tests/core/test_libm.py`` checks them against Python's :mod:`math`, which
calls the same functions element by element.

Arithmetic that is correctly rounded by IEEE 754 (``+ - * /``, ``sqrt``, integer
powers of 2 by :func:`numpy.ldexp`) needs none of this: it is the same everywhere.
"""

from __future__ import annotations

from .._lazy import lazy

np = lazy("numpy", __name__, "np")


def _apply(name: str, x) -> np.ndarray:
    from .. import _engine

    x = np.asarray(x, dtype=np.float64)
    flat = np.ascontiguousarray(x.reshape(-1))
    return _engine.libm_unary(name, flat).reshape(x.shape)


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


def power(x, y) -> np.ndarray:
    """``x^y``, element-wise (broadcast), by the C library's ``pow``: Python's
    ``x ** y`` for floats, and what ``np.power`` answers on CPUs without AVX-512."""
    from .. import _engine

    x, y = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    shape = x.shape
    flat_x = np.ascontiguousarray(x.reshape(-1))
    flat_y = np.ascontiguousarray(y.reshape(-1))
    return _engine.libm_pow(flat_x, flat_y).reshape(shape)


def exp2(x) -> np.ndarray:
    """``2^x``, element-wise, by the C library's ``exp2`` (``inf`` on overflow, as C)."""
    return _apply("exp2", x)
