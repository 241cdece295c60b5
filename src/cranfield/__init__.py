"""cranfield: evaluate retrieval, ranking and classification systems the Cranfield way.

Importing the package does no work: the public names below are resolved lazily on
first access, so ``import cranfield`` stays cheap (no pandas, SciPy or matplotlib).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

__version__ = "0.1.0"

# public name -> module that defines it
_EXPORTS = {
    "InputError": "errors",
    "ParameterError": "errors",
    "MeasureError": "errors",
    "CranfieldError": "errors",
    "Qrels": "qrels",
    "Run": "run",
    "JudgedRun": "judged",
    "evaluate": "evaluate",
    "Results": "evaluate",
    "parse_measure": "measures.names",
    "measures": "measures",
    "compare": "compare",
    "classification": "classification",
    "clustering": "clustering",
    "splits": "splits",
    "curves": "curves",
    "sample": "sample",
}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'cranfield' has no attribute {name!r}")
    mod = import_module(f".{module}", __name__)
    value = mod if module.split(".")[-1] == name else getattr(mod, name)
    globals()[name] = value
    return value


def __dir__():
    return __all__


if TYPE_CHECKING:  # pragma: no cover
    from .errors import CranfieldError, InputError, MeasureError, ParameterError  # noqa: F401
