"""Interleaving and multileaving: one result list from two (or more) rankers, and the
credit each ranker earns from the clicks on it.

Methods (``rankings`` give each ranker's documents in rank order):

* **balanced** (Joachims 2002, "Optimizing search engines using clickthrough data",
  KDD): a coin picks which ranker goes first; the list then takes documents from the
  two rankings in turn, each keeping a pointer, the ranker whose pointer is behind
  (or, at equal pointers, the one that went first) contributing its next document
  unless it is already in the list. Credit: with ``l`` the lowest clicked position of
  the list and ``k`` the smaller of its document's ranks in A and B, ``h_A`` (``h_B``)
  is the number of clicked documents in A's (B's) top ``k``; the ranker with more wins.
* **team-draft** (Radlinski, Kurup & Joachims 2008, "How does clickthrough data reflect
  retrieval quality?", CIKM): the ranker with the smaller team, or a coin when the
  teams are equal, adds its highest-ranked document not yet in the list to its team;
  each click credits the clicked document's team.
* **probabilistic** (Hofmann, Whiteson & de Rijke 2011, "A probabilistic method for
  inferring preferences from clicks", CIKM): each ranker is a softmax over its
  ranking, ``P_s(d) ∝ 1 / rank_s(d)^tau`` (``tau = 3``); for each position a coin
  picks a ranker, which draws a document from its softmax over the documents not yet
  in the list. The credit is *marginalised* over the coins: since the removed
  documents are the list's prefix whichever ranker drew them, the posterior of the
  coins given the list factorises over positions, ``P(a_r = A | L) = p_A(l_r) / (p_A(l_r)
  + p_B(l_r))`` with ``p_s`` the softmax of ``s`` renormalised over the documents not in
  ``L[:r]``; the number of clicks credited to A is then Poisson-binomial and the score
  is ``P(A gets more clicks) - P(B gets more clicks)``.
* **team-draft multileaving** (Schuth, Sietsma, Whiteson, Lefortier & de Rijke 2014,
  "Multileaved comparisons for fast online evaluation", CIKM): team-draft with any
  number of rankers: among the rankers with the smallest team one chosen uniformly at
  random adds its next document. With two rankers it is team-draft itself.

A ranker whose ranking is used up no longer contributes; the others go on (balanced:
the other pointer goes on; probabilistic: the other ranker draws, and the position's
coin posterior is then 1/2). Balanced and probabilistic interleaving are whole-array
NumPy over impressions (Python loops run over list positions only); team-draft walks
each impression in the engine (``_engine.team_draft_lists``, rust/engine/src/
interleave.rs) with random keys NumPy draws, one ``n x R`` matrix per position. All
randomness comes from ``numpy.random.default_rng(seed)``.

Outcomes: per impression ``+1`` (A wins), ``-1`` (B wins) or ``0`` (tie, e.g. no
click); the test over impressions is the two-sided sign test on the decisive
impressions (ties left out) with the Clopper–Pearson interval of A's share of them,
and Chapelle, Joachims, Radlinski & Yue (2012)'s ``delta = (wins_A + ties / 2) / n -
1/2``. See docs/online.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import distributions
from ..errors import ParameterError

METHODS = ("balanced", "team-draft", "probabilistic")
TAU = 3.0
"""The softmax exponent of probabilistic interleaving (Hofmann et al. 2011)."""


@dataclass(frozen=True, eq=False)
class Interleaved:
    """Interleaved lists of ``n`` impressions (``K`` positions, ``R`` rankers).

    ``docs`` (``n x K``): document codes, ``-1`` after the end of a shorter list;
    ``team`` (``n x K``): the ranker that contributed each document (balanced: the
    ranker whose pointer added it; probabilistic: the ranker the coin picked), ``-1``
    in the padding; ``ranks`` (``n x R x K``): each shown document's 1-based rank in
    each ranking, 0 where that ranking does not hold it; ``prob_a`` (probabilistic
    only, ``n x K``): the coin posterior ``P(a_r = A | list)``.
    """

    method: str
    docs: np.ndarray
    team: np.ndarray
    ranks: np.ndarray
    prob_a: np.ndarray | None = None

    @property
    def n_rankers(self) -> int:
        return int(self.ranks.shape[1])

    @property
    def shown(self) -> np.ndarray:
        return self.docs >= 0


@dataclass(frozen=True, eq=False)
class Credit:
    """Credit of each impression: ``credits`` (``n x R``: clicks credited to each
    ranker; probabilistic: expected clicks under the coin posterior), ``score`` (``n``:
    ``credits_A - credits_B`` for balanced and team-draft; ``P(A wins) - P(B wins)``
    for probabilistic; 0 with more than two rankers, whose comparison is
    :func:`preferences`) and ``outcome`` (``n``: the sign of ``score``, ``+1`` A wins,
    ``-1`` B wins, ``0`` tie)."""

    credits: np.ndarray
    score: np.ndarray
    outcome: np.ndarray


# ------------------------------------------------------------------ input checking
def _int(value, name, low, high):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ParameterError(name, f"an integer in [{low}, {high}]", value)
    if not low <= int(value) <= high:
        raise ParameterError(name, f"an integer in [{low}, {high}]", value)
    return int(value)


def check_rankings(rankings, n_rankers: int | None = None) -> np.ndarray:
    """``rankings`` as an ``R x M`` or ``n x R x M`` int64 array, checked: codes >= 0,
    ``-1`` only after a ranking's last document, no document twice in one ranking."""
    try:
        arr = np.asarray(rankings)
    except (ValueError, TypeError):
        raise ParameterError("rankings", "an R x M or n x R x M integer array", "ragged") from None
    if arr.ndim not in (2, 3) or arr.size == 0 or not np.issubdtype(arr.dtype, np.integer):
        raise ParameterError(
            "rankings", "an R x M or n x R x M integer array", f"shape {arr.shape} {arr.dtype}"
        )
    arr = arr.astype(np.int64)
    if n_rankers is not None and arr.shape[-2] != n_rankers:
        raise ParameterError("rankings", f"{n_rankers} rankings", arr.shape[-2])
    if arr.shape[-2] < 2:
        raise ParameterError("rankings", "at least 2 rankings", arr.shape[-2])
    if (arr < -1).any():
        raise ParameterError("rankings", "document codes >= 0 (-1 as padding)", int(arr.min()))
    valid = arr >= 0
    if (valid[..., 1:] & ~valid[..., :-1]).any():
        raise ParameterError("rankings", "padding (-1) only after a ranking's documents", "a gap")
    s = np.sort(arr, axis=-1)
    if ((s[..., 1:] == s[..., :-1]) & (s[..., 1:] >= 0)).any():
        raise ParameterError("rankings", "no document twice in one ranking", "a repeat")
    return arr


