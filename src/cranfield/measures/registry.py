"""The measure registry: each measure family is declared once, with its parameters.

A :class:`MeasureDef` describes a family (``nDCG``, ``P``, ``AP``, ...): typed
parameters with defaults and constraints, whether it takes a rank or recall cutoff,
how per-query values aggregate, its formula and its source, and the kernel that
computes it for all queries at once. A :class:`Measure` is a value naming one member
of a family (``nDCG@10``, ``P(rel=2)@5``); it is hashable and prints canonically.

Kernels have the signature ``kernel(judged_run, cutoff, **params) -> ndarray`` and
return one value per query of the :class:`~cranfield.judged.JudgedRun`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import MeasureError

AGGREGATES = ("mean", "sum", "gmean", "none")


@dataclass(frozen=True)
class Param:
    """One parameter of a measure family.

    ``kind`` is the Python type values are coerced to (int, float, str, bool, or
    ``"gains"`` for ``level=gain`` pairs, ``"floats"`` for a tuple of floats);
    ``check`` returns True for valid values and ``allowed`` says so in words.
    """

    name: str
    kind: Any
    default: Any
    doc: str
    allowed: str = ""
    check: Callable[[Any], bool] | None = None
    choices: tuple = ()

    def coerce(self, value: Any, measure: str) -> Any:
        allowed = self.allowed or (
            f"one of {', '.join(map(repr, self.choices))}" if self.choices else self._kind_name()
        )
        try:
            if self.kind == "gains":
                value = _coerce_gains(value)
            elif self.kind == "floats":
                if isinstance(value, str):
                    value = value.split(",")
                elif isinstance(value, (int, float)):
                    value = (value,)
                value = tuple(float(v) for v in value)
            elif self.kind is bool:
                if isinstance(value, str):
                    if value.lower() not in ("true", "false", "1", "0"):
                        raise ValueError
                    value = value.lower() in ("true", "1")
                value = bool(value)
            elif self.kind is int:
                if isinstance(value, float) and not value.is_integer():
                    raise ValueError
                value = int(value)
            elif self.kind is float:
                value = float(value)
                if not math.isfinite(value):
                    raise ValueError
            elif self.kind is str:
                value = str(value)
        except (TypeError, ValueError):
            raise MeasureError(
                f"{measure}: invalid value for parameter {self.name}: expected {allowed}, "
                f"got {value!r}"
            ) from None
        if (self.choices and value not in self.choices) or (self.check and not self.check(value)):
            raise MeasureError(
                f"{measure}: invalid value for parameter {self.name}: expected {allowed}, "
                f"got {value!r}"
            )
        return value

    def _kind_name(self) -> str:
        return {int: "an integer", float: "a number", str: "a string", bool: "true or false"}.get(
            self.kind, str(self.kind)
        )


def _coerce_gains(value) -> tuple[tuple[int, float], ...]:
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, str):
        items = [pair.split("=", 1) for pair in value.split(",") if pair]
        if any(len(p) != 2 for p in items):
            raise ValueError
    else:
        items = value
    return tuple(sorted((int(k), float(v)) for k, v in items))


@dataclass(frozen=True)
class MeasureDef:
    """Declaration of a measure family."""

    name: str
    kernel: Callable = field(repr=False)
    summary: str
    formula: str
    reference: str
    params: tuple[Param, ...] = ()
    cutoff: str | None = None  # None, "rank" (int >= 1) or "recall" (float in [0, 1])
    cutoff_required: bool = False
    aggregate: str = "mean"
    kind: str = "float"  # "float", "int" (counts) or "str"
    aliases: tuple[str, ...] = ()
    trec_name: str | None = None
    edge_cases: str = ""
    family: str = "ranked"
    micro: Callable | None = field(default=None, repr=False)  # pooled-count aggregate

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)


_REGISTRY: dict[str, MeasureDef] = {}
_EXACT: dict[str, str] = {}  # name or alias -> family
_FOLDED: dict[str, set[str]] = {}  # lower-cased name or alias -> families


def register(definition: MeasureDef) -> MeasureDef:
    """Add a family to the registry (names and aliases must be unique)."""
    if definition.aggregate not in AGGREGATES:
        raise ValueError(f"bad aggregate {definition.aggregate!r}")
    for name in (definition.name, *definition.aliases):
        if name in _EXACT and _EXACT[name] != definition.name:
            raise ValueError(f"measure name {name!r} already registered")
        _EXACT[name] = definition.name
        _FOLDED.setdefault(name.lower(), set()).add(definition.name)
    _REGISTRY[definition.name] = definition
    return definition


def measure(**spec) -> Callable[[Callable], Callable]:
    """Decorator: declare the decorated kernel as a measure family."""

    def wrap(kernel: Callable) -> Callable:
        register(MeasureDef(kernel=kernel, **spec))
        return kernel

    return wrap


def lookup(name: str) -> MeasureDef | None:
    """The family called ``name`` (aliases allowed), or None.

    An exact match wins; otherwise a case-insensitive match is used when it is
    unambiguous (``ndcg`` is trec_eval's, ``NDCG`` finds ``nDCG``).
    """
    _load_all()
    canonical = _EXACT.get(name)
    if canonical is None:
        folded = _FOLDED.get(name.lower(), set())
        canonical = next(iter(folded)) if len(folded) == 1 else None
    return _REGISTRY.get(canonical) if canonical else None


def all_definitions() -> list[MeasureDef]:
    _load_all()
    return list(_REGISTRY.values())


def all_names() -> list[str]:
    _load_all()
    return list(_EXACT)


_LOADED = False


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


def _format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "True" if value else "False"  # as ir_measures prints them
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, float):
        return repr(int(value)) + ".0" if value.is_integer() else repr(value)
    if isinstance(value, tuple) and value and isinstance(value[0], tuple):
        return "{" + ",".join(f"{k}:{_num(v)}" for k, v in value) + "}"  # ir_measures' form
    if isinstance(value, tuple):
        return "'" + ",".join(_num(v) for v in value) + "'"
    return repr(value)


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


@dataclass(frozen=True)
class Measure:
    """One measure: a family, explicit parameter values and an optional cutoff.

    Construct with :func:`cranfield.parse_measure` (``"nDCG@10"``) or
    ``Measure.of("nDCG", cutoff=10)``. ``str(m)`` is the canonical name, which
    :func:`~cranfield.measures.names.parse` maps back to an equal value.
    """

    name: str
    params: tuple[tuple[str, Any], ...] = ()
    cutoff: int | float | None = None

    @classmethod
    def of(cls, name: str, cutoff=None, **params) -> Measure:
        definition = lookup(name)
        if definition is None:
            from .names import suggest

            raise MeasureError(f"unknown measure {name!r}{suggest(name)}")
        label = definition.name
        coerced = {}
        for key, value in params.items():
            try:
                p = definition.param(key)
            except KeyError:
                names = ", ".join(p.name for p in definition.params) or "none"
                raise MeasureError(
                    f"{label}: unknown parameter {key!r} (parameters: {names})"
                ) from None
            coerced[key] = p.coerce(value, label)
        ordered = tuple(
            (p.name, coerced[p.name])
            for p in definition.params
            if p.name in coerced and coerced[p.name] != p.default
        )
        cutoff = _check_cutoff(definition, cutoff)
        return cls(definition.name, ordered, cutoff)

    @property
    def definition(self) -> MeasureDef:
        d = lookup(self.name)
        assert d is not None
        return d

    def param_values(self) -> dict[str, Any]:
        """All parameters, defaults filled in."""
        values = {p.name: p.default for p in self.definition.params}
        values.update(self.params)
        return values

    def compute(self, judged_run):
        """Per-query values for a :class:`~cranfield.judged.JudgedRun`.

        ``judged_only=True`` (ir_measures' parameter) is applied here, for every
        family that declares it: unjudged documents are dropped from the rankings
        before the kernel runs, as trec_eval ``-J`` does.
        """
        values = self.param_values()
        if values.pop("judged_only", False):
            from ..judged import judged_view

            judged_run = judged_view(judged_run)
        return self.definition.kernel(judged_run, self.cutoff, **values)

    def __str__(self) -> str:
        text = self.name
        if self.params:
            text += "(" + ", ".join(f"{k}={_format_value(v)}" for k, v in self.params) + ")"
        if self.cutoff is not None:
            c = self.cutoff
            text += "@" + (str(c) if isinstance(c, int) else _num(c))
        return text

    def __repr__(self) -> str:
        return f"Measure({str(self)!r})"


def _check_cutoff(definition: MeasureDef, cutoff):
    label = definition.name
    if cutoff is None:
        if definition.cutoff_required:
            raise MeasureError(f"{label} needs a cutoff, e.g. {label}@10")
        return None
    if definition.cutoff is None:
        raise MeasureError(f"{label} takes no cutoff (got @{cutoff})")
    if definition.cutoff == "rank":
        try:
            as_float = float(cutoff)
        except (TypeError, ValueError):
            as_float = float("nan")
        if not as_float.is_integer() or as_float < 1:
            raise MeasureError(
                f"{label}: invalid cutoff: expected a positive integer rank, got {cutoff!r}"
            )
        return int(as_float)
    try:
        value = float(cutoff)
    except (TypeError, ValueError):
        value = float("nan")
    if definition.cutoff == "recall" and not 0.0 <= value <= 1.0:
        raise MeasureError(
            f"{label}: invalid cutoff: expected a recall level in [0, 1], got {cutoff!r}"
        )
    if definition.cutoff == "positive" and not value > 0:
        raise MeasureError(f"{label}: invalid cutoff: expected a positive number, got {cutoff!r}")
    return value
