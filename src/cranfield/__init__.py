"""cranfield: evaluate retrieval, ranking and classification systems the Cranfield way.

Importing the package does no work: the public names below are resolved lazily on
first access, so ``import cranfield`` stays cheap (no pandas, SciPy or matplotlib).
"""

from __future__ import annotations

from . import _interrupt

if _interrupt.is_command_line():  # first: Ctrl-C during the imports is one line too
    _interrupt.install()

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing)

# public name -> module that defines it
_EXPORTS = {
    "InputError": "errors",
    "ParameterError": "errors",
    "MeasureError": "errors",
    "CranfieldError": "errors",
    "Qrels": "core.qrels",
    "Run": "core.run",
    "JudgedRun": "core.judged",
    "evaluate": "core.evaluation",
    "Results": "core.evaluation",
    "parse_measure": "core.measures.names",
    "fuse": "fusion.fuse",
}
# public subpackages and modules (attribute -> where it lives), imported on first access
_MODULES = {
    "measures": "core.measures",
    "compare": "compare",
    "classification": "classification",
    "clustering": "clustering",
    "splits": "clustering.splits",
    "curves": "report.curves",
    "sample": "sample",
    "report": "report",
    "fusion": "fusion",
}

# execution backends beyond the core's "local" (name -> module that registers it with
# core/backends.py when imported): found by name, imported on first use
_BACKENDS = {
    "dask": "distributed.backend",
}

__all__ = sorted(set(_EXPORTS) | set(_MODULES)) + ["__version__"]


def __getattr__(name: str):
    if name == "__version__":  # declared once: rust/Cargo.toml (the engine carries it)
        from ._engine import __version__

        globals()[name] = __version__
        return __version__
    if name not in _MODULES and name not in _EXPORTS:  # (asked for every submodule imported)
        raise AttributeError(f"module 'cranfield' has no attribute {name!r}")
    from importlib import import_module  # (here: the console script has not loaded it)

    if name in _MODULES:
        value = import_module(f".{_MODULES[name]}", __name__)
        globals()[name] = value
        return value
    module = _EXPORTS[name]
    mod = import_module(f".{module}", __name__)
    value = getattr(mod, "parse" if name == "parse_measure" else name)
    globals()[name] = value
    return value


def __dir__():
    return __all__


if TYPE_CHECKING:  # pragma: no cover
    from .errors import CranfieldError, InputError, MeasureError, ParameterError  # noqa: F401