def _prepare(rankings, impressions, n_rankers: int | None, cut: int | None):
    """Checked rankings, renumbered once per ranking set (:class:`_Sets`).

    ``impressions``: with ``R x M`` rankings, how many impressions (default 1); with
    ``G x R x M`` ranking sets, ``None`` (one impression each) or an integer array
    giving each impression's set (the renumbering is then done once per set)."""
    arr = check_rankings(rankings, n_rankers)
    if cut is not None:
        arr = arr[..., :cut]
    if arr.ndim == 2:
        n = _int(1 if impressions is None else impressions, "impressions", 1, 10**8)
        which = np.zeros(n, dtype=np.int64)
        arr = arr[None]
    elif impressions is None:
        which = np.arange(arr.shape[0])
    else:
        which = np.asarray(impressions)
        if (
            which.ndim != 1
            or which.size == 0
            or not np.issubdtype(which.dtype, np.integer)
            or which.min() < 0
            or which.max() >= arr.shape[0]
        ):
            raise ParameterError(
                "impressions", f"indices of ranking sets in [0, {arr.shape[0]})", "other values"
            )
    return _Sets(arr, which)


class _Sets:
    """Ranking sets renumbered once each: per set, documents ``0..D-1`` (``D = R * M``,
    padding ``D``), the table back to the given codes and each document's 1-based rank
    in each ranking (0 if absent); ``which`` names each impression's set."""

    def __init__(self, lists: np.ndarray, which: np.ndarray):
        g, r, m = lists.shape
        d = r * m
        flat = lists.reshape(g, d)
        order = np.argsort(flat, axis=1, kind="stable")
        s = np.take_along_axis(flat, order, 1)
        start = np.ones(s.shape, dtype=bool)
        start[:, 1:] = s[:, 1:] != s[:, :-1]
        local = np.empty_like(flat)
        np.put_along_axis(local, order, np.cumsum(start, axis=1) - 1, 1)
        local = np.where(flat >= 0, local, d).reshape(g, r, m)
        back = np.full((g, d + 1), -1, dtype=np.int64)
        np.put_along_axis(back, local.reshape(g, d), flat, 1)
        back[:, d] = -1
        rank = np.zeros((g, r, d + 1), dtype=np.int64)
        np.put_along_axis(rank, local, np.broadcast_to(np.arange(1, m + 1), (g, r, m)), 2)
        rank[:, :, d] = 0
        self.local_sets, self.back, self.rank, self.which, self.d = local, back, rank, which, d
        self.n, self.r, self.m = len(which), r, m

    def local(self) -> np.ndarray:
        """``n x R x M``: each impression's rankings in local codes."""
        return self.local_sets[self.which]

    def finish(self, method, out_local, team, prob_a=None) -> Interleaved:
        # flat `take`s: several times faster than indexing by rows and columns
        w = self.which[:, None]
        width = self.d + 1
        docs = np.take(self.back.reshape(-1), w * width + out_local)
        row = (w * self.r)[:, :, None] + np.arange(self.r)[None, :, None]  # n x R x 1
        ranks = np.take(self.rank.reshape(-1), row * width + out_local[:, None, :])
        shown = docs >= 0
        team = np.where(shown, team, -1)
        if prob_a is not None:
            prob_a = np.where(shown, prob_a, 0.0)
        return Interleaved(method, docs, team, np.where(shown[:, None, :], ranks, 0), prob_a)


