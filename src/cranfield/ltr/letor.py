"""LETOR's evaluation convention (the Eval-Score-4.0 script of LETOR 4.0).

Published LETOR baselines (Qin, Liu, Xu & Li, "LETOR: A benchmark collection for
research on learning to rank for information retrieval", Information Retrieval 13,
2010) were computed by that script, whose rules differ from trec_eval's:

* gain of a label ``l``: ``2^l - 1`` (2 -> 3, 1 -> 1, 0 -> 0);
* discount: ranks 1 and 2 are not discounted, rank ``r >= 3`` is divided by
  ``log2(r)``;
* NDCG@k of a query with fewer than ``k`` documents is 0;
* a query without relevant documents scores 0 in every measure and counts in the mean;
* tied scores keep the documents' file order;
* relevant means label >= 1; P@k = relevant in the top k / k; AP = the mean of the
  precisions at the relevant documents' ranks (MAP is its mean).

Measures: ``NDCG@k`` (also ``nDCG@k``), ``P@k``, ``MAP`` (also ``AP``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .._memo import memo
from ..core import libm
from ..core.measures.gain import exp_gain
from ..errors import MeasureError

LETOR_MEASURES = ("NDCG@k", "P@k", "MAP")
MAX_LABEL = 60  # 2^60 - 1: sums of gains stay exact enough and finite


@dataclass(frozen=True)
class LetorMeasure:
    """A measure under LETOR's convention: ``kind`` ``ndcg``, ``p`` or ``map``."""

    kind: str
    k: int | None = None

    def __str__(self) -> str:
        return {"ndcg": f"NDCG@{self.k}", "p": f"P@{self.k}", "map": "MAP"}[self.kind]


def letor_measure(name: str) -> LetorMeasure:
    """Parse ``NDCG@10``, ``P@5`` or ``MAP`` (``nDCG``, ``ndcg``, ``AP``, ``map`` too)."""
    text = name.strip()
    m = re.fullmatch(r"(?i)(ndcg|p)@(\d{1,6})", text)
    if m and int(m.group(2)) >= 1:
        return LetorMeasure("ndcg" if m.group(1).lower() == "ndcg" else "p", int(m.group(2)))
    if text.lower() in ("map", "ap"):
        return LetorMeasure("map")
    raise MeasureError(
        f"{name!r} is not defined under --convention letor (measures: NDCG@k, P@k, MAP)"
    )


@memo()
def _gain_table() -> np.ndarray:
    return exp_gain(np.arange(MAX_LABEL + 1))


def gains(labels: np.ndarray) -> np.ndarray:
    """LETOR's NDCG gain 2^label - 1 of labels up to :data:`MAX_LABEL` (negative labels
    gain 0), by the measures' own exponential gain (:func:`~cranfield.core.measures.gain.exp_gain`)."""
    return _gain_table()[np.clip(labels, 0, MAX_LABEL).astype(np.int64)]


def log2_ranks(n: int) -> np.ndarray:
    """The denominators of LETOR's discount of ranks 1..n: 1, 1, log2(3), log2(4), ...
    (the C library's log2, :mod:`cranfield.core.libm`)."""
    r = np.arange(1, n + 1, dtype=np.float64)
    return np.maximum(1.0, libm.log2(np.maximum(r, 2.0)))


def discounts(n: int) -> np.ndarray:
    """LETOR's discount of ranks 1..n: 1, 1, 1/log2(3), 1/log2(4), ..."""
    return 1.0 / log2_ranks(n)


def letor_values(measure: LetorMeasure, ranked: np.ndarray, block) -> np.ndarray:
    """Per-query values (``P x Qb``) of one block of queries from their ranked labels
    (``P x Qb x K``, padding -1): ``block`` gives the query lengths and the ideal
    orderings (labels sorted descending per query). MAP needs whole rankings."""
    lengths = block.lengths
    if measure.kind == "ndcg":
        if block.ideal.size and int(block.ideal.max()) > MAX_LABEL:
            raise MeasureError(
                f"LETOR's NDCG gains 2^label - 1 need labels <= {MAX_LABEL}, "
                f"got {int(block.ideal.max())}"
            )
        k = measure.k
        top = _top(ranked, k)
        ideal = _top(block.ideal[None], k)[0]
        d = discounts(k)
        dcg = gains(top)
        dcg = (dcg * d).sum(axis=2)
        idcg = (gains(ideal) * d).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            out = np.where(idcg > 0, dcg / np.where(idcg > 0, idcg, 1.0), 0.0)
        out[:, lengths < k] = 0.0
        return out
    rel = ranked >= 1
    if measure.kind == "p":
        k = measure.k
        return _top(rel, k).sum(axis=2) / k
    # MAP: precision at each relevant rank, averaged over the relevant documents
    hits = np.cumsum(rel, axis=2)
    ranks = np.arange(1, ranked.shape[2] + 1)
    total = np.where(rel, hits / ranks, 0.0).sum(axis=2)
    nrel = (block.ideal >= 1).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(nrel > 0, total / np.maximum(nrel, 1), 0.0)


def _top(a: np.ndarray, k: int) -> np.ndarray:
    """The first ``k`` positions of the last axis, padded with -1 (False) if shorter."""
    if a.shape[-1] >= k:
        return a[..., :k]
    pad = np.full((*a.shape[:-1], k - a.shape[-1]), -1 if a.dtype != bool else False, a.dtype)
    return np.concatenate((a, pad), axis=-1)
