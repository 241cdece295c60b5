"""cranfield.core.libm is the C library, on every CPU; the specification kernels and the
LTR objective's gains use it (NumPy's AVX-512 exp2/log1p/pow differ in the last bit).

The reference is Python's :mod:`math` (a thin wrapper of the C library's functions, as
the engine's ``f64::exp2``/``ln_1p``/``powf`` are), compared bit for bit.
"""

from __future__ import annotations

import ctypes
import math
import sys

import numpy as np
import pytest

from cranfield.core import libm
from cranfield.core.measures.gain import discounted, exp_gain
from cranfield.core.measures.graded_extra import err_stop
from cranfield.core.measures.registry import Measure
from cranfield.ltr import compiled, letor


def _c_function(name: str, arity: int = 1):
    """The C library's ``name`` itself, through ctypes (the library this process has
    loaded: CPython links libm)."""
    f = getattr(ctypes.CDLL(None), name)
    f.restype, f.argtypes = ctypes.c_double, (ctypes.c_double,) * arity
    return f


RNG = np.random.default_rng(30)
# wide random arguments, plus values NumPy's SIMD paths round differently on AVX-512
# CPUs (fractional gains, stop probabilities near 0 and near 1, ranks)
WIDE = np.concatenate([RNG.uniform(-60, 60, 5000), RNG.uniform(0, 40, 5000), [0.0, -0.0, 1.0]])
UNIT = np.concatenate([-RNG.uniform(0, 1, 5000), -(2.0 ** -RNG.uniform(1, 60, 2000)), [0.0]])
POSITIVE = np.concatenate([RNG.uniform(1e-9, 1e6, 5000), np.arange(1.0, 3000.0)])

CASES = [
    (libm.exp2, getattr(math, "exp2", None) or _c_function("exp2"), WIDE),
    (libm.exp, math.exp, WIDE),
    (libm.log, math.log, POSITIVE),
    (libm.log2, math.log2, POSITIVE),
    (libm.log1p, math.log1p, UNIT),
]


def _bits(a) -> np.ndarray:
    return np.asarray(a, dtype=np.float64).view(np.int64)


