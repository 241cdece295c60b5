r"""Prediction-powered estimates: many machine labels, a few human ones, valid intervals.

Prediction-powered inference (PPI; Angelopoulos, Bates, Fannjiang, Jordan & Zrnic 2023,
*Science* 382) estimates a mean :math:`\theta = \frac1N \sum_i Y_i` from predictions
:math:`\hat Y_i` on all :math:`N` units and true values :math:`Y_i` on a random sample
:math:`S` of :math:`n` of them. PPI++ (Angelopoulos, Duchi & Zrnic 2023, arXiv:2311.01453)
weights the predictions by a power-tuning :math:`\lambda`:

.. math::

    \hat\theta_\lambda = \lambda\,\overline{\hat Y}_{all}
        + \frac1n \sum_{i \in S} w_i (Y_i - \lambda \hat Y_i),
    \qquad
    \widehat{se}^2 = \frac{\lambda^2 \hat\sigma^2(\hat Y_{all})}{N}
        + \frac{\hat\sigma^2(w (Y - \lambda \hat Y))_S}{n}

and the interval :math:`\hat\theta_\lambda \pm z_{1-\alpha/2}\,\widehat{se}`
(:math:`\hat\sigma^2`: variances with divisor :math:`n`, as the reference implementation
``ppi_py`` computes them: ``interval="normal"``). :math:`\lambda = 1` is PPI,
:math:`\lambda = 0` the classical estimate from the human sample alone, and the tuned

.. math::

    \hat\lambda = \mathrm{clip}_{[0,1]}\,
        \frac{\widehat{\mathrm{Cov}}(w(Y-\hat\theta_1),\, w(\hat Y-\hat\theta_1))}
             {(1 + n/N)\,\widehat{\mathrm{Var}}(\hat Y - \hat\theta_1)}

minimises the variance (ppi_py's ``_calc_lam_glm`` for a mean: covariance with divisor
:math:`n` over the sample, variance with divisor :math:`n + N - 1` over the sample and
all units together). When unit :math:`i` was sampled with probability :math:`\pi_i`,
the weights are :math:`w_i \propto 1/\pi_i`, normalised to mean 1 over the sample: the
rectifier is then Hajek's (1971) ratio form of the Horvitz-Thompson (1952) estimate, as
``ppi_py`` normalises its weights; a simple random sample (:math:`\pi_i = n/N`) has
:math:`w_i = 1`. With a simple random sample the estimate is unbiased for any fixed
:math:`\lambda` whatever the quality of the predictions (with unequal probabilities,
consistent: the ratio's bias is of order :math:`1/n`); only its width depends on them.

The default interval (``interval="t"``) reads the estimate as what it is here: the
machine labels every one of the :math:`N` units, so :math:`\overline{\hat Y}_{all}` is
fixed, the target is the finite population's mean, and the only randomness is the draw
of the sample. For a fixed :math:`\lambda` and a simple random sample without
replacement, :math:`\hat\theta_\lambda` is the difference estimator of survey sampling
(:math:`\lambda = 1`; the regression estimator for a fitted :math:`\lambda`: Cochran
1977, *Sampling Techniques*, 3rd ed., sections 7.2 and 7.3), with exactly

.. math::

    \mathrm{Var}(\hat\theta_\lambda) = \Bigl(1 - \frac nN\Bigr)\frac{S^2_r}{n},
    \qquad r_i = Y_i - \lambda \hat Y_i,

:math:`S^2_r` the population variance of :math:`r` with divisor :math:`N - 1` (Cochran's
theorem 2.2), of which the sample variance :math:`s^2_r` with divisor :math:`n - 1` is
unbiased (theorem 2.4). The interval is
:math:`\hat\theta_\lambda \pm t_{n-1,\,1-\alpha/2}\,\widehat{se}` with
:math:`\widehat{se}^2 = (1 - n/N)\,s^2_r / n`: Student's quantile for a variance
estimated from :math:`n` values (Cochran 1977, chapter 2). The normal interval leaves out
the finite-population factor but adds :math:`\lambda^2\hat\sigma^2(\hat Y)/N` and uses
the divisor :math:`n` and :math:`z`; with 5 sampled topics of 50 its paired differences'
intervals covered 85 % of the time in simulation, the t interval's 93 %
(benchmarks/results/ppi.md). With unequal inclusion probabilities the t interval uses
Hajek's linearised residuals :math:`w_i (r_i - \hat{\bar r})` and no finite-population
factor (the with-replacement approximation, Sarndal, Swensson & Wretman 1992, *Model
Assisted Survey Sampling*, chapter 5). A tuned :math:`\lambda`
is treated as fixed, as ``ppi_py`` does: fitted on the same few units it biases the
estimate (of order :math:`1/n`) and narrows the interval, whence PPI++'s
under-coverage with few sampled topics (docs/machine-assessors.md).

For IR evaluation (:func:`ppi_evaluate`) a unit is a topic: a machine assessor labels the
whole pool, people judge the pool of a random sample of topics, :math:`\hat Y_t` is a
run's measure on topic :math:`t` under the machine's qrels and :math:`Y_t` under the
people's, and :math:`\theta` is the run's mean measure under complete human judgments
(Boyeau, Angelopoulos, Yosef, Malik & Jordan 2024, "AutoEval done right"; for IR
measures, Oosterhuis, Jagerman, Qin, Wang & Bendersky 2024). A paired difference of two
runs is the same estimate with :math:`Y_t = Y^a_t - Y^b_t`. Every measure is allowed,
since each topic's value is computed whole.
"""

