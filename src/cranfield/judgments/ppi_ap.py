r"""AP and MAP from machine labels on the whole pool plus people's labels on a random
sample of its pairs: the model-assisted (difference) estimator at the document level.

Per topic, a machine labels every pooled document :math:`d` (binary relevance
:math:`m_d`, grade :math:`\ge` the relevance level) and people label a Poisson sample
:math:`S` (each pair drawn independently with known inclusion probability :math:`\pi_d`,
as ``cranfield pool --sample`` designs ``statap`` draws, or a uniform rate). The
difference estimator of survey sampling (Särndal, Swensson & Wretman 1992, *Model
Assisted Survey Sampling*, chapter 6; at the document level it is prediction-powered
inference, Angelopoulos et al. 2023, for IR measures Oosterhuis et al. 2024, Boyeau et al.
2024) estimates every document's relevance unbiasedly:

.. math::

    r_d = \lambda m_d + (h_d - \lambda m_d)\,\frac{I_d}{\pi_d}, \qquad
    \mathrm E\,r_d = h_d \ \text{for any fixed}\ \lambda

(:math:`\lambda = 1`: ``ppi``; :math:`\lambda = 0`: ``classical``, which is statAP,
Aslam, Pavlu & Yilmaz 2006). With :math:`x_k = r_{d_k}` along a run's ranking (0 for a
document outside the pool),

.. math::

    \hat R = \sum_{d \in \text{pool}} r_d, \qquad
    \hat N = \sum_k \frac{x_k}{k}\Bigl(1 + \sum_{j<k} x_j\Bigr), \qquad
    \widehat{AP} = \hat N / \hat R

(0 when :math:`\hat R \le 0`). AP's numerator :math:`N = \sum_k \frac{h_k}{k}(h_k +
\sum_{j<k} h_j)` has products :math:`h_j h_k`: for :math:`j \ne k` the independent draws
make :math:`\mathrm E\,x_j x_k = h_j h_k`, and :math:`h_k^2 = h_k` is estimated by
:math:`x_k`, so :math:`\hat R` and :math:`\hat N` are unbiased and
:math:`\widehat{AP}` is unbiased to first order (a ratio). With :math:`\lambda = 0` the
formulas are statAP's (:mod:`cranfield.core.statap`).

Variance by Taylor linearisation of the ratio (Särndal et al. 1992, section 5.5): with
:math:`e_d = h_d - \lambda m_d`, :math:`r_d - h_d = e_d(I_d/\pi_d - 1)` has variance
:math:`e_d^2 (1-\pi_d)/\pi_d`, and to first order
:math:`\widehat{AP} - AP \approx \sum_d z_d (r_d - h_d)`,

.. math::

    z_d = \frac{a_d - AP}{R}, \qquad
    a_d = \frac{1 + \sum_{j<k_d} x_j}{k_d} + \sum_{k>k_d} \frac{x_k}{k}

(:math:`a_d`: how :math:`\hat N` moves with :math:`r_d`, 0 when the run did not retrieve
:math:`d`; :math:`k_d` its rank). The Horvitz-Thompson estimate of
:math:`\sum_d z_d^2 e_d^2 (1-\pi_d)/\pi_d` is

.. math::

    \hat V(\widehat{AP}) = \sum_{d \in S} \frac{1 - \pi_d}{\pi_d^2}\, e_d^2\, \hat z_d^2,

statAP's variance when :math:`\lambda = 0`. A run's MAP is the mean over the pool's
:math:`T` topics (a topic the run does not answer counts 0); the topics' samples are
independent, so :math:`\hat V(\widehat{MAP}) = \sum_d \hat v_d (\hat z_d/T)^2` over the
sampled documents of all topics, and a paired difference of runs :math:`a, b` (the same
sample) has :math:`\sum_d \hat v_d ((\hat z^a_d - \hat z^b_d)/T)^2`: every variance and
covariance is one Gram matrix :math:`Z^\top \mathrm{diag}(\hat v) Z / T^2`. The intervals
are normal: :math:`\pm z_{1-\alpha/2}\sqrt{\hat V}`.

With 10 % of a depth-100 pool judged per topic (about 10 pairs) and a machine of kappa
0.5, :math:`\hat R` is so noisy (it is often negative) that the ratio is useless
(docs/machine-assessors.md). Two alternatives divide by the machine's :math:`R(p)`
instead, :math:`p = \lambda m` any fixed values (binary labels, or the calibrated
probabilities of :func:`calibrated_values`, the generalised-regression working model):

.. math::

    \widehat{AP}_{model} = AP(p) + D, \qquad
    D = \frac{\hat N - AP(p)\,\hat R}{R(p)}, \qquad
    \mathrm E\,\widehat{AP}_{model} = AP(p) + \frac{N - AP(p) R}{R(p)}

(``centre="model"``: the first-order Taylor expansion of :math:`N/R` at the machine's
values; its bias :math:`(AP - AP(p))(R/R(p) - 1)` does not shrink with the sample), and
with :math:`\hat\varepsilon = (\hat R - R(p))/R(p)` the second-order

.. math::

    \widehat{AP}_{second} = AP(p) + D(1 - \hat\varepsilon) + \widehat C, \qquad
    \widehat C = \sum_{d \in S} \frac{1-\pi_d}{\pi_d^2} e_d^2\,
        \frac{a_d - AP(p)}{R(p)^2}

(``centre="second"``; :math:`\widehat C` the Horvitz-Thompson estimate of
:math:`\mathrm{Cov}(D, \hat\varepsilon)`, unbiased because :math:`a_d` does not involve
:math:`r_d`), whose expectation is exactly :math:`AP(p) + \Delta(1 - \varepsilon)` with
:math:`\Delta = (N - AP(p)R)/R(p)` and :math:`\varepsilon = (R - R(p))/R(p)`: since
:math:`AP = AP(p) + \Delta/(1 + \varepsilon)`, the bias is
:math:`-\Delta\varepsilon^2/(1+\varepsilon)`, third order in the machine's error.
Their variances linearise them at the sample as above, with :math:`z_d = (a_d - AP(p))/R(p)` and
:math:`z_d (1 - \hat\varepsilon) - D/R(p)` respectively. The test suite checks both
expectations by enumerating every sample of a small topic. Neither is kept in [0, 1]: a
clipped topic's estimate is biased (up for a run whose AP is near 0, down near 1), and
with 50 topics that bias, not the noise, kept the intervals from covering. They are kept
in [-1, 2], one range beyond AP's on either side, as an expansion diverges where
:math:`|\hat\varepsilon| \gg 1` (a topic whose machine values expect one or two relevant
documents and whose sample finds a relevant one weighted :math:`1/\pi`: in simulation a
topic's estimate once reached -1250).

The Horvitz-Thompson variance above (``variance="design"``) sums over the sampled pairs
only, about ten a topic at 10 %: it is unbiased but so skewed that the intervals built
on it cover too rarely. With fractional values :math:`p` (a calibrated working model,
whose :math:`E(h_d - p_d)^2 = p_d(1 - p_d)`) the anticipated variance of Isaki & Fuller
(1982, "Survey design under the regression superpopulation model", *JASA* 77) sums over
every pooled pair not known for certain (``variance="model"``),

.. math::

    \tilde V = \hat k \sum_{d:\,\pi_d < 1} p_d(1 - p_d)\,\frac{1 - \pi_d}{\pi_d}\, z_d^2,
    \qquad
    \hat k = \frac{\sum_{d \in S} e_d^2 (1 - \pi_d)/\pi_d^2}
                   {\sum_{d \in S} p_d(1 - p_d)(1 - \pi_d)/\pi_d^2}

(:math:`\hat k` the ratio of the sample's squared errors to the model's, 1 when the
model is right on average), and the same Gram matrix over those pairs. It is smooth but
blind to a topic where the sample met what the model did not expect (a sampled pair far
from its :math:`p_d`), which the design's variance sees; ``variance="larger"`` takes, for
each topic, whichever of the two is larger summed over the runs (all runs take the same
one, so the covariance matrix stays a sum of Gram matrices). It is the default with a
calibrated model (docs/machine-assessors.md: its intervals covered 93 % and more in
simulation).

Runs are taken in trec_eval's order (score descending, then document id descending) and
whole (trec_eval evaluates every retrieved document); with :math:`\pi = 1` everywhere
the estimate is trec_eval's AP of the people's labels.
"""

