"""Click models: estimation (closed form or EM) and click probabilities.

Notation (Chuklin, Markov & de Rijke 2015, *Click Models for Web Search*): a session
shows documents ``d_1..d_n`` for query ``q``; ``C_r`` is a click at rank ``r``,
``E_r`` examination, ``A_r`` attractiveness (``P(A_r=1) = alpha_{q d_r}``), ``S_r``
satisfaction after a click (``sigma_{q d_r}``). A click happens iff the document is
examined and attractive: ``C_r = 1 <=> E_r = 1 and A_r = 1``.

All estimation is whole-array NumPy over the ``sessions x ranks`` matrices of a
:class:`~cranfield.clicks.log.ClickLog`: per-(query, document) sums are
``np.bincount`` over the pair index of every shown rank, per-rank sums are column
sums; the only Python loops run over ranks (at most :data:`~.log.MAX_RANKS`) and EM
iterations, never over sessions.

The cascade-family models (CM, DCM, SDBN, DBN, CCM) share one form: examination starts
at rank 1, and after rank ``r`` the user goes on with probability ``c_click(r)`` after a
click and ``c_skip(r)`` after none. :func:`chain` gives their click probabilities and
draws from that form (:func:`_chain_conditional`, :func:`_chain_full`); each model
declares its own terms (:mod:`~.standard`).
"""

from __future__ import annotations

from .._lazy import lazy
from .log import ClickLog

np = lazy("numpy", __name__, "np")

DEFAULT = 0.5
"""Initial value of every EM parameter, and the value of a parameter without data
(a (query, document) pair never shown in training, a rank never reached)."""


# --------------------------------------------------------------------------- indices
class Pairs:
    """The distinct (query, document) pairs of a log and each shown rank's pair index.

    ``weight`` (one per session, default 1) is how many identical sessions a row
    stands for (:func:`distinct_sessions`); every sum below is weighted by it.
    """

    def __init__(self, log: ClickLog, weight: np.ndarray | None = None):
        shown = log.shown
        key = log.query[:, None] * np.int64(len(log.doc_names)) + np.where(shown, log.docs, 0)
        uniq, inverse = np.unique(key[shown], return_inverse=True)
        self.index = np.full(log.docs.shape, -1, dtype=np.int64)
        self.index[shown] = inverse
        self.n = len(uniq)
        self.query = uniq // len(log.doc_names)
        self.doc = uniq % len(log.doc_names)
        self.shown = shown
        n = log.n_sessions
        self.weight = np.ones(n) if weight is None else np.asarray(weight, dtype=float)
        self.cell_weight = np.broadcast_to(self.weight[:, None], shown.shape)
        self.impressions = np.bincount(
            inverse, weights=self.cell_weight[shown], minlength=self.n
        ).astype(float)


def weighted_sum(pairs: Pairs, values, mask=None, axis=None):
    """Sum of ``values`` (``n x K``) times the session weights, over ``mask``."""
    v = np.asarray(values, dtype=float) * pairs.cell_weight
    if mask is not None:
        v = np.where(mask, v, 0.0)
    return v.sum(axis=axis)


def distinct_sessions(log: ClickLog) -> tuple[ClickLog, np.ndarray]:
    """The distinct sessions of ``log`` (same query, documents and clicks) and how many
    times each occurs. Rows (query, documents, clicks) are hashed to 64 bits, grouped by
    hash, and every row is then compared with its group's first row: a hash collision
    falls back to an exact sort of the rows. The hash is a sum of products modulo
    2**64, taken column block by column block (no ``n x (2K + 1)`` copy of the log)."""
    k = log.max_rank
    mult = np.random.default_rng(0x5EED).integers(1, 2**62, 2 * k + 1, dtype=np.int64) | 1
    with np.errstate(over="ignore"):
        h = log.query.astype(np.int64) * mult[0]
        h += log.docs.astype(np.int64, copy=False) @ mult[1 : k + 1]
        h += log.clicks.view(np.uint8) @ mult[k + 1 :]
        h ^= h >> np.int64(29)
    _, first, inverse, counts = np.unique(
        h, return_index=True, return_inverse=True, return_counts=True
    )
    same = first[inverse]  # each row's group's first row
    if not (
        (log.query[same] == log.query).all()
        and (log.docs[same] == log.docs).all()
        and (log.clicks[same] == log.clicks).all()
    ):  # a collision: exact grouping
        rows = np.concatenate([log.query[:, None], log.docs, log.clicks], axis=1, dtype=np.int64)
        view = np.ascontiguousarray(rows).view(np.dtype((np.void, 8 * rows.shape[1])))
        _, first, counts = np.unique(view.ravel(), return_index=True, return_counts=True)
    if len(first) == log.n_sessions:
        return log, np.ones(log.n_sessions)
    return log.subset(first), counts.astype(float)


