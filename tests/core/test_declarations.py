"""One declaration shape for every registry (cranfield.core.declarations), enforced.

The shared :class:`Param` vocabulary and :class:`Declaration`/:class:`Registry` shape;
the reference sections of docs/ generated from the registries; and the rules that keep
it so: no second ``class Param``, every registry's members are Declarations with shared
Params, no ``if test == "t"`` ladders beside a registry, CLI choices from the registry.
"""

from __future__ import annotations

import argparse
import ast
import importlib
from pathlib import Path

import pytest

from cranfield.core import declarations as decl
from cranfield.core.declarations import (
    Declaration,
    Param,
    Registry,
    integer_at_least,
    number_in,
    registries,
)
from cranfield.core.reference_docs import blocks, registry_at, render
from cranfield.errors import MeasureError, ParameterError

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "cranfield"

# Every registry module of cranfield: importing them creates their Registry.
REGISTRY_MODULES = (
    "cranfield.clicks.registry",
    "cranfield.compare.stats",
    "cranfield.judgments.ppi",
    "cranfield.fusion.methods",
    "cranfield.fusion.normalise",
    "cranfield.ltr.rankers",
    "cranfield.meta.registry",
    "cranfield.pooling.sampling",
    "cranfield.pooling.strategies",
    "cranfield.rec.measures",
    "cranfield.rec.splits",
)
# Declaration classes of the registries still to move onto Declaration (issue 31; see
# docs/architecture.md). Every registry has moved: the list may only stay empty.
NOT_YET_DECLARATIONS: dict[str, str] = {}


def _modules():
    for path in sorted(SRC.rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"), str(path))


def _load_registries() -> list[Registry]:
    for name in REGISTRY_MODULES:
        importlib.import_module(name)
    return registries()


# --- the vocabulary ----------------------------------------------------------------------


def test_measures_param_is_the_shared_param():
    from cranfield.core.measures import Param as MeasureParam
    from cranfield.core.measures.registry import integer_in
    from cranfield.core.measures.registry import number_in as measure_number_in

    assert MeasureParam is Param
    assert measure_number_in is decl.number_in and integer_in is decl.integer_in


def test_a_bad_value_is_refused_in_the_registry_wording():
    p = Param("p", float, 0.8, "persistence", **number_in(0, 1, open_lo=True, open_hi=True))
    # measures: "<measure>: invalid value for parameter p: ..., got <as given>"
    with pytest.raises(
        MeasureError,
        match=r"^RBP: invalid value for parameter p: "
        r"expected a number in \(0, 1\), got '1'$",
    ):
        p.coerce("1", "RBP")
    # other declarations: "invalid value for <owner> parameter p: ..., got <as read>"
    with pytest.raises(
        ParameterError,
        match=r"^invalid value for budget parameter p: "
        r"expected a number in \(0, 1\), got 1.0$",
    ):
        p.coerce("1", "budget", decl.parameter_refusal)
    with pytest.raises(ParameterError, match=r"got 'x'$"):
        p.coerce("x", "budget", decl.parameter_refusal)
    assert p.coerce("0.5", "budget", decl.parameter_refusal) == 0.5


@pytest.mark.parametrize("value", [True, 2.5, "2.5", "nan", None, [1]])
def test_integer_params_refuse_non_integers(value):
    p = Param("k", int, 1, "depth", **integer_at_least(1))
    with pytest.raises(ParameterError):
        p.coerce(value, "depth", decl.parameter_refusal)


def test_declaration_resolves_defaults_and_refuses_unknown_or_missing():
    d = Declaration(
        "thing",
        lambda **kw: kw,
        "s",
        "f",
        "r",
        (Param("n", int, None, "size", **integer_at_least(1)), Param("k", int, 3, "k")),
    )
    assert d.resolve({"n": "4"}) == {"n": 4, "k": 3}
    with pytest.raises(ParameterError, match="thing parameter n: expected an integer >= 1"):
        d.resolve({})
    with pytest.raises(ParameterError, match="thing parameter: expected one of n, k"):
        d.resolve({"n": 1, "q": 2})


def test_registry_reads_aliases_in_any_case_and_refuses_twins():
    r = Registry("widget")
    try:
        r.register(Declaration("alpha", len, "s", "f", "r", aliases=("a",)))
        assert r.find("ALPHA") is r["alpha"] and r.find("A") is r["alpha"]
        assert r.find("beta") is None and r.names == ("alpha",)
        with pytest.raises(ParameterError, match="for widget: expected one of alpha"):
            r.lookup("beta")
        with pytest.raises(ValueError):
            r.register(Declaration("b", len, "s", "f", "r", aliases=("a",)))
        with pytest.raises(TypeError):
            r.register(("not", "a", "declaration"))
    finally:
        decl._REGISTRIES.remove(r)


# --- the rules ---------------------------------------------------------------------------


def test_no_second_param_class():
    """A parameter of any registry is the shared Param: ``class Param`` exists once."""
    found = [
        str(path.relative_to(SRC))
        for path, tree in _modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef) and node.name == "Param"
    ]
    assert found == ["core/declarations.py"], found