from __future__ import annotations

from statistics import NormalDist

import numpy as np

from ..errors import InputError, ParameterError

#: the linearisation points of :func:`ap_pairs`
CENTRES = ("sample", "model", "second")
#: the range an expanded estimate of a topic's AP is kept in (:func:`ap_pairs`)
EXPANSION_BOUNDS = (-1.0, 2.0)
#: the variance estimates of :func:`ap_pairs`
VARIANCES = ("design", "model", "larger")
#: the estimators :func:`ap_pairs` allows, by their weight of the machine labels
LAMBDAS = {"ppi": 1.0, "classical": 0.0}


def _segment_starts(code: np.ndarray) -> np.ndarray:
    """Each row's first row of its segment (``code`` sorted)."""
    n = len(code)
    first = np.ones(n, dtype=bool)
    first[1:] = code[1:] != code[:-1]
    return np.maximum.accumulate(np.where(first, np.arange(n), 0))


def ap_pairs(
    topic: np.ndarray,
    machine: np.ndarray,
    human: np.ndarray,
    inclusion: np.ndarray,
    rankings: list[tuple[np.ndarray, np.ndarray]],
    n_topics: int,
    lam: float = 1.0,
    centre: str = "sample",
    variance: str = "design",
    bounds: tuple[float, float] = EXPANSION_BOUNDS,
) -> dict[str, np.ndarray]:
    r"""Estimated AP of every run on every topic, each run's MAP and the covariance of
    the MAPs (module docstring).

    Parameters
    ----------
    topic
        ``(N,)`` the topic code (0 .. ``n_topics - 1``) of every pooled pair.
    machine
        ``(N,)`` the machine's binary relevance of every pooled pair.
    human
        ``(N,)`` the people's binary relevance where sampled, NaN where not.
    inclusion
        ``(N,)`` the inclusion probability of every pair, in (0, 1]: needed for the
        sampled pairs, and with ``variance="model"`` for the others too (NaN where not
        known: such a pair counts as certain, without variance).
    rankings
        Per run ``(code, at)``: the topic code and the pool index (-1: not pooled) of each
        retrieved document, sorted by topic then rank (rank = position within the topic).
    n_topics
        ``T``, the number of topics averaged over.
    lam
        The weight of the machine labels (1: PPI's difference estimator, 0: statAP).
    centre
        ``"sample"``: the ratio of the estimates, linearised at them (module docstring);
        ``"model"``: linearised at the machine's values ``p = lam * machine`` (on the
        topics where they sum to 1 or more; the ratio elsewhere),
        :math:`AP(p) + (\hat N - AP(p)\hat R)/R(p)` (no division by an estimate; bias
        :math:`(AP - AP(p))(R/R(p) - 1)`); ``"second"``: to second order (module
        docstring). The expansions are not kept in [0, 1]: clipping a topic's estimate
        would bias it (upwards for a run whose AP is near 0, downwards near 1); only in
        [-1, 2] (:data:`EXPANSION_BOUNDS`), against a diverged expansion.
    variance
        ``"design"``: the Horvitz-Thompson estimate of the linearised variance from the
        sampled pairs' errors :math:`e_d^2`; ``"model"``: its anticipated variance under
        the working model (Isaki & Fuller 1982), every unknown pair's
        :math:`E(h_d - p_d)^2 = p_d(1 - p_d)`, scaled by the sample's
        :math:`\hat k` (module docstring; needs fractional values ``p``: with binary
        ones it is 0); ``"larger"``: per topic the larger of the two, summed over the
        runs.
    bounds
        The range of a topic's expanded estimate (``(-inf, inf)``: the expansion itself).

    Returns
    -------
    dict with ``ap`` (topics x runs), ``map`` (runs,), ``cov`` (runs x runs: the estimated
    covariance of the MAPs; the variance of a difference is ``cov[a,a] + cov[b,b] -
    2 cov[a,b]``), ``relevant`` (topics,: :math:`\hat R`), ``numerator`` (topics x
    runs: :math:`\hat N`) and ``topic_variance`` (topics x runs: each topic's estimated
    variance of its AP).
    """
    if centre not in CENTRES:
        raise ParameterError("centre", f"one of {', '.join(CENTRES)}", centre)
    if variance not in VARIANCES:
        raise ParameterError("variance", f"one of {', '.join(VARIANCES)}", variance)
    sampled = ~np.isnan(human)
    pi = np.where(sampled, inclusion, 1.0)
    e = np.where(sampled, np.nan_to_num(human) - lam * machine, 0.0)
    r = lam * machine + e / pi
    big_r = np.bincount(topic, weights=r, minlength=n_topics)
    v = e**2 * (1.0 - pi) / pi**2  # 0 where not sampled
    rows = np.flatnonzero(v > 0)  # the pairs whose draw moves the estimate
    t = topic[rows]
    model = centre != "sample"
    # the linearisation point: the estimates themselves, or the model's values
    r_0 = lam * machine if model else r
    big_r0 = np.bincount(topic, weights=r_0, minlength=n_topics) if model else big_r
    # a topic whose machine values expect fewer than one relevant document is no point
    # to expand about (1/R(p) explodes): the ratio of the estimates there, kept in [0, 1]
    # with R-hat at least 1 in its influences (its noise is the design's, not 1/R-hat's)
    positive = big_r0 >= 1.0 if model else big_r0 > 0
    if model:
        # a topic whose every pair people judged (pi = 1) is known: its ratio is its AP
        unknown = ~(sampled & (pi >= 1.0))
        positive &= np.bincount(topic, weights=unknown.astype(np.float64), minlength=n_topics) > 0
    # the pairs whose variance counts, with their variances: the design's (the sampled
    # pairs), the model's (every unknown pair), or both, each topic to take the larger
    var_rows, var_v = rows, v[rows]
    of_model = np.zeros(len(rows), dtype=bool)
    if variance != "design":
        m_rows, m_v = _anticipated(lam * machine, inclusion, sampled, pi, v)
        if variance == "model":
            var_rows, var_v = m_rows, m_v
            of_model = np.ones(len(m_rows), dtype=bool)
        else:
            var_rows, var_v = np.r_[rows, m_rows], np.r_[v[rows], m_v]
            of_model = np.r_[of_model, np.ones(len(m_rows), dtype=bool)]
    tv = topic[var_rows]
    ap = np.zeros((n_topics, len(rankings)))
    numerators = np.zeros((n_topics, len(rankings)))
    z = np.zeros((len(var_rows), len(rankings)))
    for c, (code, at) in enumerate(rankings):  # whole-array passes per run
        numerator, a = _numerator(r, code, at, n_topics, True)
        numerators[:, c] = numerator
        with np.errstate(divide="ignore", invalid="ignore"):
            ap[:, c] = np.where(big_r > 0, numerator / big_r, 0.0)
            if model:
                # the influences a_d are estimated from r: linear in the other pairs'
                # values, unbiased for those at the people's labels
                ap_0 = np.where(
                    positive, _numerator(r_0, code, at, n_topics, False)[0] / big_r0, 0.0
                )
                # AP(p) + (N - AP(p) R) / R(p); the sample's ratio where R(p) < 1
                delta = (numerator - ap_0 * big_r) / big_r0
                zv = (a[var_rows] - ap_0[tv]) / big_r0[tv]
                if centre == "second":
                    # 1/R = (1/R(p)) (1 - eps + ...), eps = (R - R(p)) / R(p): the
                    # product delta * eps, less its covariance (Horvitz-Thompson)
                    eps = (big_r - big_r0) / big_r0
                    zc = (a[rows] - ap_0[t]) / big_r0[t]
                    cov_t = np.bincount(t, weights=v[rows] * zc, minlength=n_topics) / big_r0
                    delta = delta * (1 - eps) + cov_t
                    # the expansion's influences where it converges (|eps| < 1), else
                    # the first order's
                    second = zv * (1 - eps[tv]) - delta[tv] / big_r0[tv]
                    zv = np.where(np.abs(eps[tv]) < 1, second, zv)
                ratio = np.clip(ap[:, c], 0.0, 1.0)
                ratio_z = (a[var_rows] - ratio[tv]) / np.maximum(big_r[tv], 1.0)
                # kept within one range of [0, 1] on either side: wider than the noise
                # of a topic's estimate, which clipping to [0, 1] would bias, but not a
                # diverged expansion (|eps-hat| >> 1) a thousand times AP's range
                expanded = np.clip(ap_0 + delta, *bounds)
                ap[:, c] = np.where(positive, expanded, ratio)
                z[:, c] = np.where(positive[tv], zv, ratio_z)
            else:
                z[:, c] = np.where(positive[tv], (a[var_rows] - ap[tv, c]) / big_r[tv], 0.0)
    if variance == "larger":  # per topic, summed over the runs: the larger estimate
        summed = (var_v[:, None] * z**2).sum(axis=1)
        design_t, model_t = (
            np.bincount(tv, weights=np.where(of_model == side, summed, 0.0), minlength=n_topics)
            for side in (False, True)
        )
        var_v = np.where(of_model == (model_t >= design_t)[tv], var_v, 0.0)
    zt = z / max(n_topics, 1)
    cov = zt.T @ (var_v[:, None] * zt)
    topic_variance = np.zeros((n_topics, len(rankings)))
    for c in range(len(rankings)):
        topic_variance[:, c] = np.bincount(tv, weights=var_v * z[:, c] ** 2, minlength=n_topics)
    return {
        "ap": ap,
        "map": ap.mean(axis=0),
        "cov": cov,
        "relevant": big_r,
        "numerator": numerators,
        "topic_variance": topic_variance,
    }


