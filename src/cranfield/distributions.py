r"""The distribution functions cranfield's tests need, exactly as SciPy's distributions
compute them, without importing :mod:`scipy.stats`.

Importing :mod:`scipy.stats` takes about 0.6 s (it loads every distribution, SciPy's
sparse, spatial and optimisation packages), three times a small job's whole budget
(``cranfield ab`` on a few rows, a two-run ``report``). The functions below call the
:mod:`scipy.special` kernels that :mod:`scipy.stats` itself calls for these
distributions (SciPy 1.11 and later), so the numbers are bit-identical to
``scipy.stats.t.sf`` and the others (``tests/test_distributions.py`` checks every function
against :mod:`scipy.stats` on random and extreme arguments):

================================  ==========================================
this module                       SciPy's definition
================================  ==========================================
``t_sf(x, df)``                   ``t.sf(x, df)`` = ``stdtr(df, -x)``
``t_cdf(x, df)``                  ``t.cdf(x, df)`` = ``stdtr(df, x)``
``t_ppf(q, df)``                  ``t.ppf(q, df)`` = ``stdtrit(df, q)``
``norm_sf(x)``                    ``norm.sf(x)`` = ``ndtr(-x)``
``norm_ppf(q)``                   ``norm.ppf(q)`` = ``ndtri(q)``
``chi2_sf(x, df)``                ``chi2.sf(x, df)`` = ``chdtrc(df, x)``
``binom_cdf(k, n, p)``            ``binom.cdf(k, n, p)`` (Boost's CDF)
``beta_ppf(q, a, b)``             ``beta.ppf(q, a, b)`` (Boost's inverse)
================================  ==========================================

Arguments are as SciPy's ``_cdf``/``_ppf`` methods take them: inside the distribution's
support and parameter range (the callers check theirs). SciPy (the ``stats`` extra) is
still required: these are its kernels, loaded without ``scipy.special``'s package
``__init__`` where no one has imported it yet (:func:`_load_kernels`: 0.03 s instead of
0.25 s).
"""

from __future__ import annotations

from cranfield._lazy import lazy
from cranfield.errors import require

np = lazy("numpy", __name__, "np")  # compare's --help loads this module: NumPy on use


_KERNELS = []  # scipy.special._ufuncs once loaded


def _special():
    """SciPy's compiled kernels, ``scipy.special._ufuncs`` (``stdtr``, ``ndtri``, the
    Boost distributions...): the very functions ``scipy.special`` exports."""
    if not _KERNELS:
        _KERNELS.append(_load_kernels())
    return _KERNELS[0]


def _load_kernels():
    """``scipy.special._ufuncs`` without running ``scipy.special/__init__.py`` when no
    one has imported it yet.

    That ``__init__`` costs about 0.25 s (its array-API layer clones NumPy's namespace,
    which imports ``numpy.f2py``, ``numpy.testing`` and ``numpy.ma``), ten times the
    kernels themselves. The extension module is loaded under an empty package of the
    same name and location, which is then taken out of ``sys.modules`` again: a later
    ``import scipy.special`` runs the real ``__init__``, which finds this very module
    (the functions are the same objects). The global import lock is held meanwhile, so
    no other thread sees the empty package. Anything unexpected: the ordinary import.
    """
    import sys

    loaded = sys.modules.get("scipy.special._ufuncs")
    if loaded is not None:
        return loaded
    try:
        import _imp
        import importlib
        import importlib.util
        import types

        spec = importlib.util.find_spec("scipy.special")
        if spec is None or not spec.submodule_search_locations:
            raise ImportError("scipy.special")
        _imp.acquire_lock()
        try:
            if "scipy.special" in sys.modules:
                raise ImportError("scipy.special is being imported")
            shell = types.ModuleType("scipy.special")
            shell.__path__ = list(spec.submodule_search_locations)
            shell.__spec__ = spec
            shell.__package__ = "scipy.special"
            sys.modules["scipy.special"] = shell
            try:
                return importlib.import_module("scipy.special._ufuncs")
            finally:
                if sys.modules.get("scipy.special") is shell:
                    del sys.modules["scipy.special"]
        finally:
            _imp.release_lock()
    except Exception:  # noqa: BLE001 - any failure: SciPy's own import decides
        return require("scipy.special", "stats")


