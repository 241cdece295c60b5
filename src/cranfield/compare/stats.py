"""Paired significance tests, effect sizes and intervals on per-query scores.

Every function takes two aligned per-query arrays ``x`` (the run) and ``y`` (the
baseline): ``x[i]`` and ``y[i]`` are the scores of the two systems on the same query.
Differences are ``d = x - y``. The tests follow SciPy's definitions (the oracle of the
test suite) and are written on whole arrays.

Randomised procedures (the randomisation test and the bootstrap) draw their random
numbers from ``numpy.random.default_rng(seed)`` in blocks of :data:`CHUNK` rows, so the
p-value depends only on the inputs and the seed -- not on the machine, the NumPy build or
the number of threads. Comparisons of resampled statistics with the observed one use a
small relative tolerance so that floating-point summation order cannot flip a count.
"""

from __future__ import annotations

import math

from .._lazy import lazy
from .._record import Record
from ..core.declarations import Declaration, Param, Registry, integer_at_least, integer_in
from ..distributions import average_ranks as _average_ranks
from ..distributions import binom_cdf, binom_sf, t_cdf, t_ppf, t_sf
from ..errors import InputError, ParameterError, require

np = lazy("numpy", __name__, "np")

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "CHUNK",
    "MAX_RESAMPLES",
    "TestResult",
    "paired_t_test",
    "wilcoxon_test",
    "sign_test",
    "randomization_test",
    "bootstrap_test",
    "cohens_d",
    "mean_difference_ci",
    "TukeyResult",
    "tukey_hsd",
    "adjust_pvalues",
    "CORRECTIONS",
    "StatTest",
    "STAT_TESTS",
]

#: Rows of random signs / resample indices drawn per block (fixed for reproducibility).
CHUNK = 1024
#: Largest number of queries for which the randomisation test enumerates all 2^n flips.
MAX_EXACT = 20
_ALTERNATIVES = ("two-sided", "greater", "less")
CORRECTIONS = ("none", "bonferroni", "holm", "bh")
_REL_TOL = 1e-10
#: Most random permutations / bootstrap resamples one test may draw (10^7: about a
#: minute per pair of runs on 1,000 queries); more would only spend time, the Monte Carlo
#: error of a p-value p being sqrt(p(1-p)/B).
MAX_RESAMPLES = 10_000_000


class TestResult(Record):
    """Outcome of one paired test.

    Attributes
    ----------
    test
        Name of the test (``"t"``, ``"wilcoxon"``, ``"sign"``, ``"randomization"``,
        ``"bootstrap"``).
    statistic
        The test statistic (see each function).
    pvalue
        The p-value for the requested alternative.
    n
        Number of queries the test used (the sign and Wilcoxon tests drop ties).
    method
        How the p-value was obtained: ``"exact"``, ``"asymptotic"``, ``"monte-carlo"``,
        ``"t-distribution"``, ``"binomial"``.
    """

    __test__ = False  # not a pytest class
    __slots__ = ("test", "statistic", "pvalue", "n", "method")
    test: str
    statistic: float
    pvalue: float
    n: int
    method: str


def _pair(x, y) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.ndim != 1 or y.ndim != 1:
        raise InputError(f"expected two 1-D arrays, got shapes {x.shape} and {y.shape}")
    if x.shape != y.shape:
        raise InputError(f"paired samples differ in length: {x.size} and {y.size}")
    if x.size == 0:
        raise InputError("paired samples are empty")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise InputError("paired samples contain NaN or infinite values")
    return x, y


def _check_alternative(alternative: str) -> None:
    if alternative not in _ALTERNATIVES:
        raise ParameterError("alternative", "one of " + ", ".join(_ALTERNATIVES), alternative)


def _check_seed(seed) -> None:
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise ParameterError("seed", "a non-negative integer", seed)


def _check_count(name: str, value) -> None:
    if (
        not isinstance(value, (int, np.integer))
        or isinstance(value, bool)
        or not 1 <= value <= MAX_RESAMPLES
    ):
        raise ParameterError(name, f"an integer from 1 to {MAX_RESAMPLES}", value)


