"""Which pooled pairs people judge: a uniform or rank-stratified sample with known
inclusion probabilities, for the prediction-powered estimates of
:func:`cranfield.judgments.ppi.ppi_evaluate_pairs` (weights :math:`1/\\pi_i`:
Horvitz & Thompson 1952)."""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError


def sample_pairs(ranks, fraction: float, *, bounds=(), seed: int = 0):
    r"""A stratified simple random sample of pooled pairs.

    Parameters
    ----------
    ranks
        Each pooled pair's best rank over the runs (1 = top).
    fraction
        The share of each stratum people judge, in (0, 1].
    bounds
        Increasing rank bounds: stratum :math:`h` holds ranks in
        :math:`(b_{h-1}, b_h]`; none: one stratum (a uniform sample).

    Returns
    -------
    (rows, pi): the indices of the chosen pairs (ascending) and each one's inclusion
    probability :math:`\pi = n_h / N_h`, with :math:`n_h = \max(1, \mathrm{round}(f N_h))`
    in every non-empty stratum (``numpy.random.default_rng(seed)``).
    """
    if not 0 < fraction <= 1:
        raise ParameterError("fraction", "a number in (0, 1]", fraction)
    ranks = np.asarray(ranks, np.int64)
    edges = np.asarray(bounds, np.int64)
    if edges.size and (np.diff(edges) <= 0).any():
        raise ParameterError("strata bounds", "increasing ranks", list(bounds))
    stratum = np.searchsorted(edges, ranks, side="left")
    rng = np.random.default_rng(seed)
    key = rng.random(ranks.size)
    order = np.lexsort((key, stratum))  # random order within each stratum
    labels, start, size = np.unique(stratum[order], return_index=True, return_counts=True)
    take = np.maximum(1, np.rint(fraction * size)).astype(np.int64)
    position = np.arange(ranks.size) - np.repeat(start, size)
    chosen = order[position < np.repeat(take, size)]
    rows = np.sort(chosen)
    return rows, (take / size)[np.searchsorted(labels, stratum[rows])]
