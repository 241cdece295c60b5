"""The training objective: a measure (or a weighted sum of measures) of the rankings that
linear scoring functions produce, for a whole population of weight vectors at once.

For weights ``W`` (``P x F``) the scores of all documents are one matrix product,
``S = W @ X.T``; every (individual, query) ranking is then sorted at once on a padded
``P x Q x L`` array (``L``: the longest query), and the ranked labels become one
:class:`~cranfield.core.judged.JudgedRun` with ``P * Q`` rankings, on which cranfield's
own measure kernels run. So the objective of a weight vector is exactly what
``cranfield.evaluate`` gives for the TREC run those weights score (qrels: the labels),
per query and in the mean (a sequential sum in query-id order, as ``evaluate``).

When the engine's compiled kernel computes every measure of the objective
(:mod:`cranfield.ltr.compiled`), :class:`Objective` runs on it instead -- the one
dispatch between the two paths is ``Objective.kernel`` (None: this NumPy path); the
values are the same.

Ties: with the ``trec`` convention (the default) a ranking is trec_eval's, score
descending and then document id descending; with ``letor`` ties keep the file order
(LETOR's evaluation script; see :mod:`cranfield.ltr.letor`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..core.judged import JudgedRun
from ..core.measures.names import parse as parse_measure
from ..core.measures.registry import Measure
from ..errors import MeasureError, ParameterError
from .data import RankingData
from .scoring import linear_scores
from .sparse import is_sparse

CONVENTIONS = ("trec", "letor")


@dataclass(frozen=True)
class Term:
    """One measure of an objective and its weight."""

    weight: float
    measure: Measure | str  # a cranfield Measure, or a LETOR measure name


def parse_objective(text: str | list, convention: str = "trec") -> tuple[Term, ...]:
    """Parse ``'nDCG@10'`` or ``'0.7*nDCG@10 + 0.3*P@10'`` (weights > 0).

    A list of names or ``(weight, name)`` pairs is accepted as well.
    """
    if convention not in CONVENTIONS:
        raise ParameterError("convention", "one of " + ", ".join(CONVENTIONS), convention)
    if isinstance(text, str):
        items = []
        for part in _split_plus(text):
            m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*\*\s*(.+?)\s*", part)
            items.append((m.group(1), m.group(2)) if m else (1.0, part.strip()))
    else:
        items = [(1.0, t) if isinstance(t, (str, Measure)) else tuple(t) for t in text]
    if not items or any(not str(name).strip() for _, name in items):
        raise ParameterError("objective", "a measure or 'W*MEASURE + W*MEASURE ...'", text)
    terms = []
    for w, name in items:
        try:
            weight = float(w)
        except (TypeError, ValueError):
            weight = float("nan")
        if not np.isfinite(weight) or weight <= 0:
            raise ParameterError("objective weight", "a positive finite number", w)
        terms.append(Term(weight, _measure(name, convention)))
    return tuple(terms)


def _split_plus(text: str) -> list[str]:
    """Split on ``+`` outside brackets and quotes (a measure may hold ``1e+3``)."""
    parts, depth, quote, start = [], 0, None, 0
    for i, ch in enumerate(text):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "+" and depth == 0 and i > 0 and text[i - 1] not in "eE*":
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _measure(name, convention: str):
    if convention == "letor":
        from .letor import letor_measure

        return letor_measure(str(name))
    m = name if isinstance(name, Measure) else parse_measure(str(name))
    if m.definition.aggregate != "mean" or m.definition.kind == "str":
        raise MeasureError(f"{m}: an objective needs a measure averaged over queries")
    return m


@dataclass(frozen=True, eq=False)
class Block:
    """Queries of similar length padded to one width ``W`` (a power of two).

    ``queries`` index the layout's evaluation order; ``pad`` holds each query's document
    rows in tie order (``N``, the padding column, after them); ``labels`` their labels
    (-1 for padding); ``ideal`` the labels sorted descending.
    """

    queries: np.ndarray
    pad: np.ndarray
    labels: np.ndarray
    valid: np.ndarray
    lengths: np.ndarray
    ideal: np.ndarray

    @property
    def width(self) -> int:
        return self.pad.shape[1]


class Layout:
    """The documents of every query in ranking-tie order, in padded blocks.

    Queries are in evaluation order (query id byte order, as ``evaluate`` reports them,
    for ``trec``; file order for ``letor``); within a query, documents are in the order
    that breaks ties (document id descending for ``trec``; file order for ``letor``), so
    ranking by descending score, ties by position, ranks them as the convention says.
    Queries are grouped into blocks of lengths up to a power of two, so padding costs
    at most as much as the documents themselves.
    """

    def __init__(self, data: RankingData, convention: str = "trec"):
        self.convention = convention
        n, q = data.num_docs, data.num_queries
        lengths = np.diff(data.offsets)
        qseg = data.query_of_doc
        if convention == "trec":
            qorder = np.argsort(data.query_ids.astype(str), kind="stable")
            # byte order of UTF-8 equals code-point order of str
            doc_rank = np.argsort(np.argsort(data.doc_ids.astype(str), kind="stable"))
            rank_of_query = np.empty(q, dtype=np.int64)
            rank_of_query[qorder] = np.arange(q)
            rows = np.lexsort((-doc_rank, rank_of_query[qseg]))
        else:
            qorder = np.arange(q)
            rows = np.arange(n)
        self.query_order = qorder
        self.query_ids = data.query_ids[qorder]
        self.lengths = lengths[qorder]
        self.width = int(self.lengths.max())
        offsets = np.concatenate(([0], np.cumsum(self.lengths))).astype(np.int64)
        self.rows = rows  # the documents in evaluation order, each query's in tie order
        self.offsets = offsets
        labels = np.append(data.labels, -1)
        widths = 2 ** np.ceil(np.log2(self.lengths)).astype(np.int64)
        self.blocks = []
        for w in np.unique(widths):  # at most ~20 widths: a loop over blocks, not queries
            qs = np.flatnonzero(widths == w)
            lens = self.lengths[qs]
            valid = np.arange(w)[None, :] < lens[:, None]
            pad = np.full((len(qs), w), n, dtype=np.int64)  # n: the padding column
            first = np.repeat(offsets[qs] - (np.cumsum(lens) - lens), lens)
            pad[valid] = rows[first + np.arange(int(lens.sum()))]
            lab = labels[pad]
            ideal = np.sort(lab, axis=1)[:, ::-1]  # padding (-1) last
            self.blocks.append(Block(qs, pad, lab, valid, lens, ideal))
        self.features = (
            data.features
            if is_sparse(data.features)
            else np.ascontiguousarray(data.features, dtype=np.float64)
        )
        self._structure: dict = {}  # (P, widths) -> arrays of judged_run that only P sets
        # (CSR offsets, grades sorted descending) of each query's judged documents, in
        # evaluation order, when they are not all in the data (rank fusion: the ideal
        # ranking holds relevant documents no run retrieved); None: the data's labels
        self.judged: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def num_queries(self) -> int:
        return len(self.lengths)

    def scores(self, weights: np.ndarray) -> np.ndarray:
        """``P x N`` scores ``W @ X.T`` by the linear rankers' one scoring function
        (:func:`cranfield.ltr.scoring.linear_scores`)."""
        s = linear_scores(self.features, weights)
        if not np.isfinite(s).all():
            raise ParameterError("weights", "weights whose scores are finite", "overflow")
        return s

    def ranked_labels(self, weights: np.ndarray, depth: int | None = None) -> list[np.ndarray]:
        """Per block, ``P x Qb x K`` labels of the top ``K = min(depth, W)`` documents of
        every ranking (padding -1 at the end)."""
        return self.ranked_by(self.scores(weights), depth)

    def ranked_by(self, s: np.ndarray, depth: int | None = None) -> list[np.ndarray]:
        """:meth:`ranked_labels` of a ``P x N`` score matrix (scores computed elsewhere,
        as rank fusion does)."""
        p = s.shape[0]
        neg = np.concatenate((-s, np.full((p, 1), np.inf)), axis=1)  # padding ranks last
        out = []
        for b in self.blocks:
            k = b.width if depth is None else min(depth, b.width)
            order = top_order(neg[:, b.pad], k)
            out.append(b.labels[np.arange(len(b.queries))[None, :, None], order])
        return out

    def judged_run(self, ranked: list[np.ndarray], depth: int | None = None) -> JudgedRun:
        """All rankings of every block as one JudgedRun (every document judged), the
        rankings in (block, individual, query) order.

        ``depth`` keeps the top ``depth`` documents of each ranking (trec_eval ``-M``),
        which changes no value of a measure at a rank cutoff <= depth.
        """
        p = ranked[0].shape[0]
        widths = tuple(r.shape[2] for r in ranked)
        key = (p, widths)
        if key not in self._structure:  # the same for every population of this size
            lengths, qrels_lengths, grades, masks = [], [], [], []
            for b, k in zip(self.blocks, widths, strict=True):
                masks.append(b.valid[:, :k])
                lengths.append(np.tile(np.minimum(b.lengths, k), p))
                if self.judged is None:
                    qrels_lengths.append(np.tile(b.lengths, p))
                    grades.append(np.tile(b.ideal[b.valid], p))
                    continue
                offsets, judged = self.judged
                counts = offsets[b.queries + 1] - offsets[b.queries]
                first = np.repeat(offsets[b.queries] - (np.cumsum(counts) - counts), counts)
                qrels_lengths.append(np.tile(counts, p))
                grades.append(np.tile(judged[first + np.arange(int(counts.sum()))], p))
            if len(self._structure) > 8:
                self._structure.clear()
            self._structure[key] = (
                masks,
                np.concatenate(([0], np.cumsum(np.concatenate(lengths)))).astype(np.int64),
                np.concatenate(([0], np.cumsum(np.concatenate(qrels_lengths)))).astype(np.int64),
                np.concatenate(grades).astype(np.int64),
            )
        masks, offsets, qrels_offsets, grades = self._structure[key]
        flat = [r[:, m].reshape(-1) for r, m in zip(ranked, masks, strict=True)]
        count = p * self.num_queries
        return JudgedRun(
            query_ids=np.arange(count),
            offsets=offsets,
            labels=np.concatenate(flat).astype(np.int64),
            qrels_offsets=qrels_offsets,
            qrels_grades=grades,
            in_run=np.ones(count, dtype=bool),
        )

    def by_query(self, values: list[np.ndarray], p: int) -> np.ndarray:
        """``P x Q`` (evaluation order) from per-block ``P x Qb`` values."""
        out = np.empty((p, self.num_queries))
        for b, v in zip(self.blocks, values, strict=True):
            out[:, b.queries] = v
        return out

    def split(self, flat: np.ndarray, p: int) -> list[np.ndarray]:
        """A JudgedRun's per-ranking values split into per-block ``P x Qb`` matrices."""
        sizes = [p * len(b.queries) for b in self.blocks]
        parts = np.split(flat, np.cumsum(sizes)[:-1])
        return [part.reshape(p, -1) for part in parts]