from __future__ import annotations

import math
import re
from statistics import NormalDist

import numpy as np

from ..core.declarations import Declaration, Param, Registry, number_in
from ..errors import InputError, ParameterError

#: The estimators of :func:`ppi_mean`, each declared once (docs/machine-assessors.md).
PPI_ESTIMATORS = Registry("estimator")

_CONFIDENCE = Param(
    "confidence", float, 0.95, "interval level", **number_in(0, 1, open_lo=True, open_hi=True)
)
#: The intervals of :func:`ppi_mean` (module docstring).
INTERVALS = ("t", "normal")
_INTERVAL = Param(
    "interval",
    str,
    "t",
    "t: finite-population, Student's t with n-1 df (Cochran 1977); normal: ppi_py's z interval",
    choices=INTERVALS,
)


def _z(confidence: float) -> float:
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def _t(confidence: float, df: int) -> float:
    from ..distributions import t_ppf

    return float(t_ppf(0.5 + confidence / 2, df))


def _design_se(r: np.ndarray, w: np.ndarray, big_n: int) -> np.ndarray:
    """The standard error of the weighted mean of ``r`` (``n x k``) over a sample of
    ``n`` of ``big_n`` units with weights ``w`` (``n x 1``, mean 1): ``sqrt((1 - n/N)
    s^2 / n)`` for equal weights (a simple random sample without replacement, Cochran
    1977 theorems 2.2 and 2.4), else Hajek's linearisation ``w (r - mean_w r)`` without
    the finite-population factor (Sarndal, Swensson & Wretman 1992, chapter 5)."""
    n = len(r)
    u = w * (r - (w * r).mean(axis=0))
    fpc = 1 - n / big_n if np.allclose(w, 1.0, rtol=1e-12, atol=0) else 1.0
    return np.sqrt(fpc * u.var(axis=0, ddof=1) / n)


def _columns(x) -> np.ndarray:
    x = np.asarray(x, np.float64)
    return x[:, None] if x.ndim == 1 else x


def tuned_lambda(y, yhat, yhat_all, weights=None) -> np.ndarray:
    """The power-tuning :math:`\\hat\\lambda` of PPI++ for each column (module docstring);
    0 where the predictions do not vary."""
    y, yhat, yhat_all = _columns(y), _columns(yhat), _columns(yhat_all)
    n, big_n = len(y), len(yhat_all)
    w = np.ones((n, 1)) if weights is None else np.asarray(weights, np.float64).reshape(-1, 1)
    theta1 = yhat_all.mean(axis=0) + (w * (y - yhat)).mean(axis=0)
    g = w * (y - theta1)
    gh = w * (yhat - theta1)
    cov = 2 * ((g - g.mean(axis=0)) * (gh - gh.mean(axis=0))).sum(axis=0) / n
    both = np.concatenate([gh, yhat_all - theta1], axis=0)
    var = both.var(axis=0, ddof=1) if len(both) > 1 else np.zeros(y.shape[1])
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = cov / (2 * (1 + n / big_n) * var)
    return np.clip(np.where(var > 0, lam, 0.0), 0.0, 1.0)


