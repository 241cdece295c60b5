"""Estimation of every click model: closed-form maximum likelihood or EM.

Each ``fit_*`` takes the training log, its :class:`~.models.Pairs` and the EM options
and returns ``(Params, iterations, converged, trace)``; ``trace`` is the training
log-likelihood (natural log, summed over every shown rank of every session) after each
EM iteration (empty for closed forms). EM stops when an iteration raises it by less
than ``tol`` times its magnitude, or after ``max_iter`` iterations; ``tol = 0`` runs
exactly ``max_iter`` iterations.

Every probability is smoothed with a Beta prior given as pseudo-counts ``prior = (a,
b)``: ``a`` clicks (or events) in ``b`` impressions (or opportunities) are added to
each estimate, ``(k + a) / (n + b)``. PyClick starts every parameter at one click in
two impressions, ``(1, 2)``, the default (:data:`PYCLICK_PRIOR`); ``(0, 0)`` is plain
maximum likelihood. EM adds the pseudo-counts in every M-step (the MAP estimate under
the prior, as PyClick's ``ParamEM`` does) and caps EM parameters at ``1 - 1e-6``
(:data:`CAP`, PyClick's ``PROB_MIN``).

Formulas: Chuklin, Markov & de Rijke (2015), *Click Models for Web Search*, ch. 3-4.
"""

from __future__ import annotations

from .._lazy import lazy
from .log import ClickLog
from .models import (
    DEFAULT,
    Matrices,
    Params,
    click_probabilities,
    first_click,
    last_click,
    per_pair,
    previous_click,
    ratio,
    through,
    weighted_sum,
)
from .tails import Tails, dot, ext

np = lazy("numpy", __name__, "np")

EPS = 1e-10
"""Probabilities are clipped to ``[EPS, 1 - EPS]`` before taking logarithms."""

PYCLICK_PRIOR = (1.0, 2.0)
"""The default pseudo-counts ``(a, b)``: one click in two impressions, PyClick's start
for every parameter (Beta(2, 2)'s mode, Beta(1, 1)'s mean)."""

MAX_ITER = 50
"""The default EM iteration count: PyClick's fixed ``EMInference.ITERATION_NUM``. Run to
convergence under the (1, 2) prior, PBM and UBM fit the training log a little more
closely and score a little worse on held-out sessions (docs/clicks.md)."""

TOL = 0.0
"""The default EM tolerance: none, EM runs exactly :data:`MAX_ITER` iterations as
PyClick does (a tolerance of 1e-6 stops DBN after 25-30 iterations on logs of
PyClick's shape, which scores about 1e-6 worse on held-out sessions)."""

CAP = 1 - 1e-6
"""The largest value of an EM parameter (PyClick's ``ParamEM.PROB_MIN``): a posterior
of ``P(A = 1 | C = 0)`` then never divides by 0."""


def smooth(num, den, prior=PYCLICK_PRIOR, default: float = DEFAULT) -> np.ndarray:
    """``(num + a) / (den + b)`` with ``prior = (a, b)``; ``default`` where ``den + b``
    is 0 (no data and no prior)."""
    a, b = prior
    return ratio(np.asarray(num, dtype=float) + a, np.asarray(den, dtype=float) + b, default)


def em_smooth(num, den, prior=PYCLICK_PRIOR) -> np.ndarray:
    """An EM M-step's value: :func:`smooth`, capped at :data:`CAP`."""
    return np.minimum(smooth(num, den, prior), CAP)


def log_likelihood_matrix(name: str, params: Params, index, log: ClickLog) -> np.ndarray:
    """``log P(C_r = c_r | C_<r)`` for every shown rank (0 elsewhere), ``n x K``."""
    m = Matrices(params, index, log)
    p = np.clip(click_probabilities(name, m, True), EPS, 1 - EPS)
    return np.where(log.shown, np.where(log.clicks, np.log(p), np.log1p(-p)), 0.0)


def _rank_sum(pairs, values, mask) -> np.ndarray:
    return weighted_sum(pairs, values, mask, axis=0)


