"""The one declaration shape of cranfield's registries, and the one parameter vocabulary.

Every registry (pool strategies, statistical tests; measures, click models and rankers
next) declares each member once, as a :class:`Declaration`: its name and aliases, its
parameters (:class:`Param`, with their allowed ranges or choices), a one-line summary,
its formula, its reference in the literature, and the behaviour itself (a callable).
A :class:`Registry` holds the declarations of one kind; CLI choices, help texts and the
reference sections of docs/ are generated from it.

A parameter's range is declared with the vocabulary below (:func:`number_in`,
:func:`integer_in`, :func:`integer_at_least`, :func:`weights`, or ``choices=``), and a
bad value is refused with the one template of :func:`cranfield.errors.invalid_value`.

This module is part of the core: it imports no capability package.
"""

from __future__ import annotations

import math

from .._record import Record
from ..errors import MeasureError, ParameterError, invalid_value

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a cold CLI)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_set = object.__setattr__  # how the frozen values below fill their fields

__all__ = [
    "Param",
    "Declaration",
    "Registry",
    "registries",
    "number_in",
    "integer_in",
    "integer_at_least",
    "weights",
    "weight",
]

# Ranges every parameter is checked against (docs/measure-language.md, "Parameter
# ranges"). They keep each computation finite and its work proportional to the input:
# a rank cutoff is at most MAX_RANK (trec_eval's long), a weight or gain has a magnitude
# in [MIN_MAGNITUDE, MAX_MAGNITUDE] (or is 0), so that a sum over any run stays finite
# and no value is a denormal; counts are exact in a double.
MAX_RANK = 2**63 - 1
MAX_MAGNITUDE = 1e100
MIN_MAGNITUDE = 1e-100
MAX_COUNT = 2**53
MIN_GRADE, MAX_GRADE = -(2**63), 2**63 - 1
MAX_POINTS = 1000


def number_in(lo: float, hi: float, *, open_lo: bool = False, open_hi: bool = False):
    """``allowed=`` and ``check=`` of a :class:`Param` for a real number in an interval.

    Use as ``Param("p", float, 0.8, "...", **number_in(0, 1, open_lo=True, open_hi=True))``.
    """
    left, right = "(" if open_lo else "[", ")" if open_hi else "]"
    allowed = f"a number in {left}{_bound(lo)}, {_bound(hi)}{right}"

    def check(v) -> bool:
        if v is None:
            return True
        above = v > lo if open_lo else v >= lo
        below = v < hi if open_hi else v <= hi
        return bool(above and below)

    return {"allowed": allowed, "check": check}


def integer_in(lo: int, hi: int, what: str = "an integer"):
    """``allowed=`` and ``check=`` of a :class:`Param` for an integer in ``[lo, hi]``."""
    return {
        "allowed": f"{what} in [{_bound(lo)}, {_bound(hi)}]",
        "check": lambda v: v is None or lo <= v <= hi,
    }


def integer_at_least(lo: int, what: str = "an integer"):
    """``allowed=`` and ``check=`` of a :class:`Param` for an integer ``>= lo`` (one
    that means "everything" beyond any input's size, as a pool depth)."""
    return {"allowed": f"{what} >= {lo}", "check": lambda v: v is None or v >= lo}


def weights() -> dict:
    """``allowed=`` and ``check=`` of a :class:`Param` for a weight (see :func:`weight`)."""
    return {"allowed": WEIGHT_ALLOWED, "check": weight}


def weight(v) -> bool:
    """0 or a finite magnitude in [MIN_MAGNITUDE, MAX_MAGNITUDE]."""
    return v == 0 or MIN_MAGNITUDE <= abs(v) <= MAX_MAGNITUDE


WEIGHT_ALLOWED = "0 or a number of magnitude in [1e-100, 1e100]"


def _bound(v) -> str:
    names = {MAX_RANK: "2^63-1", MAX_COUNT: "2^53", MIN_GRADE: "-2^63"}
    if isinstance(v, int) and v in names:
        return names[v]
    if isinstance(v, float) and (abs(v) >= 1e6 or 0 < abs(v) < 1e-4):
        mantissa, exponent = f"{v:g}".split("e")
        return f"{mantissa}e{int(exponent)}"  # 1e6, 1e-100
    return _num(v) if isinstance(v, float) else str(v)


