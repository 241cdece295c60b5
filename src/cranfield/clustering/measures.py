"""External evaluation of a clustering against a gold standard.

Every measure here is a function of one contingency table between the gold-standard
classes C = {c_1, ..., c_J} and the clusters Omega = {w_1, ..., w_K} of N items, with
cell counts n_jk = |w_k ∩ c_j|, class sizes a_j = |c_j| and cluster sizes b_k = |w_k|.
Formulas follow Manning, Raghavan & Schütze, *Introduction to Information Retrieval*,
ch. 16.3; Hubert & Arabie (1985) for the adjusted Rand index; Vinh, Epps & Bailey (2010)
for adjusted mutual information; Rosenberg & Hirschberg (2007) for homogeneity,
completeness and the V-measure; Fowlkes & Mallows (1983) for their index.

Implementation notes
--------------------
The table is kept sparse (only the non-zero cells, at most N of them), so "every item
its own cluster" on a million items costs O(N) memory, and every measure is a handful
of whole-array NumPy operations on it. Labels may be any hashable values (numbers,
strings, tuples, ...). The computation is pure NumPy rather than calls into
scikit-learn: arbitrary hashable labels need our own encoding anyway, after which
scikit-learn's ``contingency_matrix`` and ``mutual_info_score`` would only recount the
same integer codes, and keeping it in NumPy lets ``cranfield cluster`` run without the
``sklearn`` extra. scikit-learn is the test oracle (``tests/clustering/test_clustering.py``).

Mutual information and entropies are in nats (natural logarithm), as in
scikit-learn; NMI does not depend on the base.
"""

from __future__ import annotations

import math
from typing import Any

from .._lazy import lazy
from .._record import Record
from ..errors import InputError, ParameterError
from ..output import dumps_json, markdown_table, text_table
from .labels import factorize

np = lazy("numpy", __name__, "np")

__all__ = [
    "AVERAGE_METHODS",
    "adjusted_mutual_information",
    "expected_mutual_information",
    "fowlkes_mallows",
    "homogeneity_completeness_v_measure",
    "OUTPUT_FORMATS",
    "ClusteringScores",
    "Contingency",
    "adjusted_rand_index",
    "contingency_table",
    "entropy",
    "evaluate_clustering",
    "format_scores",
    "inverse_purity",
    "mutual_information",
    "normalized_mutual_information",
    "pair_counts",
    "pair_f_beta",
    "pair_precision",
    "pair_recall",
    "purity",
    "rand_index",
]

#: NMI normalisations, named as scikit-learn's ``average_method``.
AVERAGE_METHODS = ("min", "geometric", "arithmetic", "max")


# ------------------------------------------------------------- log-factorials, EMI

_STIRLING_FROM = 20
#: log(k!) for k < 20, exact to the last bit (math.lgamma on 20 values).
_LOG_FACT_SMALL = [
    math.lgamma(k + 1.0) for k in range(_STIRLING_FROM)
]  # (a list: no NumPy on import)
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
#: Terms of expected mutual information evaluated per NumPy block.
_EMI_BLOCK = 1 << 21
#: Below this N, log-factorials 0..N are tabulated once (at most 128 MiB).
_LOG_FACT_TABLE_MAX = 1 << 24


def _log_factorial(k: np.ndarray) -> np.ndarray:
    """log(k!) for an integer array k >= 0, vectorised.

    k < 20 from a table; otherwise Stirling's series for log Γ(x), x = k + 1:
    (x − ½) log x − x + ½ log 2π + 1/(12x) − 1/(360x³) + 1/(1260x⁵) − 1/(1680x⁷)
    + 1/(1188x⁹), whose truncation error is below 1e-17 for x ≥ 21 (Abramowitz & Stegun
    6.1.41), so the result is as accurate as ``scipy.special.gammaln``.
    """
    k = np.asarray(k, dtype=np.int64)
    out = np.empty(k.shape, dtype=np.float64)
    small = k < _STIRLING_FROM
    out[small] = np.array(_LOG_FACT_SMALL)[k[small]]
    x = k[~small].astype(np.float64) + 1.0
    inv = 1.0 / x
    inv2 = inv * inv
    series = inv * (1 / 12 - inv2 * (1 / 360 - inv2 * (1 / 1260 - inv2 * (1 / 1680 - inv2 / 1188))))
    out[~small] = (x - 0.5) * np.log(x) - x + _HALF_LOG_2PI + series
    return out


