"""The rankers' declarations (RANKERS, on the one declaration shape) tell the truth about
their behaviour: the parameters they declare are those the search takes, with the same
defaults; a value outside a declared range is refused in the registries' wording; a
boosted model is scored by its ranker's declared ``predict``."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from cranfield.core.declarations import Declaration, Param
from cranfield.errors import InputError, ParameterError
from cranfield.ltr.boosting import predict
from cranfield.ltr.model import Model
from cranfield.ltr.rankers import RANKERS, parameters
from cranfield.ltr.search import genetic


@pytest.mark.parametrize("name", [n for n, d in RANKERS.items() if d.linear])
def test_a_linear_ranker_takes_its_declared_parameters_with_their_defaults(name):
    d = RANKERS[name]
    assert isinstance(d, Declaration) and d.predict is None
    signature = inspect.signature(d.behaviour)
    defaults = _defaults(d.behaviour)
    if name == "mga":  # its genetic-algorithm parameters go on to the genetic algorithm
        defaults = {**_defaults(genetic), **defaults}
    for p in d.params:
        assert type(p) is Param
        if p.name in defaults:  # (mga's step goes on to Nelder-Mead: checked below)
            assert defaults[p.name] == p.default, (name, p.name)
    if name == "mga":
        assert d.param("step").default == _defaults(RANKERS["nelder-mead"].behaviour)["step"]
    # every declared parameter binds (the search is called with all of them)
    signature.bind(None, None, budget=1, **{p.name: p.default for p in d.params})


def _defaults(f) -> dict:
    return {
        k: v.default
        for k, v in inspect.signature(f).parameters.items()
        if v.default is not inspect.Parameter.empty
    }


@pytest.mark.parametrize("name", [n for n, d in RANKERS.items() if not d.linear])
def test_a_boosted_ranker_declares_its_trainer_and_predictor(name):
    d = RANKERS[name]
    assert callable(d.behaviour) and callable(d.predict)
    assert list(inspect.signature(d.behaviour).parameters) == ["train", "vali", "params", "seed"]
    assert {"trees", "learning_rate"} <= {p.name for p in d.params}


@pytest.mark.parametrize(
    "name, given, message",
    [
        ("ga", {"crossover": "2"}, "ga parameter crossover: expected a number in [0, 1], got 2.0"),
        ("ga", {"population": "1"}, "ga parameter population: expected an integer in [2, 100000]"),
        ("xgboost", {"depth": 65}, "xgboost parameter depth: expected an integer in [1, 64]"),
        ("mga", {"step": 0}, "mga parameter step: expected a number in [1e-9, 100], got 0"),
        ("random-search", {"batch": 2.5}, "random-search parameter batch: expected an integer"),
        ("ga", {"nope": 1}, "ga parameter: expected one of population, tournament"),
    ],
)
def test_parameters_are_checked_against_the_declared_ranges(name, given, message):
    with pytest.raises(ParameterError) as caught:
        parameters(name, given)
    assert message in str(caught.value)


def test_parameters_fill_defaults_and_read_text():
    got = parameters("coordinate-ascent", {"restarts": "3", "tolerance": "0.5"})
    assert got == {
        "restarts": 3,
        "iterations": 25,
        "step_base": 0.05,
        "step_scale": 2.0,
        "tolerance": 0.5,
    }
    assert type(got["restarts"]) is int and type(got["tolerance"]) is float


@pytest.mark.parametrize("method", ["ga", "no-such-ranker"])
def test_a_model_without_weights_needs_a_boosted_ranker(method):
    model = Model(method=method, num_features=1, normalisation="none", booster="x")
    with pytest.raises(InputError, match="unknown method"):
        predict(model, np.zeros((1, 1)))


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["train", "{missing}", "--method", "ga", "--param", "crossover=2", "-o", "{out}"],
            "invalid value for ga parameter crossover: expected a number in [0, 1], got 2.0",
        ),
        (
            ["cv", "{missing}", "--methods", "mga,ga", "--param", "ga.elitism=-1"],
            "invalid value for ga parameter elitism: expected an integer in [0, 100000], got -1",
        ),
    ],
)
def test_the_command_line_checks_ranker_parameters_before_reading(capsys, tmp_path, argv, message):
    """A bad --param stops ``ltr train``/``ltr cv`` in one line before any file is read
    (the data named here does not exist)."""
    from adversarial.harness import run_main

    paths = {"missing": tmp_path / "nowhere", "out": tmp_path / "m.json"}
    status, out, err = run_main(capsys, "ltr", *(a.format(**paths) for a in argv))
    assert status == 2 and out == ""
    assert err == f"cranfield ltr: error: {message}\n"