def per_pair(pairs: Pairs, values: np.ndarray, where: np.ndarray | None = None) -> np.ndarray:
    """Sum of ``values`` (``n x K``) per pair over shown ranks (and ``where``)."""
    weighted = values * pairs.cell_weight
    if where is not None:
        weighted = np.where(where, weighted, 0.0)
    sums = np.bincount(pairs.index.ravel() + 1, weights=weighted.ravel(), minlength=pairs.n + 1)
    return sums[1:]  # bin 0 collects the ranks where nothing is shown


def ratio(num, den, default: float = DEFAULT) -> np.ndarray:
    """``num / den`` where ``den > 0``, else ``default``."""
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    out = np.full(np.broadcast(num, den).shape, default, dtype=float)
    np.divide(num, den, out=out, where=den > 0)
    return out


def first_click(clicks: np.ndarray) -> np.ndarray:
    """0-based rank of each session's first click, ``-1`` without clicks."""
    any_ = clicks.any(axis=1)
    return np.where(any_, clicks.argmax(axis=1), -1)


def last_click(clicks: np.ndarray) -> np.ndarray:
    """0-based rank of each session's last click, ``-1`` without clicks."""
    k = clicks.shape[1]
    any_ = clicks.any(axis=1)
    return np.where(any_, k - 1 - clicks[:, ::-1].argmax(axis=1), -1)


def previous_click(clicks: np.ndarray) -> np.ndarray:
    """``n x K``: 1-based rank of the last click above each rank, 0 if none (UBM's r')."""
    n, k = clicks.shape
    ranks = np.where(clicks, np.arange(1, k + 1)[None, :], 0)
    running = np.maximum.accumulate(ranks, axis=1)
    out = np.zeros((n, k), dtype=np.int64)
    out[:, 1:] = running[:, :-1]
    return out


def through(k: int, upto: np.ndarray) -> np.ndarray:
    """``n x K``: rank index ``<= upto`` (all ranks where ``upto`` is ``-1``)."""
    r = np.arange(k)[None, :]
    return np.where(upto[:, None] >= 0, r <= upto[:, None], True)


# ------------------------------------------------------------------ cascade chains
def _chain_conditional(alpha, c_click, c_skip, clicks, shown) -> np.ndarray:
    """``P(C_r = 1 | C_<r)`` of a cascade-family model, ``n x K``.

    ``e_r = P(E_r = 1 | C_<r)``: ``e_1 = 1``; after a click ``e_{r+1} = c_click(r)``;
    after none ``e_{r+1} = c_skip(r) e_r (1 - alpha_r) / (1 - alpha_r e_r)``.

    A skip the model calls impossible (``alpha_r = e_r = 1``, possible with maximum
    likelihood) takes the limit of that ratio as ``alpha_r -> 1``, ``e_{r+1} =
    c_skip(r)``: the skip itself is scored as impossible once (at the clipped
    probability), and the ranks after it as if the document had been examined and
    passed over, not as unexamined.
    """
    n, k = alpha.shape
    e = np.ones(n)
    out = np.zeros((n, k))
    for r in range(k):
        a = alpha[:, r]
        out[:, r] = a * e
        den = 1 - a * e
        kept = np.ones(n)  # the limit of e (1 - a) / (1 - a e) where a = e = 1
        np.divide(e * (1 - a), den, out=kept, where=den > 0)
        skipped = c_skip[:, r] * kept
        e = np.where(clicks[:, r], c_click[:, r], skipped)
    return np.where(shown, out, 0.0)