def _num(v: float) -> str:
    v = float(v)
    return str(int(v)) if v.is_integer() and abs(v) < 1e16 else repr(v)


def measure_refusal(owner: str, param: Param, given: Any, value: Any) -> Exception:
    """A measure's bad parameter: ``nDCG: invalid value for parameter p: ...``."""
    return MeasureError(
        f"{owner}: {invalid_value(f'parameter {param.name}', param.allowed_text, given)}"
    )


def parameter_refusal(owner: str, param: Param, given: Any, value: Any) -> Exception:
    """A bad parameter of any other declaration: a :class:`ParameterError`,
    ``invalid value for depth parameter k: expected an integer >= 1, got 0`` (the value
    as read, when it could be read)."""
    return ParameterError(f"{owner} parameter {param.name}", param.allowed_text, value)


class Param(Record):
    """One parameter of a declaration (a measure family, a pool strategy, a test, ...).

    ``kind`` is the Python type values are coerced to (int, float, str, bool, or
    ``"gains"`` for ``level=gain`` pairs, ``"floats"`` for a tuple of floats);
    ``check`` returns True for valid values and ``allowed`` says so in words: every
    numeric parameter declares its range (:func:`number_in`, :func:`integer_in`,
    :func:`integer_at_least`), and the message of a bad value is the one template of
    :func:`cranfield.errors.invalid_value`. ``default`` None means the parameter is
    required (outside the measure registry, whose parameters all have defaults).
    """

    __slots__ = ("name", "kind", "default", "doc", "allowed", "check", "choices")
    name: str
    kind: Any
    default: Any
    doc: str
    allowed: str
    check: Callable[[Any], bool] | None
    choices: tuple

    def __init__(
        self,
        name: str,
        kind: Any,
        default: Any,
        doc: str,
        allowed: str = "",
        check: Callable[[Any], bool] | None = None,
        choices: tuple = (),
    ) -> None:
        _set(self, "name", name)
        _set(self, "kind", kind)
        _set(self, "default", default)
        _set(self, "doc", doc)
        _set(self, "allowed", allowed)
        _set(self, "check", check)
        _set(self, "choices", choices)

    @property
    def allowed_text(self) -> str:
        """The accepted values in words (the declared range, the choices or the type)."""
        if self.allowed:
            return self.allowed
        if self.choices:
            return f"one of {', '.join(map(repr, self.choices))}"
        return self._kind_name()

    def coerce(
        self,
        value: Any,
        owner: str,
        refuse: Callable[[str, Param, Any, Any], Exception] = measure_refusal,
    ) -> Any:
        """``value`` as ``kind``, checked against the declared range or choices.

        A bad value raises ``refuse(owner, param, given, value)`` (``value`` is the one
        read, or ``given`` when it could not be read): :func:`measure_refusal` (the
        measure registry's wording) unless the declaration says otherwise.
        """
        given = value
        try:
            value = self._read(value)
        except (TypeError, ValueError, OverflowError):
            raise refuse(owner, self, given, given) from None
        if (self.choices and value not in self.choices) or (self.check and not self.check(value)):
            raise refuse(owner, self, given, value)
        return value

    def _read(self, value: Any) -> Any:
        if self.kind == "gains":
            return coerce_gains(value)
        if self.kind == "floats":
            if isinstance(value, str):
                value = value.split(",")
            elif isinstance(value, (int, float)):
                value = (value,)
            value = tuple(float(v) for v in value)
            if not value or len(value) > MAX_POINTS:
                raise ValueError
            return value
        if self.kind is bool:
            if isinstance(value, str):
                if value.lower() not in ("true", "false", "1", "0"):
                    raise ValueError
                value = value.lower() in ("true", "1")
            return bool(value)
        if self.kind is int:
            if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
                raise ValueError
            return int(value)
        if self.kind is float:
            value = float(value)
            if not math.isfinite(value):
                raise ValueError
            return value
        if self.kind is str:
            if not isinstance(value, (str, int, float)):
                raise ValueError
            return str(value)
        return value

    def _kind_name(self) -> str:
        return {int: "an integer", float: "a number", str: "a string", bool: "true or false"}.get(
            self.kind, str(self.kind)
        )