# ------------------------------------------------------------------ methods
def team_draft(rankings, depth: int = 10, impressions=None, seed: int | None = None) -> Interleaved:
    """Team-draft interleaving (Radlinski, Kurup & Joachims 2008) of 2 rankings, or
    team-draft multileaving (Schuth et al. 2014) of more: see the module docstring.

    ``rankings``: ``R x M`` document codes (the same for every impression;
    ``impressions`` copies), or ``G x R x M`` ranking sets (one impression each, or
    ``impressions`` an integer array naming each impression's set); ``depth``:
    positions of the interleaved list.
    """
    from .. import _engine

    depth = _int(depth, "depth", 1, 1000)
    sets = _prepare(rankings, impressions, None, depth)
    rng = np.random.default_rng(seed)
    g, r, m = sets.local_sets.shape
    n = sets.n
    # one row of keys per position an impression can fill (at most its R * M documents):
    # the draws the position-by-position array version made, in the same order
    keys = rng.random((min(depth, sets.d), n, r))
    out, team = _engine.team_draft_lists(
        np.ascontiguousarray(sets.local_sets, dtype=np.int64).reshape(-1),
        (g, r, m),
        np.ascontiguousarray(sets.which, dtype=np.int64),
        keys.reshape(-1),
        depth,
    )
    return sets.finish("team-draft", out.reshape(n, depth), team.reshape(n, depth))


def multileave(rankings, depth: int = 10, impressions=None, seed: int | None = None) -> Interleaved:
    """Team-draft multileaving (Schuth et al. 2014) of ``R >= 2`` rankings."""
    return team_draft(rankings, depth, impressions, seed)


def balanced(rankings, depth: int = 10, impressions=None, seed: int | None = None) -> Interleaved:
    """Balanced interleaving (Joachims 2002) of 2 rankings: see the module docstring."""
    depth = _int(depth, "depth", 1, 1000)
    sets = _prepare(rankings, impressions, 2, depth)
    rng = np.random.default_rng(seed)
    local, d = sets.local(), sets.d
    n, _, m = local.shape
    rows = np.arange(n)
    length = (local < d).sum(axis=2)  # n x 2
    a_first = rng.random(n) < 0.5
    k = np.zeros((n, 2), dtype=np.int64)
    filled = np.zeros(n, dtype=np.int64)
    used = np.zeros((n, d + 1), dtype=bool)
    used[:, d] = True
    out = np.full((n, depth + 1), d, dtype=np.int64)
    team = np.full((n, depth + 1), -1, dtype=np.int64)
    for _ in range(2 * m):
        left = k < length
        active = left.any(axis=1) & (filled < depth)
        if not active.any():
            break
        a_turn = (k[:, 0] < k[:, 1]) | ((k[:, 0] == k[:, 1]) & a_first)
        s = np.where(left[:, 0] & (a_turn | ~left[:, 1]), 0, 1)
        cand = local[rows, s, np.minimum(k[rows, s], m - 1)]
        add = active & ~used[rows, cand]
        slot = np.where(add, filled, depth)
        out[rows, slot] = np.where(add, cand, d)
        team[rows, slot] = np.where(add, s, -1)
        used[rows, np.where(add, cand, d)] = True
        filled += add
        k[rows, s] += active
    return sets.finish("balanced", out[:, :depth], team[:, :depth])


