"""The package layering of ``src/cranfield`` and its private names, checked on the
source (``ast``): every import counts, at module level or inside a function, and so
does ``importlib.import_module`` of a literal name.

Layers (docs/architecture.md, "Package layout"), each importing only lower layers
(and, within the capability layer, other capability packages, without cycles):

0. the foundation: the package root, ``errors``, ``defaults``, ``output``,
   ``progress`` and the private top-level modules (``_engine``, ``_lazy``, ...);
1. ``core``: the evaluation core, which knows execution backends only through
   ``core/backends.py``'s registry;
2. the capability packages (``compare``, ``report``, ``pooling``, ``judgments``,
   ``clicks``, ``online``, ``ltr``, ``service``, ...);
3. ``distributed``: an execution backend, found by name (``core.backends``);
4. ``cli``; 5. ``__main__``.

A name starting with an underscore (a module, a function, a class's method) is
private to the package that defines it: another package imports it neither by
``from X import _name`` nor as ``module._name`` / ``Class._name``. The private
top-level modules (``cranfield._engine``, ``_lazy``, ``_memo``, ``_record``, ``_interrupt``) are
private to the distribution, whose every package may use them.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "cranfield"

FOUNDATION = {"cranfield", "errors", "defaults", "output", "progress"}
LAYERS = {"core": 1, "distributed": 3, "cli": 4, "__main__": 5}
CAPABILITY = 2


def layer(unit: str) -> int:
    """The layer of a top-level unit (``cranfield.X`` -> ``X``; the root: ``cranfield``)."""
    if unit in FOUNDATION or (unit.startswith("_") and unit != "__main__"):
        return 0
    return LAYERS.get(unit, CAPABILITY)


def unit_of(module: str) -> str:
    """``cranfield.core.io.trec`` -> ``core``; ``cranfield`` -> ``cranfield``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@functools.cache
def is_module(root: Path, dotted: str) -> bool:
    """Whether ``cranfield.a.b`` names a module or package under ``root``."""
    rel = Path(*dotted.split(".")[1:]) if "." in dotted else Path()
    base = root / rel
    return (
        base.with_suffix(".py").is_file()
        or (base / "__init__.py").is_file()
        or any(root.glob(f"{rel}.*.so"))
    )


class Import:
    """One imported name: the importing module, the module imported from, the name
    (None for ``import X``), and where."""

    def __init__(self, importer: str, module: str, name: str | None, path: Path, line: int):
        self.importer, self.module, self.name = importer, module, name
        self.path, self.line = path, line

    def targets(self, root: Path) -> list[str]:
        """The modules this import loads: ``from a import b`` loads ``a.b`` when it is a
        module, else ``a``."""
        if self.name is not None and is_module(root, f"{self.module}.{self.name}"):
            return [f"{self.module}.{self.name}"]
        return [self.module]

    def where(self, root: Path) -> str:
        return f"{self.path.relative_to(root.parent)}:{self.line}"


def _absolute(importer: str, is_package: bool, level: int, module: str | None) -> str:
    base = importer.split(".") if is_package else importer.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


class Module:
    """One source module: its name, path, syntax tree, the ``cranfield`` imports it
    makes and the local names they bind (local name -> dotted name)."""

    def __init__(self, root: Path, path: Path):
        self.path = path
        self.name = module_name(root, path)
        self.tree = ast.parse(path.read_text(encoding="utf-8"))
        self.imports: list[Import] = []
        self.aliases: dict[str, str] = {}
        is_package = path.name == "__init__.py"
        for node in ast.walk(self.tree):
            if isinstance(node, ast.ImportFrom):
                module = (
                    _absolute(self.name, is_package, node.level, node.module)
                    if node.level
                    else node.module or ""
                )
                for alias in node.names:
                    if self._add(Import(self.name, module, alias.name, path, node.lineno)):
                        self.aliases[alias.asname or alias.name] = f"{module}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if self._add(Import(self.name, alias.name, None, path, node.lineno)):
                        local = alias.asname or alias.name.split(".")[0]
                        self.aliases[local] = alias.name if alias.asname else local
            elif _imports_module(node):
                name = node.args[0].value
                if name.startswith("."):
                    level = len(name) - len(name.lstrip("."))
                    name = _absolute(self.name, is_package, level, name.lstrip(".") or None)
                self._add(Import(self.name, name, None, path, node.lineno))

    def _add(self, imp: Import) -> bool:
        """Keep ``imp`` if it imports from ``cranfield``; whether it does."""
        ours = imp.module == "cranfield" or imp.module.startswith("cranfield.")
        if ours:
            self.imports.append(imp)
        return ours


