"""A click model is one declaration: a model declared at run time (here a copy of RCTR
under another name) is fitted, scored, simulated and written as a model file by the
generic code, with RCTR's numbers, and nothing else needs to know its name."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.clicks import fit, from_arrays, from_json, simulate, to_json
from cranfield.clicks import registry as R
from cranfield.clicks.evaluation import compare, notes


@pytest.fixture
def toy():
    rctr = R.get("rctr")
    d = R.ClickModel(
        "toy-rctr",
        rctr.behaviour,
        rctr.summary,
        rctr.formula,
        rctr.citation,
        params=rctr.params,
        aliases=("toy",),
        label="toy",
        estimation="closed form",
        layout=dict(rctr.layout),
        probabilities=rctr.probabilities,
        note="a toy model",
    )
    R.CLICK_MODELS.register(d)
    try:
        yield d
    finally:
        del R.CLICK_MODELS["toy-rctr"]
        del R.CLICK_MODELS._aliases["toy"]


def _log(seed: int):
    rng = np.random.default_rng(seed)
    docs = np.array([rng.permutation(8)[:5] for _ in range(200)])
    return from_arrays(rng.integers(0, 4, 200), docs, rng.random((200, 5)) < 0.3)


def test_a_declared_model_runs_everywhere_with_its_behaviour(toy):
    train, test = _log(1), _log(2)
    got, want = fit(train, "TOY"), fit(train, "rctr")
    assert got.name == "toy-rctr"
    np.testing.assert_array_equal(got.params.rank["ctr"], want.params.rank["ctr"])
    np.testing.assert_array_equal(
        simulate(got, test, seed=3).clicks, simulate(want, test, seed=3).clicks
    )
    back = from_json(to_json(got))
    assert back.name == "toy-rctr"
    np.testing.assert_array_equal(back.params.rank["ctr"], want.params.rank["ctr"])
    a, b = compare(train, test, ["toy", "rctr"])
    assert a.model == "toy-rctr" and a.perplexity == b.perplexity
    assert a.log_likelihood == b.log_likelihood
    assert notes([a, b])[1:] == ["a toy model"] and notes([b])[1:] == []
    assert "toy-rctr" in R.spellings() and R.get(" Toy ") is toy


def test_a_declaration_places_every_parameter():
    rctr = R.get("rctr")
    with pytest.raises(ValueError, match="layout"):
        R.ClickModel(
            "broken",
            rctr.behaviour,
            "s",
            "f",
            "r",
            params=rctr.params,
            label="broken",
            estimation="closed form",
            layout={"ctr": "per session"},
            probabilities=rctr.probabilities,
        )


def test_the_declared_parameters_are_what_a_fit_returns():
    """Each model's declared layout names exactly the parameters its estimation fits,
    in the sections of the model file."""
    log = _log(4)
    for name, d in R.CLICK_MODELS.items():
        p = fit(log, name, max_iter=2).params
        assert set(d.laid_out("pair")) == set(p.pair), name
        assert set(d.laid_out("rank")) == set(p.rank), name
        assert set(d.laid_out("global")) == set(p.scalar), name