def _tail_p(less: float, greater: float, alternative: str) -> float:
    if alternative == "less":
        return float(less)
    if alternative == "greater":
        return float(greater)
    return float(min(1.0, 2.0 * min(less, greater)))


def _normal_sf(z: float) -> float:
    """P[Z > z] for a standard normal Z, accurate in the far tail (relative error about
    1e-15 down to the smallest double, where it underflows to 0 as SciPy's ``ndtr``)."""
    return 0.5 * math.erfc(z / math.sqrt(2.0))


# --------------------------------------------------------------------------- t-test
class StatTest(Declaration):
    """Declaration of a statistical test (:class:`~cranfield.core.declarations.Declaration`).

    ``scope="pair"``: ``behaviour(x, y, alternative, n_permutations, seed) -> p-value``
    of one run ``x`` against a baseline ``y`` on the same queries. ``scope="runs"``:
    ``behaviour(scores) -> k x k matrix of p-values`` over all ``k`` runs at once (``scores``
    is ``runs x queries``); these p-values are family-wise already and are not corrected
    again. ``label`` names the test in tables; ``alternatives`` are the hypotheses it
    tests.
    """

    __slots__ = ("label", "scope", "alternatives")
    label: str
    scope: str
    alternatives: tuple[str, ...]

    def __init__(
        self,
        *declared: Any,
        label: str,
        scope: str = "pair",
        alternatives: tuple[str, ...] = _ALTERNATIVES,
        **named: Any,
    ) -> None:
        """``declared``/``named``: the fields of :class:`Declaration`, then these."""
        super().__init__(*declared, **named)
        if scope not in ("pair", "runs"):
            raise ValueError(f"{self.name}: scope must be 'pair' or 'runs', not {scope!r}")
        object.__setattr__(self, "label", label)
        object.__setattr__(self, "scope", scope)
        object.__setattr__(self, "alternatives", tuple(alternatives))


#: The statistical tests of ``compare`` (``--test``), in the order shown; each declared
#: once, below its function.
STAT_TESTS = Registry("test")

_RESAMPLING = (
    Param(
        "n_permutations",
        int,
        10000,
        "random sign flips / bootstrap resamples (--permutations)",
        **integer_in(1, MAX_RESAMPLES),
    ),
    Param("seed", int, 0, "seed of numpy.random.default_rng (--seed)", **integer_at_least(0)),
)


def paired_t_test(x, y, alternative: str = "two-sided") -> TestResult:
    r"""Student's paired t-test (as :func:`scipy.stats.ttest_rel`).

    .. math:: t = \frac{\bar d}{s_d / \sqrt{n}}, \qquad \nu = n - 1

    with :math:`s_d` the sample standard deviation (ddof 1) of the differences. As in
    SciPy, identical runs (all differences 0) give ``t = nan`` and ``p = nan``, a single
    query gives ``nan``, and constant non-zero differences give ``t = ±inf``, ``p = 0``.
    Requires SciPy (``pip install 'cranfield[stats]'``) for the t distribution.
    """
    _check_alternative(alternative)
    x, y = _pair(x, y)
    d = x - y
    n = d.size
    with np.errstate(divide="ignore", invalid="ignore"):
        sd = d.std(ddof=1) if n > 1 else np.nan
        t = np.divide(d.mean(), sd / np.sqrt(n))
    if np.isnan(t):
        return TestResult("t", float(t), math.nan, n, "t-distribution")
    if alternative == "two-sided":  # as SciPy: the tail beyond |t|, never 1 - cdf
        p = float(min(1.0, 2.0 * t_sf(abs(t), n - 1)))
    else:
        p = float(t_sf(t, n - 1) if alternative == "greater" else t_cdf(t, n - 1))
    return TestResult("t", float(t), p, n, "t-distribution")