def _anticipated(p, inclusion, sampled, pi, v) -> tuple[np.ndarray, np.ndarray]:
    r"""The pairs (indices) and variances of :math:`r_d` under the working model:
    :math:`\hat k\, p_d (1 - p_d)(1 - \pi_d)/\pi_d` for every pair not known for certain
    (``p`` clipped to [0, 1]; a pair whose inclusion probability is unknown counts as
    certain), :math:`\hat k = \sum_S \hat v_d / \sum_S p_d(1-p_d)(1-\pi_d)/\pi_d^2`
    the ratio of the sample's Horvitz-Thompson variances to the model's (1 when the
    model's variances are right on average, or when no sampled pair is uncertain)."""
    p = np.clip(p, 0.0, 1.0)
    frame = np.where(sampled, pi, np.nan_to_num(inclusion, nan=1.0))
    model_v = p * (1.0 - p) * (1.0 - frame) / frame
    uncertain = sampled & (pi < 1.0)
    denominator = float((model_v[uncertain] / pi[uncertain]).sum())
    k = float(v[uncertain].sum()) / denominator if denominator > 0 else 1.0
    rows = np.flatnonzero(model_v > 0)
    return rows, k * model_v[rows]


def default_variance(model: str, lam: float) -> str:
    """The variance estimate :func:`evaluate_ap_pairs` uses: per topic the larger of the
    working model's and the design's (``"larger"``) with calibrated values rectified by
    the people (``lam`` 1), else the design's (binary values have no model variance)."""
    return "larger" if model == "calibrated" and lam == 1.0 else "design"


