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
REGISTRY_MODULES = ("cranfield.compare.stats", "cranfield.pooling.strategies")
# Declaration classes of the registries still to move onto Declaration (issue 31: the
# measure families, the click models, the rankers; see docs/architecture.md). The list
# may only shrink: a name here must still exist where it is listed.
NOT_YET_DECLARATIONS = {
    "MeasureDef": "core/measures/registry.py",
    "ClickModelDef": "clicks/registry.py",
    "RankerDef": "ltr/rankers.py",
}


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


def test_every_registry_holds_declarations_with_shared_params():
    found = _load_registries()
    kinds = {r.kind for r in found}
    assert {"test", "pool strategy"} <= kinds
    for registry in found:
        assert registry, registry.kind
        for name, d in registry.items():
            assert isinstance(d, Declaration) and d.name == name
            assert callable(d.behaviour), name
            assert d.summary and d.formula and d.reference, name
            for p in d.params:
                assert type(p) is Param, (name, p)
                assert p.allowed_text, (name, p.name)


def test_every_registry_module_is_listed():
    """A module that creates a Registry is in REGISTRY_MODULES (so the rules see it)."""
    creating = set()
    for path, tree in _modules():
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) == "Registry"
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