def ppi_mean(
    y,
    yhat,
    yhat_all,
    *,
    lam: float | str = "tuned",
    weights=None,
    confidence: float = 0.95,
    interval: str = "t",
) -> dict[str, np.ndarray]:
    """Prediction-powered estimates of the column means of the true values.

    Parameters
    ----------
    y, yhat
        ``(n,)`` or ``(n, k)``: the true values and the predictions on the sample.
    yhat_all
        ``(N,)`` or ``(N, k)``: the predictions on every unit (the sample included).
    lam
        ``"tuned"`` (PPI++), or a number in [0, 1] (1: PPI, 0: the sample alone).
    weights
        ``(n,)``: proportional to :math:`1/\\pi_i` for inclusion probabilities
        :math:`\\pi_i`, normalised here to mean 1 (default 1: a simple random sample).
    confidence
        The level of the interval.
    interval
        ``"t"`` (default): the finite-population interval with Student's quantile,
        :math:`\\pm t_{n-1}\\sqrt{(1 - n/N)\\,s^2_r/n}`; ``"normal"``: ``ppi_py``'s
        :math:`\\pm z\\sqrt{\\lambda^2\\hat\\sigma^2(\\hat Y_{all})/N + \\hat\\sigma^2(r)/n}`
        (module docstring).

    Returns
    -------
    dict of ``(k,)`` arrays: ``estimate``, ``se``, ``low``, ``high``, ``lam``.
    """
    y, yhat, yhat_all = _columns(y), _columns(yhat), _columns(yhat_all)
    if y.shape != yhat.shape or y.shape[1:] != yhat_all.shape[1:]:
        raise ParameterError(
            "ppi_mean", "y and yhat of one shape, yhat_all with their columns", y.shape
        )
    n, big_n = len(y), len(yhat_all)
    if n < 2 or big_n < n:
        raise InputError(
            f"prediction-powered estimates need 2 or more labelled units among the N, got {n} of {big_n}"
        )
    if not 0 < confidence < 1:
        raise ParameterError("confidence", "a number in (0, 1)", confidence)
    w = np.ones((n, 1)) if weights is None else np.asarray(weights, np.float64).reshape(-1, 1)
    if not (np.isfinite(w).all() and (w > 0).all()):
        raise ParameterError("weights", "positive finite numbers", "other values")
    w = w / w.mean()  # Hajek: weights of mean 1 (as ppi_py normalises them)
    if lam == "tuned":
        lam_v = tuned_lambda(y, yhat, yhat_all, w[:, 0])
    else:
        lam_v = np.full(y.shape[1], float(lam))
    if interval not in INTERVALS:
        raise ParameterError("interval", f"one of {', '.join(INTERVALS)}", interval)
    rect = w * (y - lam_v * yhat)
    estimate = lam_v * yhat_all.mean(axis=0) + rect.mean(axis=0)
    if interval == "normal":
        se = np.sqrt((lam_v * yhat_all).var(axis=0) / big_n + rect.var(axis=0) / n)
        half = _z(confidence) * se
    else:
        se = _design_se(y - lam_v * yhat, w, big_n)
        half = _t(confidence, n - 1) * se
    return {
        "estimate": estimate,
        "se": se,
        "low": estimate - half,
        "high": estimate + half,
        "lam": lam_v,
    }


def _declare(name: str, lam, summary: str, formula: str, reference: str, aliases=()):
    def behaviour(y, yhat, yhat_all, weights=None, confidence=0.95, interval="t"):
        return ppi_mean(
            y, yhat, yhat_all, lam=lam, weights=weights, confidence=confidence, interval=interval
        )

    PPI_ESTIMATORS.register(
        Declaration(name, behaviour, summary, formula, reference, (_CONFIDENCE, _INTERVAL), aliases)
    )