def coerce_gains(value) -> tuple[tuple[int, float], ...]:
    """``level=gain`` pairs: each grade an integer (once), each gain a finite number."""
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, str):
        items = [pair.split("=", 1) for pair in value.split(",") if pair.strip()]
        if any(len(p) != 2 for p in items):
            raise ValueError
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        raise ValueError
    pairs = []
    for item in items:
        if not isinstance(item, (list, tuple)) or len(item) != 2:
            raise ValueError
        k, v = item
        if isinstance(k, (bool, float)) or isinstance(v, bool):
            raise ValueError
        level, gain = int(k), float(v)
        if not (MIN_GRADE <= level <= MAX_GRADE and math.isfinite(gain)):
            raise ValueError
        pairs.append((level, gain))
    if len({k for k, _ in pairs}) != len(pairs):
        raise ValueError  # a grade given two gains
    return tuple(sorted(pairs))


class Declaration(Record):
    """One member of a registry, declared once.

    ``behaviour`` is the member itself (a kernel, a test, a model); its signature is the
    registry's (stated where the registry is declared). ``formula`` states what it
    computes and ``citation`` cites the literature or the implementation it matches.
    A registry whose members need more (a pool strategy's ``max_rank``, a test's
    ``scope``) subclasses this class with those fields only.
    """

    __slots__ = ("name", "behaviour", "summary", "formula", "citation", "params", "aliases")
    _no_repr = ("behaviour",)
    name: str
    behaviour: Callable
    summary: str
    formula: str
    citation: str
    params: tuple[Param, ...]
    aliases: tuple[str, ...]

    def __init__(
        self,
        name: str,
        behaviour: Callable,
        summary: str,
        formula: str,
        citation: str,
        params: tuple[Param, ...] = (),
        aliases: tuple[str, ...] = (),
    ) -> None:
        _set(self, "name", name)
        _set(self, "behaviour", behaviour)
        _set(self, "summary", summary)
        _set(self, "formula", formula)
        _set(self, "citation", citation)
        _set(self, "params", tuple(params))
        _set(self, "aliases", tuple(aliases))

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def resolve(self, given: dict[str, Any]) -> dict[str, Any]:
        """Every parameter's value: given ones checked, defaults filled in; an unknown
        name or a missing required one (default None) is a :class:`ParameterError`."""
        names = [p.name for p in self.params]
        for key in given:
            if key not in names:
                raise ParameterError(f"{self.name} parameter", "one of " + ", ".join(names), key)
        out = {}
        for p in self.params:
            if p.name in given and given[p.name] is not None:
                out[p.name] = p.coerce(given[p.name], self.name, parameter_refusal)
            elif p.default is None:
                raise ParameterError(f"{self.name} parameter {p.name}", p.allowed_text, None)
            else:
                out[p.name] = p.default
        return out


_REGISTRIES: list[Registry] = []


def registries() -> list[Registry]:
    """Every :class:`Registry` created so far (those of the imported packages)."""
    return list(_REGISTRIES)


class Registry(dict):
    """The declarations of one kind, by name, in the order registered.

    A ``dict`` from canonical name to :class:`Declaration` (so ``", ".join(registry)``
    lists the names); :meth:`lookup` also reads aliases, case-insensitively.
    """

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind  # what one member is called in messages: "pool strategy"
        self._aliases: dict[str, str] = {}
        _REGISTRIES.append(self)

    def register(self, declaration: Declaration) -> Declaration:
        """Add ``declaration``; its name and aliases must be new (lower case)."""
        if not isinstance(declaration, Declaration):
            raise TypeError(f"{self.kind} {declaration!r} is not a Declaration")
        for name in (declaration.name, *declaration.aliases):
            if name != name.lower() or name in self or name in self._aliases:
                raise ValueError(f"{self.kind} {name!r} already registered or not lower case")
        self[declaration.name] = declaration
        for alias in declaration.aliases:
            self._aliases[alias] = declaration.name
        return declaration

    @property
    def names(self) -> tuple[str, ...]:
        """Canonical names, in the order registered."""
        return tuple(self)

    def find(self, name: Any) -> Declaration | None:
        """The declaration called ``name`` or one of its aliases (any case), or None."""
        if not isinstance(name, str):
            return None
        key = name.lower()
        return self.get(self._aliases.get(key, key))

    def lookup(self, name: Any) -> Declaration:
        """As :meth:`find`; an unknown name is a :class:`ParameterError` listing the names."""
        found = self.find(name)
        if found is None:
            raise ParameterError(self.kind, "one of " + ", ".join(self), name)
        return found