def _numerator(r, code, at, n_topics: int, influence: bool):
    """AP's numerator per topic, sum_k (x_k / k)(1 + sum_{j<k} x_j) with ``x = r[at]``
    along the ranking ``(code, at)``, and with ``influence`` how it moves with each pooled
    pair's value, ``(1 + sum_{j<k_d} x_j) / k_d + sum_{k>k_d} x_k / k`` (0 for a pair the
    run did not retrieve); segment sums over the concatenated topics."""
    pooled = at >= 0
    x = np.where(pooled, r[np.maximum(at, 0)], 0.0) if len(r) else np.zeros(len(at))
    start = _segment_starts(code)
    k = (np.arange(len(code)) - start + 1).astype(np.float64)
    total = np.cumsum(x)
    above = total - x - np.where(start > 0, total[start - 1], 0.0) if len(x) else x
    precision = (1.0 + above) / k
    numerator = np.bincount(code, weights=x * precision, minlength=n_topics)
    if not influence:
        return numerator, None
    xk = x / k
    tail = np.cumsum(xk[::-1])[::-1]  # sum over this row and below, all topics
    seg_end = np.searchsorted(code, code, side="right")  # past the topic's last row
    after = np.r_[tail, 0.0][seg_end]  # what the later topics add to the tail
    below = tail - xk - after
    a = np.zeros(len(r))
    a[at[pooled]] = (precision + below)[pooled]
    return numerator, a