_declare(
    "ppi++",
    "tuned",
    "Prediction-powered mean with the variance-minimising weight of the machine labels.",
    "$\\hat\\lambda \\bar{\\hat Y}_{all} + \\frac1n\\sum_S w(Y - \\hat\\lambda \\hat Y)$, "
    "$\\hat\\lambda$ = clip(Cov/((1+n/N) Var))",
    "Angelopoulos, Duchi & Zrnic 2023 (PPI++); interval normal: as `ppi_py.ppi_mean_ci(lam=None)`",
    aliases=("ppipp", "tuned"),
)
_declare(
    "ppi",
    1.0,
    "Prediction-powered mean: machine labels everywhere, rectified by the human sample.",
    "$\\bar{\\hat Y}_{all} + \\frac1n\\sum_S w(Y - \\hat Y)$",
    "Angelopoulos et al. 2023, Science 382; interval normal: as `ppi_py.ppi_mean_ci(lam=1)`; "
    "t: Cochran 1977 s. 7.2 (difference estimator)",
)
_declare(
    "classical",
    0.0,
    "The human sample alone (the machine labels unused): the baseline PPI improves on.",
    "$\\frac1n\\sum_S w Y$",
    "Horvitz & Thompson 1952; interval normal: as `ppi_py.ppi_mean_ci(lam=0)`",
    aliases=("human",),
)


# -- IR evaluation: topics as units ---------------------------------------------------------


def sample_topics(topics, fraction: float, seed: int = 0) -> tuple[list[str], float]:
    """A simple random sample of ``round(fraction * N)`` topics (at least 2) and its
    inclusion probability ``n / N`` (``numpy.random.default_rng(seed)``)."""
    topics = sorted(set(map(str, topics)))
    if not 0 < fraction <= 1:
        raise ParameterError("fraction", "a number in (0, 1]", fraction)
    n = min(len(topics), max(2, round(fraction * len(topics))))
    rng = np.random.default_rng(seed)
    chosen = sorted(rng.choice(len(topics), size=n, replace=False).tolist())
    return [topics[i] for i in chosen], n / len(topics)


def _per_topic(qrels, runs, measure: str, rel_level: int):
    from ..core.evaluation import evaluate

    res = evaluate(qrels, runs, [measure], rel_level=rel_level, complete=True)
    names = res.run_names
    tables = [res.per_query(r, measure) for r in names]
    topics = sorted(tables[0])
    values = np.array([[t[q] for q in topics] for t in tables], np.float64).T  # topics x runs
    return names, topics, values


def ppi_evaluate(
    machine,
    human,
    runs,
    measure: str = "AP",
    *,
    estimator: str = "ppi",
    inclusion: dict[str, float] | float | None = None,
    confidence: float = 0.95,
    rel_level: int = 1,
    interval: str = "t",
) -> dict:
    """Each run's mean ``measure`` and every paired difference, estimated from machine
    qrels on every topic of the pool and human qrels on a random sample of topics.

    Parameters
    ----------
    machine
        The machine assessor's qrels: every pooled pair of every topic.
    human
        The people's qrels of the sampled topics (each judged over its whole pool).
    runs
        Anything :func:`cranfield.evaluate` takes (two or more runs for differences).
    estimator
        A name of :data:`PPI_ESTIMATORS` (``ppi``, the default, ``ppi++``, ``classical``).
        ``ppi++`` tunes its weight on the same few sampled topics, which narrows and biases
        its intervals below their level when fewer than about 40 topics are sampled
        (docs/machine-assessors.md); ``ppi`` holds at any sample size.
    inclusion
        Each sampled topic's inclusion probability, or one for all; default ``n / N``
        (a simple random sample of the topics).
    interval
        ``"t"`` (default: finite-population, Student's t) or ``"normal"`` (``ppi_py``'s);
        see :func:`ppi_mean`.

    Returns
    -------
    dict with ``interval``, ``runs`` (per run: ``estimate``, ``low``, ``high``, ``se``, ``lam``,
    ``machine_only``: the mean under the machine's qrels), ``differences`` (per pair
    ``a``, ``b`` with the same fields, for ``a - b``), ``topics``, ``sampled`` and
    ``checks`` (the assumptions and what was found; see :func:`assumption_checks`).
    """
    from ..core.qrels import Qrels

    decl = PPI_ESTIMATORS.lookup(estimator)
    given = decl.resolve({"confidence": confidence, "interval": interval})
    confidence, interval = given["confidence"], given["interval"]
    machine = machine if isinstance(machine, Qrels) else Qrels.read(machine)
    human = human if isinstance(human, Qrels) else Qrels.read(human)
    names, topics, yhat_all = _per_topic(machine, runs, measure, rel_level)
    h_names, sampled, y = _per_topic(human, runs, measure, rel_level)
    if h_names != names:
        raise InputError("the runs differ between the two evaluations")
    index = {t: i for i, t in enumerate(topics)}
    outside = [t for t in sampled if t not in index]
    if outside:
        raise InputError(
            f"{len(outside)} topic(s) judged by people have no machine labels, e.g. "
            f"{outside[0]!r}: the sample must be drawn from the pool's topics",
            human.source,
        )
    rows = np.array([index[t] for t in sampled], np.int64)
    n, big_n = len(rows), len(topics)
    pi = _inclusion(inclusion, sampled, n, big_n)
    w = n / (big_n * pi)
    yhat = yhat_all[rows]
    return {
        "measure": measure,
        "estimator": decl.name,
        "confidence": confidence,
        "topics": big_n,
        "sampled": n,
        "interval": interval,
        **_estimates(decl, y, yhat, yhat_all, w, confidence, interval, names),
        "checks": assumption_checks(machine, human, sampled, yhat_all, rows, pi),
    }


