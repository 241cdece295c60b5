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
        from importlib import import_module

        module = import_module(self._name)
        owner = sys.modules.get(self._owner)
        if owner is not None and getattr(owner, self._alias, None) is self:
            setattr(owner, self._alias, module)
        return getattr(module, attr)

    def __repr__(self) -> str:
        return f"<module {self._name!r}, imported on first use>"


def lazy(name: str, owner: str, alias: str):
    """A stand-in for module ``name``, bound to ``alias`` in module ``owner``."""
    return _Lazy(name, owner, alias)