# --------------------------------------------------------------------------- Wilcoxon
STAT_TESTS.register(
    StatTest(
        "t",
        lambda x, y, alternative, n_permutations, seed: paired_t_test(x, y, alternative).pvalue,
        "Student's paired t-test of the mean difference.",
        "$t = \\bar d / (s_d/\\sqrt n)$, Student t with $n-1$ df",
        "Student 1908; as `scipy.stats.ttest_rel`",
        aliases=("ttest", "t-test"),
        label="paired t-test",
    )
)


def _signed_rank_counts(n: int) -> np.ndarray:
    """Number of subsets of {1..n} with each sum 0..n(n+1)/2 (exact null of W+)."""
    counts = np.zeros(n * (n + 1) // 2 + 1)
    counts[0] = 1.0
    for k in range(1, n + 1):  # n <= 50: a short loop building the distribution
        counts[k:] = counts[k:] + counts[:-k].copy()
    return counts


def _sign_bits(start: int, stop: int, n: int) -> np.ndarray:
    """Rows ``start..stop-1`` of the 2^n enumeration of sign patterns as 0/1 float."""
    k = np.arange(start, stop, dtype=np.int64)
    return ((k[:, None] >> np.arange(n, dtype=np.int64)) & 1).astype(np.float64)


def wilcoxon_test(
    x,
    y,
    alternative: str = "two-sided",
    zero_method: str = "wilcox",
    correction: bool = False,
    method: str = "auto",
) -> TestResult:
    r"""Wilcoxon signed-rank test, matching :func:`scipy.stats.wilcoxon` (SciPy >= 1.13).

    Ranks :math:`r_i` of :math:`|d_i|` (average ranks for ties) give
    :math:`W^+ = \sum_{d_i > 0} r_i` and :math:`W^- = \sum_{d_i < 0} r_i`. The reported
    statistic is :math:`\min(W^+, W^-)` for the two-sided test and :math:`W^+` otherwise.

    Zero differences (``zero_method``): ``"wilcox"`` (default) drops them before
    ranking; ``"pratt"`` ranks them and then drops their ranks (normal approximation
    adjusted as in Cureton 1967); ``"zsplit"`` ranks them and splits their ranks
    equally between :math:`W^+` and :math:`W^-`.

    P-value (``method="auto"``, SciPy's rule, applied to ``n`` = number of queries
    including zero differences): for ``n > 50`` the normal approximation
    :math:`z = (W^+ - \mu)/\sigma` with the tie correction of :math:`\sigma`
    (continuity correction only if ``correction=True``); for ``n <= 50`` without ties
    or zeros the exact null distribution of :math:`W^+`; for ``n <= 13`` with ties or
    zeros the exact distribution over all :math:`2^n` sign flips of the observed
    differences; otherwise the normal approximation. When no non-zero difference is
    left the normal approximation is undefined and the p-value is ``nan``.
    """
    _check_alternative(alternative)
    if zero_method not in ("wilcox", "pratt", "zsplit"):
        raise ParameterError("zero_method", "one of wilcox, pratt, zsplit", zero_method)
    if method not in ("auto", "exact", "asymptotic"):
        raise ParameterError("method", "one of auto, exact, asymptotic", method)
    x, y = _pair(x, y)
    d = x - y
    n_total = d.size
    zero = d == 0
    n_zero = int(zero.sum())

    def statistic(dd: np.ndarray, signs: np.ndarray | None = None):
        keep = ~zero if zero_method == "wilcox" else np.ones(n_total, dtype=bool)
        ranks = np.zeros(n_total)
        ranks[keep], ties = _average_ranks(np.abs(dd[keep]))
        pos = (dd > 0).astype(np.float64)
        if signs is not None:  # rows of flips: d_i -> -d_i where the bit is 1
            nonzero = (dd != 0).astype(np.float64)
            pos = np.abs(signs - pos) * nonzero
        r_plus = pos @ ranks if signs is not None else float(ranks[dd > 0].sum())
        if zero_method == "zsplit":
            r_plus = r_plus + ranks[zero].sum() / 2.0
        return r_plus, ranks, ties

    r_plus, ranks, has_ties = statistic(d)
    r_minus = float(ranks[d < 0].sum())
    if zero_method == "zsplit":
        r_minus += ranks[zero].sum() / 2.0
    count = n_total - n_zero if zero_method == "wilcox" else n_total
    stat_out = min(r_plus, r_minus) if alternative == "two-sided" else r_plus

    use = method
    if method == "auto":
        if n_total > 50:
            use = "asymptotic"
        elif not (has_ties or n_zero > 0):
            use = "exact"
        elif n_total <= 13:
            use = "permutation"
        else:
            use = "asymptotic"

    if use == "exact":
        pmf = _signed_rank_counts(count) / 2.0**count
        less = pmf[: int(np.ceil(r_plus)) + 1].sum()
        greater = pmf[int(np.floor(r_plus)) :].sum()
        p = _tail_p(less, greater, alternative)
        return TestResult("wilcoxon", float(stat_out), p, count, "exact")
    if use == "permutation":
        null = statistic(d, _sign_bits(0, 2**n_total, n_total))[0]
        gamma = abs(100 * np.finfo(np.float64).eps * r_plus)  # SciPy's permutation_test
        less = np.mean(null <= r_plus + gamma)
        greater = np.mean(null >= r_plus - gamma)
        p = _tail_p(less, greater, alternative)
        return TestResult("wilcoxon", float(stat_out), p, count, "exact")

    mean = count * (count + 1) * 0.25
    var = count * (count + 1) * (2 * count + 1)
    tie_ranks = ranks[~zero] if zero_method == "pratt" else ranks[ranks > 0]
    if zero_method == "pratt":
        mean -= n_zero * (n_zero + 1) * 0.25
        var -= n_zero * (n_zero + 1) * (2 * n_zero + 1)
    _, t = np.unique(tie_ranks, return_counts=True)
    var = (var - np.sum(t.astype(np.float64) ** 3 - t) / 2) / 24
    se = math.sqrt(var) if var > 0 else 0.0
    if se == 0:
        return TestResult("wilcoxon", float(stat_out), math.nan, count, "asymptotic")
    z = (r_plus - mean) / se
    if correction:
        sign = {"greater": 1.0, "less": -1.0}.get(alternative, float(np.sign(z)))
        z -= sign * 0.5 / se
    # both tails from the survival function: 1 - sf(z) would cancel to 0 (or lose digits)
    # as soon as sf(z) is below the double precision of 1, about 1e-16
    if alternative == "two-sided":
        p = 2.0 * _normal_sf(abs(z))
    else:
        p = _normal_sf(z) if alternative == "greater" else _normal_sf(-z)
    return TestResult("wilcoxon", float(stat_out), float(p), count, "asymptotic")


# --------------------------------------------------------------------------- sign test
STAT_TESTS.register(
    StatTest(
        "wilcoxon",
        lambda x, y, alternative, n_permutations, seed: wilcoxon_test(x, y, alternative).pvalue,
        "Wilcoxon signed-rank test.",
        "signed ranks, $\\min(W^+, W^-)$ (two-sided)",
        "Wilcoxon 1945; as `scipy.stats.wilcoxon` defaults",
        label="Wilcoxon signed-rank test",
    )
)


def sign_test(x, y, alternative: str = "two-sided") -> TestResult:
    r"""Sign test: a binomial test of the number of queries where ``x > y``.

    Ties (``x == y``) are dropped; with :math:`k` wins among :math:`m` untied queries the
    p-value is that of :func:`scipy.stats.binomtest` ``(k, m, 0.5)``, i.e. two-sided
    :math:`\min(1, 2\min(P[K \le k], P[K \ge k]))`, :math:`K \sim B(m, 1/2)`. The statistic
    is :math:`k`. If every query is tied there is no evidence of a difference and the
    p-value is 1. Requires SciPy.
    """
    _check_alternative(alternative)
    x, y = _pair(x, y)
    d = x - y
    k = int(np.sum(d > 0))
    m = int(np.sum(d != 0))
    if m == 0:
        return TestResult("sign", 0.0, 1.0, 0, "binomial")
    less = binom_cdf(k, m, 0.5)
    greater = binom_sf(k - 1, m, 0.5)
    return TestResult("sign", float(k), _tail_p(less, greater, alternative), m, "binomial")


# --------------------------------------------------------------------------- randomisation
STAT_TESTS.register(
    StatTest(
        "sign",
        lambda x, y, alternative, n_permutations, seed: sign_test(x, y, alternative).pvalue,
        "Sign test: a binomial test of the queries where the run wins.",
        "$k$ = queries with $x > y$ among the $m$ untied; binomial $B(m, 1/2)$",
        "Conover 1999, sec. 3.4; as `scipy.stats.binomtest`",
        label="sign test",
    )
)


def _count_extreme(null: np.ndarray, observed: float, tol: float, alternative: str):
    if alternative == "greater":
        return int(np.count_nonzero(null >= observed - tol))
    if alternative == "less":
        return int(np.count_nonzero(null <= observed + tol))
    return int(np.count_nonzero(np.abs(null) >= abs(observed) - tol))


def randomization_test(
    x,
    y,
    n_permutations: int = 10000,
    seed: int = 0,
    alternative: str = "two-sided",
    exact: bool | str = "auto",
) -> TestResult:
    r"""Fisher's paired randomisation (permutation) test of the mean difference.

    Under the null hypothesis the two systems are exchangeable on every query, so each
    difference :math:`d_i` is equally likely to have either sign. The statistic is the
    mean difference :math:`T = \bar d`; the p-value is the fraction of sign assignments
    :math:`s \in \{-1, 1\}^n` whose :math:`T_s = \frac1n\sum_i s_i d_i` is at least as
    extreme (two-sided: :math:`|T_s| \ge |T|`; greater: :math:`T_s \ge T`; less:
    :math:`T_s \le T`). See Smucker, Allan & Carterette (CIKM 2007).

    ``exact="auto"`` enumerates all :math:`2^n` assignments when ``n <= 20`` (in blocks
    of :data:`CHUNK` rows), giving the exact p-value (as
    :func:`scipy.stats.permutation_test` with ``permutation_type="samples"``).
    Otherwise ``n_permutations`` random assignments are drawn from
    ``numpy.random.default_rng(seed)`` in blocks of :data:`CHUNK` rows of
    ``integers(0, 2, size=(rows, n))`` and the p-value is
    :math:`(b + 1)/(B + 1)` with :math:`b` extreme assignments among :math:`B`
    (Phipson & Smyth 2010: the observed assignment counts, so p is never 0).
    ``exact=True`` forces enumeration (n <= 30), ``exact=False`` forces sampling.
    """
    _check_alternative(alternative)
    _check_count("n_permutations", n_permutations)
    _check_seed(seed)
    if exact not in ("auto", True, False):
        raise ParameterError("exact", "'auto', True or False", exact)
    x, y = _pair(x, y)
    d = x - y
    n = d.size
    observed = float(d.sum())
    tol = _REL_TOL * float(np.abs(d).sum())
    enumerate_all = n <= MAX_EXACT if exact == "auto" else bool(exact)
    if enumerate_all and n > 30:
        raise ParameterError("exact", "False or 'auto' for more than 30 queries", exact)
    hits = 0
    if enumerate_all:
        total = 2**n
        block = 8 * CHUNK
        for start in range(0, total, block):
            bits = _sign_bits(start, min(total, start + block), n)
            null = observed - 2.0 * (bits @ d)  # flipping d_i subtracts 2 d_i
            hits += _count_extreme(null, observed, tol, alternative)
        return TestResult("randomization", observed / n, hits / total, n, "exact")
    rng = np.random.default_rng(seed)
    for start in range(0, n_permutations, CHUNK):
        rows = min(CHUNK, n_permutations - start)
        bits = rng.integers(0, 2, size=(rows, n), dtype=np.int8).astype(np.float64)
        null = observed - 2.0 * (bits @ d)
        hits += _count_extreme(null, observed, tol, alternative)
    p = (hits + 1) / (n_permutations + 1)
    return TestResult("randomization", observed / n, p, n, "monte-carlo")


# --------------------------------------------------------------------------- bootstrap
STAT_TESTS.register(
    StatTest(
        "randomization",
        lambda x, y, alternative, n_permutations, seed: (
            randomization_test(x, y, n_permutations, seed, alternative).pvalue
        ),
        "Fisher's paired randomisation (permutation) test of the mean difference.",
        "$\\bar d$; share of sign flips $s$ with "
        "$\\lvert\\frac1n\\sum s_i d_i\\rvert \\ge \\lvert\\bar d\\rvert$",
        "Fisher 1935; Smucker, Allan & Carterette 2007; as `scipy.stats.permutation_test` (exact)",
        _RESAMPLING,
        aliases=("randomisation", "permutation", "fisher"),
        label="randomisation test",
    )
)


def _bootstrap_means(d: np.ndarray, n_resamples: int, seed: int, studentize: bool = False):
    """Means (and standard deviations) of paired bootstrap resamples of ``d``.

    Indices are drawn as ``rng.integers(0, n, (rows, n))`` in blocks of :data:`CHUNK`
    rows -- the same draws as ``scipy.stats.bootstrap(..., paired=True,
    batch=CHUNK, rng=numpy.random.default_rng(seed))``.
    """
    rng = np.random.default_rng(seed)
    n = d.size
    means = np.empty(n_resamples)
    sds = np.empty(n_resamples) if studentize else None
    for start in range(0, n_resamples, CHUNK):
        rows = min(CHUNK, n_resamples - start)
        sample = d[rng.integers(0, n, (rows, n))]
        means[start : start + rows] = sample.mean(axis=-1)
        if studentize:
            sds[start : start + rows] = sample.std(axis=-1, ddof=1) if n > 1 else np.nan
    return means, sds


def bootstrap_test(
    x,
    y,
    n_resamples: int = 10000,
    seed: int = 0,
    alternative: str = "two-sided",
    statistic: str = "t",
) -> TestResult:
    r"""Paired bootstrap test of the mean difference (Efron & Tibshirani 1993, alg. 16.2).

    The differences are shifted to satisfy the null, :math:`w_i = d_i - \bar d`, and
    resampled with replacement ``n_resamples`` times. With ``statistic="t"`` (default,
    as in Sakai 2006) the studentised statistic
    :math:`t = \bar d / (s_d/\sqrt n)` is compared with
    :math:`t^* = \bar w^* / (s_{w^*}/\sqrt n)`; with ``statistic="mean"`` the plain mean
    :math:`\bar d` with :math:`\bar w^*`. The p-value is :math:`(b+1)/(B+1)` with
    :math:`b` resamples at least as extreme; ``nan`` for a single query. Resample indices
    are drawn as described in :func:`_bootstrap_means` (deterministic for a seed).
    """
    _check_alternative(alternative)
    _check_count("n_resamples", n_resamples)
    _check_seed(seed)
    if statistic not in ("t", "mean"):
        raise ParameterError("statistic", "one of t, mean", statistic)
    x, y = _pair(x, y)
    d = x - y
    n = d.size
    if n < 2:  # a single query cannot be resampled meaningfully
        return TestResult("bootstrap", math.nan, math.nan, n, "monte-carlo")
    mean = float(d.mean())
    studentize = statistic == "t"
    means, sds = _bootstrap_means(d, n_resamples, seed, studentize)
    null = means - mean  # means of the shifted resamples w*
    with np.errstate(divide="ignore", invalid="ignore"):
        if studentize:
            sd = float(d.std(ddof=1)) if n > 1 else math.nan
            observed = mean / (sd / math.sqrt(n)) if sd > 0 else math.copysign(math.inf, mean)
            if mean == 0:
                observed = 0.0
            null = np.where(np.abs(null) <= _REL_TOL * np.abs(d).sum(), 0.0, null)
            null = null / (sds / math.sqrt(n))
            null = np.nan_to_num(null, nan=0.0)
            tol = 1e-12 * max(1.0, abs(observed)) if math.isfinite(observed) else 0.0
        else:
            observed = mean
            tol = _REL_TOL * float(np.abs(d).sum()) / n
    hits = _count_extreme(null, observed, tol, alternative)
    p = (hits + 1) / (n_resamples + 1)
    return TestResult("bootstrap", float(observed), p, n, "monte-carlo")


# --------------------------------------------------------------------------- effect, CI
STAT_TESTS.register(
    StatTest(
        "bootstrap",
        lambda x, y, alternative, n_permutations, seed: (
            bootstrap_test(x, y, n_permutations, seed, alternative).pvalue
        ),
        "Paired bootstrap test of the mean difference.",
        "studentised $t$ against resamples of $d - \\bar d$",
        "Efron & Tibshirani 1993, alg. 16.2; Sakai 2006",
        _RESAMPLING,
        label="bootstrap test",
    )
)


def cohens_d(x, y) -> float:
    r"""Cohen's d for paired samples (often written :math:`d_z`).

    .. math:: d = \frac{\bar d}{s_d}

    the mean difference over the sample standard deviation (ddof 1) of the differences
    (Cohen 1988; Lakens 2013, eq. 6). ``nan`` for a single query or when all differences
    are equal to 0, ``±inf`` for constant non-zero differences.
    """
    x, y = _pair(x, y)
    d = x - y
    if d.size < 2:
        return math.nan
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.divide(d.mean(), d.std(ddof=1)))