def test_declaration_classes_are_declarations():
    """A class named ``...Def`` or ``...Declaration`` (a registry member's shape)
    subclasses the shared Declaration, but for the listed ones still to move."""
    offenders, pending = [], {}
    for path, tree in _modules():
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            if not (node.name.endswith("Def") or node.name.endswith("Declaration")):
                continue
            bases = {getattr(b, "id", getattr(b, "attr", "")) for b in node.bases}
            where = str(path.relative_to(SRC))
            if node.name in NOT_YET_DECLARATIONS:
                pending[node.name] = where
            elif node.name != "Declaration" and "Declaration" not in bases:
                offenders.append(f"{where}: {node.name}")
    assert offenders == []
    assert pending == NOT_YET_DECLARATIONS  # moved? then drop it from the list


def _declared() -> dict[str, dict[str, Declaration]]:
    """Every registry's members by kind, the measure families' among them (their
    registry, case-sensitive and loaded as needed, is core/measures/registry.py's)."""
    from cranfield.core.measures.registry import all_definitions

    found = {r.kind: dict(r) for r in _load_registries()}
    found["measure"] = {d.name: d for d in all_definitions()}
    return found


def test_every_registry_holds_declarations_with_shared_params():
    found = _declared()
    assert {"test", "pool strategy", "ranker", "measure", "click model", "estimator"} <= set(found)
    for kind, members in found.items():
        assert members, kind
        for name, d in members.items():
            assert isinstance(d, Declaration) and d.name == name, (kind, name)
            assert callable(d.behaviour), (kind, name)
            assert d.summary and d.formula and d.citation, (kind, name)
            for p in d.params:
                assert type(p) is Param, (kind, name, p)
                assert p.allowed_text, (kind, name, p.name)


def test_measure_families_are_declarations_their_kernel_the_behaviour():
    from cranfield.core.measures.registry import MeasureDef, lookup

    d = lookup("RBP")
    assert isinstance(d, MeasureDef) and isinstance(d, Declaration)
    assert all(type(p) is Param for p in d.params) and d.params
    assert d.kernel is d.behaviour


def test_every_registry_module_is_listed():
    """A module that creates a Registry is in REGISTRY_MODULES (so the rules see it)."""
    creating = set()
    for path, tree in _modules():
        # Registry, or a subclass of it the module defines (class X(Registry))
        kinds = {"Registry"} | {
            n.name
            for n in ast.walk(tree)
            if isinstance(n, ast.ClassDef) and "Registry" in {getattr(b, "id", "") for b in n.bases}
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) in kinds
                and path.name != "declarations.py"
            ):
                rel = path.relative_to(SRC.parent).with_suffix("")
                creating.add(".".join(rel.parts))
    assert creating == set(REGISTRY_MODULES)


