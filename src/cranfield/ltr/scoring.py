"""The one scoring function of the linear rankers: ``s = w . x`` for every document.

Every score is computed by the compiled engine (``rust/ltr/src/scoring.rs``) as one
chain of fused multiply-adds over the features in order, ``acc = fma(w[k], x[k], acc)``
from 0, then ``+ 0.0`` (so ``-0.0`` becomes ``0.0``, as TREC text writes it). A score
thus depends on the two vectors alone -- not on the batch, the document's position or
the instruction set -- so the training objective, the written TREC runs and ``ltr
eval`` rank on the same numbers, ties included.
"""

from __future__ import annotations

import numpy as np


def linear_scores(features: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Scores of ``features`` (``N x F``) under ``weights``: ``P x N`` for ``P x F``
    weights, ``N`` for one vector of ``F``."""
    from .. import _engine

    x = np.ascontiguousarray(features, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    s = _engine.ltr_scores(x, np.ascontiguousarray(np.atleast_2d(w)))
    return s[0] if w.ndim == 1 else s