def mean_difference_ci(
    x,
    y,
    confidence: float = 0.95,
    method: str = "t",
    n_resamples: int = 10000,
    seed: int = 0,
) -> tuple[float, float]:
    r"""Two-sided confidence interval of the mean difference :math:`\bar d`.

    ``method="t"``: :math:`\bar d \pm t_{1-\alpha/2,\,n-1}\, s_d/\sqrt n` with
    :math:`\alpha = 1 - \text{confidence}` (requires SciPy for the t quantile; ``nan``
    bounds for a single query). ``method="bootstrap"``: the percentile interval -- the
    :math:`\alpha/2` and :math:`1-\alpha/2` quantiles (linear interpolation) of the means
    of ``n_resamples`` paired resamples, identical to ``scipy.stats.bootstrap(...,
    paired=True, method="percentile", batch=CHUNK, rng=default_rng(seed))``.
    """
    if not isinstance(confidence, (int, float)) or not 0 < confidence < 1:
        raise ParameterError("confidence", "a number strictly between 0 and 1", confidence)
    if method not in ("t", "bootstrap"):
        raise ParameterError("method", "one of t, bootstrap", method)
    x, y = _pair(x, y)
    d = x - y
    n = d.size
    alpha = 1.0 - confidence
    if method == "bootstrap":
        _check_count("n_resamples", n_resamples)
        _check_seed(seed)
        means, _ = _bootstrap_means(d, n_resamples, seed)
        low, high = np.quantile(means, [alpha / 2, 1 - alpha / 2])
        return float(low), float(high)
    if n < 2:
        return math.nan, math.nan
    half = t_ppf(1 - alpha / 2, n - 1) * d.std(ddof=1) / math.sqrt(n)
    return float(d.mean() - half), float(d.mean() + half)


