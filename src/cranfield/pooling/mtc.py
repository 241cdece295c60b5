"""Minimal test collections: judge the documents that decide which run is better.

Carterette, Allan & Sitaraman (2006), "Minimal test collections for retrieval
evaluation", SIGIR; Carterette (2007), "Robust test collections for retrieval
evaluation", SIGIR.

For one topic and two runs, a measure difference is written as a polynomial in the
binary relevances ``x_i`` of the documents in the union of the runs::

    S = sum_i d_i x_i + sum_{i<j} c_ij x_i x_j

* P@k: ``d_i = ([r1(i) <= k] - [r2(i) <= k]) / k``, ``c = 0``.
* DCG@k (binary gain): ``d_i = [r1(i) <= k]/log2(r1(i)+1) - [r2(i) <= k]/log2(r2(i)+1)``.
* AP (the paper's form, without the common ``1/R``, which does not change the sign):
  ``AP * R = sum_i sum_{j <= i} x_i x_j / max(r(i), r(j))``, so
  ``d_i = 1/r1(i) - 1/r2(i)`` and ``c_ij = 1/max(r1(i), r1(j)) - 1/max(r2(i), r2(j))``
  (a term is 0 for a run that does not retrieve both documents).

With independent ``x_i ~ Bernoulli(p_i)`` (``p_i`` is 0 or 1 for judged documents,
0.5 or a prior otherwise), writing ``x_i = p_i + y_i``::

    E[S]   = d.p + sum_{i<j} c_ij p_i p_j
    Var[S] = sum_i b_i^2 v_i + sum_{i<j} c_ij^2 v_i v_j,
    b_i = d_i + sum_{j != i} c_ij p_j,   v_i = p_i (1 - p_i)

(the terms of the centred expansion are orthogonal). The probability that the sign of
the difference would change once everything is judged is taken, as in the paper, from
the normal approximation: ``Phi(-|E[S]| / sqrt(Var[S]))``.

The next document to judge is the one whose judgment moves ``S`` most: the paper's
weight ``w_i = d_i + sum_{j judged relevant} c_ij`` (the change of ``S`` if ``i`` is
judged relevant given the relevant documents so far).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import erfc, sqrt

import numpy as np

__all__ = [
    "PairPolynomial",
    "best_first",
    "sign_change_probabilities",
    "coefficients",
    "moments",
    "sign_change_probability",
    "weights",
    "next_document",
    "probabilities",
    "minimal_judging",
    "rank_runs",
    "rank_runs_map",
    "MapJudging",
    "measure_spec",
    "rank_prior",
]

MEASURES = ("ap", "p", "dcg")

#: largest topics x runs x documents-of-a-topic of a :class:`MapJudging` (its arrays of
#: that shape, five of them, hold 8 bytes a cell: about 1.3 GB at this size)
MAX_CELLS = 1 << 25


@dataclass(frozen=True)
class PairPolynomial:
    """``S = d.x + 1/2 x^T C x`` (``C`` symmetric with a zero diagonal) for one topic."""

    d: np.ndarray
    c: np.ndarray


def _ranks(run: np.ndarray, n: int) -> np.ndarray:
    """1-based rank of each document ``0..n-1`` in ``run`` (a ranked array of ids); inf if absent."""
    ranks = np.full(n, np.inf)
    ranks[run] = np.arange(1, len(run) + 1, dtype=float)
    return ranks


def _linear(ranks: np.ndarray, measure: str, k: int) -> np.ndarray:
    inside = ranks <= k
    if measure == "p":
        return inside / k
    if measure == "dcg":
        out = np.zeros_like(ranks)
        out[inside] = 1.0 / np.log2(ranks[inside] + 1.0)
        return out
    return 1.0 / ranks


def coefficients(
    run1: np.ndarray, run2: np.ndarray, n: int, measure: str = "ap", k: int = 10
) -> PairPolynomial:
    """Coefficients of ``measure(run1) - measure(run2)`` in the relevances of documents ``0..n-1``.

    Parameters
    ----------
    run1, run2
        Ranked document ids (integers in ``0..n-1``, best first, no repeats).
    n
        Number of documents (the union of the runs' documents of the topic).
    measure
        ``"ap"`` (scaled by the number of relevant documents ``R``), ``"p"`` (P@k) or
        ``"dcg"`` (DCG@k with binary gains).
    """
    if measure not in MEASURES:
        raise ValueError(f"measure must be one of {', '.join(MEASURES)}, not {measure!r}")
    r1, r2 = _ranks(np.asarray(run1), n), _ranks(np.asarray(run2), n)
    d = _linear(r1, measure, k) - _linear(r2, measure, k)
    if measure != "ap":
        return PairPolynomial(d, np.zeros((n, n)))
    c = 1.0 / np.maximum.outer(r1, r1) - 1.0 / np.maximum.outer(r2, r2)
    np.fill_diagonal(c, 0.0)
    return PairPolynomial(d, c)


def moments(poly: PairPolynomial, p: np.ndarray) -> tuple[float, float]:
    """Expectation and variance of ``S`` under independent relevances with probabilities ``p``."""
    p = np.asarray(p, dtype=float)
    v = p * (1.0 - p)
    cp = poly.c @ p
    mean = float(poly.d @ p + 0.5 * p @ cp)
    b = poly.d + cp
    var = float(b**2 @ v + 0.5 * v @ (poly.c**2) @ v)
    return mean, max(var, 0.0)


def sign_change_probability(mean: float, var: float) -> float:
    """Normal approximation of ``P(sign(S) != sign(E[S]))``: ``Phi(-|E| / sigma)``."""
    if var <= 0.0:
        return 0.0 if mean != 0.0 else 0.5
    return 0.5 * erfc(abs(mean) / sqrt(2.0 * var))


def weights(poly: PairPolynomial, judged_relevant: np.ndarray) -> np.ndarray:
    """The paper's weight of each document: ``d_i + sum_{j judged relevant} c_ij``."""
    return poly.d + poly.c @ np.asarray(judged_relevant, dtype=float)


def next_document(poly: PairPolynomial, judgments: np.ndarray) -> int:
    """The unjudged document of largest ``|w_i|``, or -1 when all are judged.

    ``judgments`` holds 1 (relevant), 0 (non-relevant) or -1 (unjudged) per document.
    """
    judgments = np.asarray(judgments)
    w = np.abs(weights(poly, judgments == 1))
    w[judgments >= 0] = -np.inf
    best = int(np.argmax(w))
    return best if np.isfinite(w[best]) else -1


def probabilities(judgments: np.ndarray, prior: float | np.ndarray = 0.5) -> np.ndarray:
    """Relevance probabilities: judged 0/1 as judged, the prior (default 0.5) otherwise."""
    judgments = np.asarray(judgments)
    return np.where(judgments >= 0, judgments.astype(float), prior)


def minimal_judging(
    run1: np.ndarray,
    run2: np.ndarray,
    truth: np.ndarray,
    measure: str = "ap",
    k: int = 10,
    threshold: float = 0.05,
    prior: float = 0.5,
) -> tuple[list[int], float, float]:
    """Judge one topic's documents in MTC order until the sign-change probability < ``threshold``.

    ``truth`` gives each document's relevance (the assessor). Returns the judging order,
    the final expectation of ``S`` and the final sign-change probability.
    """
    n = len(truth)
    poly = coefficients(run1, run2, n, measure, k)
    judgments = np.full(n, -1)
    order: list[int] = []
    while True:
        mean, var = moments(poly, probabilities(judgments, prior))
        risk = sign_change_probability(mean, var)
        if risk < threshold:
            return order, mean, risk
        doc = next_document(poly, judgments)
        if doc < 0:
            return order, mean, risk
        judgments[doc] = int(truth[doc])
        order.append(doc)


def _stacked_moments(d: np.ndarray, c: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`moments` for stacked pairs: ``d`` (pairs x n), ``c`` (pairs x n x n)."""
    v = p * (1.0 - p)
    cp = c @ p
    means = d @ p + 0.5 * cp @ p
    var = ((d + cp) ** 2) @ v + 0.5 * np.einsum("i,pij,j->p", v, c**2, v)
    return means, np.maximum(var, 0.0)


def rank_runs(
    runs: list[np.ndarray],
    truth: np.ndarray,
    measure: str = "ap",
    k: int = 10,
    threshold: float = 0.05,
    prior: float = 0.5,
) -> tuple[list[int], np.ndarray, np.ndarray]:
    """Judge one topic for the ranking of all ``runs``: every pair's sign is decided.

    At each step the next document maximises the sum of ``|w_i|`` over the pairs whose
    sign-change probability is still at least ``threshold`` (Carterette et al. 2006, section
    on ranking several systems). Returns the judging order, each pair's expectation and
    each pair's sign-change probability (pairs in ``itertools.combinations`` order).
    """
    n = len(truth)
    pairs = [(a, b) for a in range(len(runs)) for b in range(a + 1, len(runs))]
    polys = [coefficients(runs[a], runs[b], n, measure, k) for a, b in pairs]
    d = np.stack([q.d for q in polys])
    c = np.stack([q.c for q in polys])
    judgments = np.full(n, -1)
    order: list[int] = []
    while True:
        means, var = _stacked_moments(d, c, probabilities(judgments, prior))
        risks = np.array([sign_change_probability(m, s) for m, s in zip(means, var, strict=True)])
        open_ = risks >= threshold
        if not open_.any() or (judgments >= 0).all():
            return order, means, risks
        w = np.abs(d[open_] + c[open_] @ (judgments == 1)).sum(axis=0)
        w[judgments >= 0] = -np.inf
        doc = int(np.argmax(w))
        judgments[doc] = int(truth[doc])
        order.append(doc)


def measure_spec(text: str) -> tuple[str, int]:
    """``"AP"``, ``"P@k"`` or ``"DCG@k"`` (case-insensitive) as ``(measure, k)`` for
    :func:`coefficients` and :class:`MapJudging`; ValueError otherwise."""
    word = text.strip().lower()
    if word in ("ap", "map"):
        return "ap", 10
    name, at, depth = word.partition("@")
    if name in ("p", "dcg") and at and depth.isdigit() and int(depth) >= 1:
        return name, int(depth)
    raise ValueError(f"measure must be AP, P@k or DCG@k (k >= 1), not {text!r}")


_ERFC = np.frompyfunc(erfc, 1, 1)


def sign_change_probabilities(means: np.ndarray, var: np.ndarray) -> np.ndarray:
    """:func:`sign_change_probability` of every pair, whole-array."""
    means, var = np.asarray(means, dtype=float), np.asarray(var, dtype=float)
    positive = var > 0.0
    z = np.abs(means) / np.sqrt(2.0 * np.where(positive, var, 1.0))
    risk = 0.5 * _ERFC(z).astype(float) if len(z) else np.zeros(0)
    return np.where(positive, risk, np.where(means != 0.0, 0.0, 0.5))


def best_first(score: np.ndarray, count: int) -> np.ndarray:
    """Indices of the ``count`` largest finite scores, largest first; scores within a
    relative 1e-9 of each other (a sum's rounding) count as equal and keep their
    position order."""
    finite = np.isfinite(score)
    if not finite.any():
        return np.zeros(0, dtype=np.int64)
    top = float(np.abs(score[finite]).max()) or 1.0
    quantised = np.where(finite, np.round(score / top * 1e9), -np.inf)
    if count == 1:
        return np.array([int(np.argmax(quantised))])
    order = np.argsort(-quantised, kind="stable")
    return order[: min(count, int(finite.sum()))]


class MapJudging:
    r"""MTC for the ranking of several runs by a measure averaged over topics
    (Carterette, Allan & Sitaraman 2006, section 4; Carterette 2007).

    The difference of the mean measure of runs ``a`` and ``b`` is
    :math:`\Delta_{ab} = \frac1T \sum_t S^t_{ab} / R_t`, with :math:`S^t_{ab}` the
    polynomial of :func:`coefficients` for topic ``t`` and :math:`R_t` (AP only; 1 for
    P@k and DCG@k) replaced by its current expectation :math:`\max(1, \sum_i p_i + o_t)`
    (``o_t``: relevant documents known outside the runs), a constant per step as in
    the paper. Topics are independent, so :math:`E` and :math:`\mathrm{Var}` add over
    topics; the sign-change probability is :func:`sign_change_probability`. The next
    judgment is the unjudged (topic, document) of largest
    :math:`\sum_{ab\ \mathrm{open}} |w^t_{ab,i}| / R_t` (:func:`weights`).

    The state is kept per run rather than per pair, which makes every step cost
    ``O(runs^2 n_t)`` for the judged topic alone: with :math:`C^a_{ij} = 1/\max(r_a(i),
    r_a(j))` and :math:`L^a` the linear weights of run ``a``, the pair's polynomial is
    ``d = L^a - L^b``, ``c = C^a - C^b``, so

    * :math:`E[S_{ab}] = m_a - m_b`, :math:`m_a = L^a\cdot p + \frac12 p^T C^a p`;
    * :math:`\mathrm{Var}[S_{ab}] = G_{aa} + G_{bb} - 2G_{ab} + \frac12(Q_{aa} + Q_{bb}
      - 2Q_{ab})` with :math:`B = L + Cp`, :math:`G = B\,\mathrm{diag}(v)\,B^T` and
      :math:`Q_{ab} = \sum_{i\ne j} C^a_{ij} C^b_{ij} v_i v_j`;
    * judging ``i`` changes ``p_i`` by :math:`\Delta` and ``v_i`` by :math:`\delta`:
      :math:`m \mathrel{+}= B_{\cdot i}\Delta`, :math:`B \mathrel{+}= C_{\cdot i}\Delta`,
      :math:`Q \mathrel{+}= 2\delta\, (C_{\cdot i} v) C_{\cdot i}^T`, and ``W``
      (:func:`weights`) gains :math:`C_{\cdot i}` if ``i`` is relevant.

    Parameters
    ----------
    topics
        Per topic, the runs' ranked document ids (integers ``0..n_t-1``, best first, no
        repeats; every topic has the same runs, a run may be empty).
    sizes
        ``n_t`` per topic (default: one more than the largest id).
    judgments
        Per topic, 1 (relevant), 0 or -1 (unjudged) per document (default: none judged).
    measure, k
        ``"ap"`` (MAP), ``"p"`` (mean P@k) or ``"dcg"`` (mean DCG@k, binary gains).
    prior
        Probability of relevance of the unjudged documents: a number, or one array per
        topic.
    outside
        Per topic, relevant documents known outside the runs (they count in ``R_t``).
    """

    def __init__(
        self,
        topics: list[list[np.ndarray]],
        sizes: list[int] | None = None,
        judgments: list[np.ndarray] | None = None,
        *,
        measure: str = "ap",
        k: int = 10,
        prior: float | list[np.ndarray] = 0.5,
        outside: np.ndarray | None = None,
    ) -> None:
        if measure not in MEASURES:
            raise ValueError(f"measure must be one of {', '.join(MEASURES)}, not {measure!r}")
        runs = [[np.asarray(r, dtype=np.int64) for r in rs] for rs in topics]
        n_topics, n_runs = len(runs), len(runs[0]) if runs else 0
        if sizes is None:
            sizes = [max((int(r.max()) + 1 for r in rs if len(r)), default=0) for rs in runs]
        lengths = np.array([len(r) for rs in runs for r in rs], dtype=np.int64)
        cell = np.repeat(np.arange(n_topics * n_runs), lengths)
        doc = np.concatenate([r for rs in runs for r in rs]) if len(cell) else cell
        rank = np.arange(len(cell)) - np.repeat(np.cumsum(lengths) - lengths, lengths) + 1
        n = max(sizes, default=0)
        judged = np.full((n_topics, n), -1, dtype=np.int64)
        for t, j in enumerate(judgments or ()):  # the caller's arrays, copied once
            judged[t, : len(j)] = j
        jt, jd = np.nonzero(judged >= 0)
        if not isinstance(prior, (int, float)):
            padded = np.zeros((n_topics, n))
            for t, pr in enumerate(prior):
                padded[t, : len(pr)] = pr
            prior = padded
        self._build(
            (cell // max(n_runs, 1), cell % max(n_runs, 1), rank, doc),
            n_runs,
            sizes,
            (jt, jd, judged[jt, jd]),
            measure=measure,
            k=k,
            prior=prior,
            outside=outside,
        )

    @classmethod
    def from_rows(
        cls,
        rows: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
        n_runs: int,
        sizes: np.ndarray,
        judged: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
        *,
        measure: str = "ap",
        k: int = 10,
        prior: float | np.ndarray = 0.5,
        outside: np.ndarray | None = None,
    ) -> MapJudging:
        """The state from whole arrays: ``rows = (topic, run, rank, doc)`` of every ranked
        document (ranks 1, 2, ... of each run and topic, documents ``0..sizes[t]-1``),
        ``judged = (topic, doc, relevance)`` and ``prior`` a number or a (topics x
        max size) array; otherwise as the constructor."""
        state = cls.__new__(cls)
        empty = np.zeros(0, dtype=np.int64)
        state._build(
            rows,
            n_runs,
            sizes,
            judged or (empty, empty, empty),
            measure=measure,
            k=k,
            prior=prior,
            outside=outside,
        )
        return state

    def _build(self, rows, n_runs, sizes, judged, *, measure, k, prior, outside) -> None:
        if measure not in MEASURES:
            raise ValueError(f"measure must be one of {', '.join(MEASURES)}, not {measure!r}")
        topic, run, rank, doc = (np.asarray(x, dtype=np.int64) for x in rows)
        self._rows, self._n_runs, self._k = (topic, run, rank, doc), n_runs, k
        self.measure, self.sizes = measure, np.asarray(sizes, dtype=np.int64)
        n_topics = len(self.sizes)
        n = int(self.sizes.max()) if n_topics else 0
        if n_topics * n_runs * (n + 1) > MAX_CELLS:
            raise ValueError(
                f"{n_topics} topics x {n_runs} runs x {n} documents (the largest topic's "
                f"pool) is more than MTC's {MAX_CELLS:,} cells: fewer runs, topics or ranks"
            )
        depth = int(rank.max()) if len(rank) else 0
        # doc_at[t, a, r]: the document at rank r+1 of run a (n: the dummy column)
        doc_at = np.full((n_topics, n_runs, depth), n, dtype=np.int64)
        doc_at[topic, run, rank - 1] = doc
        self.ranks = np.full((n_topics, n_runs, n + 1), np.inf)
        self.ranks[topic, run, doc] = rank
        self.exists = np.arange(n + 1)[None, :] < self.sizes[:, None]
        self.judged = np.full((n_topics, n + 1), -1, dtype=np.int64)
        jt, jd, jr = (np.asarray(x, dtype=np.int64) for x in judged)
        self.judged[jt, jd] = jr > 0
        self.judged[~self.exists] = 0
        prior_arr = np.zeros((n_topics, n + 1))
        prior_arr[:, :n] = prior
        self.p = np.where(self.judged >= 0, self.judged, prior_arr).astype(float)
        self.p[~self.exists] = 0.0
        self.v = self.p * (1.0 - self.p)
        self.outside = np.zeros(n_topics) if outside is None else np.asarray(outside, float)
        self.pairs = [(a, b) for a in range(n_runs) for b in range(a + 1, n_runs)]
        self._ia = np.array([a for a, _ in self.pairs], dtype=np.int64)
        self._ib = np.array([b for _, b in self.pairs], dtype=np.int64)
        self.linear = self._linear(self.ranks, k)
        quadratic = measure == "ap"
        cp = self._c_times(doc_at, self.p) if quadratic else np.zeros_like(self.linear)
        self.b = self.linear + cp
        self.m = (self.linear * self.p[:, None, :]).sum(-1) + 0.5 * (cp * self.p[:, None, :]).sum(
            -1
        )
        rel = (self.judged == 1).astype(float)
        self.w = self.linear + (self._c_times(doc_at, rel) if quadratic else 0.0)
        self.g = np.einsum("tan,tbn->tab", self.b * self.v[:, None, :], self.b)
        self.q = self._initial_q(doc_at) if quadratic else np.zeros((n_topics, n_runs, n_runs))
        self.open = np.ones(len(self.pairs), dtype=bool)
        self.raw = self._pair_abs(slice(None), self.open)
        self._topic_means = self.m[:, self._ia] - self.m[:, self._ib]
        self._topic_var = self._pair_var(self.g, self.q)
        self._scale = self._scales(self.p.sum(axis=1))
        self._score = np.where(self.judged >= 0, -np.inf, self.raw / self._scale[:, None])

    def _pair_var(self, g: np.ndarray, q: np.ndarray) -> np.ndarray:
        """``Var[S_ab]`` per topic (last axis: pairs) from ``G`` and ``Q``."""
        ia, ib = self._ia, self._ib
        var = (
            g[..., ia, ia]
            + g[..., ib, ib]
            - 2.0 * g[..., ia, ib]
            + 0.5 * (q[..., ia, ia] + q[..., ib, ib] - 2.0 * q[..., ia, ib])
        )
        return np.maximum(var, 0.0)

    def _scales(self, p_sum, topics=slice(None)):
        if self.measure != "ap":
            return np.ones_like(p_sum)
        return np.maximum(p_sum + self.outside[topics], 1.0)

    def _linear(self, ranks: np.ndarray, k: int) -> np.ndarray:
        if self.measure == "ap":
            return 1.0 / ranks
        inside = ranks <= k
        if self.measure == "p":
            return inside / k
        return np.where(inside, 1.0 / np.log2(np.where(inside, ranks, 1.0) + 1.0), 0.0)

    def _c_times(self, doc_at: np.ndarray, y: np.ndarray) -> np.ndarray:
        """``C^a y`` for every topic and run: at rank r, ``sum_{s<r} y_s / r + sum_{s>r}
        y_s / s`` (prefix sums over the ranks), scattered back to documents."""
        n_topics, n_runs, depth = doc_at.shape
        yr = np.take_along_axis(y[:, None, :], doc_at, axis=2)  # dummy column: y = 0
        r = np.arange(1, depth + 1, dtype=float)
        before = np.cumsum(yr, axis=2) - yr
        scaled = yr / r
        after = np.cumsum(scaled[:, :, ::-1], axis=2)[:, :, ::-1] - scaled
        out = np.zeros((n_topics, n_runs, y.shape[1]))
        np.put_along_axis(out, doc_at, before / r + after, axis=2)
        out[:, :, -1] = 0.0
        return out

    def _initial_q(self, doc_at: np.ndarray) -> np.ndarray:
        """``Q_ab = sum_{i != j} C^a_ij C^b_ij v_i v_j``: for ``a = b`` over the ranks,
        ``2 sum_r v_r / r^2 sum_{s<r} v_s``; otherwise over the unjudged documents both
        runs retrieved, in chunks of (topic, run pair) of at most 2^22 terms."""
        n_topics, n_runs, depth = doc_at.shape
        q = np.zeros((n_topics, n_runs, n_runs))
        if depth == 0:
            return q
        vr = np.take_along_axis(self.v[:, None, :], doc_at, axis=2)
        r = np.arange(1, depth + 1, dtype=float)
        diagonal = 2.0 * (vr / r**2 * (np.cumsum(vr, axis=2) - vr)).sum(axis=2)
        q[:, np.arange(n_runs), np.arange(n_runs)] = diagonal
        ia, ib = np.triu_indices(n_runs, 1)
        chunk = max(1, (1 << 22) // (depth * depth))
        groups = [(t, g) for t in range(n_topics) for g in range(0, len(ia), chunk)]
        for t, g in groups:  # bounded chunks; each a whole-array computation
            a, b = ia[g : g + chunk], ib[g : g + chunk]
            docs = doc_at[t, a]  # run a's documents by rank (its overlap with b: rb finite)
            ra = np.take_along_axis(self.ranks[t, a], docs, axis=1)
            rb = np.take_along_axis(self.ranks[t, b], docs, axis=1)
            vv = np.where(np.isfinite(rb), self.v[t, docs], 0.0)
            # only the unjudged documents both runs retrieved count: those first, cut
            order = np.argsort(vv == 0.0, axis=1, kind="stable")[:, : int((vv > 0).sum(1).max())]
            ra, rb, vv = (np.take_along_axis(x, order, axis=1) for x in (ra, rb, vv))
            # a padded entry has v = 0 and ranks up to inf: 0 / inf = 0, never 0 / 0
            prod = vv[:, :, None] * vv[:, None, :]
            denom = np.maximum(ra[:, :, None], ra[:, None, :])
            denom *= np.maximum(rb[:, :, None], rb[:, None, :])
            q[t, a, b] = (prod / denom).sum(axis=(1, 2)) - (vv * vv / (ra * rb)).sum(axis=1)
        q[:, ib, ia] = q[:, ia, ib]
        return q

    def _pair_abs(self, topics, pairs: np.ndarray) -> np.ndarray:
        """``sum over the chosen pairs |W_a - W_b|`` for the topics selected, in chunks
        of pairs of at most 2^23 terms."""
        w = self.w[topics]
        ia, ib = self._ia[pairs], self._ib[pairs]
        out = np.zeros(w.shape[:-2] + w.shape[-1:])
        step = max(1, (1 << 23) // max(w[..., 0, :].size, 1))
        for g in range(0, len(ia), step):  # bounded memory; each chunk whole-array
            a, b = ia[g : g + step], ib[g : g + step]
            out += np.abs(w[..., a, :] - w[..., b, :]).sum(axis=-2)
        return out

    def scale(self) -> np.ndarray:
        """``R_t`` per topic: ``max(1, sum_i p_i + outside_t)`` for AP, 1 otherwise."""
        return self._scale.copy()

    def moments(self) -> tuple[np.ndarray, np.ndarray]:
        """Expectation and variance of every pair's mean-measure difference (AP: the
        MAP difference), pairs in ``itertools.combinations`` order."""
        r = self._scale[:, None]
        n_topics = max(len(self.sizes), 1)
        means = (self._topic_means / r).sum(axis=0) / n_topics
        var = (self._topic_var / r**2).sum(axis=0) / n_topics**2
        return means, var

    def risks(self) -> np.ndarray:
        """Every pair's sign-change probability (:func:`sign_change_probability`)."""
        return sign_change_probabilities(*self.moments())

    def set_open(self, open_: np.ndarray) -> None:
        """Weigh the documents by the pairs ``open_`` (boolean per pair) from now on."""
        open_ = np.asarray(open_, dtype=bool)
        for sign, changed in ((1.0, open_ & ~self.open), (-1.0, ~open_ & self.open)):
            if changed.any():
                self.raw += sign * self._pair_abs(slice(None), changed)
                self._score = np.where(self.judged >= 0, -np.inf, self.raw / self._scale[:, None])
        self.open = open_.copy()

    def scores(self) -> np.ndarray:
        """``sum over open pairs |w_i| / R_t`` per (topic, document); -inf when judged."""
        return self._score.copy()

    def next_judgments(self, count: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The ``count`` unjudged (topic, document) of largest score, best first (ties:
        topic, then document order): the greedy batch whose documents keep their prior
        until judged. Returns topics, documents and scores."""
        score = self._score.ravel()
        top = best_first(score, count)
        width = self.judged.shape[1]
        return top // width, top % width, score[top]

    def next_judgment(self) -> tuple[int, int]:
        """The (topic, document) to judge next, or (-1, -1) when everything is judged."""
        topics, docs, _ = self.next_judgments(1)
        return (int(topics[0]), int(docs[0])) if len(topics) else (-1, -1)

    def judge(self, topic: int, doc: int, relevance: int) -> None:
        """Record a binary judgment of an unjudged document and update the state."""
        t, i, x = int(topic), int(doc), int(relevance > 0)
        if self.judged[t, i] >= 0:
            raise ValueError(f"document {i} of topic {t} is already judged")
        dp, dv = x - self.p[t, i], -self.v[t, i]
        if self.measure == "ap":
            col = 1.0 / np.maximum(self.ranks[t, :, i, None], self.ranks[t])  # C_{.i}
            col[:, i] = 0.0
            col[~np.isfinite(self.ranks[t, :, i])] = 0.0
        else:
            col = np.zeros_like(self.ranks[t])
        self.m[t] += self.b[t, :, i] * dp
        self.b[t] += col * dp
        self.q[t] += 2.0 * dv * (col * self.v[t]) @ col.T
        self.p[t, i], self.v[t, i], self.judged[t, i] = x, 0.0, x
        self.g[t] = (self.b[t] * self.v[t]) @ self.b[t].T
        if x:
            self.w[t] += col
            self.raw[t] = self._pair_abs(t, self.open)
        self._topic_means[t] = self.m[t, self._ia] - self.m[t, self._ib]
        self._topic_var[t] = self._pair_var(self.g[t], self.q[t])
        self._scale[t] = self._scales(self.p[t].sum(), t)
        self._score[t] = np.where(self.judged[t] >= 0, -np.inf, self.raw[t] / self._scale[t])

    def with_prior(self, prior: float | np.ndarray) -> MapJudging:
        """The same runs and judgments with another prior for the unjudged documents (a
        number or a topics x documents array, e.g. :func:`rank_prior`)."""
        jt, jd = np.nonzero(self.judged[:, :-1] >= 0)
        jt, jd = jt[self.exists[jt, jd]], jd[self.exists[jt, jd]]
        prior = prior if np.ndim(prior) == 0 else np.asarray(prior)[:, : self.judged.shape[1] - 1]
        return MapJudging.from_rows(
            self._rows,
            self._n_runs,
            self.sizes,
            (jt, jd, self.judged[jt, jd]),
            measure=self.measure,
            k=self._k,
            prior=prior,
            outside=self.outside,
        )


def rank_runs_map(
    topics: list[tuple[list[np.ndarray], np.ndarray]],
    threshold: float = 0.05,
    prior: float = 0.5,
) -> tuple[int, np.ndarray, np.ndarray]:
    """Judge across topics until every run pair's MAP-difference sign is decided.

    ``topics`` holds, per topic, the runs' ranked document ids and the true relevances.
    The MAP difference is ``(1/T) sum_t S_t / R_t`` with ``R_t`` replaced by its expectation
    ``sum_i p_i`` at the current step (the paper's approximation, a constant per step);
    topics are independent, so expectations and variances add. The next judgment is the
    (topic, document) of largest ``sum over open pairs |w_i| / R_t`` (ties: the first
    topic, then document, within a relative 1e-9). Returns the number of judgments,
    each pair's expected MAP difference and sign-change probability. The state is
    :class:`MapJudging` (each step costs one topic's update).
    """
    state = MapJudging([runs for runs, _ in topics], [len(t) for _, t in topics], prior=prior)
    judged = 0
    while True:
        means, var = state.moments()
        risks = sign_change_probabilities(means, var)
        open_ = risks >= threshold
        if not open_.any():
            return judged, means, risks
        state.set_open(open_)
        t, doc = state.next_judgment()
        if t < 0:
            return judged, means, risks
        state.judge(t, doc, int(topics[t][1][doc]))
        judged += 1


def rank_prior(
    ranks: np.ndarray, judged: np.ndarray, least: int = 10, bounds: tuple = (0.01, 0.99)
) -> np.ndarray | None:
    r"""A probability of relevance from the runs' ranks, fitted to the judgments so far.

    The feature of a document is the log of its AP-prior averaged over the runs,
    :math:`f_i = \log \frac1m \sum_a \frac{1}{2N}(1 + \sum_{j=r_a(i)}^{N} 1/j)`
    (Aslam, Pavlu & Savell 2003; 0 for a run that did not retrieve it, ``N`` the
    deepest rank), and :math:`p_i = \sigma(\alpha + \beta f_i)` a logistic regression
    fitted by Newton's method to the judged documents (Carterette 2007 fits the
    probabilities of relevance of the unjudged documents to the judgments by a logistic
    regression on features of the documents' ranks), clipped to ``bounds``.

    Parameters
    ----------
    ranks
        Ranks (topics x runs x documents, ``inf`` where a run did not retrieve one), as
        :attr:`MapJudging.ranks`.
    judged
        1, 0 or -1 (unjudged) per topic and document, as :attr:`MapJudging.judged`.
    least
        Relevant and non-relevant judgments each needed to fit; None below that.
    """
    depth = int(np.nanmax(np.where(np.isfinite(ranks), ranks, np.nan), initial=1))
    harmonic = np.r_[0.0, np.cumsum(1.0 / np.arange(1, depth + 1))]
    finite = np.isfinite(ranks)
    r = np.where(finite, ranks, 1).astype(np.int64)
    weight = np.where(finite, (1.0 + harmonic[depth] - harmonic[r - 1]) / (2.0 * depth), 0.0)
    f = np.log(np.maximum(weight.mean(axis=1), 1e-12))
    fit = (judged >= 0) & finite.any(axis=1)  # judged documents some run retrieved
    y, x = judged[fit].astype(float), f[fit]
    if (y == 1).sum() < least or (y == 0).sum() < least:
        return None
    coef = np.array([np.log(y.mean() / (1 - y.mean())), 0.0])
    design = np.stack([np.ones_like(x), x], axis=1)
    for _ in range(50):  # Newton-Raphson on the log-likelihood, a tiny ridge for separation
        mu = 0.5 * (1.0 + np.tanh(0.5 * (design @ coef)))  # the logistic, never overflows
        grad = design.T @ (y - mu) - 1e-6 * coef
        hess = (design * (mu * (1 - mu))[:, None]).T @ design + 1e-6 * np.eye(2)
        step = np.linalg.solve(hess, grad)
        coef += step
        if np.abs(step).max() < 1e-10:
            break
    return np.clip(0.5 * (1.0 + np.tanh(0.5 * (coef[0] + coef[1] * f))), *bounds)