@pytest.mark.parametrize("f, reference, x", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_each_function_is_the_c_library_bit_for_bit(f, reference, x):
    want = np.array([reference(v) for v in x])
    got = f(x)
    assert got.shape == x.shape
    assert (_bits(got) == _bits(want)).all()


SPECIAL = np.array(
    [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 1e-308, 5e-324, -5e-324, 1e308, -1e308,
     709.78, 709.79, -745.2, 1024.0, -1075.0, -1.0 + 1e-16, math.inf, -math.inf, math.nan]
)  # fmt: skip


@pytest.mark.skipif(sys.platform == "win32", reason="the C library is not ctypes.CDLL(None)")
@pytest.mark.parametrize("name", ["log", "log2", "log1p", "exp", "exp2"])
def test_special_values_are_the_c_librarys(name):
    """Zeros of both signs, subnormals, the ends of the range, infinities and NaN: C's
    answers (the sign of a NaN included), not Python's exceptions."""
    want = np.array([_c_function(name)(v) for v in SPECIAL])
    got = getattr(libm, name)(SPECIAL)
    assert (_bits(got) == _bits(want)).all(), SPECIAL[_bits(got) != _bits(want)]


@pytest.mark.skipif(sys.platform == "win32", reason="the C library is not ctypes.CDLL(None)")
def test_power_of_special_values_is_the_c_librarys():
    pow_ = _c_function("pow", 2)
    x, y = (a.reshape(-1) for a in np.meshgrid(SPECIAL, np.concatenate([SPECIAL, [3.0, -3.0]])))
    want = np.array([pow_(a, b) for a, b in zip(x, y, strict=True)])
    assert (_bits(libm.power(x, y)) == _bits(want)).all()


def test_shapes_views_and_broadcasting():
    """Any shape and memory layout in, the same shape out: a transposed view, a strided
    slice, a scalar, an empty array, and ``power``'s broadcasting as NumPy's."""
    m = RNG.uniform(0.1, 9.0, (7, 5))
    for view in (m.T, m[::2, ::-1], m[:, 1]):
        want = np.array([math.log(v) for v in view.reshape(-1)]).reshape(view.shape)
        assert (_bits(libm.log(view)) == _bits(want)).all()
    assert libm.exp(np.empty((0, 3))).shape == (0, 3)
    assert libm.exp(0.0).shape == () and libm.exp(0.0) == 1.0
    got = libm.power(m[:, :1], np.arange(5.0))  # (7, 1) with (5,): (7, 5)
    assert got.shape == (7, 5)
    assert (_bits(got) == _bits([[a**b for b in range(5)] for a in m[:, 0]])).all()
    assert m.flags.c_contiguous and (m == m).all()  # the input is not modified


def test_power_is_pythons_float_power():
    base = RNG.uniform(1e-3, 1.0, 4000)
    exponent = RNG.uniform(0, 300, 4000)
    want = np.array([b**e for b, e in zip(base, exponent, strict=True)])
    assert (_bits(libm.power(base, exponent)) == _bits(want)).all()
    ranks = np.arange(0.0, 2000.0)
    assert (_bits(libm.power(0.8, ranks)) == _bits([0.8**r for r in ranks])).all()


def test_c_answers_outside_the_domain():
    assert libm.log1p(np.array([-1.0]))[0] == -math.inf
    assert np.isnan(libm.log1p(np.array([-2.0]))[0])
    assert math.copysign(1.0, libm.log1p(np.array([-0.0]))[0]) < 0  # sign of zero kept
    assert libm.exp2(np.array([2000.0]))[0] == math.inf
    assert libm.power(0.0, -1.0) == math.inf and np.isnan(libm.power(-2.0, 0.5))
    assert libm.exp2(np.zeros((2, 3))).shape == (2, 3)


def test_specification_gains_are_cpu_independent():
    g = RNG.uniform(0, 40, 4000)
    ref_exp2 = getattr(math, "exp2", lambda x: 2.0**x)
    want = np.array([ref_exp2(v) - 1.0 for v in g])
    assert (_bits(exp_gain(g)) == _bits(want)).all()
    rank = RNG.integers(1, 500, len(g))
    terms = discounted(g, rank, "exp-log2")
    assert (_bits(terms) == _bits(want / np.array([math.log2(r + 1.0) for r in rank]))).all()
    jk = discounted(g, rank, "jk", b=3.0)
    disc = np.array([max(1.0, math.log(r) / math.log(3.0)) for r in rank])
    assert (_bits(jk) == _bits(g / disc)).all()
    labels = RNG.integers(-2, 41, 3000).astype(np.float64)
    stop = np.array([(ref_exp2(max(v, 0.0)) - 1.0) / 2.0**40 for v in labels])
    assert (_bits(err_stop(labels, 40)) == _bits(stop)).all()


def test_ltr_objective_gains_are_the_measures_gains():
    """The LTR kernel's per-document numbers come from the very functions
    ``evaluate``'s specification uses: one gain function, on every CPU."""
    labels = RNG.integers(-1, 41, 5000)
    ndcg = compiled._trec_spec(Measure.of("nDCG", dcg="exp-log2"), labels)
    assert (_bits(ndcg[5]) == _bits(exp_gain(np.maximum(labels, 0)))).all()
    err = compiled._trec_spec(Measure.of("ERR", max_grade=40), labels)
    stop = err_stop(labels, 40)
    assert (_bits(err[5]) == _bits(stop)).all()
    assert (_bits(err[6]) == _bits([math.log1p(-s) for s in stop])).all()
    small = labels % 61
    g = compiled._letor_spec(letor.letor_measure("NDCG@10"), small)[5]
    assert (_bits(g) == _bits([2.0 ** int(v) - 1.0 for v in small])).all()
    assert (
        _bits(letor.log2_ranks(3000)[2:]) == _bits([math.log2(r) for r in range(3, 3001)])
    ).all()
