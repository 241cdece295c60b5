"""PBM and UBM fitted by EM over a click log cut into partitions of sessions, in Dask
workers: the cells' counts add up and the EM on them gives the parameters of the
local fit on the whole log, within 1e-12 each, with the same iterations."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.clicks import fit, from_arrays
from cranfield.distributed.clicks import fit_dask
from cranfield.errors import ParameterError


def click_log(seed: int, n: int = 3000, k: int = 8):
    rng = np.random.default_rng(seed)
    query = rng.integers(0, 25, n)
    docs = np.stack([rng.permutation(60)[:k] for _ in range(n)])
    length = rng.integers(1, k + 1, n)
    shown = np.arange(k)[None, :] < length[:, None]
    docs = np.where(shown, docs, -1)
    attract = rng.random(60)
    clicks = shown & (rng.random((n, k)) < attract[np.maximum(docs, 0)] / (1 + np.arange(k)))
    names = np.array([f"q{i}" for i in range(25)], dtype=object)
    dnames = np.array([f"d{i}" for i in range(60)], dtype=object)
    return query, docs, clicks, names, dnames


@pytest.mark.parametrize("model", ["pbm", "ubm"])
def test_partitioned_fit_equals_local(dask_client, model):
    query, docs, clicks, qn, dn = click_log(4)
    whole = from_arrays(query, docs, clicks, qn, dn)
    short = np.flatnonzero((docs >= 0).sum(axis=1) <= 5)  # a partition 5 ranks wide
    rest = np.setdiff1d(np.arange(len(query)), short)
    parts = [from_arrays(query[short], docs[short, :5], clicks[short, :5], qn, dn)]
    parts += [whole.subset(rows) for rows in np.array_split(rest, 3)]
    local = fit(whole, model, max_iter=60)
    dist = fit_dask(parts, model, max_iter=60, client=dask_client)
    assert local.iterations > 3
    assert dist.iterations == local.iterations and dist.converged == local.converged
    at = {(q, d): i for i, (q, d) in enumerate(zip(local.pair_query, local.pair_doc, strict=True))}
    order = np.array([at[(q, d)] for q, d in zip(dist.pair_query, dist.pair_doc, strict=True)])
    assert len(order) == len(at)
    a_local = local.params.pair["attractiveness"][order]
    assert np.abs(dist.params.pair["attractiveness"] - a_local).max() < 1e-12
    g_local, g_dist = local.params.rank["examination"], dist.params.rank["examination"]
    assert g_local.shape == g_dist.shape and np.abs(g_local - g_dist).max() < 1e-12
    assert np.array_equal(dist.impressions, local.impressions[order])
    assert np.array_equal(dist.clicks, local.clicks[order])
    assert np.allclose(dist.trace, local.trace, rtol=1e-12, atol=0)
    assert dist.queries == local.queries


def test_other_models_refused():
    with pytest.raises(ParameterError, match="model"):
        fit_dask([], "dbn")