def _ladder_comparisons(tree, names: set[str], word: str) -> list[int]:
    """Lines comparing a variable named like ``word`` with a registered name."""
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        literal = any(isinstance(s, ast.Constant) and s.value in names for s in sides)
        variable = any(word in ast.unparse(s) for s in sides if not isinstance(s, ast.Constant))
        if literal and variable:
            lines.append(node.lineno)
    return lines


@pytest.mark.parametrize(
    "package, source, word",
    [
        ("compare", "cranfield.compare.stats:STAT_TESTS", "test"),
        ("pooling", "cranfield.pooling.strategies:STRATEGIES", "strateg"),
        ("ltr", "cranfield.ltr.rankers:RANKERS", "method"),
    ],
)
def test_no_if_name_ladders_beside_a_registry(package, source, word):
    registry = registry_at(source)
    names = set(registry) | {a for d in registry.values() for a in d.aliases}
    found = {
        str(path.relative_to(SRC)): lines
        for path, tree in _modules()
        if path.is_relative_to(SRC / package) and (lines := _ladder_comparisons(tree, names, word))
    }
    assert found == {}


def test_the_ladder_rule_catches_a_ladder():
    tree = ast.parse('def f(test):\n    if test == "t":\n        return 1\n')
    assert _ladder_comparisons(tree, {"t"}, "test") == [2]


def _named_literals(node, names: set[str]) -> bool:
    """``node`` is a registered name, or a tuple, list or set holding one."""
    if isinstance(node, ast.Constant):
        return node.value in names
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_named_literals(e, names) for e in node.elts)
    return False


def _model_switches(tree, names: set[str]) -> list[int]:
    """Lines comparing anything with a registered click-model name (``m.name == "ubm"``,
    ``model in ("dbn", "sdbn")``), or a ``match`` case on one."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            if any(_named_literals(s, names) for s in [node.left, *node.comparators]):
                lines.append(node.lineno)
        elif isinstance(node, ast.MatchValue) and _named_literals(node.value, names):
            lines.append(node.lineno)
    return lines


def _click_model_modules() -> set[str]:
    from cranfield.clicks.registry import MODULES

    return {"clicks/registry.py", *(f"clicks/{m}.py" for m in MODULES)}


def test_no_module_switches_on_a_click_model_name():
    """A click model's behaviour lives in its declaration (clicks/registry.py, the
    modules of clicks.registry.MODULES): no other module of src/ compares anything with
    a model's name or alias (they dispatch through the declaration)."""
    from cranfield.clicks.registry import CLICK_MODELS, spellings

    names = set(spellings())
    assert {"pbm", "cascade", "sdbn"} <= names and len(CLICK_MODELS) >= 10
    home = _click_model_modules()
    found = {
        where: lines
        for path, tree in _modules()
        if (where := str(path.relative_to(SRC))) not in home
        and (lines := _model_switches(tree, names))
    }
    assert found == {}


def test_the_click_model_rule_catches_a_switch():
    names = {"ubm", "dbn", "sdbn"}
    source = (
        "def f(model, m):\n"
        '    if m.name == "ubm":\n'
        "        return 1\n"
        '    if model in ("sdbn", "dbn"):\n'
        "        return 2\n"
        "    match model:\n"
        '        case "dbn":\n'
        "            return 3\n"
        '    return model == "other"\n'
    )
    assert _model_switches(ast.parse(source), names) == [2, 4, 7]


# --- generated from the registries ----------------------------------------------------------


def test_generated_reference_sections_are_up_to_date():
    pages = {}
    for page in sorted((ROOT / "docs").glob("*.md")):
        for source, body in blocks(page.read_text(encoding="utf-8")):
            pages.setdefault(page.name, []).append(source)
            assert body == render(registry_at(source)), (
                f"regenerate: python -m cranfield.core.reference_docs docs/{page.name}"
            )
    assert "cranfield.compare.stats:STAT_TESTS" in pages.get("compare.md", [])
    assert "cranfield.pooling.strategies:STRATEGIES" in pages.get("pooling.md", [])
    assert "cranfield.pooling.sampling:SAMPLE_DESIGNS" in pages.get("sampling.md", [])
    assert "cranfield.clicks.registry:CLICK_MODELS" in pages.get("clicks.md", [])
    assert "cranfield.ltr.rankers:RANKERS" in pages.get("ltr.md", [])
    assert "cranfield.judgments.ppi:PPI_ESTIMATORS" in pages.get("machine-assessors.md", [])
    assert "cranfield.fusion.methods:FUSION_METHODS" in pages.get("fusion.md", [])
    assert "cranfield.fusion.normalise:NORMALISATIONS" in pages.get("fusion.md", [])