def top_order(neg: np.ndarray, k: int) -> np.ndarray:
    """Positions of the ``k`` smallest entries of each row of ``neg`` (the last axis),
    smallest first, ties by position: a stable sort's first ``k``, in O(width) per row.

    The ``k``-th smallest value ``t`` is found by ``partition``; every entry below
    ``t`` is taken, then entries equal to ``t`` in position order until there are
    ``k``; those ``k`` are sorted stably.
    """
    width = neg.shape[-1]
    if k >= width:
        return np.argsort(neg, axis=-1, kind="stable")
    t = np.partition(neg, k - 1, axis=-1)[..., k - 1 : k]
    chosen = neg <= t
    if np.count_nonzero(chosen) != chosen.size // width * k:  # ties at the k-th value
        below = neg < t
        equal = neg == t
        need = k - below.sum(axis=-1, keepdims=True)
        chosen = below | (equal & (np.cumsum(equal, axis=-1) <= need))
    pos = np.nonzero(chosen)[-1].reshape(*neg.shape[:-1], k)
    sub = np.take_along_axis(neg, pos, axis=-1)
    return np.take_along_axis(pos, np.argsort(sub, axis=-1, kind="stable"), axis=-1)


class Objective:
    """A measure (or weighted sum) of linear rankings, for many weight vectors at once.

    Parameters
    ----------
    data
        The ranking data (normalised as the model will be).
    objective
        ``'nDCG@10'``, ``'0.7*nDCG@10 + 0.3*P@10'`` or the parsed terms.
    convention
        ``trec`` (cranfield's evaluator: trec_eval's ties and definitions) or ``letor``
        (LETOR's Eval-Score-4.0 rules, :mod:`cranfield.ltr.letor`).

    backend
        ``auto`` (default): the engine's compiled kernel (:mod:`cranfield.ltr.compiled`)
        when it computes every measure of the objective, else the general path;
        ``general``: always the general path (rankings by NumPy, as one
        :class:`~cranfield.core.judged.JudgedRun`, measured by cranfield's evaluator,
        whose measure kernels are the engine's; LETOR's rules in NumPy); ``numpy``: its
        former name, deprecated (a DeprecationWarning); ``engine``: the kernel or a
        ParameterError. The kernel scores the
        documents itself, block by block, fused with the ranking; ``engine-scores``
        has it rank a whole ``P x N`` score matrix computed first (the unfused path,
        for benchmarks). Every path scores by
        :func:`~cranfield.ltr.scoring.linear_scores`' arithmetic, so all give the same
        values. None: :attr:`default_backend` (``auto``; benchmarks set it to compare
        the paths in whole training runs).

    ``objective(W)`` returns one value per row of ``W`` (to maximise) and counts the
    evaluations (``evaluations``: rows scored so far).
    """

    default_backend = "auto"

    def __init__(
        self,
        data: RankingData,
        objective="nDCG@10",
        convention: str = "trec",
        backend: str | None = None,
    ):
        backend = self.default_backend if backend is None else backend
        if backend == "numpy":
            import warnings

            warnings.warn(
                "Objective(backend='numpy') is deprecated: it is called 'general' (NumPy "
                "ranks, cranfield's evaluator measures, on the engine)",
                DeprecationWarning,
                stacklevel=2,
            )
            backend = "general"
        parsed = isinstance(objective, tuple) and all(isinstance(t, Term) for t in objective)
        self.terms = objective if parsed and objective else parse_objective(objective, convention)
        self.convention = convention
        self.layout = Layout(data, convention)
        self.data = data  # (a reference) for parts(): objectives on subsets of queries
        self.num_features = data.num_features
        self.evaluations = 0
        total = sum(t.weight for t in self.terms)
        self.weights = np.array([t.weight / total for t in self.terms])
        # individuals per batch: the padded P x Q x L arrays stay below ~32 MB
        cells = sum(b.pad.size for b in self.layout.blocks)
        self.batch = max(1, int(4_000_000 // max(cells, 1)))
        self.depth = _depth(self.terms) if convention == "trec" else None
        if backend not in BACKENDS:
            raise ParameterError("backend", "one of " + ", ".join(BACKENDS), backend)
        self.kernel = None
        if backend != "general":
            from .compiled import kernel, threads

            self.kernel = kernel(self.layout, data, self.terms, convention)
            if self.kernel is None and backend != "auto":
                raise ParameterError(
                    "backend",
                    "'auto' or 'general' for this objective (measures the "
                    "compiled kernel does not compute)",
                    backend,
                )
            self._threads = threads()
            # sparse rows: the objective scores them, the kernel ranks the scores
            self._engine_scores = backend == "engine-scores" or is_sparse(data.features)
            # individuals per batch: the P x N scores stay below ~32 MB
            self._kernel_batch = max(1, 4_000_000 // max(data.num_docs, 1))
            # the fused path writes no scores, only P x T x Q values: its batch is bound
            # by those (a batch cut by the scores' bound left a population's last few
            # individuals to the one-vector path, which reads all the features again:
            # a generation of 48 at 84,000 documents cost 1.5x its 47)
            self._weights_batch = (
                self._kernel_batch
                if self._engine_scores
                else max(1, 4_000_000 // max(len(self.terms) * self.layout.num_queries, 1))
            )
        self.backend = "general" if self.kernel is None else "engine"

    def parts(self, count: int, rng: np.random.Generator) -> list[Objective]:
        """The queries split at random into ``count`` parts of equal size (within one
        query), each an objective of the same measures on its queries alone (the mean
        over a part's queries; the documents' features copied once more in all)."""
        order = rng.permutation(self.data.num_queries)
        backend = "general" if self.kernel is None else "auto"
        return [
            Objective(self.data.subset(np.sort(q)), self.terms, self.convention, backend)
            for q in np.array_split(order, count)
        ]

    def __str__(self) -> str:
        if len(self.terms) == 1:
            return str(self.terms[0].measure)
        return " + ".join(f"{t.weight:g}*{t.measure}" for t in self.terms)

    def __call__(self, weights: np.ndarray) -> np.ndarray:
        w = self._check(weights)
        self.evaluations += w.shape[0]
        if self.kernel is not None:
            return self._compiled(w)
        out = np.empty(w.shape[0])
        for start in range(0, w.shape[0], self.batch):  # memory bound, not per individual
            block = w[start : start + self.batch]
            values = self.per_query(block)
            total = np.zeros(block.shape[0])
            for share, v in zip(self.weights, values, strict=True):
                total += share * mean_rows(v)
            out[start : start + self.batch] = total
        return out

    def per_query(self, weights: np.ndarray) -> list[np.ndarray]:
        """For each term, a ``P x Q`` matrix of per-query values (queries in
        ``layout.query_ids`` order). Does not count evaluations."""
        w = self._check(weights)
        p = w.shape[0]
        layout = self.layout
        if self.kernel is not None:
            values = (
                np.concatenate(
                    [
                        self._kernel_values(w[i : i + self._kernel_batch])
                        for i in range(0, p, self._kernel_batch)
                    ]
                )
                if p > self._kernel_batch
                else self._kernel_values(w)
            )
            return [values[:, t, :] for t in range(len(self.terms))]
        if self.convention == "letor":
            from .letor import letor_values

            depth = max((t.measure.k or layout.width) for t in self.terms)
            ranked = layout.ranked_labels(w, None if depth >= layout.width else depth)
            return [
                layout.by_query(
                    [
                        letor_values(t.measure, r, b)
                        for b, r in zip(layout.blocks, ranked, strict=True)
                    ],
                    p,
                )
                for t in self.terms
            ]
        ranked = layout.ranked_labels(w, self.depth)
        jr = layout.judged_run(ranked, self.depth)
        return [
            layout.by_query(layout.split(t.measure.compute(jr).astype(np.float64), p), p)
            for t in self.terms
        ]

    def _kernel_values(self, w: np.ndarray) -> np.ndarray:
        """``P x T x Q`` values from the compiled kernel (``w`` checked, P in a batch)."""
        if self._engine_scores:
            return self._kernel_call(self.kernel.evaluate, self.layout.scores(w))
        return self._kernel_call(self.kernel.evaluate_weights, np.ascontiguousarray(w))

    def _kernel_call(self, method, *args) -> np.ndarray:
        """``method(*args, threads)``, non-finite scores reported as a ParameterError."""
        try:
            return method(*args, self._threads)
        except FloatingPointError:
            raise ParameterError("weights", "weights whose scores are finite", "overflow") from None

    def _compiled(self, w: np.ndarray) -> np.ndarray:
        """The objective of checked weights on the compiled kernel: the kernel sums the
        weighted means itself (:func:`mean_rows`' arithmetic), unless it is given
        scores (``engine-scores``)."""
        p = w.shape[0]
        out = np.empty(p)
        for start in range(0, p, self._weights_batch):
            block = w[start : start + self._weights_batch]
            if not self._engine_scores:
                out[start : start + len(block)] = self._kernel_call(
                    self.kernel.objective_weights, np.ascontiguousarray(block), self.weights
                )
                continue
            v = self._kernel_values(block)
            total = np.zeros(v.shape[0])
            for t, share in enumerate(self.weights):
                total += share * mean_rows(v[:, t, :])
            out[start : start + v.shape[0]] = total
        return out

    def _check(self, weights) -> np.ndarray:
        w = np.asarray(weights, dtype=np.float64)
        if w.ndim == 1:
            w = w[None, :]
        if w.ndim != 2 or w.shape[1] != self.num_features:
            raise ParameterError(
                "weights", f"vectors of {self.num_features} features", f"shape {w.shape}"
            )
        if not np.isfinite(w).all():
            raise ParameterError("weights", "finite numbers", "a non-finite weight")
        return w


BACKENDS = ("auto", "general", "engine", "engine-scores")  # and "numpy", deprecated


def mean_rows(values: np.ndarray) -> np.ndarray:
    """Mean of each row summed strictly left to right (``evaluate``'s aggregation)."""
    if values.shape[1] == 0:
        return np.zeros(values.shape[0])
    return np.cumsum(values, axis=1)[:, -1] / values.shape[1]


def _depth(terms) -> int | None:
    """The largest rank cutoff when every measure has one (only the top that many
    documents of a ranking then matter), else None."""
    cutoffs = [t.measure.cutoff for t in terms]
    kinds = [t.measure.definition.cutoff for t in terms]
    if all(k == "rank" and isinstance(c, int) for k, c in zip(kinds, cutoffs, strict=True)):
        return max(cutoffs)
    return None