def _inclusion(inclusion, sampled: list[str], n: int, big_n: int) -> np.ndarray:
    if inclusion is None:
        return np.full(n, n / big_n)
    if isinstance(inclusion, (int, float)):
        pi = np.full(n, float(inclusion))
    else:
        missing = [t for t in sampled if t not in inclusion]
        if missing:
            raise InputError(
                f"no inclusion probability for {len(missing)} sampled topic(s), e.g. {missing[0]!r}"
            )
        pi = np.array([inclusion[t] for t in sampled], np.float64)
    if not ((pi > 0) & (pi <= 1)).all():
        raise ParameterError(
            "inclusion probabilities", "numbers in (0, 1]", float(pi[~((pi > 0) & (pi <= 1))][0])
        )
    return pi


def assumption_checks(machine, human, sampled, yhat_all, rows, pi) -> list[dict]:
    """What PPI assumes, and what the data say (each ``{"check", "ok", "detail"}``):

    * the sampled topics are judged by people over their whole pool (a pooled pair
      without a human label would count as non-relevant and bias the rectifier);
    * the sample is random: the machine's mean score over the sampled topics should not
      differ from the pool's beyond chance (a two-sided z-test of the mean of the runs'
      per-topic machine scores, finite-population corrected; flagged below p = 0.01);
    * enough topics for the normal interval (10 or more sampled).
    """
    import pyarrow.compute as pc

    checks = []
    m = machine.table
    keep = pc.is_in(m["query_id"], value_set=_strings(sampled))
    pool = m.filter(keep)
    h = human.table
    h = h.filter(pc.greater_equal(h["relevance"], 0))  # a negative grade: pooled, not judged
    pool_keys = pc.binary_join_element_wise(pool["query_id"], pool["doc_id"], "\x00")
    human_keys = pc.binary_join_element_wise(h["query_id"], h["doc_id"], "\x00")
    unjudged = int(pc.sum(pc.invert(pc.is_in(pool_keys, value_set=human_keys))).as_py() or 0)
    checks.append(
        {
            "check": "sampled topics fully judged by people",
            "ok": unjudged == 0,
            "detail": f"{unjudged} of {len(pool_keys)} pooled pairs of the sampled topics "
            "have no human label" + (" (counted as non-relevant)" if unjudged else ""),
        }
    )
    score = yhat_all.mean(axis=1)
    n, big_n = len(rows), len(score)
    sd = score.std(ddof=1) if big_n > 1 else 0.0
    fpc = math.sqrt(max(0.0, 1 - n / big_n))
    if sd > 0 and fpc > 0 and np.allclose(pi, pi[0]):
        z = (score[rows].mean() - score.mean()) / (sd / math.sqrt(n) * fpc)
        p = math.erfc(abs(z) / math.sqrt(2))
        checks.append(
            {
                "check": "sample looks random",
                "ok": p >= 0.01,
                "detail": f"machine scores of the sampled topics vs all: z = {z:.2f}, p = {p:.3g}"
                + ("" if p >= 0.01 else "; was the sample drawn at random?"),
            }
        )
    checks.append(
        {
            "check": "enough sampled topics for a normal interval",
            "ok": n >= 10,
            "detail": f"{n} of {big_n} topics judged by people"
            + ("" if n >= 10 else "; with fewer than 10 the interval's coverage is not assured"),
        }
    )
    return checks