def probabilistic(
    rankings,
    depth: int = 10,
    impressions=None,
    seed: int | None = None,
    tau: float = TAU,
) -> Interleaved:
    """Probabilistic interleaving (Hofmann, Whiteson & de Rijke 2011) of 2 rankings:
    softmax ``P_s(d) ∝ rank_s(d)^-tau`` over each whole ranking given (``M`` documents;
    pass more than ``depth`` so that low-ranked documents can be drawn).

    Draws work in rank space: each ranker keeps which of its ``M`` positions are still
    free and the softmax mass left, so a draw costs ``O(M)`` per impression."""
    depth = _int(depth, "depth", 1, 1000)
    if not (isinstance(tau, (int, float)) and not isinstance(tau, bool) and 0 < tau <= 100):
        raise ParameterError("tau", "a number in (0, 100]", tau)
    sets = _prepare(rankings, impressions, 2, None)
    rng = np.random.default_rng(seed)
    d, m, n, which = sets.d, sets.m, sets.n, sets.which
    rows = np.arange(n)
    valid_sets = sets.local_sets < d  # G x 2 x M: a document at this position
    w_rank = np.arange(1, m + 1, dtype=float) ** -float(tau)
    w_ext = np.append(w_rank, 0.0)  # position M: "not in this ranking"
    free = np.zeros((n, 2, m + 1), dtype=bool)  # the ranking position is still free
    free[:, :, :m] = valid_sets[which]
    left = valid_sets.sum(axis=2)[which]  # documents left per ranker
    mass = np.where(valid_sets, w_rank, 0.0).sum(axis=2)[which]  # softmax mass left
    out = np.full((n, depth), d, dtype=np.int64)
    team = np.full((n, depth), -1, dtype=np.int64)
    prob_a = np.full((n, depth), 0.5)
    both = np.array([0, 1])
    for r in range(depth):
        has = left > 0
        active = has.any(axis=1)
        if not active.any():
            break
        s = np.where(rng.random(n) < 0.5, 0, 1)
        s = np.where(has[rows, s], s, 1 - s)
        cdf = np.cumsum(np.where(free[rows, s, :m], w_rank, 0.0), axis=1)
        u = rng.random(n) * cdf[:, -1]
        # the first position whose cumulative mass exceeds u; never past the last free
        # position (u could round up to the total when the uniform is within 2^-53 of 1)
        at = np.minimum((cdf <= u[:, None]).sum(axis=1), cdf.argmax(axis=1))
        doc = np.where(active, sets.local_sets[which, s, at], d)
        here = sets.rank[which[:, None], both, doc[:, None]] - 1  # doc's positions
        here = np.where(here < 0, m, here)
        w = w_ext[here]  # its softmax weight under each ranker
        p = ratio_or(w, mass)
        # a used-up ranker hands the draw to the other: the coin posterior is then 1/2
        p = np.where(has, p, p[:, ::-1])
        prob_a[:, r] = np.where(active, ratio_or(p[:, 0], p.sum(axis=1), 0.5), 0.5)
        out[:, r] = doc
        team[:, r] = np.where(active, s, -1)
        free[rows[:, None], both, here] = False
        mass = np.maximum(mass - w, 0.0)
        left = left - (here < m)
    return sets.finish("probabilistic", out, team, prob_a)


def ratio_or(num, den, default: float = 0.0) -> np.ndarray:
    """``num / den`` where ``den > 0``, else ``default``."""
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    out = np.full(np.broadcast(num, den).shape, default)
    np.divide(num, den, out=out, where=den > 0)
    return out


_METHODS = {"balanced": balanced, "team-draft": team_draft, "probabilistic": probabilistic}