def expected_mutual_information(class_sizes: Any, cluster_sizes: Any) -> float:
    """E[I(Ω; C)] over random labelings with the same class and cluster sizes (nats).

    Vinh, Epps & Bailey (2010), eq. 24a, under the hypergeometric model of
    randomness (the permutation model: both sets of sizes fixed):

    E[I] = Σ_j Σ_k Σ_{n=max(1, a_j+b_k−N)}^{min(a_j, b_k)} (n/N) log(N n / (a_j b_k))
           · a_j! b_k! (N−a_j)! (N−b_k)! / (N! n! (a_j−n)! (b_k−n)! (N−a_j−b_k+n)!)

    The summand depends on a row and column only through their sizes, so the sum
    runs over pairs of *distinct* sizes, weighted by how many rows and columns have
    them (at most 2N pairs); the n-ranges of all pairs are laid out as one flat array
    (in blocks of ~2 million terms), each range cut to where the hypergeometric
    probability is not below float64's smallest number, and that probability is taken
    in log space (:func:`_log_factorial`). This is the quantity scikit-learn's
    ``expected_mutual_information`` computes.
    """
    a_sizes = np.asarray(class_sizes, dtype=np.int64)
    b_sizes = np.asarray(cluster_sizes, dtype=np.int64)
    n = int(a_sizes.sum())
    if n != int(b_sizes.sum()) or n <= 0:
        raise InputError("class and cluster sizes must be positive and sum to the same N")
    ua, ca = np.unique(a_sizes[a_sizes > 0], return_counts=True)
    ub, cb = np.unique(b_sizes[b_sizes > 0], return_counts=True)
    a = np.repeat(ua, len(ub))
    b = np.tile(ub, len(ua))
    weight = np.outer(ca, cb).ravel().astype(np.float64)
    # Terms outside mean ± t, t = sqrt(400 min(a, b)), have hypergeometric probability
    # below exp(-800) (Hoeffding 1963, sampling without replacement), which is 0.0 in
    # float64 anyway; skipping them changes no bit of the sum and bounds the work.
    mean = a.astype(np.float64) * b / n
    reach = np.ceil(np.sqrt(400.0 * np.minimum(a, b))).astype(np.int64)
    lo = np.maximum(np.maximum(1, a + b - n), np.floor(mean).astype(np.int64) - reach)
    hi = np.minimum(np.minimum(a, b), np.ceil(mean).astype(np.int64) + reach)
    length = np.maximum(hi - lo + 1, 0)
    keep = length > 0
    a, b, weight, lo, length = a[keep], b[keep], weight[keep], lo[keep], length[keep]
    # log-factorials by table lookup when N is moderate, by series otherwise
    if n < _LOG_FACT_TABLE_MAX:
        table = _log_factorial(np.arange(n + 1))

        def log_fact(k):
            return table[k]
    else:
        log_fact = _log_factorial
    # log of a! b! (N-a)! (N-b)! / N!, once per pair of sizes
    fixed = log_fact(a) + log_fact(b) + log_fact(n - a) + log_fact(n - b)
    fixed -= _log_factorial(np.array([n]))[0]
    log_ab = np.log(a.astype(np.float64)) + np.log(b.astype(np.float64))
    ends = np.cumsum(length)
    total = 0.0
    first = 0
    while first < len(length):  # one iteration per block of ~2 million terms, not per item
        done_before = ends[first - 1] if first else 0
        last = max(int(np.searchsorted(ends, done_before + _EMI_BLOCK, side="right")), first + 1)
        sl = slice(first, last)
        count = length[sl]
        pair = np.repeat(np.arange(last - first), count)
        start = np.cumsum(count) - count
        nij = lo[sl][pair] + (np.arange(int(count.sum())) - start[pair])
        aa, bb = a[sl][pair], b[sl][pair]
        log_p = fixed[sl][pair] - (
            log_fact(nij) + log_fact(aa - nij) + log_fact(bb - nij) + log_fact(n - aa - bb + nij)
        )
        mi_term = nij / n * (math.log(n) + np.log(nij.astype(np.float64)) - log_ab[sl][pair])
        total += float(np.sum(weight[sl][pair] * mi_term * np.exp(log_p)))
        first = last
    return total


