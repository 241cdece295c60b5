"""cranfield's click models against PyClick's conventions, and its defaults.

PyClick cannot be installed here (it is not on PyPI), so the reference is
:mod:`tests.clicks.pyclick_oracle`, a plain per-session implementation of PyClick's
conventions as read in its source. That oracle was checked against PyClick itself
(github.com/markovi/PyClick at its last commit) on simulated logs of the shape of
PyClick's sample log: equal log-likelihoods and perplexities (overall and per rank)
to 1e-15 for DCTR, PBM, SDBN, DCM, UBM and CM (docs/clicks.md, "PyClick").
"""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.clicks import evaluate, fit
from cranfield.clicks.fitted import FittedClickModel
from cranfield.clicks.models import Params, _chain_conditional
from cranfield.clicks.simulate import shuffled_sessions, simulate
from cranfield.errors import ParameterError

from . import pyclick_oracle as oracle

PYCLICK = {"prior": (1, 2), "tol": 0, "max_iter": 50}
"""PyClick's conventions in cranfield's options: one click in two impressions, exactly
50 EM iterations (the cap at 1 - 1e-6 is always applied)."""


def pyclick_shaped(seed: int, n_sessions: int, n_queries: int, truth: str = "dbn"):
    """A simulated log of the shape of PyClick's sample log: 10 results a session,
    Zipf-distributed queries each with a pool of 10-25 documents shown in random
    orders (so many (query, document) pairs are rare), clicks drawn from ``truth``
    with random parameters."""
    rng = np.random.default_rng(seed)
    lists = {
        f"q{i}": [f"d{i}.{j}" for j in range(rng.integers(10, 25, endpoint=True))]
        for i in range(n_queries)
    }
    zipf = 1.0 / np.arange(1, n_queries + 1) ** 1.1
    template = shuffled_sessions(lists, n_sessions, 10, seed=seed, weights=zipf)
    pair_query = np.array([q for q, docs in lists.items() for _ in docs], dtype=object)
    pair_doc = np.array([d for docs in lists.values() for d in docs], dtype=object)
    n = len(pair_doc)
    alpha = rng.beta(0.6, 1.4, n)
    params = {
        "dbn": Params(
            {"attractiveness": alpha, "satisfaction": rng.beta(1.0, 1.5, n)}, {}, {"gamma": 0.9}
        ),
        "ubm": Params({"attractiveness": alpha}, {"examination": rng.uniform(0.1, 0.95, (10, 11))}),
        "pbm": Params({"attractiveness": alpha}, {"examination": 1 / np.arange(1, 11) ** 0.7}),
    }[truth]
    model = FittedClickModel(
        truth, params, pair_query, pair_doc, np.zeros(n, np.int64), np.zeros(n, np.int64),
        frozenset(lists),
    )  # fmt: skip
    return simulate(model, template, seed=seed + 1)


def split(log):
    """PyClick's example split: the first 75 % of the sessions train; the test sessions
    are the rest whose query occurs in training."""
    cut = int(log.n_sessions * 0.75)
    return log.subset(np.arange(cut)), log.subset(np.arange(cut, log.n_sessions))


def sessions(log) -> list:
    q, d = log.query_names, log.doc_names
    return [
        (q[log.query[i]], [d[x] for x in log.docs[i]], [int(c) for c in log.clicks[i]])
        for i in range(log.n_sessions)
    ]


def reference(name: str, train, test):
    tr = sessions(train)
    known = {s[0] for s in tr}
    te = [s for s in sessions(test) if s[0] in known]
    model = oracle.MODELS[name]().fit(tr)
    ppl, at = oracle.perplexity(model, te)
    return oracle.log_likelihood(model, te), ppl, at


CASES = [
    (seed, truth, n, q)
    for seed, (truth, n, q) in enumerate(
        [("dbn", 400, 60), ("ubm", 360, 40), ("pbm", 440, 90), ("dbn", 300, 25), ("ubm", 420, 120)]
    )
]


@pytest.fixture(scope="module", params=CASES, ids=lambda c: f"seed{c[0]}-{c[1]}")
def logs(request):
    seed, truth, n, q = request.param
    return split(pyclick_shaped(seed, n, q, truth))


@pytest.mark.parametrize("name", ["gctr", "rctr", "dctr", "pbm", "sdbn", "dcm", "ubm"])
def test_pyclick_conventions_reproduce_the_reference(logs, name):
    train, test = logs
    ll, ppl, at = reference(name, train, test)
    got = evaluate(fit(train, name, **PYCLICK), test)
    assert got.log_likelihood == pytest.approx(ll, rel=1e-10, abs=1e-12)
    assert got.perplexity == pytest.approx(ppl, rel=1e-10)
    np.testing.assert_allclose(got.perplexity_at, at, rtol=1e-10)


