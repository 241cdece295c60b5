"""A module imported on first use, for the modules the CLI's cold path loads.

``cranfield trec_eval`` on TREC files selects its measures from the registry, whose
declarations live beside their NumPy kernels; the engine computes the values, so the
process never needs NumPy. A kernel module binds ``np = lazy("numpy", __name__, "np")``
instead of ``import numpy as np``: the first attribute read imports NumPy and puts the
module itself in the importing module's globals, so every later read is the plain
global lookup of an ``import`` statement.
"""

from __future__ import annotations

import sys


class _Lazy:
    __slots__ = ("_name", "_owner", "_alias")

    def __init__(self, name: str, owner: str, alias: str) -> None:
        self._name, self._owner, self._alias = name, owner, alias

    def __getattr__(self, attr: str):
        # (the import statement's own machinery: importlib.import_module would import
        # importlib and warnings, which a cold `cranfield eval` does not load)
        __import__(self._name)
        module = sys.modules[self._name]
        owner = sys.modules.get(self._owner)
        if owner is not None and getattr(owner, self._alias, None) is self:
            setattr(owner, self._alias, module)
        return getattr(module, attr)

    def __repr__(self) -> str:
        return f"<module {self._name!r}, imported on first use>"


def lazy(name: str, owner: str, alias: str):
    """A stand-in for module ``name``, bound to ``alias`` in module ``owner``."""
    return _Lazy(name, owner, alias)


class LazyPackage(type(sys)):
    """The class of a package whose public names are imported on first use.

    ``cranfield.compare``, ``cranfield.clicks``, ``cranfield.pooling``, ... re-export the
    names of their submodules; importing them all at once would make ``cranfield pool
    --help`` (which needs one registry's names) import NumPy and PyArrow. Such a package
    calls :func:`exports` instead: ``from cranfield.pooling import build_pool`` imports
    ``pooling/pool.py`` then (PEP 562's module ``__getattr__``). A submodule named like
    the function it exports (``clicks/simulate.py`` and ``simulate``) does not replace
    the function on the package when it is imported, as the eager ``from .simulate import
    simulate`` did not.
    """

    def __getattr__(self, name: str):
        table = self.__dict__.get("_exports", {})
        sub = table.get(name)
        if sub is None:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        __import__(f"{self.__name__}.{sub}")
        value = getattr(sys.modules[f"{self.__name__}.{sub}"], name)
        self.__dict__[name] = value
        return value

    def __setattr__(self, name: str, value) -> None:
        if isinstance(value, type(sys)) and name in self.__dict__.get("_exports", {}):
            if value.__name__ == f"{self.__name__}.{name}":
                return  # the submodule of that name: the exported name stays the function
        super().__setattr__(name, value)

    def __dir__(self):
        return sorted(set(self.__dict__) | set(self.__dict__.get("_exports", {})))


def exports(package: str, table: dict[str, str], cls: type = LazyPackage) -> None:
    """Make package ``package`` a :class:`LazyPackage` whose names ``table`` (name ->
    submodule) are imported on first use."""
    module = sys.modules[package]
    module.__dict__["_exports"] = table
    module.__class__ = cls
