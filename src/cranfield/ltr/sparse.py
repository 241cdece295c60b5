"""Sparse feature matrices: compressed sparse rows (CSR) in NumPy arrays.

LETOR-style files list each document's non-zero features (``index:value``); with tens of
thousands of features, or indices in the millions, a dense ``documents x features``
matrix does not fit in memory although the values listed do. :class:`SparseFeatures`
holds them as compressed sparse rows -- the layout of SciPy's ``csr_matrix`` and of
LightGBM's and XGBoost's CSR inputs -- so memory is proportional to the values listed
(12 bytes each, plus 8 per document), not to ``documents x features``.

A feature not listed is 0 -- an *implicit zero* -- and counts as the value 0 everywhere:
in scoring (``w . x``), in the per-query min-max normalisation (a query whose documents
do not all list a feature has 0 among that feature's values, as in the dense matrix),
and in the boosted baselines (LightGBM and XGBoost read a CSR matrix's missing entries
as 0, not as missing, with their default settings). Every result is thus the dense
matrix's, bit for bit. Column indices are ``int32`` (0-based, strictly increasing
within a row), so a feature index is at most 2^31 - 1, as in SciPy and LightGBM.

Only NumPy is needed; :meth:`SparseFeatures.to_scipy` (for the boosted baselines,
extra ``ltr``) imports SciPy lazily.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import segments
from ..errors import require

#: The largest feature index (1-based) a file may use: the int32 column indices of
#: SciPy's and LightGBM's sparse matrices (and of :class:`SparseFeatures`).
MAX_INDEX = 2**31 - 1


@dataclass(frozen=True, eq=False)
class SparseFeatures:
    """A ``documents x features`` matrix as compressed sparse rows.

    Attributes
    ----------
    indptr
        ``N + 1`` int64 offsets: row ``r`` lists ``indices[indptr[r]:indptr[r + 1]]``.
    indices
        int32 column (feature ``j + 1``) of each listed value, increasing within a row.
    values
        float64 value of each listed entry (explicit zeros allowed).
    shape
        ``(N, F)``.
    """

    indptr: np.ndarray
    indices: np.ndarray
    values: np.ndarray
    shape: tuple[int, int]

    ndim = 2

    @classmethod
    def from_dense(cls, x: np.ndarray) -> SparseFeatures:
        """The non-zero entries of a dense matrix."""
        x = np.asarray(x, dtype=np.float64)
        rows, cols = np.nonzero(x)
        indptr = np.concatenate(([0], np.cumsum(np.bincount(rows, minlength=x.shape[0]))))
        return cls(indptr.astype(np.int64), cols.astype(np.int32), x[rows, cols], x.shape)

    @property
    def nnz(self) -> int:
        return len(self.values)

    @property
    def nbytes(self) -> int:
        return self.indptr.nbytes + self.indices.nbytes + self.values.nbytes

    def row_of_entry(self) -> np.ndarray:
        """The row of every listed entry."""
        return segments.segment_ids(self.indptr)

    def toarray(self) -> np.ndarray:
        """The dense matrix (tests and small inputs only: ``N x F`` float64)."""
        out = np.zeros(self.shape)
        out[self.row_of_entry(), self.indices] = self.values
        return out

    def rows(self, rows: np.ndarray) -> SparseFeatures:
        """The rows with these indices, in the order given (whole-array gather)."""
        rows = np.asarray(rows, dtype=np.int64)
        lengths = np.diff(self.indptr)[rows]
        indptr = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
        take = np.repeat(self.indptr[rows] - indptr[:-1], lengths) + np.arange(indptr[-1])
        return SparseFeatures(
            indptr, self.indices[take], self.values[take], (len(rows), self.shape[1])
        )

    def used_width(self) -> int:
        """One more than the largest column holding a non-zero value (0 if none)."""
        nz = self.values != 0
        return int(self.indices[nz].max()) + 1 if nz.any() else 0

    def with_width(self, num_features: int) -> SparseFeatures:
        """The matrix with ``num_features`` columns; listed entries beyond it (zeros:
        the caller checks :meth:`used_width`) are dropped."""
        keep = self.indices < num_features
        if keep.all():
            return SparseFeatures(
                self.indptr, self.indices, self.values, (self.shape[0], num_features)
            )
        counts = np.bincount(self.row_of_entry()[keep], minlength=self.shape[0])
        indptr = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        return SparseFeatures(
            indptr, self.indices[keep], self.values[keep], (self.shape[0], num_features)
        )

    def first_nonfinite_row(self) -> int | None:
        """The first row holding a NaN or infinite value (None if every value is finite)."""
        bad = ~np.isfinite(self.values)
        return int(self.row_of_entry()[np.argmax(bad)]) if bad.any() else None

    def query_min_max(self, offsets: np.ndarray) -> SparseFeatures:
        """Per query and feature, ``(x - min) / (max - min)`` (0 where they are equal),
        the implicit zeros counting as values 0: the dense
        :func:`~cranfield.ltr.data.query_min_max`, bit for bit.

        An implicit zero normalises to ``-min / (max - min)``, which is 0 unless the
        query lists a negative value of the feature; then that feature becomes listed
        for every document of the query (the only case where the result lists more
        values than the input). Zeros of the result are not listed.
        """
        n, f = self.shape
        query_length = np.diff(offsets)
        q = segments.segment_ids(offsets)[self.row_of_entry()]
        c = self.indices.astype(np.int64)
        order = np.lexsort((c, q))
        qs, cs, vs = q[order], c[order], self.values[order]
        if len(vs) == 0:
            return self
        new = np.concatenate(([True], (qs[1:] != qs[:-1]) | (cs[1:] != cs[:-1])))
        starts = np.flatnonzero(new)
        group_q, group_c = qs[starts], cs[starts]
        listed = np.diff(np.append(starts, len(vs)))
        implicit = listed < query_length[group_q]
        lo = np.minimum.reduceat(vs, starts)
        hi = np.maximum.reduceat(vs, starts)
        lo = np.where(implicit, np.minimum(lo, 0.0), lo)
        hi = np.where(implicit, np.maximum(hi, 0.0), hi)
        with np.errstate(over="ignore"):
            span = hi - lo
        flat = span == 0
        safe = np.where(flat, 1.0, span)
        group = np.cumsum(new) - 1  # the group of every entry (in `order`)
        with np.errstate(invalid="ignore", over="ignore"):  # spans near 2 x 1e308
            out = (vs - lo[group]) / safe[group]
        out[flat[group]] = 0.0
        rows = self.row_of_entry()[order]
        # implicit zeros that do not normalise to 0: listed from now on
        fill = np.flatnonzero(implicit & ~flat & (lo < 0))
        if len(fill):
            lengths = query_length[group_q[fill]]
            first = np.repeat(offsets[group_q[fill]], lengths)
            within = np.arange(int(lengths.sum())) - np.repeat(
                np.cumsum(lengths) - lengths, lengths
            )
            fill_rows = first + within
            fill_cols = np.repeat(group_c[fill], lengths)
            with np.errstate(invalid="ignore", over="ignore"):
                fill_values = np.repeat((0.0 - lo[fill]) / safe[fill], lengths)
            have = np.isin(fill_rows * f + fill_cols, rows * f + cs)
            rows = np.concatenate((rows, fill_rows[~have]))
            cs = np.concatenate((cs, fill_cols[~have]))
            out = np.concatenate((out, fill_values[~have]))
        keep = out != 0
        rows, cs, out = rows[keep], cs[keep], out[keep]
        back = np.lexsort((cs, rows))
        indptr = np.concatenate(([0], np.cumsum(np.bincount(rows, minlength=n)))).astype(np.int64)
        return SparseFeatures(indptr, cs[back].astype(np.int32), out[back], self.shape)

    def to_scipy(self):
        """A ``scipy.sparse.csr_matrix`` sharing nothing (SciPy comes with extra ``ltr``)."""
        sp = require("scipy.sparse", "ltr")
        return sp.csr_matrix((self.values, self.indices, self.indptr), shape=self.shape)


def is_sparse(x) -> bool:
    return isinstance(x, SparseFeatures)


def take_rows(x, rows: np.ndarray):
    """Rows of a dense or sparse feature matrix, in the order given."""
    return x.rows(rows) if is_sparse(x) else x[rows]
