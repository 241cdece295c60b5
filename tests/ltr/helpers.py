"""Seeded generators of ranking data for the learning-to-rank tests."""

from __future__ import annotations

import numpy as np

from cranfield.ltr.data import RankingData, from_arrays

#: Six SVMlight lines of two queries using feature indices up to 10,000,000 (a dense
#: matrix of 480 MB; a few hundred bytes as sparse rows).
TEN_MILLION = b"""2 qid:1 1:1 10000000:0.5 # docid = a
0 qid:1 2:1 9999999:3
1 qid:1 10000000:0.25 17:2
1 qid:2 5000000:1
0 qid:2 1:0.5
2 qid:2 10000000:1
"""


def random_data(
    seed: int,
    queries: int = 12,
    features: int = 4,
    levels: int = 3,
    max_docs: int = 15,
    tie_prone: bool = True,
) -> RankingData:
    """Random data: small-integer features (many tied scores), random labels, random doc
    ids (shared between queries, shuffled query order, queries without relevant docs)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_docs + 1, size=queries)
    n = int(sizes.sum())
    qids = np.repeat([f"q{rng.integers(0, 10**6)}x{i}" for i in range(queries)], sizes)
    if tie_prone:
        x = rng.integers(0, 3, size=(n, features)).astype(float)
    else:
        x = rng.normal(size=(n, features))
    labels = rng.integers(0, levels, size=n)
    labels[qids == qids[0]] = 0  # a query without relevant documents
    docs = np.array([f"d{v}" for v in rng.permutation(n * 3)[:n]])
    return from_arrays(x, labels, qids, docs, source=f"random{seed}")


def linear_data(
    seed: int, queries: int = 60, docs: int = 20, features: int = 6, noise: float = 0.3
):
    """Data whose labels come from a known linear scorer (plus noise): (data, weights)."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=features)
    n = queries * docs
    x = rng.normal(size=(n, features))
    latent = x @ w + noise * rng.normal(size=n)
    qids = np.repeat(np.arange(queries), docs).astype(str)
    # grade by the quantiles of the query's latent scores: 0 (60%), 1 (25%), 2 (15%)
    order = np.argsort(np.argsort(latent.reshape(queries, docs), axis=1), axis=1).ravel()
    frac = order / docs
    labels = np.where(frac >= 0.85, 2, np.where(frac >= 0.6, 1, 0))
    return from_arrays(x, labels, qids, source=f"linear{seed}"), w