def _imports_module(node: ast.AST) -> bool:
    """Whether ``node`` is ``import_module("literal", ...)`` (or ``importlib.import_module``)."""
    return (
        isinstance(node, ast.Call)
        and getattr(node.func, "attr", getattr(node.func, "id", None)) == "import_module"
        and bool(node.args)
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    )


@functools.cache
def modules(root: Path) -> list[Module]:
    return [Module(root, path) for path in sorted(root.rglob("*.py"))]


def package_graph(root: Path) -> dict[str, dict[str, Import]]:
    """unit -> {imported unit: the first import that makes the edge}."""
    graph: dict[str, dict[str, Import]] = {}
    for module in modules(root):
        a = unit_of(module.name)
        graph.setdefault(a, {})
        for imp in module.imports:
            for target in imp.targets(root):
                b = unit_of(target)
                if a != b:
                    graph[a].setdefault(b, imp)
    return graph


def layering_violations(root: Path) -> list[str]:
    """Imports that reach a higher layer (or, for the foundation and the core, any
    other unit of their own layer's kind that is not theirs), and cycles."""
    out = []
    for module in modules(root):
        a = unit_of(module.name)
        for imp in module.imports:
            for b in {unit_of(t) for t in imp.targets(root)} - {a}:
                la, lb = layer(a), layer(b)
                if lb > la or (lb == la and la not in (0, CAPABILITY)):
                    out.append(f"{imp.where(root)}: {a} (layer {la}) imports {b} (layer {lb})")
    out.extend(cycles(package_graph(root), root))
    return out