def _strings(values):
    import pyarrow as pa

    return pa.array([str(v) for v in values], pa.string())


# -- IR evaluation: judged pairs as units (measures linear in the labels) -------------------

_LINEAR = re.compile(r"^(P|DCG)@([1-9][0-9]{0,8})$")


def linear_measure(measure: str) -> tuple[str, int]:
    """``(kind, k)`` of a measure linear in the labels: ``("P", k)`` for ``P@k``,
    ``("DCG", k)`` for ``DCG@k``; any other measure is a :class:`ParameterError`."""
    found = _LINEAR.match(str(measure).replace(" ", ""))
    if found is None:
        raise ParameterError(
            "measure with judged pairs as units", "P@k or DCG@k (linear in the labels)", measure
        )
    return found.group(1), int(found.group(2))


def linear_weights(runs, topics, documents, measure: str):
    r"""For a measure linear in the labels, each run's weight of each pooled pair.

    ``P@k = (1/k) sum_{r <= k} [grade_r >= l]`` and ``DCG@k = sum_{r <= k} grade_r /
    log2(r + 1)`` (trec_eval's, cranfield's defaults) are sums over the ranked documents of
    a weight of the rank times a gain of the label: ``[r <= k] / k`` with gain
    ``[grade >= l]``, and ``[r <= k] / log2(r + 1)`` with gain ``grade``. A document the
    run ranks that is not in the pool has no label and adds nothing.

    Returns ``(names, kind, weights)``: the run names, ``"P"`` or ``"DCG"``, and the
    ``(pairs, runs)`` weights (0 where a run does not rank the pair within ``k``).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    from ..core.evaluation import as_runs

    kind, k = linear_measure(measure)
    keys = pc.binary_join_element_wise(
        pa.array(list(topics), pa.string()), pa.array(list(documents), pa.string()), "\x00"
    )
    runs = as_runs(runs)
    weights = np.zeros((len(keys), len(runs)))
    for c, run in enumerate(runs):  # one whole-array join per run
        ranked = run.ranked()
        top = ranked.filter(pc.less_equal(ranked["rank"], k))
        at = pc.index_in(keys, value_set=pc.binary_join_element_wise(
            top["query_id"], top["doc_id"], "\x00"))  # fmt: skip
        hit = np.asarray(pc.is_valid(at))
        rank = top["rank"].to_numpy()[np.asarray(at.fill_null(0))].astype(np.float64)
        w = 1.0 / k if kind == "P" else 1.0 / np.log2(rank + 1.0)
        weights[:, c] = np.where(hit, w, 0.0)
    return [r.name for r in runs], kind, weights


def ppi_evaluate_pairs(
    machine,
    human,
    runs,
    measure: str = "P@10",
    *,
    estimator: str = "ppi",
    inclusion: dict | float | None = None,
    confidence: float = 0.95,
    rel_level: int = 1,
    interval: str = "t",
    model: str | None = None,
    centre: str | None = None,
) -> dict:
    r"""As :func:`ppi_evaluate` with judged pairs as the units: the machine labels every
    pair of the pool (``machine``), people a random sample of the pairs (``human``),
    for a measure linear in the labels (``P@k``, ``DCG@k``; :func:`linear_weights`), or
    ``AP`` (a ratio: :func:`cranfield.judgments.ppi_ap.evaluate_ap_pairs`, estimators
    ``ppi`` and ``classical``, normal intervals from the linearised variance; ``model``
    and ``centre`` as there, by default ``calibrated`` and ``second``: the ratio of the
    machine's labels is biased with about ten judged pairs a topic, docs/machine-assessors.md).

    A run's mean measure over the pool's ``T`` topics is the mean over the ``N`` pooled
    pairs of :math:`Z_i = (N/T)\,w_i\,g(y_i)`: :func:`ppi_mean` of ``Z`` under the human
    labels (sample) and the machine's (all pairs). Topics a run does not answer count 0.
    """
    from ..core.qrels import Qrels

    if str(measure).replace(" ", "") == "AP":
        from .ppi_ap import evaluate_ap_pairs

        return evaluate_ap_pairs(
            machine,
            human,
            runs,
            estimator=estimator,
            inclusion=inclusion,
            confidence=confidence,
            rel_level=rel_level,
            model=model or "calibrated",
            centre=centre or "second",
        )
    if (model or "labels", centre or "sample") != ("labels", "sample"):
        raise ParameterError("model and centre", "labels and sample except for AP", (model, centre))
    decl = PPI_ESTIMATORS.lookup(estimator)
    given = decl.resolve({"confidence": confidence, "interval": interval})
    confidence, interval = given["confidence"], given["interval"]
    machine = machine if isinstance(machine, Qrels) else Qrels.read(machine)
    human = human if isinstance(human, Qrels) else Qrels.read(human)
    import pyarrow.compute as pc

    m, h = machine.table, human.table
    h = h.filter(pc.greater_equal(h["relevance"], 0))  # a negative grade: pooled, not judged
    topics = m["query_id"].to_pylist()
    documents = m["doc_id"].to_pylist()
    index = {pair: i for i, pair in enumerate(zip(topics, documents, strict=True))}
    pairs = list(zip(h["query_id"].to_pylist(), h["doc_id"].to_pylist(), strict=True))
    outside = [p for p in pairs if p not in index]
    if outside:
        raise InputError(
            f"{len(outside)} pair(s) judged by people have no machine label, e.g. topic "
            f"{outside[0][0]}, document {outside[0][1]}: the sample must be drawn from the pool",
            human.source,
        )
    rows = np.array([index[p] for p in pairs], np.int64)
    names, kind, weights = linear_weights(runs, topics, documents, measure)
    n_topics = len(set(topics))

    def gain(grades: np.ndarray) -> np.ndarray:
        g = np.asarray(grades, np.float64)
        return (g >= rel_level).astype(np.float64) if kind == "P" else np.maximum(g, 0.0)

    scale = len(topics) / n_topics
    zhat_all = scale * weights * gain(m["relevance"].to_numpy())[:, None]
    z = scale * weights[rows] * gain(h["relevance"].to_numpy())[:, None]
    zhat = zhat_all[rows]
    pi = _inclusion(inclusion, pairs, len(rows), len(topics))
    w = 1.0 / pi
    return {
        "measure": measure,
        "estimator": decl.name,
        "units": "pairs",
        "confidence": confidence,
        "pairs": len(topics),
        "sampled": len(rows),
        "interval": interval,
        **_estimates(decl, z, zhat, zhat_all, w, confidence, interval, names),
        "checks": [
            {
                "check": "enough sampled pairs for a normal interval",
                "ok": len(rows) >= 30,
                "detail": f"{len(rows)} of {len(topics)} pooled pairs judged by people",
            }
        ],
    }


def _estimates(decl, y, yhat, yhat_all, w, confidence: float, interval: str, names) -> dict:
    """Each run's estimate and every paired difference's (``runs``, ``differences``):
    the estimator ``decl`` on the sample's labels ``y``, the machine's on the sample
    ``yhat`` and on all units ``yhat_all`` (units x runs), weights ``w``; beside each,
    the machine-only mean."""
    a, b = np.triu_indices(len(names), 1)
    run_est = decl.behaviour(y, yhat, yhat_all, w, confidence, interval)
    diff_est = decl.behaviour(
        y[:, a] - y[:, b],
        yhat[:, a] - yhat[:, b],
        yhat_all[:, a] - yhat_all[:, b],
        w,
        confidence,
        interval,
    )
    fields = ("estimate", "se", "low", "high", "lam")
    machine_only = yhat_all.mean(axis=0)
    return {
        "runs": {
            name: {
                **{f: float(run_est[f][r]) for f in fields},
                "machine_only": float(machine_only[r]),
            }
            for r, name in enumerate(names)
        },
        "differences": [
            {
                "a": names[i],
                "b": names[j],
                **{f: float(diff_est[f][p]) for f in fields},
                "machine_only": float(machine_only[i] - machine_only[j]),
            }
            for p, (i, j) in enumerate(zip(a.tolist(), b.tolist(), strict=True))
        ],
    }
