"""Learning-to-rank data: feature vectors of (query, document) pairs with labels.

A :class:`RankingData` holds, for every document of every query, a row of features
(a float64 matrix, dense or -- for sparse files -- compressed sparse rows,
:class:`~cranfield.ltr.sparse.SparseFeatures`), a relevance label (an integer grade, as in a qrels file) and a
document id; the documents of one query are consecutive and ``offsets`` delimits
them (CSR, the layout of :class:`~cranfield.core.judged.JudgedRun`). Queries keep
the order of their first appearance in the input, documents their input order (the
order LETOR's evaluation script breaks ties by).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..core import segments
from ..errors import InputError, ParameterError, number_shown
from .sparse import SparseFeatures, is_sparse, take_rows

NORMALISATIONS = ("query", "none")


@dataclass(frozen=True, eq=False)
class RankingData:
    """Features, labels, query segments and document ids of a ranking data set.

    Attributes
    ----------
    features
        ``(num_docs, num_features)`` float64 matrix, a NumPy array or (sparse data)
        :class:`~cranfield.ltr.sparse.SparseFeatures` (implicit zeros are values 0);
        column ``j`` is feature ``j + 1`` of the SVMlight/LETOR numbering.
    labels
        Relevance grade of each document (int64, >= 0).
    offsets
        ``features[offsets[q]:offsets[q + 1]]`` are the documents of query ``q``.
    query_ids
        Id of each query (strings), in the order of ``offsets``.
    doc_ids
        Id of each document (strings): the ``docid = X`` of LETOR comments, or made up
        (``D0000017``: the row number, zero-padded) when the input has none.
    source
        File name or description, for messages.
    normalisation
        ``"none"`` or ``"query"`` (features already min-max normalised per query).
    """

    features: np.ndarray | SparseFeatures
    labels: np.ndarray
    offsets: np.ndarray
    query_ids: np.ndarray
    doc_ids: np.ndarray
    source: str = "<data>"
    normalisation: str = "none"

    def __post_init__(self) -> None:
        n = self.features.shape[0]
        if self.features.ndim != 2 or len(self.labels) != n or len(self.doc_ids) != n:
            raise InputError("features, labels and document ids differ in length", self.source)
        if self.offsets[0] != 0 or self.offsets[-1] != n or np.any(np.diff(self.offsets) <= 0):
            raise InputError("query offsets do not cover the documents", self.source)
        if len(self.query_ids) != len(self.offsets) - 1:
            raise InputError("one query id per query is needed", self.source)

    @property
    def num_docs(self) -> int:
        return int(self.features.shape[0])

    @property
    def num_features(self) -> int:
        return int(self.features.shape[1])

    @property
    def num_queries(self) -> int:
        return len(self.query_ids)

    @property
    def query_of_doc(self) -> np.ndarray:
        """Query index (into ``query_ids``) of every document."""
        return segments.segment_ids(self.offsets)

    def with_features(self, num_features: int) -> RankingData:
        """The data with exactly ``num_features`` columns (zeros added or, if the
        removed columns are all zero, columns dropped): the width a model expects."""
        f = self.num_features
        if num_features == f:
            return self
        if is_sparse(self.features):
            used = self.features.used_width()
        elif num_features > f:
            used = 0
        else:
            extra = self.features[:, num_features:]
            nz = np.flatnonzero(np.any(extra != 0, axis=0))
            used = int(nz.max()) + num_features + 1 if len(nz) else 0
        if used > num_features:
            raise InputError(
                f"feature {used} is used but the model has {num_features} features", self.source
            )
        x = self.features
        if is_sparse(x):
            return replace(self, features=x.with_width(num_features))
        if num_features > f and self.num_docs * num_features > 4 * x.size + 2**20:
            # a much wider model (trained on sparse rows): these rows become sparse too
            wide = SparseFeatures.from_dense(x).with_width(num_features)
            return replace(self, features=wide)
        if num_features > f:
            pad = np.zeros((self.num_docs, num_features - f))
            return replace(self, features=np.hstack([x, pad]))
        return replace(self, features=np.ascontiguousarray(x[:, :num_features]))

    def normalised(self, how: str) -> RankingData:
        """The data with features normalised: ``"query"`` or ``"none"``.

        ``query`` is LETOR's QueryLevelNorm (Qin, Liu, Xu & Li, "LETOR: A benchmark
        collection for research on learning to rank for information retrieval", 2010):
        per query and feature, ``(x - min) / (max - min)``, and 0 where all the
        query's documents have the same value.
        """
        if how not in NORMALISATIONS:
            raise ParameterError("normalisation", "one of " + ", ".join(NORMALISATIONS), how)
        if how == "none" or self.normalisation == "query":
            return self
        x = self.features
        normal = x.query_min_max(self.offsets) if is_sparse(x) else query_min_max(x, self.offsets)
        return replace(self, features=normal, normalisation=how)

    def subset(self, queries: np.ndarray) -> RankingData:
        """The data of the queries with these indices (in the order given)."""
        queries = np.asarray(queries, dtype=np.int64)
        lengths = np.diff(self.offsets)[queries]
        offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
        rows = np.repeat(self.offsets[queries] - offsets[:-1], lengths) + np.arange(offsets[-1])
        return replace(
            self,
            features=take_rows(self.features, rows),
            labels=self.labels[rows],
            offsets=offsets,
            query_ids=self.query_ids[queries],
            doc_ids=self.doc_ids[rows],
        )


def query_min_max(features: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per-query min-max normalisation of ``features`` (whole-array, by ``reduceat``)."""
    starts = offsets[:-1]
    lengths = np.diff(offsets)
    lo = np.minimum.reduceat(features, starts, axis=0)
    with np.errstate(over="ignore"):
        span = np.maximum.reduceat(features, starts, axis=0) - lo
    # in place: about three documents x features matrices at the peak, not five
    with np.errstate(invalid="ignore", over="ignore"):  # spans near 2 x 1e308
        out = features - np.repeat(lo, lengths, axis=0)
        span_rows = np.repeat(span, lengths, axis=0)
        flat = span_rows == 0
        span_rows[flat] = 1.0
        np.divide(out, span_rows, out=out)
    out[flat] = 0.0
    return out