def _z(confidence: float) -> float:
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def intervals(result: dict, names: list[str], confidence: float, machine_map) -> dict:
    """``runs`` and ``differences`` of :func:`ap_pairs`' result, in
    :func:`cranfield.judgments.ppi.ppi_evaluate`'s shape (normal intervals; ``lam`` is
    the fixed weight of the machine labels)."""
    est, cov, lam = result["map"], result["cov"], result["lam"]
    half = _z(confidence)
    se = np.sqrt(np.maximum(np.diag(cov), 0.0))
    a, b = np.triu_indices(len(names), 1)
    d_est = est[a] - est[b]
    d_se = np.sqrt(np.maximum(cov[a, a] + cov[b, b] - 2 * cov[a, b], 0.0))

    def fields(value, s, mach):
        return {
            "estimate": float(value),
            "se": float(s),
            "low": float(value - half * s),
            "high": float(value + half * s),
            "lam": lam,
            "machine_only": float(mach),
        }

    return {
        "runs": {n: fields(est[i], se[i], machine_map[i]) for i, n in enumerate(names)},
        "differences": [
            {
                "a": names[i],
                "b": names[j],
                **fields(d_est[p], d_se[p], machine_map[i] - machine_map[j]),
            }
            for p, (i, j) in enumerate(zip(a.tolist(), b.tolist(), strict=True))
        ],
    }


