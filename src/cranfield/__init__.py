"""cranfield: evaluate retrieval, ranking and classification systems the Cranfield way.

Importing the package does no work: the public names below are resolved lazily on
first access, so ``import cranfield`` stays cheap (no pandas, SciPy or matplotlib).
"""

from __future__ import annotations

from importlib import import_module

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing)

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
    "evaluate": "evaluation",
    "Results": "evaluation",
    "parse_measure": "measures.names",
}
# public subpackages and modules, imported on first access
_MODULES = {
    "measures",
    "compare",
    "classification",
    "clustering",
    "splits",
    "curves",
    "sample",
    "report",
}

__all__ = sorted(set(_EXPORTS) | _MODULES) + ["__version__"]


def __getattr__(name: str):
    if name in _MODULES:
        value = import_module(f".{name}", __name__)
        globals()[name] = value
        return value
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'cranfield' has no attribute {name!r}")
    mod = import_module(f".{module}", __name__)
    value = getattr(mod, "parse" if name == "parse_measure" else name)
    globals()[name] = value
    return value


def __dir__():
    return __all__


if TYPE_CHECKING:  # pragma: no cover
    from .errors import CranfieldError, InputError, MeasureError, ParameterError  # noqa: F401