def _chain_full(alpha, c_click, c_skip, shown) -> np.ndarray:
    """``P(C_r = 1)`` (no conditioning): ``P(E_{r+1}) = P(E_r)(alpha c_click + (1-alpha) c_skip)``."""
    n, k = alpha.shape
    e = np.ones(n)
    out = np.zeros((n, k))
    for r in range(k):
        a = alpha[:, r]
        out[:, r] = a * e
        e = e * (a * c_click[:, r] + (1 - a) * c_skip[:, r])
    return np.where(shown, out, 0.0)


# ------------------------------------------------------------------ parameter sets
class Params:
    """Parameters of one model: per pair, per rank and global, by name."""

    def __init__(self, pair=None, rank=None, scalar=None):
        self.pair: dict[str, np.ndarray] = dict(pair or {})
        self.rank: dict[str, np.ndarray] = dict(rank or {})
        self.scalar: dict[str, float] = dict(scalar or {})


def _spread(values: np.ndarray, index: np.ndarray, shown: np.ndarray) -> np.ndarray:
    """Per-pair ``values`` laid out as ``n x K`` (``DEFAULT`` where the pair is unknown
    or nothing is shown: index ``-1`` picks the appended default)."""
    return np.append(np.asarray(values, dtype=float), DEFAULT)[index]


def _ranked(values: np.ndarray, k: int) -> np.ndarray:
    """A per-rank vector cut or extended (with its last value) to ``k`` ranks."""
    if len(values) >= k:
        return values[:k]
    return np.concatenate([values, np.full(k - len(values), values[-1])])


class Matrices:
    """A model's parameters laid out over a log's ``n x K`` grid."""

    def __init__(self, params: Params, index: np.ndarray, log: ClickLog):
        self.shown = log.shown
        self.clicks = log.clicks
        self.n, self.k = log.docs.shape
        self.pair = {name: _spread(v, index, self.shown) for name, v in params.pair.items()}
        self.params = params

    def rank(self, name: str) -> np.ndarray:
        """A per-rank parameter as an ``n x K`` matrix."""
        v = _ranked(self.params.rank[name], self.k)
        return np.broadcast_to(v[None, :], (self.n, self.k))

    def scalar(self, name: str) -> np.ndarray:
        return np.full((self.n, self.k), self.params.scalar[name])


# ------------------------------------------------------- click probabilities, draws
def click_probabilities(name: str, m: Matrices, conditional: bool) -> np.ndarray:
    """``n x K`` click probabilities of the model called ``name`` (its declaration's
    ``probabilities``, :mod:`~.registry`): ``P(C_r = 1 | C_<r)`` when ``conditional``,
    else ``P(C_r = 1)``; 0 where nothing is shown."""
    from .registry import get

    return np.where(m.shown, get(name).probabilities(m, conditional), 0.0)


def draw_independent(probabilities, m: Matrices, rng) -> np.ndarray:
    """Clicks drawn at every shown rank independently, with the model's conditional
    click probabilities (for models whose clicks do not depend on earlier ones)."""
    p = np.where(m.shown, probabilities(m, True), 0.0)
    return m.shown & (rng.random((m.n, m.k)) < p)


def chain(terms):
    """``probabilities`` and ``draw`` of a cascade-family model (:class:`~.registry.
    ClickModel`) from its ``terms(m) -> (alpha, c_click, c_skip)``, each ``n x K``:
    examination starts at rank 1, after rank ``r`` the user goes on with ``c_click(r)``
    after a click and ``c_skip(r)`` after none."""

    def probabilities(m: Matrices, conditional: bool) -> np.ndarray:
        a, c_click, c_skip = terms(m)
        if conditional:
            return _chain_conditional(a, c_click, c_skip, m.clicks, m.shown)
        return _chain_full(a, c_click, c_skip, m.shown)

    def draw(m: Matrices, rng) -> np.ndarray:
        """The examination chain itself: a click needs an examined, attractive document;
        the user goes on with ``c_click`` or ``c_skip``."""
        a, c_click, c_skip = terms(m)
        clicks = np.zeros((m.n, m.k), dtype=bool)
        examined = np.ones(m.n, dtype=bool)
        for r in range(m.k):
            clicks[:, r] = examined & m.shown[:, r] & (rng.random(m.n) < a[:, r])
            go_on = rng.random(m.n)
            examined = np.where(
                clicks[:, r], go_on < c_click[:, r], examined & (go_on < c_skip[:, r])
            )
        return clicks

    return {"probabilities": probabilities, "draw": draw}