def rankings_of(runs, keys, topic_names) -> tuple[list[str], list[tuple[np.ndarray, np.ndarray]]]:
    """Each run's ``(code, at)`` for :func:`ap_pairs`: its documents in trec_eval order on
    the pool's topics (``topic_names``, sorted), the pool index of each (``keys``: the
    pool's ``topic\\x00doc`` keys; -1 outside the pool). One whole-array join per run."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from ..core.evaluation import as_runs

    runs = as_runs(runs)
    out = []
    names_arr = pa.array(topic_names, pa.string())
    for run in runs:
        ranked = run.ranked()
        q = ranked["query_id"].combine_chunks().cast(pa.string())
        code = pc.index_in(q, value_set=names_arr)
        keep = np.asarray(pc.is_valid(code))
        code = np.asarray(code.fill_null(0))[keep].astype(np.int64)
        d = ranked["doc_id"].combine_chunks().cast(pa.string())
        at = pc.index_in(pc.binary_join_element_wise(q, d, "\x00"), value_set=keys)
        at = np.asarray(at.fill_null(-1))[keep].astype(np.int64)
        order = np.argsort(code, kind="stable")  # trec_eval's topic order is bytewise
        out.append((code[order], at[order]))
    return [r.name for r in runs], out


def check_lambda(estimator: str) -> float:
    """The weight of the machine labels of ``estimator`` for AP with pairs as units."""
    name = str(estimator).lower()
    if name not in LAMBDAS:
        raise ParameterError(
            "--estimator with --units pairs and AP",
            "ppi or classical (a tuned weight is not defined for a ratio here)",
            estimator,
        )
    return LAMBDAS[name]


def check_inclusion(pi: np.ndarray) -> None:
    if not ((pi > 0) & (pi <= 1)).all():
        bad = pi[~((pi > 0) & (pi <= 1))][0]
        raise InputError(f"an inclusion probability is not in (0, 1]: {bad!r}")


def _human_sample(human):
    """``(source, topics, docs, grades, probabilities or None, judged)`` of every line of
    the people's labels: a :class:`~cranfield.Qrels` or qrels file, or six-column
    sampled qrels (``cranfield pool sampled --probabilities``: ``-1`` for a pooled pair
    not drawn, the inclusion probability last). Pairs with a negative grade
    (``judged`` false) are not part of the sample."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from ..core.qrels import Qrels
    from ..core.sampled import field_columns, read_sampled_qrels, split_fields

    pi = None
    if isinstance(human, Qrels):
        table, source = human.table, human.source
    else:
        source, counts, tokens = split_fields(human)
        filled = counts[counts > 0]
        if len(filled) and filled[0] == 6:
            read_sampled_qrels(human)  # checks every line, one clear message
            _, column = field_columns(tokens, counts, 6)
            table = pa.table(
                {
                    "query_id": column[0].cast(pa.string()),
                    "doc_id": column[2].cast(pa.string()),
                    "relevance": column[4].cast(pa.int64()),
                }
            )
            pi = column[5].cast(pa.float64()).to_numpy(zero_copy_only=False)
        else:
            q = Qrels.read(human)
            table, source = q.table, q.source
    judged = np.asarray(pc.greater_equal(table["relevance"], 0))
    grades = table["relevance"].to_numpy(zero_copy_only=False).astype(np.float64)
    topics = table["query_id"].combine_chunks().cast(pa.string())
    docs = table["doc_id"].combine_chunks().cast(pa.string())
    return source, topics, docs, grades, pi, judged