def _generalized_mean(x: float, y: float, average_method: str) -> float:
    _check_average_method(average_method)
    return {
        "min": min(x, y),
        "max": max(x, y),
        "arithmetic": (x + y) / 2.0,
        "geometric": math.sqrt(x * y),
    }[average_method]


# ---------------------------------------------------------------------- contingency


def _choose2(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.int64, copy=False)
    return x * (x - 1) // 2


class Contingency(Record):
    """Sparse contingency table of gold classes (rows) against clusters (columns).

    Attributes
    ----------
    classes, clusters
        The distinct labels of the truth and of the assignment, in row/column order.
    rows, cols, counts
        The non-zero cells: ``counts[i] = |c_rows[i] ∩ w_cols[i]|``.
    class_sizes, cluster_sizes
        Row sums a_j and column sums b_k.
    """

    __slots__ = ("classes", "clusters", "rows", "cols", "counts", "class_sizes", "cluster_sizes")
    _no_repr = ("class_sizes", "cluster_sizes")
    classes: np.ndarray
    clusters: np.ndarray
    rows: np.ndarray
    cols: np.ndarray
    counts: np.ndarray
    class_sizes: np.ndarray
    cluster_sizes: np.ndarray

    @property
    def n(self) -> int:
        """Number of items N."""
        return int(self.counts.sum())

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.classes), len(self.clusters))

    def dense(self) -> np.ndarray:
        """The full J x K table as an int64 array (rows: classes, columns: clusters)."""
        table = np.zeros(self.shape, dtype=np.int64)
        table[self.rows, self.cols] = self.counts
        return table

    # -- measures -------------------------------------------------------------

    def purity(self) -> float:
        """purity = (1/N) Σ_k max_j n_jk (IIR eq. 16.1)."""
        best = np.zeros(len(self.clusters), dtype=np.int64)
        np.maximum.at(best, self.cols, self.counts)
        return float(best.sum() / self.n)

    def inverse_purity(self) -> float:
        """inverse purity = (1/N) Σ_j max_k n_jk: purity with the roles swapped."""
        best = np.zeros(len(self.classes), dtype=np.int64)
        np.maximum.at(best, self.rows, self.counts)
        return float(best.sum() / self.n)

    def entropy_truth(self) -> float:
        """H(C) = -Σ_j (a_j/N) log(a_j/N), in nats."""
        return _entropy_of_sizes(self.class_sizes)

    def entropy_assignment(self) -> float:
        """H(Ω) = -Σ_k (b_k/N) log(b_k/N), in nats."""
        return _entropy_of_sizes(self.cluster_sizes)

    def mutual_information(self) -> float:
        """I(Ω; C) = Σ_jk (n_jk/N) log(N n_jk / (a_j b_k)), in nats (IIR eq. 16.3)."""
        if len(self.classes) == 1 or len(self.clusters) == 1:
            return 0.0  # exactly: a single block carries no information (avoids 1e-17 noise)
        n = self.n
        c = self.counts.astype(np.float64)
        a = self.class_sizes[self.rows].astype(np.float64)
        b = self.cluster_sizes[self.cols].astype(np.float64)
        mi = float(np.sum(c / n * (np.log(c) + math.log(n) - np.log(a) - np.log(b))))
        return max(mi, 0.0)  # rounding can give -1e-17 for independent labelings

    def normalized_mutual_information(self, average_method: str = "arithmetic") -> float:
        """NMI = I(Ω; C) / mean(H(Ω), H(C)).

        ``average_method`` picks the mean as in scikit-learn: ``"arithmetic"``
        (IIR eq. 16.2, (H(Ω)+H(C))/2), ``"geometric"`` (sqrt of the product),
        ``"min"`` or ``"max"``. Conventions (as scikit-learn): two single-block
        partitions score 1.0; zero mutual information scores 0.0.
        """
        _check_average_method(average_method)
        if len(self.classes) == len(self.clusters) == 1:
            return 1.0
        mi = self.mutual_information()
        if mi == 0.0:
            return 0.0
        h_c, h_w = self.entropy_truth(), self.entropy_assignment()
        norm = _generalized_mean(h_c, h_w, average_method)
        return float(mi / max(norm, np.finfo(np.float64).eps))

    def expected_mutual_information(self) -> float:
        """E[I(Ω; C)] for random labelings of these sizes (:func:`expected_mutual_information`)."""
        return expected_mutual_information(self.class_sizes, self.cluster_sizes)

    def adjusted_mutual_information(self, average_method: str = "arithmetic") -> float:
        """AMI = (I − E[I]) / (mean(H(C), H(Ω)) − E[I])  (Vinh, Epps & Bailey 2010).

        Mutual information corrected for chance: 0 in expectation for random labelings
        of these sizes, 1 for identical partitions. ``average_method`` as for NMI
        (scikit-learn's default for ``adjusted_mutual_info_score`` is ``"arithmetic"``).
        Conventions as scikit-learn: 1.0 when both sides are one block or the
        partitions are identical (also all singletons), and a denominator that rounds
        to 0 is kept at ±machine epsilon.
        """
        _check_average_method(average_method)
        if len(self.classes) == len(self.clusters) == len(self.counts):
            return 1.0  # identical partitions up to renaming (the formula is 0/0 there)
        mi = self.mutual_information()
        emi = self.expected_mutual_information()
        norm = _generalized_mean(self.entropy_truth(), self.entropy_assignment(), average_method)
        den = norm - emi
        eps = np.finfo(np.float64).eps
        den = min(den, -eps) if den < 0 else max(den, eps)
        return float((mi - emi) / den)

    def homogeneity_completeness_v_measure(self, beta: float = 1.0) -> tuple[float, float, float]:
        """Homogeneity, completeness and V-measure (Rosenberg & Hirschberg 2007).

        h = 1 − H(C|Ω)/H(C) = I/H(C) (each cluster holds one class; 1 when H(C) = 0),
        c = 1 − H(Ω|C)/H(Ω) = I/H(Ω) (each class in one cluster; 1 when H(Ω) = 0),
        V_β = (1 + β) h c / (β h + c) (0 when h = c = 0); V_1 is NMI with the
        arithmetic mean. scikit-learn's ``homogeneity_completeness_v_measure``.
        """
        _check_beta(beta)
        mi = self.mutual_information()
        h_c, h_w = self.entropy_truth(), self.entropy_assignment()
        h = 1.0 if h_c == 0 else mi / h_c
        c = 1.0 if h_w == 0 else mi / h_w
        v = 0.0 if h + c == 0 else (1 + beta) * h * c / (beta * h + c)
        return float(h), float(c), float(v)

    def fowlkes_mallows(self) -> float:
        """Fowlkes & Mallows (1983) index: TP / sqrt((TP + FP)(TP + FN)).

        The geometric mean of pair precision and recall; 0 when TP = 0 (also when no
        pair shares a cluster or a class, as scikit-learn's ``fowlkes_mallows_score``).
        Exact integer pair counts; sqrt(precision) · sqrt(recall), so identical
        partitions give exactly 1.
        """
        tp, fp, fn, _ = self.pair_counts()
        if tp == 0:
            return 0.0
        return float(math.sqrt(tp / (tp + fp)) * math.sqrt(tp / (tp + fn)))

    def pair_counts(self) -> tuple[int, int, int, int]:
        """(TP, FP, FN, TN) over all N(N-1)/2 pairs of items (IIR ch. 16.3).

        A pair is a positive decision when both items share a cluster and truly
        similar when they share a class: TP = Σ_jk C(n_jk, 2),
        TP + FP = Σ_k C(b_k, 2), TP + FN = Σ_j C(a_j, 2), TN = C(N, 2) - TP - FP - FN.
        """
        tp = int(_choose2(self.counts).sum())
        same_cluster = int(_choose2(self.cluster_sizes).sum())
        same_class = int(_choose2(self.class_sizes).sum())
        n = self.n
        total = n * (n - 1) // 2
        fp = same_cluster - tp
        fn = same_class - tp
        return tp, fp, fn, total - tp - fp - fn

    def rand_index(self) -> float:
        """RI = (TP + TN) / (TP + FP + FN + TN); 1.0 when there are no pairs (N = 1)."""
        tp, fp, fn, tn = self.pair_counts()
        total = tp + fp + fn + tn
        return 1.0 if total == 0 else (tp + tn) / total

    def adjusted_rand_index(self) -> float:
        """Hubert & Arabie's (1985) adjusted Rand index, from the pair counts.

        ARI = 2 (TP·TN - FN·FP) / ((TP+FN)(FN+TN) + (TP+FP)(FP+TN)); 1.0 when FN = FP = 0
        (identical partitions, including the degenerate ones). Exact integer arithmetic.
        """
        tp, fp, fn, tn = self.pair_counts()
        if fn == 0 and fp == 0:
            return 1.0
        return 2.0 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn))

    def pair_precision(self, zero_division: float = 0.0) -> float:
        """P = TP / (TP + FP); ``zero_division`` when no pair shares a cluster."""
        tp, fp, _, _ = self.pair_counts()
        return _ratio(tp, tp + fp, zero_division)

    def pair_recall(self, zero_division: float = 0.0) -> float:
        """R = TP / (TP + FN); ``zero_division`` when no pair shares a class."""
        tp, _, fn, _ = self.pair_counts()
        return _ratio(tp, tp + fn, zero_division)

    def pair_f_beta(self, beta: float = 1.0, zero_division: float = 0.0) -> float:
        """F_β = (1+β²) TP / ((1+β²) TP + β² FN + FP); β > 1 weights recall (IIR 16.3)."""
        _check_beta(beta)
        tp, fp, fn, _ = self.pair_counts()
        b2 = beta * beta
        return _ratio((1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp, zero_division)


def _entropy_of_sizes(sizes: np.ndarray) -> float:
    sizes = sizes[sizes > 0].astype(np.float64)
    n = sizes.sum()
    if n == 0 or len(sizes) == 1:
        return 0.0
    p = sizes / n
    return max(float(-np.sum(p * (np.log(sizes) - math.log(n)))), 0.0)


def _ratio(num: float, den: float, zero_division: float) -> float:
    if isinstance(zero_division, bool) or not isinstance(zero_division, (int, float)):
        raise ParameterError("zero_division", "a number in [0, 1] or nan", zero_division)
    if not (math.isnan(zero_division) or 0.0 <= zero_division <= 1.0):
        raise ParameterError("zero_division", "a number in [0, 1] or nan", zero_division)
    return float(zero_division) if den == 0 else num / den


def _check_average_method(average_method: str) -> None:
    if average_method not in AVERAGE_METHODS:
        raise ParameterError(
            "average_method", "one of " + ", ".join(AVERAGE_METHODS), average_method
        )


def _check_beta(beta: float) -> None:
    ok = isinstance(beta, (int, float)) and not isinstance(beta, bool)
    if not ok or not (math.isfinite(beta) and beta > 0):
        raise ParameterError("beta", "a finite number > 0", beta)


def contingency_table(truth: Any, assignment: Any) -> Contingency:
    """Build the sparse contingency table of two labelings of the same N items.

    Parameters
    ----------
    truth
        Gold-standard class of each item (any hashable labels; array, list, Arrow array).
    assignment
        Cluster of each item, in the same item order.

    Raises
    ------
    InputError
        Lengths differ, no items, missing (None/NaN/null) or unhashable labels.
    """
    classes, t = factorize(truth, "truth")
    clusters, p = factorize(assignment, "assignment")
    if len(t) != len(p):
        raise InputError(
            f"truth has {len(t)} labels but assignment has {len(p)}; they must label the same items",
            "assignment",
        )
    if len(t) == 0:
        raise InputError("no items to evaluate", "truth")
    k = len(clusters)
    cells, counts = np.unique(t.astype(np.int64) * k + p, return_counts=True)
    return Contingency(
        classes=classes,
        clusters=clusters,
        rows=(cells // k).astype(np.intp),
        cols=(cells % k).astype(np.intp),
        counts=counts.astype(np.int64),
        class_sizes=np.bincount(t, minlength=len(classes)).astype(np.int64),
        cluster_sizes=np.bincount(p, minlength=k).astype(np.int64),
    )


# --------------------------------------------------------------- function API


def purity(truth: Any, assignment: Any) -> float:
    """Purity of the clusters: (1/N) Σ_k max_j |w_k ∩ c_j| (IIR eq. 16.1)."""
    return contingency_table(truth, assignment).purity()


def inverse_purity(truth: Any, assignment: Any) -> float:
    """Inverse purity: (1/N) Σ_j max_k |w_k ∩ c_j|; penalises splitting a class."""
    return contingency_table(truth, assignment).inverse_purity()


def mutual_information(truth: Any, assignment: Any) -> float:
    """Mutual information I(Ω; C) in nats (IIR eq. 16.3)."""
    return contingency_table(truth, assignment).mutual_information()


def normalized_mutual_information(
    truth: Any, assignment: Any, average_method: str = "arithmetic"
) -> float:
    """NMI = I(Ω; C) / mean(H(Ω), H(C)); see :meth:`Contingency.normalized_mutual_information`."""
    return contingency_table(truth, assignment).normalized_mutual_information(average_method)


def adjusted_mutual_information(
    truth: Any, assignment: Any, average_method: str = "arithmetic"
) -> float:
    """AMI (Vinh, Epps & Bailey 2010); see :meth:`Contingency.adjusted_mutual_information`."""
    return contingency_table(truth, assignment).adjusted_mutual_information(average_method)


def homogeneity_completeness_v_measure(
    truth: Any, assignment: Any, beta: float = 1.0
) -> tuple[float, float, float]:
    """(homogeneity, completeness, V-measure) (Rosenberg & Hirschberg 2007)."""
    return contingency_table(truth, assignment).homogeneity_completeness_v_measure(beta)


def fowlkes_mallows(truth: Any, assignment: Any) -> float:
    """Fowlkes–Mallows index TP / sqrt((TP + FP)(TP + FN)) (Fowlkes & Mallows 1983)."""
    return contingency_table(truth, assignment).fowlkes_mallows()


def entropy(labels: Any) -> float:
    """Entropy H = -Σ (n_i/N) log(n_i/N) of one labeling, in nats; 0.0 for one block."""
    _, codes = factorize(labels, "labels")
    if len(codes) == 0:
        raise InputError("no items to evaluate", "labels")
    return _entropy_of_sizes(np.bincount(codes))


def pair_counts(truth: Any, assignment: Any) -> tuple[int, int, int, int]:
    """Pair-counting decisions (TP, FP, FN, TN) over all N(N-1)/2 item pairs."""
    return contingency_table(truth, assignment).pair_counts()


def rand_index(truth: Any, assignment: Any) -> float:
    """Rand index: the fraction of correct pair decisions, (TP+TN)/C(N,2)."""
    return contingency_table(truth, assignment).rand_index()


def adjusted_rand_index(truth: Any, assignment: Any) -> float:
    """Adjusted Rand index (Hubert & Arabie 1985): 0 in expectation by chance, 1 if equal."""
    return contingency_table(truth, assignment).adjusted_rand_index()


def pair_precision(truth: Any, assignment: Any, zero_division: float = 0.0) -> float:
    """Pair-counting precision TP / (TP + FP)."""
    return contingency_table(truth, assignment).pair_precision(zero_division)


def pair_recall(truth: Any, assignment: Any, zero_division: float = 0.0) -> float:
    """Pair-counting recall TP / (TP + FN)."""
    return contingency_table(truth, assignment).pair_recall(zero_division)


def pair_f_beta(
    truth: Any, assignment: Any, beta: float = 1.0, zero_division: float = 0.0
) -> float:
    """Pair-counting F_β = (1+β²) TP / ((1+β²) TP + β² FN + FP); β > 1 favours recall."""
    return contingency_table(truth, assignment).pair_f_beta(beta, zero_division)


# ----------------------------------------------------------------- all at once


class ClusteringScores(Record):
    """Every external measure of one clustering, computed from one contingency table."""

    __slots__ = (
        "n_items",
        "n_classes",
        "n_clusters",
        "purity",
        "inverse_purity",
        "entropy_truth",
        "entropy_assignment",
        "mutual_information",
        "nmi",
        "ami",
        "average_method",
        "homogeneity",
        "completeness",
        "v_measure",
        "rand_index",
        "adjusted_rand_index",
        "tp",
        "fp",
        "fn",
        "tn",
        "precision",
        "recall",
        "f_beta",
        "beta",
        "fowlkes_mallows",
        "contingency",
    )
    _no_repr = ("contingency",)
    _no_compare = ("contingency",)  # equal scores are equal, whatever table gave them
    n_items: int
    n_classes: int
    n_clusters: int
    purity: float
    inverse_purity: float
    entropy_truth: float
    entropy_assignment: float
    mutual_information: float
    nmi: float
    ami: float
    average_method: str
    homogeneity: float
    completeness: float
    v_measure: float
    rand_index: float
    adjusted_rand_index: float
    tp: int
    fp: int
    fn: int
    tn: int
    precision: float
    recall: float
    f_beta: float
    beta: float
    fowlkes_mallows: float
    contingency: Contingency

    def as_dict(self) -> dict[str, Any]:
        """The scores as a plain dict (no contingency table), e.g. for JSON."""
        return {k: getattr(self, k) for k in self._fields if k != "contingency"}


def evaluate_clustering(
    truth: Any,
    assignment: Any,
    *,
    beta: float = 1.0,
    average_method: str = "arithmetic",
    zero_division: float = 0.0,
) -> ClusteringScores:
    """Compute every external clustering measure at once.

    Parameters
    ----------
    truth, assignment
        Gold class and cluster of each item, same length and order; any hashable labels.
    beta
        β of the pair-counting F measure (β > 1 weights recall; IIR uses β = 5).
    average_method
        NMI and AMI normalisation: ``"min"``, ``"geometric"``, ``"arithmetic"`` (default,
        IIR's NMI and scikit-learn's default for both) or ``"max"``.
    zero_division
        Value of pair precision/recall/F when their denominator is zero.
    """
    _check_beta(beta)
    _check_average_method(average_method)
    ct = contingency_table(truth, assignment)
    tp, fp, fn, tn = ct.pair_counts()
    h, c, v = ct.homogeneity_completeness_v_measure()
    return ClusteringScores(
        n_items=ct.n,
        n_classes=len(ct.classes),
        n_clusters=len(ct.clusters),
        purity=ct.purity(),
        inverse_purity=ct.inverse_purity(),
        entropy_truth=ct.entropy_truth(),
        entropy_assignment=ct.entropy_assignment(),
        mutual_information=ct.mutual_information(),
        nmi=ct.normalized_mutual_information(average_method),
        ami=ct.adjusted_mutual_information(average_method),
        average_method=average_method,
        homogeneity=h,
        completeness=c,
        v_measure=v,
        rand_index=ct.rand_index(),
        adjusted_rand_index=ct.adjusted_rand_index(),
        tp=tp,
        fp=fp,
        fn=fn,
        tn=tn,
        precision=ct.pair_precision(zero_division),
        recall=ct.pair_recall(zero_division),
        f_beta=ct.pair_f_beta(beta, zero_division),
        beta=float(beta),
        fowlkes_mallows=ct.fowlkes_mallows(),
        contingency=ct,
    )


# ------------------------------------------------------------------ rendering

OUTPUT_FORMATS = ("text", "markdown", "json")


def format_scores(
    scores: ClusteringScores, fmt: str = "text", *, digits: int = 4, table: bool = False
) -> str:
    """Render scores as aligned text, a Markdown table or JSON (full precision).

    ``table=True`` appends the contingency table (rows: classes, columns: clusters).
    """
    if fmt not in OUTPUT_FORMATS:
        raise ParameterError("fmt", "one of " + ", ".join(OUTPUT_FORMATS), fmt)
    if isinstance(digits, bool) or not isinstance(digits, int) or digits < 0:
        raise ParameterError("digits", "an integer >= 0", digits)
    values = scores.as_dict()
    ct = scores.contingency
    if fmt == "json":
        if table:
            values["contingency"] = {
                "classes": ct.classes.tolist(),
                "clusters": ct.clusters.tolist(),
                "counts": ct.dense().tolist(),
            }
        return dumps_json(values)

    def show(v: Any) -> str:
        return str(v) if isinstance(v, (int, np.integer, str)) else f"{v:.{digits}f}"

    rows = [[k, show(v)] for k, v in values.items()]
    if fmt == "markdown":
        out = markdown_table(["measure", "value"], rows)
    else:  # no header line; names and values left-aligned
        out = text_table(None, rows, left=2)
    if table:
        out += "\n\n" + _render_table(ct, fmt)
    return out


def _render_table(ct: Contingency, fmt: str) -> str:
    dense = ct.dense()
    head = ["class \\ cluster"] + [str(c) for c in ct.clusters.tolist()]
    body = [
        [str(c)] + [str(x) for x in row] for c, row in zip(ct.classes.tolist(), dense, strict=True)
    ]
    if fmt == "markdown":
        return markdown_table(head, body)
    return text_table(head, body, strip=False)
