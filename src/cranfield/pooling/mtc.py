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
    "coefficients",
    "moments",
    "sign_change_probability",
    "weights",
    "next_document",
    "probabilities",
    "minimal_judging",
    "rank_runs",
    "rank_runs_map",
]

MEASURES = ("ap", "p", "dcg")


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
    (topic, document) of largest ``sum over open pairs |w_i| / R_t``. Returns the number
    of judgments, each pair's expected MAP difference and sign-change probability.
    """
    n_runs = len(topics[0][0])
    pairs = [(a, b) for a in range(n_runs) for b in range(a + 1, n_runs)]
    polys = [
        (
            np.stack([q.d for q in qs]),
            np.stack([q.c for q in qs]),
        )
        for qs in (
            [coefficients(runs[a], runs[b], len(truth)) for a, b in pairs] for runs, truth in topics
        )
    ]
    judgments = [np.full(len(truth), -1) for _, truth in topics]
    judged = 0
    while True:
        means = np.zeros(len(pairs))
        var = np.zeros(len(pairs))
        scale = []
        for (d, c), j in zip(polys, judgments, strict=True):
            p = probabilities(j, prior)
            r = max(float(p.sum()), 1.0)
            topic_means, topic_var = _stacked_moments(d, c, p)
            means += topic_means / r
            var += topic_var / r**2
            scale.append(r)
        risks = np.array([sign_change_probability(m, s) for m, s in zip(means, var, strict=True)])
        open_ = risks >= threshold
        if not open_.any():
            return judged, means / len(topics), risks
        best, best_topic, best_doc = -np.inf, -1, -1
        for t, ((d, c), j) in enumerate(zip(polys, judgments, strict=True)):
            w = np.abs(d[open_] + c[open_] @ (j == 1)).sum(axis=0) / scale[t]
            w[j >= 0] = -np.inf
            doc = int(np.argmax(w))
            if w[doc] > best:
                best, best_topic, best_doc = float(w[doc]), t, doc
        if best_topic < 0:
            return judged, means / len(topics), risks
        judgments[best_topic][best_doc] = int(topics[best_topic][1][best_doc])
        judged += 1
