"""The training objective: a measure (or a weighted sum of measures) of the rankings that
linear scoring functions produce, for a whole population of weight vectors at once.

For weights ``W`` (``P x F``) the scores of all documents are one matrix product,
``S = W @ X.T``; every (individual, query) ranking is then sorted at once on a padded
``P x Q x L`` array (``L``: the longest query), and the ranked labels become one
:class:`~cranfield.core.judged.JudgedRun` with ``P * Q`` rankings, on which cranfield's
own measure kernels run. So the objective of a weight vector is exactly what
``cranfield.evaluate`` gives for the TREC run those weights score (qrels: the labels),
per query and in the mean (a sequential sum in query-id order, as ``evaluate``).

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


class Layout:
    """The documents of every query in ranking-tie order, padded to one length.

    Queries are in evaluation order (query id byte order, as ``evaluate`` reports them,
    for ``trec``; file order for ``letor``); within a query, documents are in the order
    that breaks ties (document id descending for ``trec``; file order for ``letor``), so
    a stable sort by descending score ranks them as the convention says.
    """

    def __init__(self, data: RankingData, convention: str = "trec"):
        self.data = data
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
        offsets = np.concatenate(([0], np.cumsum(self.lengths)))
        pos = np.arange(n) - np.repeat(offsets[:-1], self.lengths)
        self.valid = np.zeros((q, self.width), dtype=bool)
        self.valid[np.repeat(np.arange(q), self.lengths), pos] = True
        self.pad = np.full((q, self.width), n, dtype=np.int64)  # n: the padding column
        self.pad[self.valid] = rows
        labels = np.append(data.labels, -1)
        self.labels = labels[self.pad]  # padding: -1
        self.offsets = offsets.astype(np.int64)
        ideal = np.sort(np.where(self.valid, self.labels, -1), axis=1)[:, ::-1]
        self.ideal = ideal  # labels sorted descending (padding last)
        self.ideal_flat = ideal[self.valid]  # the first `length` entries of each row
        self.features_t = np.ascontiguousarray(data.features.T)  # F x N: W @ X.T is one GEMM

    @property
    def num_queries(self) -> int:
        return len(self.lengths)

    def scores(self, weights: np.ndarray) -> np.ndarray:
        """``P x N`` scores ``W @ X.T`` (``-0.0`` made ``+0.0``: equal as TREC text)."""
        s = weights @ self.features_t
        s += 0.0
        if not np.isfinite(s).all():
            raise ParameterError("weights", "weights whose scores are finite", "overflow")
        return s

    def ranked_labels(self, weights: np.ndarray) -> np.ndarray:
        """``P x Q x L`` labels of each individual's rankings (padding -1 at the end)."""
        s = self.scores(weights)
        p = s.shape[0]
        padded = np.concatenate((s, np.full((p, 1), -np.inf)), axis=1)[:, self.pad]
        order = np.argsort(-padded, axis=2, kind="stable")
        return np.take_along_axis(np.broadcast_to(self.labels, padded.shape), order, axis=2)

    def judged_run(self, ranked: np.ndarray, depth: int | None = None, memo=None) -> JudgedRun:
        """The ``P * Q`` rankings as one JudgedRun (every document judged).

        ``depth`` keeps the top ``depth`` documents of each ranking (trec_eval ``-M``),
        which changes no value of a measure at a rank cutoff <= depth. ``memo``: the
        arrays derived from the qrels alone (ideal rankings, relevant counts) of an
        earlier JudgedRun of the same shape, reused as they are.
        """
        p = ranked.shape[0]
        q = self.num_queries
        valid = self.valid
        lengths = self.lengths
        if depth is not None and depth < self.width:
            ranked, valid = ranked[:, :, :depth], valid[:, :depth]
            lengths = np.minimum(lengths, depth)
        flat = ranked[:, valid].reshape(-1)
        offsets = np.concatenate(([0], np.cumsum(np.tile(lengths, p)))).astype(np.int64)
        qrels_offsets = np.concatenate(([0], np.cumsum(np.tile(self.lengths, p))))
        jr = JudgedRun(
            query_ids=np.arange(p * q),
            offsets=offsets,
            labels=flat.astype(np.int64),
            qrels_offsets=qrels_offsets.astype(np.int64),
            qrels_grades=np.tile(self.ideal_flat, p).astype(np.int64),
            in_run=np.ones(p * q, dtype=bool),
        )
        if memo is not None:
            ideal, num_rel = memo
            jr._memo.update(ideal)
            jr._num_rel_cache.update(num_rel)
        return jr


# memo entries of a JudgedRun that depend on the qrels alone (core/measures/gain.py's
# ideal rankings): shared by every population of one size
_QRELS_ONLY = ("ideal",)


def _qrels_memo(jr: JudgedRun):
    ideal = {k: v for k, v in jr._memo.items() if isinstance(k, tuple) and k[0] in _QRELS_ONLY}
    return ideal, dict(jr._num_rel_cache)


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

    ``objective(W)`` returns one value per row of ``W`` (to maximise) and counts the
    evaluations (``evaluations``: rows scored so far).
    """

    def __init__(self, data: RankingData, objective="nDCG@10", convention: str = "trec"):
        self.terms = (
            parse_objective(objective, convention)
            if not isinstance(objective, tuple)
            else objective
        )
        self.convention = convention
        self.layout = Layout(data, convention)
        self.num_features = data.num_features
        self.evaluations = 0
        total = sum(t.weight for t in self.terms)
        self.weights = np.array([t.weight / total for t in self.terms])
        # individuals per batch: the padded P x Q x L arrays stay below ~32 MB
        cells = self.layout.num_queries * self.layout.width
        self.batch = max(1, int(4_000_000 // max(cells, 1)))
        self.depth = _depth(self.terms) if convention == "trec" else None
        self._memo: dict = {}

    def __str__(self) -> str:
        if len(self.terms) == 1:
            return str(self.terms[0].measure)
        return " + ".join(f"{t.weight:g}*{t.measure}" for t in self.terms)

    def __call__(self, weights: np.ndarray) -> np.ndarray:
        w = self._check(weights)
        self.evaluations += w.shape[0]
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
        ranked = self.layout.ranked_labels(w)
        if self.convention == "letor":
            from .letor import letor_values

            return [letor_values(t.measure, ranked, self.layout) for t in self.terms]
        p = w.shape[0]
        jr = self.layout.judged_run(ranked, self.depth, self._memo.get(p))
        values = [t.measure.compute(jr).reshape(p, -1).astype(np.float64) for t in self.terms]
        if p not in self._memo and len(self._memo) < 8:
            self._memo[p] = _qrels_memo(jr)
        return values

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
