"""The one scoring function of the linear rankers: ``s = w . x`` for every document.

Every score is computed by the compiled engine (``rust/ltr/src/scoring.rs``) as one
chain of fused multiply-adds over the features in order, ``acc = fma(w[k], x[k], acc)``
from 0, then ``+ 0.0`` (so ``-0.0`` becomes ``0.0``, as TREC text writes it). A score
thus depends on the two vectors alone -- not on the batch, the document's position or
the instruction set -- so the training objective, the written TREC runs and ``ltr
eval`` rank on the same numbers, ties included.

Sparse features (:class:`~cranfield.ltr.sparse.SparseFeatures`) are scored by the same
chain over the listed features only: a left-out term ``fma(w, 0, acc)`` is ``acc``
itself for a finite weight, so the scores are the dense matrix's, bit for bit, in time
proportional to the values listed.
"""

from __future__ import annotations

import numpy as np

from .sparse import is_sparse


def linear_scores(features, weights: np.ndarray) -> np.ndarray:
    """Scores of ``features`` (``N x F``, dense or sparse) under ``weights``: ``P x N``
    for ``P x F`` weights, ``N`` for one vector of ``F``."""
    from .. import _engine

    w = np.asarray(weights, dtype=np.float64)
    w2 = np.ascontiguousarray(np.atleast_2d(w))
    if is_sparse(features):
        x = features
        if w2.shape[1] != x.shape[1]:
            raise ValueError(f"{w2.shape[1]} weights per row for {x.shape[1]} features")
        s = _engine.ltr_scores_csr(x.indptr, x.indices, x.values, w2)
        return s[0] if w.ndim == 1 else s
    x = np.ascontiguousarray(features, dtype=np.float64)
    s = _engine.ltr_scores(x, w2)
    return s[0] if w.ndim == 1 else s