def test_cascade_model_perplexity_is_comparable(logs):
    """CM's log-likelihood is defined differently (PyClick: 1e-6 for every rank after
    the first click; cranfield: the model's own conditional probability, clipped to
    1e-10 for a second click); its perplexity is the same figure."""
    train, test = logs
    ll, ppl, at = reference("cm", train, test)
    got = evaluate(fit(train, "cascade", **PYCLICK), test)
    assert got.perplexity == pytest.approx(ppl, rel=1e-10)
    np.testing.assert_allclose(got.perplexity_at, at, rtol=1e-10)
    if test.clicks.sum(axis=1).max() > 1:
        assert got.log_likelihood != pytest.approx(ll)


@pytest.mark.parametrize("name", ["dctr", "pbm", "sdbn", "dcm", "ubm", "dbn", "ccm"])
def test_default_scores_at_least_as_well_as_pyclick_and_beats_maximum_likelihood(logs, name):
    """The default (the (1, 2) prior, at most 50 EM iterations) scores on held-out
    sessions at least as well as PyClick's conventions and better than plain maximum
    likelihood, which calls the held-out clicks on pairs never clicked in training
    impossible."""
    train, test = logs
    default = evaluate(fit(train, name), test)
    pyclick = evaluate(fit(train, name, **PYCLICK), test)
    ml = evaluate(fit(train, name, prior=(0, 0)), test)
    assert default.log_likelihood >= pyclick.log_likelihood - 1e-12
    assert default.perplexity <= pyclick.perplexity + 1e-12
    assert default.log_likelihood > ml.log_likelihood
    assert np.isfinite([ml.log_likelihood, ml.perplexity, *ml.perplexity_at]).all()


def test_closed_forms_are_smoothed_counts():
    log = pyclick_shaped(9, 200, 30)
    m = fit(log, "dctr", prior=(2, 5))
    np.testing.assert_allclose(
        m.params.pair["attractiveness"], (m.clicks + 2) / (m.impressions + 5), rtol=1e-15
    )
    m = fit(log, "dctr")  # default: PyClick's one click in two impressions
    np.testing.assert_allclose(
        m.params.pair["attractiveness"], (m.clicks + 1) / (m.impressions + 2), rtol=1e-15
    )


def test_tolerance_zero_runs_exactly_the_iterations_asked():
    log = pyclick_shaped(4, 200, 20)
    for name in ("pbm", "ubm", "dbn", "ccm"):
        m = fit(log, name, tol=0, max_iter=7)
        assert m.iterations == 7 and len(m.trace) == 8
        # a tolerance that is met stops early: the exact count is tol = 0's alone
        assert fit(log, name, tol=0.5, max_iter=7).iterations < 7


@pytest.mark.parametrize("prior", [(-1, 2), (3, 2), (float("nan"), 1), (1, float("inf")), (1,)])
def test_bad_priors_are_refused(prior):
    with pytest.raises(ParameterError, match="prior"):
        fit(pyclick_shaped(0, 50, 5), "dctr", prior=prior)


def test_skipping_a_certain_document_does_not_penalise_later_clicks_twice():
    """A skip of a document the model finds certainly attractive (alpha = 1 at an
    examined rank, possible with maximum likelihood) is impossible: it is scored once.
    The ranks after it are scored as if the document had been examined and passed over
    (the limit alpha -> 1), not as never examined, which made every later click
    impossible too."""
    alpha = np.array([[1.0, 0.4, 0.3], [0.5, 0.4, 0.3]])
    c_click = np.full((2, 3), 0.6)
    c_skip = np.ones((2, 3))
    clicks = np.array([[False, True, False], [False, True, False]])
    p = _chain_conditional(alpha, c_click, c_skip, clicks, np.ones((2, 3), bool))
    assert p[0].tolist() == [1.0, 0.4, 0.3 * 0.6]
    # the limit: alpha_1 = 1 - eps gives the same numbers as eps -> 0
    near = alpha.copy()
    near[0, 0] = 1 - 1e-12
    q = _chain_conditional(near, c_click, c_skip, clicks, np.ones((2, 3), bool))
    np.testing.assert_allclose(q[0], p[0], rtol=1e-9)
    # ordinary rows keep the formula: e_2 = (1 - alpha_1) / (1 - alpha_1)
    assert p[1].tolist() == [0.5, 0.4, 0.3 * 0.6]