def _choices(add_arguments, dest: str):
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    (action,) = [a for a in parser._actions if a.dest == dest]
    return action


def test_cli_test_choices_and_help_come_from_the_registry():
    from cranfield.cli.compare_cmd import add_arguments
    from cranfield.compare import PAIR_TESTS, TESTS
    from cranfield.compare.stats import STAT_TESTS

    action = _choices(add_arguments, "tests")
    assert tuple(action.choices_allowed) == TESTS == STAT_TESTS.names
    for name in STAT_TESTS:
        assert name in action.help
    assert PAIR_TESTS == tuple(n for n, d in STAT_TESTS.items() if d.scope == "pair")
    assert "tukey" in TESTS and "tukey" not in PAIR_TESTS


def test_cli_click_model_choices_and_help_come_from_the_registry():
    from cranfield.cli import clicks_cmd, interleave_cmd
    from cranfield.clicks.registry import CLICK_MODELS, DASK_MODELS, QRELS_MODELS, spellings

    parser = argparse.ArgumentParser()
    clicks_cmd.add_arguments(parser)
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for action_name in ("fit", "relevance"):
        actions = {a.dest: a for a in sub.choices[action_name]._actions}
        assert actions["model"].help == "one of " + ", ".join(spellings())
        for d in DASK_MODELS:
            assert d.name.upper() in actions["engine"].help
    compare = {a.dest: a for a in sub.choices["compare"]._actions}
    assert compare["models"].default == ",".join(CLICK_MODELS)
    action = _choices(interleave_cmd.add_arguments, "click_model")
    assert tuple(action.choices) == spellings(QRELS_MODELS)
    assert {d.name for d in QRELS_MODELS} == {
        n for n, d in CLICK_MODELS.items() if d.from_qrels is not None
    }


def test_cli_ranker_choices_and_help_come_from_the_registry():
    from cranfield.cli.ltr_cmd import _parser
    from cranfield.ltr.rankers import RANKERS

    for action_name, dest in (("train", "method"), ("cv", "methods"), ("cv", "param")):
        parser = _parser(action_name)
        (action,) = [a for a in parser._actions if a.dest == dest]
        if dest == "method":
            assert tuple(action.choices) == RANKERS.names
        for name, d in RANKERS.items():
            assert name in action.help
            if dest == "param":
                assert all(p.name in action.help for p in d.params)
            else:
                assert d.summary.replace("%", "%%") in action.help


@pytest.mark.parametrize(
    "text, kind, low, high, open_, bounds",
    [
        ("2", float, 0, 1, True, number_in(0, 1, open_lo=True, open_hi=True)),
        ("-1", float, 0, 1, False, number_in(0, 1)),
        ("18", int, 0, 17, False, decl.integer_in(0, 17)),
        ("2.5", int, 0, 17, False, decl.integer_in(0, 17)),
        ("1e20", int, 1, 10**7, False, decl.integer_in(1, 10**7)),
    ],
)
def test_cli_numbers_are_checked_in_the_shared_vocabulary(text, kind, low, high, open_, bounds):
    """``cli._common.number`` (every numeric option) words its range as a Param does."""
    from cranfield.cli._common import number

    with pytest.raises(ParameterError) as caught:
        number(text, "--x", kind, low, high, open_=open_)
    assert str(caught.value) == f"invalid value for --x: expected {bounds['allowed']}, got {text!r}"
    assert number("1e1", "--x", int, 0, 17) == 10 and number("0.5", "--x", float, 0, 1) == 0.5
