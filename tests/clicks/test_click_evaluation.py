"""Evaluation of click models (log-likelihood, perplexity, CTR error), relevance, CLI."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from cranfield.clicks import compare, estimates, evaluate, fit, from_arrays
from cranfield.clicks.evaluation import render
from cranfield.clicks.relevance import grades, qrels_lines
from cranfield.errors import ParameterError

LOG = from_arrays([0, 0], [[0, 1, 2], [1, 0, 2]], [[0, 1, 1], [0, 0, 0]], ["q"], list("abc"))

ML = (0.0, 0.0)  # plain maximum likelihood: the counts by hand below


def test_gctr_scores_by_hand():
    e = evaluate(fit(LOG, "gctr", prior=ML), LOG)  # rho = 1/3 everywhere
    l1 = (math.log(2 / 3) + 2 * math.log(1 / 3)) / 3
    l2 = math.log(2 / 3)
    assert e.log_likelihood == pytest.approx((l1 + l2) / 2)
    p1 = 2 ** -math.log2(2 / 3)
    p23 = 2 ** -((math.log2(1 / 3) + math.log2(2 / 3)) / 2)
    assert e.perplexity_at == pytest.approx([p1, p23, p23])
    assert e.perplexity == pytest.approx((p1 + 2 * p23) / 3)
    # observed CTR per pair: a 0, b 1/2, c 1/2, each predicted 1/3, two impressions each
    assert e.ctr_error == pytest.approx(math.sqrt((1 / 9 + 2 * (1 / 36)) / 3))


def test_dctr_predicts_its_own_ctr():
    assert evaluate(fit(LOG, "dctr", prior=ML), LOG).ctr_error == pytest.approx(0, abs=1e-9)


def test_unknown_queries_left_out():
    test = from_arrays([0, 1], [[0, 1], [0, 1]], [[1, 0], [0, 1]], ["q", "new"], list("ab"))
    e = evaluate(fit(LOG, "pbm"), test)
    assert e.sessions == 1 and e.sessions_left_out == 1
    only_new = from_arrays([0], [[0]], [[1]], ["new"], ["a"])
    e = evaluate(fit(LOG, "pbm"), only_new)
    assert e.sessions == 0 and math.isnan(e.log_likelihood)


def test_better_model_wins_on_cascade_data():
    """On clicks drawn from a cascade, the cascade models beat the click-through rates."""
    from cranfield.clicks import from_qrels, shuffled_sessions, simulate

    rng = np.random.default_rng(5)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 4)) for j in range(6)} for i in range(10)}
    lists = {q: list(v) for q, v in qrels.items()}
    gen = from_qrels(qrels, "sdbn")
    train = simulate(gen, shuffled_sessions(lists, 6000, 6, seed=1), seed=2)
    test = simulate(gen, shuffled_sessions(lists, 3000, 6, seed=3), seed=4)
    scores = {e.model: e for e in compare(train, test, ["gctr", "dctr", "sdbn", "dbn"])}
    assert scores["sdbn"].log_likelihood > scores["dctr"].log_likelihood
    assert scores["dbn"].perplexity < scores["gctr"].perplexity


def test_render_formats():
    rows = compare(LOG, LOG, ["gctr", "pbm"])
    text = render(rows, "text")
    assert text.splitlines()[0].split()[:3] == ["model", "log-likelihood", "perplexity"]
    assert "0 left out" in text
    md = render(rows, "markdown")
    assert md.startswith("| model |")
    data = json.loads(render(rows, "json"))
    assert [r["model"] for r in data] == ["gctr", "pbm"]


def test_relevance_estimates_and_qrels():
    m = fit(LOG, "sdbn", prior=ML)
    est = estimates(m)
    assert est["doc"].tolist() == ["a", "b", "c"]
    assert est["relevance"].tolist() == [0.0, 0.0, 0.5]  # alpha * sigma
    assert est["impressions"].tolist() == [2, 2, 2] and est["clicks"].tolist() == [0, 1, 1]
    assert qrels_lines(est, [0.25, 0.75]) == "q 0 a 0\nq 0 b 0\nq 0 c 1\n"
    assert qrels_lines(est, None) == "q 0 a 0\nq 0 b 0\nq 0 c 0.5\n"
    assert grades(np.array([0.1, 0.5, 0.9]), [0.5, 0.9]).tolist() == [0, 1, 2]
    with pytest.raises(ParameterError):
        grades(np.array([0.1]), [0.5, 0.2])
    with pytest.raises(ParameterError):
        estimates(fit(LOG, "gctr"))


def test_cascade_model_note_says_to_compare_by_perplexity():
    rows = compare(LOG, LOG, ["cascade", "dctr"])
    for fmt in ("text", "markdown"):
        assert "compare it by perplexity" in render(rows, fmt)
    assert "perplexity" not in render(compare(LOG, LOG, ["dctr"]), "text").splitlines()[-1]
