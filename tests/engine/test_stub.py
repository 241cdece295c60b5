"""``src/cranfield/_engine.pyi`` describes the compiled module as it is: the same
functions and classes (both ways), each function's parameters in the same order, of the
same kind (positional, keyword-only) and with the same defaults as its
``__text_signature__``, each class's methods and properties; every parameter and
return annotated. The stub is read as source (``ast``), the module at run time."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from cranfield import _engine

STUB_PATH = Path(_engine.__file__).with_name("_engine.pyi")
STUB = ast.parse(STUB_PATH.read_text(encoding="utf-8"))
DEFS = {
    node.name: node
    for node in STUB.body
    if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_")
}
# the module's constants, annotated in the stub (``BUILD: str``)
CONSTANTS = {
    node.target.id: node
    for node in STUB.body
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
}
DEFS.update({k: v for k, v in CONSTANTS.items() if not k.startswith("_")})
PUBLIC = {name for name in dir(_engine) if not name.startswith("_")}
FUNCTIONS = sorted(n for n in PUBLIC if inspect.isbuiltin(getattr(_engine, n)))
CLASSES = sorted(n for n in PUBLIC if isinstance(getattr(_engine, n), type))
KINDS = {
    "posonlyargs": inspect.Parameter.POSITIONAL_ONLY,
    "args": inspect.Parameter.POSITIONAL_OR_KEYWORD,
    "kwonlyargs": inspect.Parameter.KEYWORD_ONLY,
}


def stub_parameters(node: ast.FunctionDef, method: bool = False) -> list[tuple]:
    """``(name, kind, default)`` of each parameter of a stub function (a default of
    ``...`` stands for "some default"; no default is ``inspect.Parameter.empty``); a
    ``method``'s first parameter (``self``, ``cls``) is the one without a type."""
    a = node.args
    positional = [*a.posonlyargs, *a.args]
    defaults = [inspect.Parameter.empty] * (len(positional) - len(a.defaults)) + a.defaults
    out = []
    for arg, default in zip(positional, defaults, strict=True):
        kind = KINDS["posonlyargs" if arg in a.posonlyargs else "args"]
        out.append((arg, kind, default))
    for arg, default in zip(a.kwonlyargs, a.kw_defaults, strict=True):
        out.append(
            (arg, KINDS["kwonlyargs"], inspect.Parameter.empty if default is None else default)
        )
    for i, (arg, _, _) in enumerate(out):
        typed = arg.annotation is not None
        assert typed != (method and i == 0), f"{node.name}: parameter {arg.arg}'s type"
    assert node.returns is not None, f"{node.name}: no return type"
    return [(arg.arg, kind, default) for arg, kind, default in out]


def same_parameters(where: str, stub: list[tuple], runtime: inspect.Signature) -> None:
    got = [(p.name, p.kind) for p in runtime.parameters.values()]
    assert [(name, kind) for name, kind, _ in stub] == got, f"{where}: parameters differ"
    for (name, _, default), p in zip(stub, runtime.parameters.values(), strict=True):
        if default is inspect.Parameter.empty:
            assert p.default is inspect.Parameter.empty, f"{where}({name}): a default in the module"
            continue
        assert p.default is not inspect.Parameter.empty, (
            f"{where}({name}): no default in the module"
        )
        if isinstance(default, ast.Constant) and default.value is Ellipsis:
            continue  # the module's text signature names a constant ("..."), not a value
        assert ast.literal_eval(default) == p.default, f"{where}({name}): default differs"


def test_the_stub_and_the_module_have_the_same_names():
    assert set(DEFS) == PUBLIC, (
        f"in the module only: {sorted(PUBLIC - set(DEFS))}; "
        f"in the stub only: {sorted(set(DEFS) - PUBLIC)}"
    )


@pytest.mark.parametrize("name", FUNCTIONS)
def test_a_function_has_the_module_signature(name):
    node = DEFS[name]
    assert isinstance(node, ast.FunctionDef), f"{name} is a function in the module"
    same_parameters(name, stub_parameters(node), inspect.signature(getattr(_engine, name)))


def _members(cls: type) -> dict[str, object]:
    return {k: v for k, v in vars(cls).items() if not k.startswith("_")}


@pytest.mark.parametrize("name", CLASSES)
def test_a_class_has_the_module_methods(name):
    cls, node = getattr(_engine, name), DEFS[name]
    assert isinstance(node, ast.ClassDef), f"{name} is a class in the module"
    methods = {n.name: n for n in node.body if isinstance(n, ast.FunctionDef)}
    if issubclass(cls, BaseException):
        bases = [ast.unparse(b) for b in node.bases]
        assert bases == [c.__name__ for c in cls.__bases__], f"{name}: other base classes"
        assert not methods and not _members(cls)
        return
    assert set(methods) - {"__new__"} == set(_members(cls)), f"{name}: other members"
    if cls.__text_signature__ is not None:
        same_parameters(
            f"{name}()",
            stub_parameters(methods["__new__"], method=True)[1:],  # (without cls)
            inspect.signature(cls),
        )
    for member, value in _members(cls).items():
        decorators = [ast.unparse(d) for d in methods[member].decorator_list]
        if inspect.isgetsetdescriptor(value):
            assert decorators == ["property"], f"{name}.{member} is a property"
            continue
        assert decorators == [], f"{name}.{member} is a method"
        runtime = inspect.signature(getattr(cls, member))
        runtime = runtime.replace(parameters=list(runtime.parameters.values())[1:])  # ($self)
        same_parameters(f"{name}.{member}", stub_parameters(methods[member], True)[1:], runtime)


@pytest.mark.parametrize("name", sorted(CONSTANTS))
def test_a_constant_has_the_module_type(name):
    assert isinstance(getattr(_engine, name), eval(ast.unparse(CONSTANTS[name].annotation)))


def test_the_stub_ships_beside_the_module():
    root = Path(__file__).resolve().parents[2]
    assert (root / "src" / "cranfield" / "_engine.pyi").is_file()
    assert (root / "src" / "cranfield" / "py.typed").is_file()


# the fields of cranfield.core.options.JudgeOptions: they cross the boundary as the one
# value (``options=``), never one by one; the exceptions are not judging options
JUDGING_FIELDS = {"rel_level", "depth", "judged_only", "complete", "compat", "duplicates"}
NOT_JUDGING = {
    "compute_measures": {"rel_level", "compat"},  # a judged run's own (JudgedRun's fields)
    "micro_averages": {"rel_level", "compat"},
    "trec_eval_print": {"complete"},  # how the printer lays out values computed before
}


@pytest.mark.parametrize("name", FUNCTIONS)
def test_judging_options_cross_the_boundary_as_one_value(name):
    parameters = set(inspect.signature(getattr(_engine, name)).parameters)
    flat = parameters & JUDGING_FIELDS - NOT_JUDGING.get(name, set())
    assert not flat, f"{name} takes judging options one by one: {sorted(flat)}"


# ndeval's options (as `cranfield.cli.ndeval_cmd.parse` makes them) cross as one value too
NDEVAL_FIELDS = {"alpha", "beta", "traditional", "depth", "complete", "risk_alpha"}


@pytest.mark.parametrize("name", [f for f in FUNCTIONS if f.startswith("ndeval")])
def test_ndeval_options_cross_the_boundary_as_one_value(name):
    parameters = set(inspect.signature(getattr(_engine, name)).parameters)
    assert "options" in parameters and not parameters & NDEVAL_FIELDS, name