def evaluate_ap_pairs(
    machine,
    human,
    runs,
    *,
    estimator: str = "ppi",
    inclusion: dict | float | None = None,
    confidence: float = 0.95,
    rel_level: int = 1,
    model: str = "calibrated",
    centre: str = "second",
    variance: str | None = None,
) -> dict:
    """Each run's MAP and every paired difference from machine qrels on every pooled
    pair and people's labels on a Poisson sample of the pairs (module docstring).

    ``model``: the machine's values, its binary labels (``labels``) or the calibrated
    probabilities of :func:`calibrated_values` (``calibrated``); ``centre``: see
    :func:`ap_pairs` (``sample``: the ratio; ``model``, ``second``: linearised at the
    machine's values, to first or second order; docs/machine-assessors.md compares them);
    ``variance``: see :func:`ap_pairs`, by default :func:`default_variance` (per topic
    the larger of the working model's and the design's with calibrated values).

    ``inclusion``: one probability for every sampled pair, or ``{topic: probability}``;
    default the probabilities of six-column sampled qrels, else each topic's share of
    pairs judged, ``n_t / N_t`` (a uniform draw per topic). Returns the shape of
    :func:`cranfield.judgments.ppi.ppi_evaluate_pairs` (``interval`` ``"normal"``).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    from ..core.qrels import Qrels

    lam = check_lambda(estimator)
    if not 0 < confidence < 1:
        raise ParameterError("confidence", "a number in (0, 1)", confidence)
    machine = machine if isinstance(machine, Qrels) else Qrels.read(machine)
    source, all_topics, all_docs, all_grades, all_pi, judged = _human_sample(human)
    keep = pa.array(judged)
    h_topics, h_docs = all_topics.filter(keep), all_docs.filter(keep)
    h_grades = all_grades[judged]
    m = machine.table
    m_topics = m["query_id"].combine_chunks().cast(pa.string())
    keys = pc.binary_join_element_wise(
        m_topics, m["doc_id"].combine_chunks().cast(pa.string()), "\x00"
    )
    topic_names, code = np.unique(
        np.asarray(m_topics.to_pylist(), dtype=object), return_inverse=True
    )
    topic_names = [str(t) for t in topic_names]
    n_topics = len(topic_names)
    at = pc.index_in(pc.binary_join_element_wise(h_topics, h_docs, "\x00"), value_set=keys)
    outside = np.flatnonzero(~np.asarray(pc.is_valid(at)))
    if len(outside):
        i = int(outside[0])
        raise InputError(
            f"{len(outside)} pair(s) judged by people have no machine label, e.g. topic "
            f"{h_topics[i].as_py()}, document {h_docs[i].as_py()}: the sample must be drawn "
            "from the pool",
            source,
        )
    at = np.asarray(at).astype(np.int64)
    if len(np.unique(at)) != len(at):
        raise InputError("a pair is judged twice in the people's labels", source)
    n_pairs = len(keys)
    # every pooled pair's inclusion probability where known (NaN elsewhere)
    pi = np.full(n_pairs, np.nan)
    if isinstance(inclusion, (int, float)):
        pi[:] = float(inclusion)
    elif isinstance(inclusion, dict):
        per_topic = np.array([inclusion.get(t, np.nan) for t in topic_names], np.float64)
        pi = per_topic[code]
        if np.isnan(pi[at]).any():
            t = topic_names[int(code[at][np.isnan(pi[at])][0])]
            raise InputError(f"no inclusion probability for topic {t!r}, whose pairs were sampled")
    elif all_pi is not None:  # the frame's: drawn or not (lines outside the pool ignored)
        where = pc.index_in(pc.binary_join_element_wise(all_topics, all_docs, "\x00"), keys)
        listed = np.asarray(pc.is_valid(where))
        pi[np.asarray(where.fill_null(0))[listed]] = all_pi[listed]
    else:  # each topic's share judged
        share = np.bincount(code[at], minlength=n_topics) / np.bincount(code, minlength=n_topics)
        pi = share[code]
    check_inclusion(pi[at])
    known = ~np.isnan(pi)
    check_inclusion(pi[known])
    mach = (m["relevance"].to_numpy(zero_copy_only=False) >= rel_level).astype(np.float64)
    hum = np.full(n_pairs, np.nan)
    hum[at] = (h_grades >= rel_level).astype(np.float64)
    if model not in MODELS:
        raise ParameterError("model", f"one of {', '.join(MODELS)}", model)
    if centre not in CENTRES:
        raise ParameterError("centre", f"one of {', '.join(CENTRES)}", centre)
    names, rankings = rankings_of(runs, keys, topic_names)
    machine_only = ap_pairs(code, mach, np.full(n_pairs, np.nan), pi, rankings, n_topics)["map"]
    if model == "calibrated":
        grade = m["relevance"].to_numpy(zero_copy_only=False).astype(np.int64)
        prior = pool_prior(rankings, n_pairs)
        mach = calibrated_values(code, mach, grade, prior, hum, np.where(np.isnan(pi), 1.0, pi))
    variance = variance or default_variance(model, lam)
    res = ap_pairs(code, mach, hum, pi, rankings, n_topics, lam, centre, variance)
    res["lam"] = lam
    res_topics = np.bincount(code[at], minlength=n_topics)
    unsampled = int((res_topics == 0).sum())
    negative = int((res["relevant"] < 0).sum())
    uncertain = at[pi[at] < 1.0]  # sampled pairs that were not certain to be
    labels = m["relevance"].to_numpy(zero_copy_only=False)[uncertain] >= rel_level
    disagreements = int((hum[uncertain] != labels).sum())
    return {
        "measure": "AP",
        "estimator": "ppi" if lam == 1.0 else "classical",
        "units": "pairs",
        "confidence": confidence,
        "pairs": n_pairs,
        "sampled": len(at),
        "interval": "normal",
        "model": model,
        "centre": centre,
        "variance": variance,
        **intervals(res, names, confidence, machine_only),
        "checks": [
            {
                "check": "every topic has pairs judged by people",
                "ok": unsampled == 0,
                "detail": f"{unsampled} of {n_topics} topics have no pair judged by people "
                "(their AP is the machine's, with no variance)",
            },
            {
                "check": "the intervals hold",
                "ok": (model, centre, variance) in HELD,
                "detail": f"AP with pooled pairs as units: with {model} machine values, centre "
                f"{centre} and the {variance} variance the intervals are approximate (in "
                "simulation only the calibrated working model, centre second or model, with "
                "its default variance covered 93% or more; docs/machine-assessors.md)",
            },
            {
                "check": "people and machine disagree somewhere in the sample",
                "ok": disagreements > 0 or len(uncertain) == 0,
                "detail": f"people agreed with the machine on all {len(uncertain)} sampled "
                "pairs: every variance estimate is about 0 and the intervals have no width "
                "(no error seen is not no error); judge more pairs",
            },
            {
                "check": "estimated number of relevant documents not negative",
                "ok": negative == 0 or centre != "sample",
                "detail": f"{negative} of {n_topics} topics have a negative estimated number "
                "of relevant documents (their AP counts 0): too few pairs judged by people "
                "for this machine",
            },
        ],
    }


#: the machine's values :func:`evaluate_ap_pairs` can use
MODELS = ("labels", "calibrated")
#: the model, centre and variance whose intervals held in simulation (the first: the
#: defaults; docs/machine-assessors.md)
HELD = (("calibrated", "second", "larger"), ("calibrated", "model", "larger"))


def pool_prior(rankings, n_pairs: int) -> np.ndarray:
    """The AP-prior of every pooled pair summed over the runs
    (:func:`cranfield.pooling.sampling.ap_prior`, depth: the deepest rank of any run; the
    weight ``cranfield pool --sample statap`` draws by)."""
    from ..pooling.sampling import ap_prior

    ranks = []
    for code, at in rankings:
        start = _segment_starts(code)
        ranks.append((np.arange(len(code)) - start + 1, at))
    depth = max((int(k.max()) for k, _ in ranks if len(k)), default=1)
    prior = np.zeros(n_pairs)
    for k, at in ranks:
        pooled = at >= 0
        prior += np.bincount(at[pooled], weights=ap_prior(k[pooled], depth), minlength=n_pairs)
    return prior


def calibrated_values(topic, relevant, grade, prior, human, inclusion, steps: int = 30):
    r"""The generalised-regression working model (Särndal, Swensson & Wretman 1992,
    chapter 6; a logistic working model as in Lehtonen & Veijanen 1998, "Logistic
    generalized regression estimators", *Survey Methodology* 24): every pooled pair's
    probability of relevance given the machine's grade (one indicator per grade), the log
    of its AP-prior over the runs (:func:`pool_prior`) and its topic's share of pairs the
    machine calls relevant, fitted on the people's sample by logistic regression weighted
    by :math:`1/\pi` (iteratively reweighted least squares, a ridge of :math:`10^{-6}`).

    Any fixed values keep :func:`ap_pairs`' estimates unbiased (their influence is on the
    variance and, for a ratio, on the bias of order 1/n); fitted on the sample they are
    consistent, the coefficients' error of order :math:`1/\sqrt n` over all topics' sampled
    pairs together. ``relevant``: the machine's binary labels; ``human``: NaN where not
    sampled."""
    sampled = ~np.isnan(human)
    n_topics = int(topic.max()) + 1 if len(topic) else 0
    share = np.bincount(topic, weights=relevant, minlength=n_topics) / np.maximum(
        np.bincount(topic, minlength=n_topics), 1
    )
    levels = np.unique(grade)
    x = np.column_stack(
        [np.ones(len(topic))]
        + [(grade == g).astype(np.float64) for g in levels[1:]]
        + [np.log(np.maximum(prior, 1e-12)), share[topic]]
    )
    xs, ys, ws = x[sampled], human[sampled], 1.0 / inclusion[sampled]
    beta = np.zeros(x.shape[1])
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(xs @ beta, -30, 30)))
        hessian = (xs * (ws * p * (1 - p))[:, None]).T @ xs + 1e-6 * np.eye(x.shape[1])
        beta = beta + np.linalg.solve(hessian, xs.T @ (ws * (ys - p)))
    return 1.0 / (1.0 + np.exp(-np.clip(x @ beta, -30, 30)))