# ------------------------------------------------------------------ closed forms
def fit_gctr(log, pairs, prior=PYCLICK_PRIOR, **_):
    """``rho = (clicks + a) / (impressions + b)`` over all ranks."""
    ctr = smooth(weighted_sum(pairs, log.clicks), weighted_sum(pairs, log.shown), prior)
    return Params(scalar={"ctr": float(ctr)}), 0, True, []


def fit_rctr(log, pairs, prior=PYCLICK_PRIOR, **_):
    """``rho_r = (clicks at r + a) / (sessions showing rank r + b)``."""
    rho = smooth(_rank_sum(pairs, log.clicks, True), _rank_sum(pairs, log.shown, True), prior)
    return Params(rank={"ctr": rho}), 0, True, []


def fit_dctr(log, pairs, prior=PYCLICK_PRIOR, **_):
    """``rho_qd = (clicks on (q, d) + a) / (impressions of (q, d) + b)``."""
    alpha = smooth(per_pair(pairs, log.clicks.astype(float)), pairs.impressions, prior)
    return Params(pair={"attractiveness": alpha}), 0, True, []


def fit_cm(log, pairs, prior=PYCLICK_PRIOR, **_):
    """Cascade model: ``alpha_qd = (first clicks on (q, d) + a) / (times (q, d) was shown
    at or above the first click + b)`` (all ranks when there is none); later clicks are
    ignored."""
    seen = through(log.max_rank, first_click(log.clicks)).astype(float)
    first = (log.clicks & (np.cumsum(log.clicks, axis=1) == 1)).astype(float)
    alpha = smooth(per_pair(pairs, first), per_pair(pairs, seen), prior)
    return Params(pair={"attractiveness": alpha}), 0, True, []


def _above_last(log, pairs, prior):
    seen = through(log.max_rank, last_click(log.clicks))
    clicks = per_pair(pairs, log.clicks.astype(float))
    return smooth(clicks, per_pair(pairs, seen.astype(float)), prior)


def fit_dcm(log, pairs, prior=PYCLICK_PRIOR, **_):
    """DCM, the book's approximate MLE: ``alpha_qd`` = clicks over impressions at or
    above the last click (all ranks without clicks); ``lambda_r = (clicks at r that are
    not the session's last + a) / (clicks at r + b)``."""
    last = last_click(log.clicks)
    is_last = np.arange(log.max_rank)[None, :] == last[:, None]
    clicks_at = _rank_sum(pairs, log.clicks, True)
    lam = smooth(clicks_at - _rank_sum(pairs, is_last, True), clicks_at, prior)
    alpha = _above_last(log, pairs, prior)
    return (
        Params(pair={"attractiveness": alpha}, rank={"continuation": lam}),
        0,
        True,
        [],
    )


def fit_sdbn(log, pairs, prior=PYCLICK_PRIOR, **_):
    """Simplified DBN (gamma = 1): ``alpha_qd`` as DCM's; ``sigma_qd = (last clicks on
    (q, d) + a) / (clicks on (q, d) + b)``."""
    last = last_click(log.clicks)
    is_last = (np.arange(log.max_rank)[None, :] == last[:, None]).astype(float)
    sigma = smooth(per_pair(pairs, is_last), per_pair(pairs, log.clicks.astype(float)), prior)
    alpha = _above_last(log, pairs, prior)
    return (
        Params(pair={"attractiveness": alpha, "satisfaction": sigma}),
        0,
        True,
        [],
    )


# ------------------------------------------------------------------ EM
def _init(rng, shape):
    if rng is None:
        return np.full(shape, DEFAULT)
    return rng.uniform(0.25, 0.75, size=shape)


def run_em(params, step, tol, max_iter):
    """The EM loop (Dempster, Laird & Rubin, 1977) of every click model, local or on
    Dask: ``step(p)`` returns the updated parameters and the (weighted) training
    log-likelihood of ``p``, computed with the E-step; the loop stops when an iteration
    raises the log-likelihood by at most ``tol`` (:func:`_stops`) or after ``max_iter``.

    Returns ``(params, iterations, converged, trace)``, ``trace`` the log-likelihood
    before each iteration and after the last."""
    trace = []
    converged = False
    it = 0
    new, ll = step(params)
    trace.append(ll)
    while it < max_iter:
        params = new
        it += 1
        new, ll = step(params)
        trace.append(ll)
        if _stops(trace, tol):
            converged = True
            break
    return params, it, converged, trace