def _kernel(name: str):
    """The kernel ``name`` of SciPy's special functions (``"stdtr"``)."""
    kernel = getattr(_special(), name, None)
    return kernel if kernel is not None else getattr(require("scipy.special", "stats"), name)


def t_sf(x, df):
    """Upper tail :math:`P[T_\\nu > x]` of Student's t with ``df`` degrees of freedom."""
    return _kernel("stdtr")(df, np.negative(x))


def t_cdf(x, df):
    """Lower tail :math:`P[T_\\nu \\le x]` of Student's t."""
    return _kernel("stdtr")(df, x)


def t_ppf(q, df):
    """The ``q`` quantile of Student's t with ``df`` degrees of freedom (``-inf`` at 0
    and ``inf`` at 1, as SciPy's ``ppf`` sets the ends of the support)."""
    q = np.asarray(q, dtype=float)
    inside = _kernel("stdtrit")(df, q)
    return np.where(q == 0, -np.inf, np.where(q == 1, np.inf, inside))[()]


def norm_sf(x):
    """Upper tail :math:`P[Z > x]` of the standard normal."""
    return _kernel("ndtr")(np.negative(x))


def norm_ppf(q):
    """The ``q`` quantile of the standard normal."""
    return _kernel("ndtri")(q)


def chi2_sf(x, df):
    """Upper tail :math:`P[\\chi^2_\\nu > x]` of the chi-square distribution."""
    return _kernel("chdtrc")(df, x)


def _boost(name: str, public: str):
    """SciPy's private Boost kernel ``name`` (what ``scipy.stats`` calls), else the
    public distribution method ``public`` (``"binom.cdf"``) for a SciPy that moved it."""
    kernel = getattr(_special(), name, None)
    if kernel is not None:
        return kernel
    dist, method = public.split(".")
    return getattr(getattr(require("scipy.stats", "stats"), dist), method)


def binom_cdf(k, n, p):
    """:math:`P[K \\le k]` for :math:`K \\sim B(n, p)` (``k`` rounded down, as SciPy;
    0 below the support and 1 from ``n`` on, as SciPy)."""
    k = np.floor(k)
    inside = _boost("_binom_cdf", "binom.cdf")(np.clip(k, 0, n), n, p)
    return np.where(k < 0, 0.0, np.where(k >= n, 1.0, inside))[()]


def binom_sf(k, n, p):
    """:math:`P[K > k]` for :math:`K \\sim B(n, p)` (``k`` rounded down, as SciPy;
    1 below the support and 0 from ``n`` on, as SciPy)."""
    k = np.floor(k)
    inside = _boost("_binom_sf", "binom.sf")(np.clip(k, 0, n), n, p)
    return np.where(k < 0, 1.0, np.where(k >= n, 0.0, inside))[()]


def beta_ppf(q, a, b):
    """The ``q`` quantile of the beta distribution with shapes ``a``, ``b``."""
    return _boost("_beta_ppf", "beta.ppf")(q, a, b)


def average_ranks(a) -> tuple[np.ndarray, bool]:
    """Average (mid) ranks of ``a`` starting at 1, as ``scipy.stats.rankdata`` with its
    default ``method="average"``, and whether there were ties."""
    a = np.asarray(a)
    order = np.argsort(a, kind="stable")
    s = a[order]
    new = np.r_[True, s[1:] != s[:-1]]
    group = np.cumsum(new) - 1
    starts = np.flatnonzero(new)
    ends = np.r_[starts[1:], s.size]
    mid = (starts + ends + 1) / 2.0  # mean of ranks start+1 .. end
    ranks = np.empty(a.size)
    ranks[order] = mid[group]
    return ranks, bool(np.any(ends - starts > 1))