def from_arrays(
    features,
    labels,
    query_ids,
    doc_ids=None,
    *,
    source: str = "<arrays>",
) -> RankingData:
    """A :class:`RankingData` from one row per document.

    Rows of one query need not be consecutive: queries are ordered by first
    appearance and a query's documents keep their order. Missing document ids are
    made up from the row number (``D0000017``). Labels must be whole numbers >= 0;
    features finite, a matrix or :class:`~cranfield.ltr.sparse.SparseFeatures`.
    """
    x = features if is_sparse(features) else np.asarray(features, dtype=np.float64)
    if x.ndim != 2:
        raise InputError("features must be a 2-dimensional matrix", source)
    n = x.shape[0]
    if n == 0:
        raise InputError("no documents", source)
    y = np.asarray(labels)
    if y.shape != (n,):
        raise InputError(f"{len(y)} labels for {n} documents", source)
    y = _grades(y, source)
    if is_sparse(x):
        first_bad = x.first_nonfinite_row()
    else:
        bad = ~np.isfinite(x).all(axis=1)
        first_bad = int(np.argmax(bad)) if bad.any() else None
    if first_bad is not None:
        raise InputError("a feature value is not a finite number", source, first_bad + 1)
    q = np.asarray(query_ids).astype(str)
    if q.shape != (n,):
        raise InputError(f"{len(q)} query ids for {n} documents", source)
    uniq, first, inverse = np.unique(q, return_index=True, return_inverse=True)
    rank_of = np.empty(len(uniq), dtype=np.int64)
    rank_of[np.argsort(first, kind="stable")] = np.arange(len(uniq))
    qidx = rank_of[inverse.ravel()]
    order = np.argsort(qidx, kind="stable")
    counts = np.bincount(qidx, minlength=len(uniq))
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    if doc_ids is None:
        width = len(str(n - 1))
        docs = np.char.add("D", np.char.zfill(np.arange(n).astype(str), width))
    else:
        docs = np.asarray(doc_ids).astype(str)
        if docs.shape != (n,):
            raise InputError(f"{len(docs)} document ids for {n} documents", source)
    docs = _unique_docs(docs[order], qidx[order])
    qids = uniq[np.argsort(first, kind="stable")]
    in_order = x.rows(order) if is_sparse(x) else np.ascontiguousarray(x[order])
    return RankingData(in_order, y[order], offsets, qids.astype(object), docs, source)


def _grades(y: np.ndarray, source: str) -> np.ndarray:
    if y.dtype.kind in "iu":
        g = y.astype(np.int64)
    else:
        try:
            f = y.astype(np.float64)
        except (TypeError, ValueError):
            raise InputError("labels must be numbers", source) from None
        bad = ~np.isfinite(f) | (f != np.round(f))
        if bad.any():
            i = int(np.argmax(bad))
            raise InputError(f"label {number_shown(y[i])} is not a whole number", source, i + 1)
        big = np.abs(f) > 2**31
        if big.any():
            i = int(np.argmax(big))
            raise InputError(
                f"label {number_shown(y[i])} is out of range (labels are whole numbers "
                "from 0 to 2^31)",
                source,
                i + 1,
            )
        g = f.astype(np.int64)
    if np.any(g < 0):
        i = int(np.argmax(g < 0))
        raise InputError(f"label {g[i]} is negative (grades are >= 0)", source, i + 1)
    return g


def _unique_docs(docs: np.ndarray, qidx: np.ndarray) -> np.ndarray:
    """Document ids made unique within each query: a repeated id gets ``~2``, ``~3``...

    LETOR files repeat a document id in a query now and then; a TREC run (and the
    qrels) may hold each (query, document) pair once.
    """
    docs = docs.astype(object)
    _, codes = np.unique(docs.astype(str), return_inverse=True)
    key = qidx.astype(np.int64) * (int(codes.max()) + 1) + codes.ravel()
    order = np.argsort(key, kind="stable")
    sk = key[order]
    new_run = np.concatenate(([True], sk[1:] != sk[:-1]))
    run_start = np.maximum.accumulate(np.where(new_run, np.arange(len(sk)), 0))
    occurrence = np.empty(len(sk), dtype=np.int64)
    occurrence[order] = np.arange(len(sk)) - run_start
    dup = occurrence > 0
    if dup.any():
        docs = docs.copy()
        docs[dup] = np.char.add(
            np.char.add(docs[dup].astype(str), "~"), (occurrence[dup] + 1).astype(str)
        )
    return docs
