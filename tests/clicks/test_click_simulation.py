"""Simulated logs: parameter recovery of every model on large simulated logs.

PBM and UBM are identified only up to a common factor (``alpha * c`` and
``gamma / c`` give the same clicks): their estimates are compared after scaling the
first rank's examination to the generating one. DCM's and SDBN's closed forms are the
book's approximate MLE (documents after the last click count as not examined), biased
upwards when users go on without clicking after it: their attractiveness gets a wider
tolerance, and their satisfaction / continuation estimates (last-click fractions) are
only checked for the direction of that bias.
"""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.clicks import fit, from_qrels, shuffled_sessions, simulate
from cranfield.clicks.models import Params
from cranfield.errors import ParameterError

RNG = np.random.default_rng(0)
QRELS = {f"q{i}": {f"d{j}": int(RNG.integers(0, 4)) for j in range(8)} for i in range(6)}
LISTS = {q: list(v) for q, v in QRELS.items()}
N = 20_000


def _aligned(truth, est, name):
    idx = {(q, d): i for i, (q, d) in enumerate(zip(est.pair_query, est.pair_doc, strict=True))}
    sel = np.array([idx[k] for k in zip(truth.pair_query, truth.pair_doc, strict=True)])
    return truth.params.pair[name], est.params.pair[name][sel], est.clicks[sel]


@pytest.mark.parametrize("name, tol", [("pbm", 0.05), ("cm", 0.05), ("sdbn", 0.1), ("dbn", 0.06)])
def test_recovery_from_qrels(name, tol):
    gen = from_qrels(QRELS, name, position_bias=1.0, gamma=0.8, max_rank=6)
    log = simulate(gen, shuffled_sessions(LISTS, N, 6, seed=1), seed=2)
    est = fit(log, name, max_iter=80, tol=1e-7)
    true_a, got_a, _ = _aligned(gen, est, "attractiveness")
    if name == "pbm":
        g = est.params.rank["examination"]
        got_a = got_a * g[0]
        assert g / g[0] == pytest.approx(1 / np.arange(1, 7), abs=0.03)
    assert np.abs(true_a - got_a).max() < tol
    if name == "dbn":
        true_s, got_s, clicks = _aligned(gen, est, "satisfaction")
        ok = clicks >= 500  # satisfaction is seen only through clicks
        assert ok.sum() >= 5
        assert np.abs(true_s - got_s)[ok].max() < tol
    if name == "dbn":
        assert est.params.scalar["gamma"] == pytest.approx(0.8, abs=0.03)


def _model_with(name, rank, scalar):
    gen = from_qrels(QRELS, "pbm", max_rank=6)
    gen.name = name
    rng = np.random.default_rng(3)
    gen.params = Params(
        {"attractiveness": rng.uniform(0.1, 0.9, len(gen.pair_query))}, rank, scalar
    )
    return gen


UBM_GAMMA = np.tril(np.full((6, 7), 0.9)) * np.linspace(1, 0.4, 6)[:, None] + 0.05


@pytest.mark.parametrize(
    "name, rank, scalar, tol",
    [
        ("ubm", {"examination": UBM_GAMMA}, {}, 0.06),
        ("dcm", {"continuation": np.linspace(0.9, 0.4, 6)}, {}, 0.1),
        ("ccm", {}, {"tau1": 0.85, "tau2": 0.6, "tau3": 0.3}, 0.06),
    ],
)
def test_recovery_of_rank_and_global_parameters(name, rank, scalar, tol):
    gen = _model_with(name, rank, scalar)
    log = simulate(gen, shuffled_sessions(LISTS, N, 6, seed=5), seed=6)
    est = fit(log, name, max_iter=80, tol=1e-7)
    true_a, got_a, _ = _aligned(gen, est, "attractiveness")
    if name == "ubm":
        g = est.params.rank["examination"]
        scale = g[0, 0] / UBM_GAMMA[0, 0]
        got_a = got_a * scale
        cells = np.tril(np.ones((6, 7), dtype=bool))  # (r, r') with r' <= r occur
        assert np.abs(g / scale - UBM_GAMMA)[cells].max() < tol
    elif name == "dcm":
        got = est.params.rank["continuation"]
        # lambda_r = 1 - P(last click at r | click at r) counts going on without another
        # click as stopping: biased downwards, order kept (the last rank has no data)
        assert (got[:-1] <= rank["continuation"][:-1] + 0.02).all()
        assert (np.diff(got[:-1]) < 0).all()
    assert np.abs(true_a - got_a).max() < tol
    for k, v in scalar.items():
        assert est.params.scalar[k] == pytest.approx(v, abs=tol)


def test_simulation_is_reproducible_and_checked():
    gen = from_qrels(QRELS, "pbm")
    t = shuffled_sessions(LISTS, 100, 5, seed=1)
    assert np.array_equal(simulate(gen, t, seed=9).clicks, simulate(gen, t, seed=9).clicks)
    assert not np.array_equal(simulate(gen, t, seed=9).clicks, simulate(gen, t, seed=10).clicks)
    assert (t.docs >= 0).all() and all(len(set(row)) == 5 for row in t.docs.tolist())
    with pytest.raises(ParameterError):
        from_qrels(QRELS, "ubm")
    with pytest.raises(ParameterError):
        shuffled_sessions(LISTS, 0, 5)


def test_shuffled_sessions_weights_draw_queries_in_proportion():
    lists = {"a": ["x", "y"], "b": ["y", "z"], "c": ["z"]}
    log = shuffled_sessions(lists, 20_000, 2, seed=3, weights=[6, 3, 1])
    share = np.bincount(log.query, minlength=3) / log.n_sessions
    assert np.abs(share - [0.6, 0.3, 0.1]).max() < 0.015
    for bad in ([1, 2], [1, -1, 1], [0, 0, 0], [1, float("nan"), 1]):
        with pytest.raises(ParameterError, match="weights"):
            shuffled_sessions(lists, 10, 2, weights=bad)
