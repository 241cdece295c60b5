"""The registry of measure families: registration, look-up by name, and the loading of
the built-in family modules as their names are looked up.

:func:`register` (or the :func:`measure` decorator) adds a :class:`MeasureDef` and the
trec_eval measures it declares; :func:`lookup` finds a family by name or alias (exact,
else case-insensitive when unambiguous). The built-in families are imported only when
a name they declare is looked up (see the notes above :data:`_LOADED`).
"""

from __future__ import annotations

from ..._memo import memo
from .declaration import AGGREGATES, MeasureDef
from .trec_table import _TREC, TREC_NICKNAMES, TrecEval, register_trec, trec_kind

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a cold CLI)
if TYPE_CHECKING:
    from collections.abc import Callable

_REGISTRY: dict[str, MeasureDef] = {}
_EXACT: dict[str, str] = {}  # name or alias -> family
_FOLDED: dict[str, set[str]] = {}  # lower-cased name or alias -> families


def register(definition: MeasureDef) -> MeasureDef:
    """Add a family to the registry (names and aliases must be unique)."""
    if definition.aggregate not in AGGREGATES:
        raise ValueError(f"bad aggregate {definition.aggregate!r}")
    if _USED is not None and not _LOADED and not _built_in(definition):
        # after the registry was first read, every built-in family counts as registered
        # (see _use): those this one could clash with are loaded first
        if definition.trec:
            _load_all()
        names = _index().NAMES
        _load_modules([names[n] for n in (definition.name, *definition.aliases) if n in names])
    for name in (definition.name, *definition.aliases):
        if name in _EXACT and _EXACT[name] != definition.name:
            raise ValueError(f"measure name {name!r} already registered")
        _EXACT[name] = definition.name
        _FOLDED.setdefault(name.lower(), set()).add(definition.name)
    for t in definition.trec:
        kind = t.kind or trec_kind(definition, t)
        register_trec(t._replace(family=definition.name, kind=kind))
    _REGISTRY[definition.name] = definition
    return definition


def measure(**spec) -> Callable[[Callable], Callable]:
    """Decorator: declare the decorated kernel as a measure family.

    ``trec=`` takes one :class:`TrecEval` or a tuple of them.
    """
    if isinstance(spec.get("trec"), TrecEval):
        spec["trec"] = (spec["trec"],)

    def wrap(kernel: Callable) -> Callable:
        register(MeasureDef(behaviour=kernel, **spec))
        return kernel

    return wrap


def trec_measures() -> list[TrecEval]:
    """Every trec_eval 10.0 measure, in trec_eval's order (that of its output)."""
    _use()
    _load_all()
    return sorted(_TREC.values(), key=lambda t: t.order)


def trec_measure(name: str) -> TrecEval | None:
    """The trec_eval measure called exactly ``name``, or None."""
    _use()
    if name not in _TREC and isinstance(name, str):
        _load_modules(_index().TREC.get(name, ()))
    return _TREC.get(name)


def trec_nicknames() -> dict[str, list[str]]:
    """trec_eval's nicknames and the measures each selects, both in trec_eval's order."""
    measures = trec_measures()
    return {n: [t.name for t in measures if n in t.nicknames] for n in TREC_NICKNAMES}


def lookup(name: str) -> MeasureDef | None:
    """The family called ``name`` (aliases allowed), or None.

    An exact match wins; otherwise a case-insensitive match is used when it is
    unambiguous (``ndcg`` is trec_eval's, ``NDCG`` finds ``nDCG``).
    """
    _use()
    if not isinstance(name, str):
        return None
    canonical = _EXACT.get(name)
    if canonical is None:
        _load_modules(_index().FOLDED.get(name.lower(), ()))
        canonical = _EXACT.get(name)
    if canonical is None:
        folded = _FOLDED.get(name.lower(), set())
        canonical = next(iter(folded)) if len(folded) == 1 else None
    return _REGISTRY.get(canonical) if canonical else None


def case_twins(family: str) -> list[str]:
    """Other families whose name differs from ``family``'s only by case (``rbp``/``RBP``).

    Such a pair is a trap: the names look alike and the values differ. trec_eval's
    family keeps its trec_eval spellings (``rbp``, ``rbp.p=0.8``), the readable one its
    ir_measures name (``RBP(p=0.8)``); both print every parameter (see ``Measure.__str__``).
    """
    return list(_twins(family, generation()))


@memo(4096)
def _twins(family: str, _generation: tuple) -> tuple[str, ...]:
    """:func:`case_twins` while the registry is unchanged (every measure's printed name
    asks, a few times an evaluation), as ``names.parse_many`` keeps its answers."""
    _use()
    _load_modules(_index().FOLDED.get(family.lower(), ()))
    return tuple(sorted(n for n in _FOLDED.get(family.lower(), ()) if n != family))