def interleave(
    method: str,
    rankings,
    depth: int = 10,
    impressions=None,
    seed: int | None = None,
) -> Interleaved:
    """Interleave with ``method`` (one of :data:`METHODS`)."""
    if method not in _METHODS:
        raise ParameterError("method", "one of " + ", ".join(METHODS), method)
    return _METHODS[method](rankings, depth, impressions, seed)


# ------------------------------------------------------------------ credit
def _clicks(inter: Interleaved, clicks) -> np.ndarray:
    c = np.asarray(clicks)
    if c.shape != inter.docs.shape:
        raise ParameterError("clicks", f"an array of shape {inter.docs.shape}", c.shape)
    if c.dtype != bool:
        if not np.isin(c, (0, 1)).all():
            raise ParameterError("clicks", "booleans or 0/1", "other values")
        c = c.astype(bool)
    if (c & ~inter.shown).any():
        raise ParameterError("clicks", "clicks on shown positions only", "a click on padding")
    return c


def credit(inter: Interleaved, clicks) -> Credit:
    """Credit per impression from ``clicks`` (``n x K`` booleans) on ``inter``.

    Balanced: ``h_A``, ``h_B`` (Joachims 2002); team-draft and multileaving: clicks on
    each team's documents; probabilistic: the marginalised credit (module docstring).
    """
    c = _clicks(inter, clicks)
    n, k = c.shape
    r = inter.n_rankers
    if inter.method == "balanced":
        rows = np.arange(n)
        any_click = c.any(axis=1)
        lowest = np.where(any_click, k - 1 - c[:, ::-1].argmax(axis=1), 0)
        lr = inter.ranks[rows, :, lowest].astype(np.int64)  # ranks of the lowest click
        cut = np.where(lr > 0, lr, np.iinfo(np.int64).max).min(axis=1)
        within = (inter.ranks > 0) & (inter.ranks <= cut[:, None, None])
        credits = (within & c[:, None, :]).sum(axis=2).astype(float)
        score = credits[:, 0] - credits[:, 1]
    elif inter.method == "probabilistic":
        w = inter.prob_a
        credits = np.stack([(w * c).sum(axis=1), ((1 - w) * c).sum(axis=1)], axis=1)
        dist = np.zeros((n, k + 1))
        dist[:, 0] = 1.0
        for pos in range(k):  # Poisson-binomial number of clicks credited to A
            p = np.where(c[:, pos], w[:, pos], 0.0)[:, None]
            moved = dist * p
            dist = dist - moved
            dist[:, 1:] += moved[:, :-1]
        m = c.sum(axis=1)
        twice = 2 * np.arange(k + 1)[None, :]
        p_a = np.where(twice > m[:, None], dist, 0.0).sum(axis=1)
        p_b = np.where(twice < m[:, None], dist, 0.0).sum(axis=1)
        score = p_a - p_b
        score = np.where(np.abs(score) < 1e-12, 0.0, score)
    else:
        credits = np.zeros((n, r))
        for s in range(r):
            credits[:, s] = (c & (inter.team == s)).sum(axis=1)
        score = credits[:, 0] - credits[:, 1] if r == 2 else np.zeros(n)
    return Credit(credits, score, np.sign(score).astype(np.int8))


def preferences(credits: np.ndarray) -> np.ndarray:
    """``R x R`` matrix: the fraction of impressions in which ranker ``i`` earned more
    credit than ranker ``j`` (multileaving's pairwise preferences, Schuth et al. 2014)."""
    c = np.asarray(credits, dtype=float)
    if c.ndim != 2 or c.shape[0] == 0:
        raise ParameterError("credits", "an n x R array with n >= 1", c.shape)
    return (c[:, :, None] > c[:, None, :]).mean(axis=0)


# ------------------------------------------------------------------ outcome test
def _sign_test_p(k, m):
    """Two-sided exact sign test ``P`` for ``k`` of ``m`` decisive impressions (``m = 0``
    gives 1); vectorised."""
    k = np.asarray(k, dtype=float)
    m = np.asarray(m, dtype=float)
    lo = distributions.binom_cdf(np.minimum(k, m - k), m, 0.5)
    return np.where(m > 0, np.minimum(1.0, 2 * lo), 1.0)


