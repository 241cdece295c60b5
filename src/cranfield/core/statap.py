r"""statAP and statPC@k: estimates of AP and precision from a sample of judgments drawn
with known, unequal inclusion probabilities (``cranfield pool --sample statap``), and
their variances.

Aslam, Pavlu & Yilmaz (2006, "A statistical method for system evaluation using
incomplete judgments", SIGIR) and Pavlu & Aslam (2007, "A practical sampling strategy
for efficient retrieval evaluation") weight each judged document by the inverse of its
inclusion probability :math:`\pi_d` (Horvitz & Thompson 1952). With :math:`S` the
sampled relevant documents and :math:`x_k = [d_k \in S]/\pi_{d_k}` along the run's
ranking,

.. math::

    \hat R = \sum_{d \in S} \frac1{\pi_d}, \qquad
    \widehat{PC}@k = \frac1k \sum_{j \le k} x_j, \qquad
    \widehat{AP} = \frac1{\hat R} \sum_k \frac{x_k}{k}\Bigl(1 + \sum_{j<k} x_j\Bigr)

(at a sampled relevant document, the document itself counts once: its precision is
estimated given that it was drawn). With independent draws (Poisson sampling, the
design of :mod:`cranfield.pooling.sampling`) :math:`\hat R`, every
:math:`\widehat{PC}@k` and the numerator of :math:`\widehat{AP}` are unbiased;
:math:`\widehat{AP}` is a ratio, unbiased to first order.

Variances (Horvitz–Thompson under Poisson sampling, Särndal, Swensson & Wretman 1992,
§3.6 and §5.6 for the ratio's linearisation):

.. math::

    \hat V(\widehat{PC}@k) = \frac1{k^2}\sum_{j \le k,\, d_j \in S}
        \frac{1-\pi_{d_j}}{\pi_{d_j}^2}, \qquad
    \hat V(\widehat{AP}) = \frac1{\hat R^2} \sum_{d \in S}
        \frac{1-\pi_d}{\pi_d^2}\Bigl(\hat P_d + \sum_{k > r_d} \frac{x_k}{k}
        - \widehat{AP}\Bigr)^2

the Taylor linearisation of the ratio: :math:`\hat P_d` the estimated precision at
:math:`d`'s rank :math:`r_d`, and the sum how :math:`d`'s draw moves the precision of
every sampled relevant document below it (both 0 when the run did not retrieve
:math:`d`). With few sampled relevant documents per topic these per-topic intervals
cover less than their nominal 95% (docs/sampling.md gives the measured coverage). Documents are taken in sample_eval's order (score descending,
docno descending; the first 1000).
"""

from __future__ import annotations

from dataclasses import dataclass

from .._lazy import lazy
from ..errors import InputError

np = lazy("numpy", __name__, "np")

#: the cutoff of statPC
PC_CUTOFF = 10


@dataclass(frozen=True)
class StatEstimate:
    """statAP and statPC@10 of one topic, with their estimated variances."""

    topic: str
    stat_ap: float
    stat_ap_var: float
    stat_pc: float
    stat_pc_var: float


def _sample_arrays(topic) -> tuple[dict, np.ndarray]:
    """``({docno: index}, 1/pi of each sampled relevant document)``."""
    docs = [d for d, (_, grade, _) in topic.docs.items() if grade > 0]
    if docs and not topic.probability:
        raise InputError("statAP needs the inclusion probabilities (a sixth column)")
    weight = 1.0 / np.array([topic.probability[d] for d in docs], dtype=np.float64)
    return {d: i for i, d in enumerate(docs)}, weight


def estimate_statap(
    topic_id: str, topic, ranked: list[str], cutoff: int = PC_CUTOFF
) -> StatEstimate:
    """statAP and statPC@``cutoff`` of one topic (``topic``: a
    :class:`~cranfield.core.sampled.SampledTopic` with probabilities; ``ranked``:
    the run's documents in sample_eval's order)."""
    from .sampled import MAX_RESULTS

    index, weight = _sample_arrays(topic)
    docs = ranked[:MAX_RESULTS]
    at = np.array([index.get(d, -1) for d in docs], dtype=np.int64)
    hit = at >= 0
    x = np.where(hit, weight[np.maximum(at, 0)] if len(weight) else 0.0, 0.0)
    k = np.arange(1, len(docs) + 1, dtype=np.float64)
    above = np.r_[0.0, np.cumsum(x)[:-1]]  # sum_{j<k} x_j, summed in rank order
    precision = (1.0 + above) / k  # at a sampled relevant document
    r_hat = float(weight.sum())
    numerator = float(np.sum(np.where(hit, x * precision, 0.0)))
    ap = numerator / r_hat if r_hat > 0 else 0.0
    # per sampled relevant document d: how the numerator moves with d's draw, its own
    # term P_d plus its share of the precision of every sampled relevant one below it,
    # sum_{k > rank(d)} x_k / k (0 and 0 when the run did not retrieve d)
    below = np.cumsum((x / k)[::-1])[::-1] - x / k if len(docs) else x
    p_doc = np.zeros(len(weight))
    p_doc[at[hit]] = precision[hit] + below[hit]
    pi = 1.0 / weight
    ap_var = float(np.sum((1 - pi) * weight**2 * (p_doc - ap) ** 2)) / r_hat**2 if r_hat else 0.0
    top = hit[:cutoff]
    pc = float(np.sum(x[:cutoff])) / cutoff
    w_top = x[:cutoff][top]
    pc_var = float(np.sum((1 - 1 / w_top) * w_top**2)) / cutoff**2
    return StatEstimate(topic_id, ap, ap_var, pc, pc_var)