# --------------------------------------------------------------------------- Tukey HSD
class TukeyResult(Record):
    """All-pairs Tukey HSD: ``statistic[i, j] = mean_i - mean_j`` and its p-value."""

    __slots__ = ("statistic", "pvalue", "std_err", "df", "design")
    statistic: np.ndarray
    pvalue: np.ndarray
    std_err: float
    df: int
    design: str


def tukey_hsd(scores, design: str = "twoway") -> TukeyResult:
    r"""Tukey's honestly significant difference test for all pairs of runs.

    ``scores`` is a ``runs x queries`` matrix. For runs :math:`i, j` with means
    :math:`\bar y_i, \bar y_j` over :math:`n` queries, :math:`k` runs,

    .. math:: q_{ij} = \frac{|\bar y_i - \bar y_j|}{\sqrt{\mathrm{MSE}/n}}, \qquad
              p_{ij} = P[Q_{k,\nu} \ge q_{ij}]

    with :math:`Q_{k,\nu}` the studentized range distribution.

    ``design="twoway"`` (default; Carterette 2012, Sakai 2018): the runs are evaluated on
    the same queries, so MSE is the residual mean square of the two-way ANOVA without
    replication (run + query effects), :math:`\nu = (k-1)(n-1)`.
    ``design="oneway"``: runs are treated as independent groups, MSE is the within-group
    mean square, :math:`\nu = k(n-1)` -- exactly :func:`scipy.stats.tukey_hsd`.
    Requires SciPy.
    """
    if design not in ("twoway", "oneway"):
        raise ParameterError("design", "one of twoway, oneway", design)
    m = np.asarray(scores, dtype=np.float64)
    if m.ndim != 2 or m.shape[0] < 2 or m.shape[1] < 2:
        raise InputError(f"expected a runs x queries matrix with at least 2 x 2, got {m.shape}")
    if not np.all(np.isfinite(m)):
        raise InputError("scores contain NaN or infinite values")
    stats = require("scipy.stats", "stats")
    k, n = m.shape
    means = m.mean(axis=1)
    if design == "oneway":
        ss = np.sum((m - means[:, None]) ** 2)
        df = k * (n - 1)
    else:
        resid = m - means[:, None] - m.mean(axis=0)[None, :] + m.mean()
        ss = np.sum(resid**2)
        df = (k - 1) * (n - 1)
    std_err = math.sqrt(ss / df / n)
    diff = means[:, None] - means[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.abs(diff) / std_err
    p = stats.studentized_range.sf(q, k, df)
    return TukeyResult(diff, np.asarray(p, dtype=np.float64), std_err, df, design)


# --------------------------------------------------------------------------- corrections
STAT_TESTS.register(
    StatTest(
        "tukey",
        lambda scores: tukey_hsd(scores).pvalue,
        "Tukey's honestly significant difference test over all runs (two-way design).",
        "$q = \\lvert\\bar y_i - \\bar y_j\\rvert / \\sqrt{MSE/n}$, studentized range",
        "Tukey 1949; Carterette 2012; as `scipy.stats.tukey_hsd` (one-way)",
        aliases=("tukey_hsd", "hsd"),
        label="Tukey HSD",
        scope="runs",
        alternatives=("two-sided",),
    )
)


def adjust_pvalues(pvalues, method: str = "holm") -> np.ndarray:
    r"""Adjust a family of p-values for multiple comparisons.

    With :math:`m` p-values (NaN entries are kept as NaN and not counted) sorted
    increasingly :math:`p_{(1)} \le \dots \le p_{(m)}`:

    - ``"bonferroni"``: :math:`\min(1, m\,p_i)`;
    - ``"holm"`` (Holm 1979, step-down):
      :math:`\tilde p_{(i)} = \max_{j \le i} \min(1, (m-j+1)\,p_{(j)})`;
    - ``"bh"`` (Benjamini & Hochberg 1995, false discovery rate, step-up):
      :math:`\tilde p_{(i)} = \min_{j \ge i} \min(1, m\,p_{(j)}/j)`;
    - ``"none"``: unchanged.
    """
    if method not in CORRECTIONS:
        raise ParameterError("correction", "one of " + ", ".join(CORRECTIONS), method)
    p = np.asarray(pvalues, dtype=np.float64)
    out = p.copy()
    valid = ~np.isnan(p)
    if method == "none" or not valid.any():
        return out
    pv = p[valid]
    m = pv.size
    if method == "bonferroni":
        out[valid] = np.minimum(1.0, m * pv)
        return out
    order = np.argsort(pv, kind="stable")
    ranked = pv[order]
    i = np.arange(1, m + 1)
    if method == "holm":
        adj = np.maximum.accumulate(np.minimum(1.0, (m - i + 1) * ranked))
    else:
        adj = np.minimum.accumulate(np.minimum(1.0, m * ranked / i)[::-1])[::-1]
    res = np.empty(m)
    res[order] = adj
    out[valid] = res
    return out