def outcome_test(outcome, confidence: float = 0.95) -> dict:
    """The test over impressions of per-impression outcomes (``+1`` A, ``-1`` B, ``0``
    tie): :func:`sign_test` of their counts."""
    o = np.asarray(outcome)
    if o.ndim != 1 or not np.isin(o, (-1, 0, 1)).all():
        raise ParameterError("outcome", "a vector of -1, 0, 1", "other values")
    return sign_test(int((o == 1).sum()), int((o == -1).sum()), int((o == 0).sum()), confidence)


def sign_test(wins_a: int, wins_b: int, ties: int = 0, confidence: float = 0.95) -> dict:
    """Sign test over impressions: ``wins_a``, ``wins_b``, ``ties``; ``p_value`` (two
    sided, exact binomial on the ``wins_a + wins_b`` decisive impressions, ties left
    out); ``proportion`` ``= wins_a / (wins_a + wins_b)`` with its Clopper–Pearson
    interval ``ci`` (``None`` without decisive impressions); ``delta = (wins_a + ties /
    2) / n - 1/2`` (Chapelle, Joachims, Radlinski & Yue 2012), positive when A is
    preferred."""
    if not (isinstance(confidence, (int, float)) and 0 < confidence < 1):
        raise ParameterError("confidence", "a number in (0, 1)", confidence)
    for name, v in (("wins_a", wins_a), ("wins_b", wins_b), ("ties", ties)):
        _int(v, name, 0, 2**62)
    wa, wb, ties = int(wins_a), int(wins_b), int(ties)
    n, m = wa + wb + ties, wa + wb
    res = {
        "impressions": n,
        "wins_a": wa,
        "wins_b": wb,
        "ties": ties,
        "p_value": float(_sign_test_p(wa, m)),
        "proportion": None,
        "ci": None,
        "delta": None if n == 0 else (wa + ties / 2) / n - 0.5,
    }
    if m:
        alpha = 1 - confidence
        lo = 0.0 if wa == 0 else float(distributions.beta_ppf(alpha / 2, wa, m - wa + 1))
        hi = 1.0 if wa == m else float(distributions.beta_ppf(1 - alpha / 2, wa + 1, m - wa))
        res["proportion"] = wa / m
        res["ci"] = [lo, hi]
    return res


def power(
    p_a: float, p_b: float, impressions: int, alpha: float = 0.05, replicates: int = 2000, seed=None
) -> float:
    """Simulated power of the two-sided sign test at ``alpha`` with ``impressions``
    impressions whose outcomes are A with probability ``p_a``, B with ``p_b`` and a tie
    otherwise: the fraction of ``replicates`` multinomial samples that reject."""
    rng = np.random.default_rng(seed)
    probs = np.array([p_a, p_b, max(0.0, 1.0 - p_a - p_b)])
    draws = rng.multinomial(int(impressions), probs / probs.sum(), size=replicates)
    p = _sign_test_p(draws[:, 0], draws[:, 0] + draws[:, 1])
    return float((p < alpha).mean())


def impressions_for_power(
    p_a: float,
    p_b: float,
    target: float = 0.8,
    alpha: float = 0.05,
    replicates: int = 2000,
    seed=None,
    max_impressions: int = 10_000_000,
) -> int | None:
    """The fewest impressions at which the simulated :func:`power` reaches ``target``,
    found by doubling from 8 and then bisection, every power estimated from the same
    random stream (common random numbers); ``None`` when even ``max_impressions``
    do not reach it (no difference, or too small a one)."""
    for name, v in (("p_a", p_a), ("p_b", p_b)):
        if not (isinstance(v, (int, float)) and 0 <= v <= 1):
            raise ParameterError(name, "a probability in [0, 1]", v)
    if p_a + p_b > 1 + 1e-9:
        raise ParameterError("p_a + p_b", "at most 1", p_a + p_b)
    if not (isinstance(target, (int, float)) and alpha < target < 1):
        raise ParameterError("power", "a number in (alpha, 1)", target)
    if p_a + p_b == 0:
        return None
    seed = np.random.SeedSequence(seed).entropy if not isinstance(seed, int) else seed

    def ok(n):
        return power(p_a, p_b, n, alpha, replicates, seed) >= target

    hi = 8
    while not ok(hi):
        if hi >= max_impressions:
            return None
        hi = min(hi * 2, max_impressions)
    lo = hi // 2 if hi > 8 else 0
    while hi - lo > max(1, hi // 200):  # within 0.5%
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi
