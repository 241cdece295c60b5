"""Click models fitted by EM over a click log cut into partitions of sessions, in Dask
workers: PBM and UBM from the summed cell counts, DBN and CCM from per-partition
E-steps (the local fit's own) summed on the client; the parameters equal those of the
local fit on the whole log within 1e-12 each, with the same iterations."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.clicks import fit, from_arrays
from cranfield.distributed.clicks import fit_dask
from cranfield.errors import CranfieldError, ParameterError


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


def cut(seed: int):
    """A whole log and the same sessions in four partitions, one of them 5 ranks wide."""
    query, docs, clicks, qn, dn = click_log(seed)
    whole = from_arrays(query, docs, clicks, qn, dn)
    short = np.flatnonzero((docs >= 0).sum(axis=1) <= 5)  # a partition 5 ranks wide
    rest = np.setdiff1d(np.arange(len(query)), short)
    parts = [from_arrays(query[short], docs[short, :5], clicks[short, :5], qn, dn)]
    parts += [whole.subset(rows) for rows in np.array_split(rest, 3)]
    return whole, parts


def same_pairs(local, dist) -> np.ndarray:
    """The position in ``local`` of each of ``dist``'s pairs (both have the same pairs)."""
    at = {(q, d): i for i, (q, d) in enumerate(zip(local.pair_query, local.pair_doc, strict=True))}
    order = np.array([at[(q, d)] for q, d in zip(dist.pair_query, dist.pair_doc, strict=True)])
    assert len(order) == len(at) == len(set(order.tolist()))
    return order


@pytest.mark.parametrize("prior", [(1, 2), (0, 0)])
@pytest.mark.parametrize("model", ["pbm", "ubm"])
def test_partitioned_fit_equals_local(dask_client, model, prior):
    whole, parts = cut(4)
    local = fit(whole, model, tol=1e-6, max_iter=60, prior=prior)
    dist = fit_dask(parts, model, tol=1e-6, max_iter=60, client=dask_client, prior=prior)
    assert local.iterations > 3
    assert dist.iterations == local.iterations and dist.converged == local.converged
    order = same_pairs(local, dist)
    a_local = local.params.pair["attractiveness"][order]
    assert np.abs(dist.params.pair["attractiveness"] - a_local).max() < 1e-12
    g_local, g_dist = local.params.rank["examination"], dist.params.rank["examination"]
    assert g_local.shape == g_dist.shape and np.abs(g_local - g_dist).max() < 1e-12
    assert np.array_equal(dist.impressions, local.impressions[order])
    assert np.array_equal(dist.clicks, local.clicks[order])
    assert np.allclose(dist.trace, local.trace, rtol=1e-12, atol=0)
    assert dist.queries == local.queries


@pytest.mark.parametrize("prior", [(1, 2), (0, 0), (0.5, 3)])
@pytest.mark.parametrize("model", ["dbn", "ccm"])
def test_partitioned_tails_fit_equals_local(dask_client, model, prior):
    whole, parts = cut(7)
    local = fit(whole, model, tol=1e-4, max_iter=40, prior=prior)
    dist = fit_dask(parts, model, tol=1e-4, max_iter=40, client=dask_client, prior=prior)
    assert dist.prior == local.prior == tuple(map(float, prior))
    assert 3 < local.iterations < 40 and local.converged  # stops by tol, not max_iter
    assert dist.iterations == local.iterations and dist.converged == local.converged
    order = same_pairs(local, dist)
    for name, values in local.params.pair.items():
        assert np.abs(dist.params.pair[name] - values[order]).max() < 1e-12, name
    assert local.params.scalar.keys() == dist.params.scalar.keys()
    for name, value in local.params.scalar.items():
        assert abs(dist.params.scalar[name] - value) < 1e-12, name
    assert np.array_equal(dist.impressions, local.impressions[order])
    assert np.array_equal(dist.clicks, local.clicks[order])
    assert np.allclose(dist.trace, local.trace, rtol=1e-12, atol=0)
    assert dist.queries == local.queries


def test_one_partition_tails_fit_equals_local(dask_client):
    whole, _ = cut(5)
    local = fit(whole, "dbn", max_iter=8)
    dist = fit_dask(whole, "dbn", max_iter=8, client=dask_client)
    order = same_pairs(local, dist)
    assert dist.iterations == local.iterations == 8 and not dist.converged
    assert (
        np.abs(dist.params.pair["satisfaction"] - local.params.pair["satisfaction"][order]).max()
        < 1e-12
    )


def test_bad_partition_one_error(dask_client, tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_text("this is not a click log\n")
    whole, parts = cut(5)
    with pytest.raises(CranfieldError):
        fit_dask([parts[0], str(bad)], "ccm", client=dask_client)


def test_other_models_refused():
    with pytest.raises(ParameterError, match="model"):
        fit_dask([], "dcm")
