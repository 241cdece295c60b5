"""Combining redundant judgments into one label per (topic, document).

* :func:`majority_vote` with an explicit tie policy;
* :func:`mean_label` and :func:`median_label` for graded (ordinal or interval) scales;
* :func:`dawid_skene`: the EM estimate of Dawid & Skene (1979) with one confusion
  matrix per assessor and class priors;
* :func:`mace`: MACE (Hovy et al. 2013), which models spamming explicitly, fitted by
  variational Bayes (default) or EM, with learned class priors and restarts.

Each returns an :class:`Aggregate`: per item the chosen label (or none: an abstention),
the posterior (or vote share) of each label and the number of votes; it converts to a
:class:`~cranfield.core.qrels.Qrels` and to a table of posteriors.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from ..errors import ParameterError
from .data import Judgments

TIES = ("random", "higher", "lower", "abstain")
METHODS = ("majority", "mean", "median", "dawid-skene", "mace")
#: Floor of estimated probabilities (confusion entries and priors) in Dawid–Skene, so
#: that a label an assessor never gave does not make an item impossible.
EPS = 1e-10


@dataclass
class Aggregate:
    """Aggregated labels.

    Attributes
    ----------
    label
        Per item, the index of the chosen label on the scale, or -1 (abstained: a tie
        under the ``abstain`` policy).
    posterior
        Items × labels: each label's posterior probability (Dawid–Skene) or share of the
        votes (majority, mean, median).
    votes
        Number of judgments of each item.
    info
        The method and its parameters; Dawid–Skene adds ``iterations``, ``converged``,
        ``tolerance``, ``max_iterations``, ``log_likelihood``, the class ``priors`` and
        each assessor's ``confusion`` matrix (rows: true label, columns: given label);
        MACE adds ``fit``, ``class_priors``, ``restarts``, ``restart`` (the run kept),
        ``priors``, ``competence`` and ``strategy``.
    """

    judgments: Judgments
    label: np.ndarray
    posterior: np.ndarray
    votes: np.ndarray
    info: dict = field(default_factory=dict)

    def values(self) -> np.ndarray:
        """The chosen label values; entries where ``label`` is -1 (abstained) are
        meaningless (-1)."""
        vals = np.asarray(self.judgments.scale.values, np.int64)
        return np.where(self.label >= 0, vals[np.maximum(self.label, 0)], -1)

    def expected_gains(self, gains=None) -> np.ndarray:
        """Per item, the expected gain under the posterior (soft label):
        ``sum_l P(l) * gain(l)``, where ``gain(l)`` is the label's value on the scale or
        ``gains[value]`` (a ``{label value: gain}`` mapping; unlisted labels keep their
        value). With the linear gains of trec_eval's nDCG (gain = grade) this is the
        expected nDCG gain of the document. A nominal scale has no values to average:
        it needs ``gains``.
        """
        scale = self.judgments.scale
        if scale.level == "nominal" and not gains:
            raise ParameterError(
                "gains", "a gain per label for a nominal scale (its labels are unordered)", gains
            )
        table = dict(gains or {})
        unknown = sorted(set(table) - set(scale.values))
        if unknown:
            raise ParameterError("gains", "labels of the scale " + scale.describe(), unknown[0])
        values = np.array([float(table.get(v, v)) for v in scale.values], np.float64)
        return self.posterior @ values

    def to_qrels(self, soft: bool = False, gains=None):
        """The aggregated labels as Qrels, in item order.

        Hard labels (default): the chosen label of each item, abstentions left out.
        ``soft=True``: every item with its :meth:`expected_gains` (``gains``: see
        there) as fractional relevance, a ``Qrels(fractional=True)``, for the measures
        that take fractional gains (nDCG and the other graded measures; binary measures
        call a document relevant when its expected gain reaches the relevance level).
        """
        from ..core.qrels import Qrels

        j = self.judgments
        if soft:
            keep = np.ones(j.n_items, dtype=bool)
            relevance = pa.array(self.expected_gains(gains), pa.float64())
        else:
            if gains is not None:
                raise ParameterError("gains", "None unless soft=True", gains)
            keep = self.label >= 0
            vals = np.asarray(j.scale.values, np.int64)[self.label[keep]]
            relevance = pa.array(vals, pa.int64())
        table = pa.table(
            {
                "query_id": pa.array(j.topics[keep].tolist(), pa.string()),
                "doc_id": pa.array(j.documents[keep].tolist(), pa.string()),
                "relevance": relevance,
            }
        )
        return Qrels(table, source=f"aggregate({self.info.get('method')})", fractional=soft)

    def posterior_table(self) -> str:
        """TSV text: topic, document, label (empty if abstained), votes, then
        ``p_<value>`` per label of the scale."""
        j = self.judgments
        head = ["topic", "document", "label", "votes"] + [f"p_{v}" for v in j.scale.values]
        vals = self.values()
        rows = ["\t".join(head)]
        probs = [[repr(float(x)) for x in row] for row in self.posterior]
        for i in range(j.n_items):
            label = str(vals[i]) if self.label[i] >= 0 else ""
            rows.append(
                "\t".join([j.topics[i], j.documents[i], label, str(self.votes[i]), *probs[i]])
            )
        return "\n".join(rows) + "\n"


def _shares(j: Judgments) -> tuple[np.ndarray, np.ndarray]:
    counts = j.counts().astype(np.float64)
    votes = counts.sum(axis=1)
    return counts / votes[:, None], votes.astype(np.int64)


def _pick(scores: np.ndarray, ties: str, seed: int) -> np.ndarray:
    """Index of the largest score per row, ties broken by ``ties``."""
    if ties not in TIES:
        raise ParameterError("ties", "one of " + ", ".join(TIES), ties)
    top = np.isclose(scores, scores.max(axis=1, keepdims=True), rtol=0, atol=1e-12)
    k = scores.shape[1]
    if ties == "higher":
        return k - 1 - np.argmax(top[:, ::-1], axis=1)
    if ties == "lower":
        return np.argmax(top, axis=1)
    if ties == "random":
        noise = np.random.default_rng(seed).random(scores.shape)
        return np.argmax(np.where(top, noise, -1.0), axis=1)
    tied = top.sum(axis=1) > 1
    return np.where(tied, -1, np.argmax(top, axis=1))


def majority_vote(j: Judgments, ties: str = "random", seed: int = 0) -> Aggregate:
    """The most frequent label of each item.

    Ties: ``random`` (uniform among the tied labels, ``numpy.random.default_rng``),
    ``higher`` / ``lower`` (the higher or lower label on the scale), ``abstain`` (no
    label: the item is left out of the qrels).
    """
    share, votes = _shares(j)
    label = _pick(share, ties, seed)
    info = {"method": "majority", "ties": ties, "seed": seed}
    return Aggregate(j, label, share, votes, info)


def _graded(j: Judgments, method: str) -> None:
    if j.scale.level == "nominal":
        raise ParameterError("method", "majority or dawid-skene for a nominal scale", method)


def mean_label(j: Judgments) -> Aggregate:
    """The label on the scale nearest to the mean value of each item (ties: higher).
    ``info["mean"]`` holds the means (soft labels)."""
    _graded(j, "mean")
    share, votes = _shares(j)
    vals = np.asarray(j.scale.values, np.float64)
    mean = share @ vals
    dist = np.abs(mean[:, None] - vals[None, :])
    label = _pick(-dist, "higher", 0)
    return Aggregate(j, label, share, votes, {"method": "mean", "mean": mean})


def median_label(j: Judgments) -> Aggregate:
    """The lower median label of each item (a label on the scale)."""
    _graded(j, "median")
    share, votes = _shares(j)
    cum = np.cumsum(j.counts(), axis=1)
    half = (votes + 1) // 2  # the lower median is the ceil(m/2)-th smallest value
    label = np.argmax(cum >= half[:, None], axis=1)
    return Aggregate(j, label, share, votes, {"method": "median"})


def _clamp(t: np.ndarray, gold: np.ndarray | None) -> np.ndarray:
    """Posteriors of gold items set to their gold label (one-hot)."""
    if gold is None:
        return t
    has = gold >= 0
    t = t.copy()
    t[has] = 0.0
    t[np.flatnonzero(has), gold[has]] = 1.0
    return t


def _em_start(j: Judgments, gold, tolerance, max_iterations):
    """The checks and the start shared by the EM models: (vote shares with gold pairs
    clamped, votes per item, ``assessor * K + label`` per judgment)."""
    if not 0 <= tolerance < math.inf:
        raise ParameterError(
            "tolerance", "a number >= 0 (0: run exactly max_iterations)", tolerance
        )
    if int(max_iterations) != max_iterations or max_iterations < 1:
        raise ParameterError("max_iterations", "an integer >= 1", max_iterations)
    t, votes = _shares(j)
    return _clamp(t, gold), votes, j.assessor * j.scale.size + j.label


def _em(step, state, tolerance: float, max_iterations: int):
    """Iterate ``state, objective = step(state)`` until the objective (per judgment)
    changes by less than ``tolerance`` or ``max_iterations`` steps; returns the last
    state and the fit's ``info`` entries (iterations, converged, tolerance,
    max_iterations, log_likelihood). ``tolerance=0`` runs exactly ``max_iterations``
    steps (``converged`` is then None: not tested)."""
    value, iterations, converged = -np.inf, 0, False
    for iterations in range(1, int(max_iterations) + 1):  # noqa: B007
        state, new = step(state)
        if tolerance > 0 and abs(new - value) < tolerance:
            converged, value = True, new
            break
        value = new
    if tolerance == 0:
        converged = None
    fit = {
        "iterations": iterations,
        "converged": converged,
        "tolerance": tolerance,
        "max_iterations": int(max_iterations),
        "log_likelihood": float(value),
    }
    return state, fit


def dawid_skene(
    j: Judgments,
    *,
    gold: np.ndarray | None = None,
    tolerance: float = 1e-5,
    max_iterations: int = 100,
    ties: str = "higher",
    seed: int = 0,
) -> Aggregate:
    """Dawid & Skene (1979): EM for the true labels, class priors ``p_k`` and each
    assessor's confusion matrix ``pi[a, k, l] = P(a says l | true label k)``.

    Starts from the majority-vote shares ``T[u, k] = n_uk / m_u``; then repeats

    * M-step: ``p_k = mean_u T[u, k]``, ``pi[a, k, l] ∝ sum_{u: a gave l} T[u, k]``
      (entries floored at ``EPS`` before normalising, as crowd-kit does);
    * E-step: ``T[u, k] ∝ p_k prod_{(a, l) judging u} pi[a, k, l]`` (in logs),

    until the evidence lower bound per judgment
    ``(sum_u sum_k T[u,k] (log p_k + sum_(a,l) log pi[a,k,l]) + H(T)) / J`` rises by
    less than ``tolerance``, or ``max_iterations`` E-steps. ``gold`` (per item a label
    code, -1 for none) holds the posteriors of gold items at their label in every step.
    Every step is whole-array:
    ``bincount`` over judgments, no loop over items or assessors.
    """
    k, n_a = j.scale.size, j.n_assessors
    t, votes, key = _em_start(j, gold, tolerance, max_iterations)

    def m_step(t):
        priors = np.maximum(t.mean(axis=0), EPS)
        tj = t[j.item]  # (J, K)
        conf = np.stack(
            [np.bincount(key, weights=tj[:, c], minlength=n_a * k) for c in range(k)], axis=1
        ).reshape(n_a, k, k)  # (assessor, given label, true label)
        conf = np.maximum(conf, EPS)
        conf /= conf.sum(axis=1, keepdims=True)
        return priors, np.transpose(conf, (0, 2, 1))  # (assessor, true, given)

    def log_terms(priors, conf):
        lp = np.log(conf)[j.assessor, :, j.label]  # (J, K)
        per_item = np.stack(
            [np.bincount(j.item, weights=lp[:, c], minlength=j.n_items) for c in range(k)],
            axis=1,
        )
        return per_item + np.log(priors)[None, :]

    def step(state):
        _, priors, conf = state
        logits = log_terms(priors, conf)
        logits -= logits.max(axis=1, keepdims=True)
        t = np.exp(logits)
        t /= t.sum(axis=1, keepdims=True)
        t = _clamp(t, gold)
        priors, conf = m_step(t)
        joint = (t * log_terms(priors, conf)).sum()
        with np.errstate(divide="ignore", invalid="ignore"):
            entropy = -np.where(t > 0, t * np.log(np.where(t > 0, t, 1)), 0).sum()
        return (t, priors, conf), (joint + entropy) / len(j)

    (t, priors, conf), fit = _em(step, (t, *m_step(t)), tolerance, max_iterations)
    info = {"method": "dawid-skene", **fit, "priors": priors.tolist(), "confusion": conf}
    return Aggregate(j, _pick(t, ties, seed), t, votes, info)


def _digamma(x: np.ndarray) -> np.ndarray:
    """The digamma function ``psi(x)`` for ``x > 0``, whole-array (NumPy only, so MACE
    needs no SciPy): the recurrence ``psi(x) = psi(x + 10) - sum_{i<10} 1/(x + i)`` and
    the asymptotic series ``ln y - 1/(2y) - sum_n B_2n / (2n y^2n)`` at ``y = x + 10``
    to ``y^-12`` (Abramowitz & Stegun 1964, 6.3.5 and 6.3.18); within 4e-15 of
    ``scipy.special.digamma`` on (0, 1e12], relative where ``|psi| > 1`` (tested)."""
    x = np.asarray(x, dtype=np.float64)
    shift = sum(1.0 / (x + i) for i in range(10))
    y = x + 10.0
    inv = 1.0 / (y * y)
    series = inv * (
        1 / 12
        - inv * (1 / 120 - inv * (1 / 252 - inv * (1 / 240 - inv * (1 / 132 - inv * 691 / 32760))))
    )
    return np.log(y) - 0.5 / y - series - shift


MACE_FITS = ("vb", "em")
CLASS_PRIORS = ("learned", "uniform")


def _mace_fit(
    j,
    gold,
    start,
    *,
    fit,
    class_priors,
    alpha,
    beta,
    strategy_prior,
    smoothing,
    tolerance,
    max_iterations,
):
    """One MACE run from ``start = (log class priors, P(knowing), P(spamming), xi)``;
    returns (posteriors, parameters, log marginal likelihood, ``info`` entries)."""
    k, n_a = j.scale.size, j.n_assessors
    key = j.assessor * k + j.label

    def e_step(log_prior, know, spam, xi):
        spammed = spam[j.assessor] * xi[key]  # P(l | k) for k != l
        base = np.log(spammed)
        hit = np.log(spammed + know[j.assessor])  # P(l | k) for k == l
        logits = np.bincount(j.item, weights=base, minlength=j.n_items)[:, None] + np.bincount(
            j.item * k + j.label, weights=hit - base, minlength=j.n_items * k
        ).reshape(j.n_items, k)
        logits += log_prior
        top = logits.max(axis=1, keepdims=True)
        like = np.exp(logits - top)
        total = like.sum(axis=1, keepdims=True)
        return _clamp(like / total, gold), float((np.log(total) + top).sum())

    def m_step(t, know, spam, xi):
        spammed = spam[j.assessor] * xi[key]
        knowing = t[j.item, j.label] * know[j.assessor] / (spammed + know[j.assessor])
        n_know = np.bincount(j.assessor, weights=knowing, minlength=n_a)
        n_spam = np.bincount(j.assessor, weights=1 - knowing, minlength=n_a)
        counts = np.bincount(key, weights=1 - knowing, minlength=n_a * k).reshape(n_a, k)
        if fit == "em":
            know = (n_know + smoothing) / (n_know + n_spam + 2 * smoothing)
            spam = 1 - know
            xi = (counts + smoothing) / (counts.sum(axis=1, keepdims=True) + k * smoothing)
        else:  # variational Bayes: exp E[log parameter] under the Beta/Dirichlet posterior
            total = _digamma(n_know + n_spam + alpha + beta)
            know = np.exp(_digamma(n_know + beta) - total)
            spam = np.exp(_digamma(n_spam + alpha) - total)
            xi = np.exp(
                _digamma(counts + strategy_prior)
                - _digamma(counts.sum(axis=1, keepdims=True) + k * strategy_prior)
            )
        log_prior = (
            np.log((t.sum(axis=0) + 1) / (j.n_items + k))
            if class_priors == "learned"
            else np.full(k, -np.log(k))
        )
        return log_prior, know, spam, xi.ravel()

    def step(params):
        t, value = e_step(*params)
        return m_step(t, *params[1:]), value / len(j)

    params, info = _em(step, start, tolerance, max_iterations)
    t, value = e_step(*params)
    return t, params, value, info


def mace(
    j: Judgments,
    *,
    gold: np.ndarray | None = None,
    fit: str = "vb",
    class_priors: str = "learned",
    restarts: int = 10,
    alpha: float = 0.5,
    beta: float = 0.5,
    strategy_prior: float = 10.0,
    smoothing: float | None = None,
    tolerance: float = 1e-5,
    max_iterations: int = 100,
    ties: str = "higher",
    seed: int = 0,
) -> Aggregate:
    """MACE (Hovy, Berg-Kirkpatrick, Vaswani & Hovy 2013): each assessor is either
    knowing or spamming on each judgment.

    Model: the true label ``T_u`` has class priors ``p_k``; on each judgment assessor
    ``a`` knows the answer with probability ``theta_a`` (its *competence*) and gives
    ``T_u``; otherwise it spams, drawing its label from its own strategy ``xi_a``
    whatever the item. So ``P(label l | T_u = k) = theta_a [l = k] + (1 - theta_a)
    xi_a(l)``.

    Each run alternates an E-step, ``T[u, k] ∝ p_k prod_(a,l) P(l | k)`` and per
    judgment the expected knowing ``s = T[u, l] theta_a / (theta_a + (1 - theta_a)
    xi_a(l))``, with an M-step on the expected counts ``K_a = sum s``, ``S_a = sum (1 -
    s)``, ``C_al = sum (1 - s)`` over ``a``'s judgments with label ``l``:

    * ``fit="vb"`` (default): variational Bayes with a Beta(``alpha`` spamming, ``beta``
      knowing) prior on ``theta_a`` and a symmetric Dirichlet(``strategy_prior``) on
      ``xi_a``: ``theta_a = exp(psi(K_a + beta) - psi(K_a + S_a + alpha + beta))``,
      ``1 - theta_a`` likewise with ``alpha``, ``xi_a(l) = exp(psi(C_al + strategy_prior)
      - psi(sum_l C_al + K strategy_prior))`` (Hovy et al. 2013, sec. 2.2; the E-step
      uses these sub-normalised values);
    * ``fit="em"``: EM with ``smoothing`` (default ``0.01 / K``) added to every count.

    ``class_priors="learned"`` (default) re-estimates ``p_k = (sum_u T[u, k] + 1) / (n
    + K)`` in each M-step; ``"uniform"`` keeps Hovy et al.'s ``p_k = 1/K``, which loses
    to majority vote when one label dominates the items. ``restarts`` runs: the first
    starts from parameters read off the majority-vote shares (class priors: their
    means; competence: the assessor's mean share of the label it gave, clipped to
    [0.05, 0.95]; uniform strategies), the others from random parameters (uniform on
    [1, 2.5], normalised, from ``numpy.random.default_rng(seed)``); the run with the
    highest log marginal likelihood is kept. A run stops when the log marginal
    likelihood per judgment changes by less than ``tolerance`` (0: run exactly
    ``max_iterations``). ``info["competence"]`` holds ``theta`` per assessor (a
    spammer's is near 0), ``info["strategy"]`` ``xi`` and ``info["priors"]`` ``p``.
    """
    if fit not in MACE_FITS:
        raise ParameterError("fit", "one of " + ", ".join(MACE_FITS), fit)
    if class_priors not in CLASS_PRIORS:
        raise ParameterError("class_priors", "one of " + ", ".join(CLASS_PRIORS), class_priors)
    if isinstance(restarts, bool) or not isinstance(restarts, int) or not 1 <= restarts <= 1000:
        raise ParameterError("restarts", "an integer in [1, 1000]", restarts)
    k, n_a = j.scale.size, j.n_assessors
    smoothing = 0.01 / k if smoothing is None else smoothing
    for name, value in (("alpha", alpha), ("beta", beta), ("strategy_prior", strategy_prior)):
        if not (isinstance(value, (int, float)) and 0 < value < math.inf):
            raise ParameterError(name, "a number > 0", value)
    if not (isinstance(smoothing, (int, float)) and 0 < smoothing < math.inf):
        raise ParameterError("smoothing", "a number > 0 (0 makes a label impossible)", smoothing)
    t, votes, _ = _em_start(j, gold, tolerance, max_iterations)
    rng = np.random.default_rng(seed)
    options = {
        "fit": fit,
        "class_priors": class_priors,
        "alpha": alpha,
        "beta": beta,
        "strategy_prior": strategy_prior,
        "smoothing": smoothing,
        "tolerance": tolerance,
        "max_iterations": max_iterations,
    }
    uniform = np.full(k, -np.log(k))
    best = None
    for run in range(restarts):  # a handful of whole-array fits, not a loop over items
        if run == 0:
            log_prior = (
                np.log(np.maximum(t.mean(axis=0), EPS)) if class_priors == "learned" else uniform
            )
            knowing = np.clip(t[j.item, j.label], EPS, 1 - EPS)
            know = np.bincount(j.assessor, weights=knowing, minlength=n_a) / np.maximum(
                np.bincount(j.assessor, minlength=n_a), 1
            )
            start = (
                log_prior,
                np.clip(know, 0.05, 0.95),
                1 - np.clip(know, 0.05, 0.95),
                np.full(n_a * k, 1 / k),
            )
        else:
            s = rng.uniform(1, 2.5, (n_a, 2))
            x = rng.uniform(1, 2.5, (n_a, k))
            s /= s.sum(axis=1, keepdims=True)
            x /= x.sum(axis=1, keepdims=True)
            start = (uniform, s[:, 1], s[:, 0], x.ravel())
        post, params, value, fit_info = _mace_fit(j, gold, start, **options)
        if best is None or value > best[2]:
            best = (post, params, value, {**fit_info, "restart": run})
    post, (log_prior, know, spam, xi), value, fit_info = best
    info = {
        "method": "mace",
        **fit_info,
        "log_likelihood": value / len(j),
        "fit": fit,
        "class_priors": class_priors,
        "restarts": restarts,
        "priors": np.exp(log_prior).tolist(),
        "competence": (know / (know + spam)).tolist(),
        "strategy": (xi.reshape(n_a, k) / xi.reshape(n_a, k).sum(axis=1, keepdims=True)).tolist(),
    }
    return Aggregate(j, _pick(post, ties, seed), post, votes, info)


def aggregate(j: Judgments, method: str = "majority", *, gold=None, **options) -> Aggregate:
    """Dispatch by name: ``majority``, ``mean``, ``median``, ``dawid-skene`` or ``mace``.

    ``gold`` (a qrels file or Qrels): pairs whose true label is known. Dawid–Skene and
    MACE hold their posteriors at the gold label in every EM step (so the gold pairs
    calibrate the assessors' models, as crowd-kit's ``true_labels`` do); every method
    outputs the gold label for them. ``info["gold_pairs"]`` counts them.
    """
    if method not in METHODS:
        raise ParameterError("method", "one of " + ", ".join(METHODS), method)
    codes = None if gold is None else j.gold_codes(gold)
    if method == "majority":
        result = majority_vote(j, **options)
    elif method == "mean":
        result = mean_label(j)
    elif method == "median":
        result = median_label(j)
    elif method == "dawid-skene":
        result = dawid_skene(j, gold=codes, **options)
    else:
        result = mace(j, gold=codes, **options)
    if codes is not None:
        has = codes >= 0
        result.label = np.where(has, codes, result.label)
        if method in ("majority", "mean", "median"):
            result.posterior = _clamp(result.posterior, codes)
        result.info["gold_pairs"] = int(has.sum())
    return result