def cycles(graph: dict[str, dict[str, Import]], root: Path) -> list[str]:
    """One message per strongly connected set of units (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                edges = [
                    graph[a][b].where(root) + f" ({a} -> {b})"
                    for a in sorted(group)
                    for b in graph[a]
                    if b in group
                ]
                found.append(f"cycle between {', '.join(sorted(group))}: " + "; ".join(edges))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _owner(dotted: str) -> str | None:
    """The module whose private name ``dotted`` is (None when nothing in it is private):
    the part before the first component starting with one underscore."""
    parts = dotted.split(".")
    for i, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            return ".".join(parts[:i])
    return None


def _inside(importer: str, owner: str) -> bool:
    """Whether ``importer`` is in the package a private name of ``owner`` belongs to
    (its top-level unit; the root's private modules belong to the whole distribution)."""
    scope = owner if owner == "cranfield" else "cranfield." + unit_of(owner)
    return importer == scope or importer.startswith(scope + ".")


def private_violations(root: Path) -> list[str]:
    """Private names used outside their package (see the module notes)."""
    out = []
    for module in modules(root):
        for imp in module.imports:
            full = imp.module if imp.name is None else f"{imp.module}.{imp.name}"
            owner = _owner(full)
            if owner is not None and not _inside(module.name, owner):
                out.append(f"{imp.where(root)}: {module.name} imports {full}")
        for node in ast.walk(module.tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in module.aliases
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                full = f"{module.aliases[node.value.id]}.{node.attr}"
                owner = _owner(full)
                if owner is not None and not _inside(module.name, owner):
                    where = f"{module.path.relative_to(root.parent)}:{node.lineno}"
                    out.append(f"{where}: {module.name} uses {full}")
    return out


# -- the rules on the source ------------------------------------------------------------


def test_layering():
    assert layering_violations(SRC) == []


def test_no_private_names_across_packages():
    assert private_violations(SRC) == []


def test_core_imports_no_backend_by_name():
    """The core finds the Dask backend through the registry only: no import of it and no
    literal module name of it in ``core/``."""
    graph = package_graph(SRC)
    assert "distributed" not in graph["core"]
    assert not [p for p in (SRC / "core").rglob("*.py") if "cranfield.distributed" in p.read_text()]


def backend_importers(root: Path) -> list[str]:
    """Where a unit other than ``distributed`` imports it: a backend is reached by its
    name through ``core.backends`` (``backend(name)``, ``work(kind, name)``), never
    imported by the code that uses it (the CLI included)."""
    graph = package_graph(root)
    return sorted(
        f"{edges['distributed'].where(root)} ({unit} -> distributed)"
        for unit, edges in graph.items()
        if unit != "distributed" and "distributed" in edges
    )


def test_backends_are_reached_by_name_only():
    assert backend_importers(SRC) == []


# -- the checker catches what it should (a package written for the purpose) -------------


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "cranfield"
    for name, text in {"__init__.py": "", **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        for parent in path.relative_to(root).parents:
            (root / parent / "__init__.py").touch()
        path.write_text(text)
    return root


def test_checker_finds_a_core_import_inside_a_function(tmp_path):
    root = _package(
        tmp_path,
        {
            "core/evaluation.py": "def f():\n    from ..distributed.engine import run\n",
            "distributed/engine.py": "from ..core import evaluation\n",
        },
    )
    found = layering_violations(root)
    assert any("core (layer 1) imports distributed (layer 3)" in v for v in found)
    assert any(v.startswith("cycle between core, distributed") for v in found)


def test_checker_finds_import_module_and_cli_imports(tmp_path):
    root = _package(
        tmp_path,
        {
            "core/backends.py": "import importlib\nimportlib.import_module('cranfield.compare')\n",
            "compare/__init__.py": "",
            "pooling/pool.py": "from cranfield.cli import _args\n",
            "cli/_args.py": "",
        },
    )
    found = layering_violations(root)
    assert any("core (layer 1) imports compare (layer 2)" in v for v in found)
    assert any("pooling (layer 2) imports cli (layer 4)" in v for v in found)


def test_checker_finds_a_cycle_of_capability_packages(tmp_path):
    root = _package(
        tmp_path,
        {"compare/a.py": "from ..report import b\n", "report/b.py": "import cranfield.compare.a\n"},
    )
    assert layering_violations(root) == [
        "cycle between compare, report: cranfield/compare/a.py:1 (compare -> report); "
        "cranfield/report/b.py:1 (report -> compare)"
    ]


def test_checker_finds_private_names(tmp_path):
    root = _package(
        tmp_path,
        {
            "core/run.py": "def _default_name():\n    pass\nclass Run:\n    pass\n",
            "core/_columnar.py": "x = 1\n",
            "core/qrels.py": "from .run import _default_name\nfrom ._columnar import x\n",
            "distributed/engine.py": (
                "from ..core.run import _default_name, Run\n"
                "from ..core import run\n"
                "def f():\n    from cranfield.core._columnar import x\n"
                "    return Run._wrap(x), run._default_name\n"
            ),
            "clicks/log.py": "from .. import _engine\n",
        },
    )
    assert sorted(private_violations(root)) == [
        "cranfield/distributed/engine.py:1: cranfield.distributed.engine imports "
        "cranfield.core.run._default_name",
        "cranfield/distributed/engine.py:4: cranfield.distributed.engine imports "
        "cranfield.core._columnar.x",
        "cranfield/distributed/engine.py:5: cranfield.distributed.engine uses "
        "cranfield.core.run.Run._wrap",
        "cranfield/distributed/engine.py:5: cranfield.distributed.engine uses "
        "cranfield.core.run._default_name",
    ]


def test_checker_finds_a_command_calling_a_backend_directly(tmp_path):
    """What ``pool --engine dask`` and ``clicks --engine dask`` did before they went
    through ``core.backends.work``."""
    root = _package(
        tmp_path,
        {
            "cli/pool_cmd.py": "def run():\n    from ..distributed.pooling import pool_and_names\n",
            "cli/compare_cmd.py": "from ..core.backends import backend\n",
            "distributed/pooling.py": "",
            "core/backends.py": "",
        },
    )
    assert backend_importers(root) == [
        "cranfield/cli/pool_cmd.py:2 (cli -> distributed)",
    ]