def generation() -> tuple[int, int, int]:
    """A value that changes whenever a family, a name or a trec_eval measure is
    registered (what a cache of parsed names is keyed on)."""
    return len(_REGISTRY), len(_EXACT), len(_TREC)


def all_definitions() -> list[MeasureDef]:
    _use()
    _load_all()
    return [_REGISTRY[n] for n in _in_load_order(_REGISTRY, _USED[0], _index().FAMILIES)]


def all_names() -> list[str]:
    _use()
    _load_all()
    return _in_load_order(_EXACT, _USED[1], _index().NAMES)


# The built-in families are loaded as they are needed: a look-up imports only the
# module declaring the name (core/measures/_index.py, generated from the registry and
# checked by tests/core/test_registry_index.py), so ``cranfield eval -m AP`` does not
# import every family. What the registry answers is what it answered when its first
# read loaded them all: in particular all_definitions() and all_names() keep that order
# (_in_load_order), and a family registered after the first read is checked against
# every built-in one (register).
_LOADED = False
_CORE = ("counts", "gain", "precision", "set_based", "user_models")
_USED: tuple[tuple[str, ...], tuple[str, ...]] | None = None  # (families, names) at first read


def _use() -> None:
    """Note the registry's first read: the families and names registered before it."""
    global _USED
    if _USED is None:
        _USED = (tuple(_REGISTRY), tuple(_EXACT))


def _in_load_order(current, before: tuple[str, ...], built_in) -> list[str]:
    """The keys of ``current`` in the order a load of every built-in family at the first
    read would have registered them: those registered before that read, then the
    built-in ones in their own order, then those registered since."""
    first = [k for k in before if k in current]
    seen = set(first)
    ours = [k for k in built_in if k in current and k not in seen]
    seen.update(ours)
    return first + ours + [k for k in current if k not in seen]


def _built_in(definition: MeasureDef) -> bool:
    """Whether ``definition`` is one of the built-in families (being loaded)."""
    package, _, module = definition.kernel.__module__.rpartition(".")
    return package == __package__ and _index().NAMES.get(definition.name) == module


def _index():
    global _INDEX
    if _INDEX is None:
        from . import _index as index

        _INDEX = index
    return _INDEX


_INDEX = None  # the generated index of the built-in families, once imported


def _load_modules(modules) -> None:
    """Import these family modules of this package (an optional one may be missing)."""
    import sys

    for module in modules:
        path = f"{__package__}.{module}"
        if path in sys.modules:
            continue
        try:
            __import__(path)
        except ImportError:
            if module in _CORE:
                raise


def _load_all() -> None:
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    from . import counts, gain, precision, set_based, user_models  # noqa: F401

    try:
        from . import extra  # noqa: F401  (measures beyond trec_eval, when present)
    except ImportError:
        pass


def index_table() -> dict:
    """The contents of core/measures/_index.py, from a registry loaded whole from the
    start (call it in a fresh interpreter): ``FAMILIES`` and ``NAMES`` (every name and
    alias, with the module declaring it) in the order of that load, ``TREC`` (each
    trec_eval measure's module) and ``FOLDED`` (the modules of each lower-cased name)."""
    _load_all()

    def module(family: str) -> str:
        return _REGISTRY[family].kernel.__module__.rpartition(".")[2]

    folded: dict[str, set[str]] = {}
    for name, family in _EXACT.items():
        folded.setdefault(name.lower(), set()).add(module(family))
    return {
        "FAMILIES": tuple(_REGISTRY),
        "NAMES": {name: module(family) for name, family in _EXACT.items()},
        "TREC": {t.name: (module(t.family),) for t in _TREC.values() if t.family is not None},
        "FOLDED": {k: tuple(sorted(v)) for k, v in folded.items()},
    }


def write_index() -> None:
    """Write core/measures/_index.py (in a fresh interpreter; then ruff-format it)."""
    import os
    from pprint import pformat

    table = index_table()
    text = (
        '"""Which module declares each built-in measure name (see families._load_modules).\n\n'
        "Generated by ``python -c 'from cranfield.core.measures.registry import write_index;"
        " write_index()'``\n"
        '(do not edit; tests/core/test_registry_index.py checks it)."""\n'
    )
    for key, value in table.items():
        text += f"\n{key} = {pformat(value, width=88, sort_dicts=False)}\n"
    with open(os.path.join(os.path.dirname(__file__), "_index.py"), "w") as fh:
        fh.write(text)