def _stops(trace: list, tol: float) -> bool:
    """EM's stopping rule: the last iteration raised the log-likelihood by at most
    ``tol`` times its magnitude; never with ``tol = 0`` (exactly ``max_iter``)."""
    return tol > 0 and trace[-1] - trace[-2] <= tol * abs(trace[-1])


def _log(x):
    return np.log(np.maximum(x, 1e-300))


def em_cells(log, pairs, exam_cell: np.ndarray, n_exam: int):
    """The distinct (pair, examination cell, click) cells of a log and their weights:
    ``(pair, exam, click, weight)``, sorted by cell. They are the sufficient statistics
    of PBM and UBM (:func:`cells_em`); cells of several logs add up
    (:mod:`cranfield.distributed.clicks`)."""
    shown = pairs.shown
    key = (pairs.index[shown] * n_exam + exam_cell[shown]) * 2 + log.clicks[shown]
    uniq, inverse = np.unique(key, return_inverse=True)
    weight = np.bincount(inverse, weights=pairs.cell_weight[shown])
    click = (uniq % 2).astype(bool)
    exam = (uniq // 2) % n_exam
    pair = uniq // 2 // n_exam
    return pair, exam, click, weight


def _cells_em(log, pairs, exam_cell: np.ndarray, n_exam: int, tol, max_iter, rng, prior):
    """EM of ``P(C = 1) = alpha_qd gamma_e`` (PBM: ``e`` = rank; UBM: ``e`` = (rank,
    previous-click rank)) on the distinct (pair, e, click) cells with their counts."""
    pair, exam, click, weight = em_cells(log, pairs, exam_cell, n_exam)
    return cells_em(
        pair, exam, click, weight, pairs.n, n_exam, pairs.impressions, tol, max_iter, rng, prior
    )


def cells_em(
    pair, exam, click, weight, n_pairs, n_exam, impressions, tol, max_iter, rng, prior=PYCLICK_PRIOR
):
    """EM of ``P(C = 1) = alpha_qd gamma_e`` on cells (:func:`em_cells`).

    The posteriors depend on a cell only: a click has ``A = E = 1``; a skip has
    ``P(A=1 | C=0) = alpha (1-gamma) / (1 - alpha gamma)`` and ``P(E=1 | C=0) =
    gamma (1-alpha) / (1 - alpha gamma)``. The log-likelihood of the parameters before
    each update comes with its E-step.
    """
    exam_total = np.bincount(exam, weights=weight, minlength=n_exam)
    # clicks have posteriors 1: their sums are fixed; only the skip cells change
    click_a = np.bincount(pair[click], weights=weight[click], minlength=n_pairs)
    click_e = np.bincount(exam[click], weights=weight[click], minlength=n_exam)
    c_pair, c_exam, c_weight = pair[click], exam[click], weight[click]
    s_pair, s_exam, s_weight = pair[~click], exam[~click], weight[~click]
    alpha = _init(rng, n_pairs)
    gamma = _init(rng, n_exam)

    def e_step(alpha, gamma):
        pc = np.clip(alpha[c_pair] * gamma[c_exam], EPS, 1 - EPS)
        a, g = alpha[s_pair], gamma[s_exam]
        ag = a * g
        ps = np.clip(ag, EPS, 1 - EPS)
        ll = dot(c_weight, np.log(pc)) + dot(s_weight, np.log1p(-ps))
        den = 1 - ag
        post_a = ratio(a - ag, den, 0.0)
        post_e = ratio(g - ag, den, 0.0)
        return ll, post_a, post_e

    trace = []
    converged = False
    it = 0
    ll, post_a, post_e = e_step(alpha, gamma)
    trace.append(ll)
    while it < max_iter:
        num_a = click_a + np.bincount(s_pair, weights=s_weight * post_a, minlength=n_pairs)
        num_e = click_e + np.bincount(s_exam, weights=s_weight * post_e, minlength=n_exam)
        alpha = em_smooth(num_a, impressions, prior)
        gamma = em_smooth(num_e, exam_total, prior)
        it += 1
        ll, post_a, post_e = e_step(alpha, gamma)
        trace.append(ll)
        if _stops(trace, tol):
            converged = True
            break
    return alpha, gamma, it, converged, trace


class CellsEM:
    """How a model of ``P(C = 1) = alpha_qd gamma_e`` names its examination cells ``e``
    (PBM: the rank; UBM: the rank and the previous click's rank): its EM is
    :func:`cells_em`, locally (:func:`fit_cells`) and over partitions
    (:mod:`cranfield.distributed.clicks`).

    ``cell(rank, prev, k)`` is the cell of a 0-based ``rank`` after a click at 1-based
    ``prev`` (0: none) in a log of ``k`` ranks, ``n_cells(k)`` their number, and
    ``examination(gamma, k)`` the per-cell values as the model's rank parameter."""

    def __init__(self, cell, n_cells, examination):
        self.cell, self.n_cells, self.examination = cell, n_cells, examination


def fit_cells(em: CellsEM, log, pairs, tol=TOL, max_iter=MAX_ITER, rng=None, prior=PYCLICK_PRIOR):
    """EM of a cells model (:class:`CellsEM`) on one log."""
    k = log.max_rank
    ranks = np.broadcast_to(np.arange(k)[None, :], log.docs.shape)
    cell = em.cell(ranks, previous_click(log.clicks), k)
    alpha, gamma, it, converged, trace = _cells_em(
        log, pairs, cell, em.n_cells(k), tol, max_iter, rng, prior
    )
    params = Params(pair={"attractiveness": alpha}, rank={"examination": em.examination(gamma, k)})
    return params, it, converged, trace


PBM_EM = CellsEM(lambda rank, prev, k: rank, lambda k: k, lambda gamma, k: gamma)
"""PBM's cells: ``gamma_r``, one per rank."""

UBM_EM = CellsEM(
    lambda rank, prev, k: rank * (k + 1) + prev,
    lambda k: k * (k + 1),
    lambda gamma, k: gamma.reshape(k, k + 1),
)
"""UBM's cells: ``gamma_{r r'}``, rank x previous-click rank (0..K)."""


def fit_pbm(log, pairs, tol=TOL, max_iter=MAX_ITER, rng=None, prior=PYCLICK_PRIOR):
    """PBM by EM: ``P(C_r=1) = alpha_qd gamma_r``."""
    return fit_cells(PBM_EM, log, pairs, tol, max_iter, rng, prior)


def fit_ubm(log, pairs, tol=TOL, max_iter=MAX_ITER, rng=None, prior=PYCLICK_PRIOR):
    """UBM by EM: ``P(C_r=1 | C_<r) = alpha_qd gamma_{r r'}``, ``r'`` the rank of the
    previous click (0 when none)."""
    return fit_cells(UBM_EM, log, pairs, tol, max_iter, rng, prior)


class Sums:
    """The expected sufficient statistics of one E-step: for each parameter, the
    numerator and denominator its M-step divides (``pair``: per-pair arrays;
    ``scalar``: floats), and the log-likelihood of the parameters the E-step used.
    Sums of several logs add up, term by term (:mod:`cranfield.distributed.clicks`)."""

    def __init__(self, pair: dict, scalar: dict, ll: float):
        self.pair, self.scalar, self.ll = pair, scalar, ll


def m_step(sums: Sums, prior=PYCLICK_PRIOR) -> Params:
    """The M-step of DBN and CCM: every parameter is its numerator over its
    denominator, smoothed and capped (:func:`em_smooth`)."""
    return Params(
        pair={name: em_smooth(num, den, prior) for name, (num, den) in sums.pair.items()},
        scalar={
            name: float(em_smooth(num, den, prior)) for name, (num, den) in sums.scalar.items()
        },
    )


class TailsEM:
    """The EM of a model whose E-step reads the ranks after the last click (DBN, CCM):
    ``prepare(log, pairs) -> data``, ``e_step(data, params) -> Sums`` and ``start(n_pairs,
    rng) -> Params``; shared by the local fit (:func:`tails_em`) and the per-partition
    E-step on Dask (:mod:`cranfield.distributed.clicks`)."""

    def __init__(self, prepare, e_step, start):
        self.prepare, self.e_step, self.start = prepare, e_step, start


def tails_em(em: TailsEM, log, pairs, tol=TOL, max_iter=MAX_ITER, rng=None, prior=PYCLICK_PRIOR):
    """EM of DBN or CCM on one log: the E-step of ``em`` on the log's
    :class:`~.tails.Tails`, then :func:`m_step`."""
    data = em.prepare(log, pairs)

    def step(p):
        sums = em.e_step(data, p)
        return m_step(sums, prior), sums.ll

    return run_em(em.start(pairs.n, rng), step, tol, max_iter)


def dbn_data(log, pairs):
    """What DBN's E-step reads of a log: its tails and the pairs' impressions."""
    return Tails(log, pairs), pairs.impressions


def dbn_start(n_pairs: int, rng) -> Params:
    """DBN's starting parameters (0.5, or drawn with ``rng``)."""
    return Params(
        pair={"attractiveness": _init(rng, n_pairs), "satisfaction": _init(rng, n_pairs)},
        scalar={"gamma": float(_init(rng, ()))},
    )


def dbn_e_step(data, p: Params) -> Sums:
    """DBN's E-step on one log (:func:`dbn_data`) for the parameters ``p``.

    Every rank up to the last click ``l`` was examined, every click before ``l`` was
    unsatisfying. With ``z_r`` the probability of no click from an examined rank ``r``
    on, ``P(S_l = 1 | clicks) = sigma / (sigma + (1 - sigma)(1 - gamma + gamma z_{l+1}))``
    and the examination posterior after ``l`` is ``eps_{l+1} = (1 - P(S_l = 1)) gamma
    z_{l+1} / (1 - gamma + gamma z_{l+1})``, then ``eps_r = eps_{r-1} gamma z_r / (1 -
    gamma + gamma z_r)``. Only the ranks after ``l`` are recomputed in each iteration
    (:class:`~.tails.Tails`).
    """
    t, impressions = data
    clicks_total = t.click_sum
    a_ext = ext(p.pair["attractiveness"])
    s_ext = ext(p.pair["satisfaction"])
    g = p.scalar["gamma"]
    a = t.gather(a_ext)
    zl, z0 = t.backward(a, g)
    q = (1 - g) + g * zl
    sl = s_ext[t.l_pair]
    al = a_ext[t.l_pair]
    post_s_last = ratio(sl, sl + (1 - sl) * q, 0.0)
    start = (1 - post_s_last) * ratio(g * zl, q, 0.0)
    _, attr, nxt_eps, below_eps, _ = t.forward(start, a)
    sat = np.bincount(t.l_pair, t.l_w * post_s_last, t.n_pairs + 1)[: t.n_pairs]
    opportunities = t.nxt_before + dot(t.l_w_nxt, 1 - post_s_last) + nxt_eps
    continues = t.nxt_before + below_eps
    cb, sb = t.cb_at, t.sb_at
    ll = (
        dot(t.clicks_before[cb], _log(a_ext[cb] * (g * (1 - s_ext[cb]))))
        + dot(t.skips_before[sb], _log((1 - a_ext[sb]) * g))
        + dot(t.l_w, _log(al) + _log(sl + (1 - sl) * q))
        + dot(t.none_w, _log(z0))
    )
    return Sums(
        pair={
            "attractiveness": (clicks_total + attr, impressions),
            "satisfaction": (sat, clicks_total),
        },
        scalar={"gamma": (continues, opportunities)},
        ll=float(ll),
    )


def fit_dbn(log, pairs, tol=TOL, max_iter=MAX_ITER, rng=None, prior=PYCLICK_PRIOR):
    """DBN by EM (one continuation probability ``gamma``): :func:`dbn_e_step`, then
    :func:`m_step`."""
    return tails_em(DBN_EM, log, pairs, tol, max_iter, rng, prior)


def ccm_data(log, pairs):
    """What CCM's E-step reads of a log: its tails and the denominators of
    ``alpha`` (impressions plus the clicks followed by a shown rank: the coins)."""
    shown, clicks = log.shown, log.clicks
    nxt = np.zeros_like(shown)
    nxt[:, :-1] = shown[:, 1:]
    coin = clicks & nxt
    return Tails(log, pairs), pairs.impressions + per_pair(pairs, np.ones(shown.shape), coin)


def ccm_start(n_pairs: int, rng) -> Params:
    """CCM's starting parameters (0.5, or drawn with ``rng``)."""
    return Params(
        pair={"attractiveness": _init(rng, n_pairs)},
        scalar={t: float(_init(rng, ())) for t in ("tau1", "tau2", "tau3")},
    )


def ccm_e_step(data, p: Params) -> Sums:
    """CCM's E-step on one log (:func:`ccm_data`) for the parameters ``p``.

    After a click the user goes on with ``tau2 (1 - alpha) + tau3 alpha``; EM treats
    this as a hidden coin ``B ~ Bernoulli(alpha)`` choosing ``tau3`` (B = 1) or ``tau2``,
    which leaves the likelihood unchanged; ``alpha`` is re-estimated from the
    attractiveness and the coin posteriors together. Before the last click the coin
    posterior is ``alpha tau3 / (tau2 (1 - alpha) + tau3 alpha)``, a function of the
    pair: those ranks are summed per pair once; only the ranks after the last click are
    recomputed in each iteration (:class:`~.tails.Tails`).
    """
    t, den_alpha = data
    n = t.n_pairs
    cb = t.coins_before
    ln = t.l_nxt
    alpha_p = p.pair["attractiveness"]
    a_ext = ext(alpha_p)
    t1, t2, t3 = (p.scalar[name] for name in ("tau1", "tau2", "tau3"))
    a = t.gather(a_ext)
    zl, z0 = t.backward(a, t1)
    al = a_ext[t.l_pair]
    cl = t2 * (1 - al) + t3 * al
    q = (1 - cl) + cl * zl
    _, attr, nxt_eps, _, ahead = t.forward(ratio(cl * zl, q, 0.0), a)
    cc = t2 * (1 - a_ext) + t3 * a_ext
    bb = ratio(a_ext * t3, cc, 0.0)[:n]
    b_last = ratio(al * ((1 - t3) + t3 * zl), q, 0.0)
    b1_last = ratio(al * t3 * zl, q, 0.0)
    b0_last = ratio((1 - al) * t2 * zl, q, 0.0)
    w_ln = t.l_w[ln]
    coin_last = np.bincount(t.l_pair[ln], w_ln * b_last[ln], n + 1)[:n]
    num = t.click_sum + attr + cb * bb + coin_last
    b_sum, nb_sum = dot(cb, bb), dot(cb, 1 - bb)
    ca, sa = t.cb_at, t.sb_at
    ll = (
        dot(t.clicks_before[ca], _log(a_ext[ca] * cc[ca]))
        + dot(t.skips_before[sa], _log((1 - a_ext[sa]) * t1))
        + dot(t.l_w, _log(al) + _log(q))
        + dot(t.none_w, _log(z0))
    )
    return Sums(
        pair={"attractiveness": (num, den_alpha)},
        scalar={
            "tau1": (t.skip_nxt_before + ahead, t.skip_nxt_before + nxt_eps),
            "tau2": (nb_sum + dot(w_ln, b0_last[ln]), nb_sum + dot(w_ln, 1 - b_last[ln])),
            "tau3": (b_sum + dot(w_ln, b1_last[ln]), b_sum + dot(w_ln, b_last[ln])),
        },
        ll=float(ll),
    )


def fit_ccm(log, pairs, tol=TOL, max_iter=MAX_ITER, rng=None, prior=PYCLICK_PRIOR):
    """CCM by EM: :func:`ccm_e_step`, then :func:`m_step`."""
    return tails_em(CCM_EM, log, pairs, tol, max_iter, rng, prior)


DBN_EM = TailsEM(dbn_data, dbn_e_step, dbn_start)
CCM_EM = TailsEM(ccm_data, ccm_e_step, ccm_start)
