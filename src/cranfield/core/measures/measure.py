"""A measure: one member of a family (``nDCG@10``, ``P(rel=2)@5``), hashable and
printed canonically, and what it computes on a judged run."""

from __future__ import annotations

from ..._record import Record
from ...errors import MeasureError, invalid_value
from ..declarations import MAX_RANK, _bound, _num
from .families import all_definitions, case_twins, lookup

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a cold CLI)
if TYPE_CHECKING:
    from typing import Any

    from .declaration import MeasureDef

_set = object.__setattr__  # how the frozen values below fill their fields

MAX_MULTIPLE = 1e6  # largest multiple of R (Rprec_mult@x)
MAX_NAME = 10_000  # characters of one measure name


def _format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "True" if value else "False"  # as ir_measures prints them
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, float):
        return repr(int(value)) + ".0" if value.is_integer() and abs(value) < 1e16 else repr(value)
    if isinstance(value, tuple) and value and isinstance(value[0], tuple):
        return "{" + ",".join(f"{k}:{_num(v)}" for k, v in value) + "}"  # ir_measures' form
    if isinstance(value, tuple):
        return "'" + ",".join(_num(v) for v in value) + "'"
    return repr(value)


class Measure(Record):
    """One measure: a family, explicit parameter values and an optional cutoff.

    Construct with :func:`cranfield.parse_measure` (``"nDCG@10"``) or
    ``Measure.of("nDCG", cutoff=10)``. ``str(m)`` is the canonical name, which
    :func:`~cranfield.core.measures.names.parse` maps back to an equal value.
    """

    __slots__ = ("name", "params", "cutoff")
    name: str
    params: tuple[tuple[str, Any], ...]
    cutoff: int | float | None

    def __init__(
        self, name: str, params: tuple[tuple[str, Any], ...] = (), cutoff: int | float | None = None
    ) -> None:
        _set(self, "name", name)
        _set(self, "params", params)
        _set(self, "cutoff", cutoff)

    @classmethod
    def of(cls, name: str, cutoff=None, **params) -> Measure:
        definition = lookup(name)
        if definition is None:
            from .names import suggest

            hint = suggest(name) if isinstance(name, str) else ""
            raise MeasureError(f"unknown measure {name!r}{hint}")
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
        """Per-query values for a :class:`~cranfield.core.judged.JudgedRun`."""
        judged_run, values = self._prepared(judged_run)
        from . import engine

        if self.name in engine.families():
            (column,) = engine.compute([(self.name, self.cutoff, values)], judged_run)
            return engine.as_array(column)
        return self.definition.kernel(judged_run, self.cutoff, **values)

    def reference(self, judged_run):
        """Per-query values from the family's NumPy kernel (the engine's test oracle)."""
        judged_run, values = self._prepared(judged_run)
        return self.definition.kernel(judged_run, self.cutoff, **values)

    def micro(self, judged_run) -> float:
        """Micro average: the measure of the contingency counts pooled over all queries.

        Defined for the families that declare ``micro=`` (micro- vs macro-averaging,
        Manning, Raghavan & Schütze 2008, sec. 13.6), computed by the engine by the
        declared formula; others raise :class:`~cranfield.errors.MeasureError`.
        """
        from . import engine

        micro = self._micro()
        judged_run, values = self._prepared(judged_run, check=False)
        (value,) = engine.micro([(self.name, self.cutoff, values)], [micro.formula], judged_run)
        return value

    def micro_reference(self, judged_run) -> float:
        """The micro average from its NumPy specification (the engine's test oracle)."""
        micro = self._micro()
        judged_run, values = self._prepared(judged_run, check=False)
        return float(micro.specification(judged_run, self.cutoff, **values))

    def _micro(self):
        """The family's :class:`~cranfield.core.measures.declaration.Micro`, or the
        :class:`~cranfield.errors.MeasureError` of a family without one."""
        micro = self.definition.micro
        if micro is None:
            defined = ", ".join(d.name for d in all_definitions() if d.micro is not None)
            raise MeasureError(f"micro averaging is defined for {defined}, not {self}")
        return micro

    def _prepared(self, judged_run, check: bool = True):
        """The run the kernels see and the parameter values they take.

        ``judged_only=True`` (ir_measures' parameter) is applied here, for every family
        that declares it: unjudged documents are dropped from the rankings before the
        kernel runs, as trec_eval ``-J`` does (:func:`cranfield.core.judged.judged_view`).
        A family that refuses fractional gains (``fractional="refused"``) is refused
        here, the one place, when the judged grades are not all whole numbers; so is a
        run the family's ``check`` finds it undefined on (per-query values only: not
        for ``micro``, which pools the counts).
        """
        if self.definition.fractional_use == "refused" and judged_run.fractional:
            from ...errors import InputError

            raise InputError(fractional_refusal(self))
        values = self.param_values()
        if values.pop("judged_only", False):
            from ..judged import judged_view

            # one view per run, shared by every measure that asks for it
            judged_run = judged_run.memo("judged_view", lambda: judged_view(judged_run))
        if check and self.definition.check is not None:
            self.definition.check(judged_run, self.cutoff, **values)
        return judged_run, values

    def __str__(self) -> str:
        text = self.name
        params = self.params
        if case_twins(self.name):
            # spell out the defaults too, so that the two look-alikes cannot be confused
            d = self.definition
            params = tuple(
                (k, v) for k, v in self.param_values().items() if v is not None and v != ()
            )
            if d.trec_name == d.name:  # trec_eval's family: trec_eval's syntax, rbp.p=0.9
                pairs = []
                for k, v in params:
                    if k == "gains":
                        pairs += [f"{lvl}={_num(g)}" for lvl, g in v]
                    else:
                        pairs.append(f"{k}={_num(v) if isinstance(v, float) else v}")
                return text + ("." + ",".join(pairs) if pairs else "")
        if params:
            text += "(" + ", ".join(f"{k}={_format_value(v)}" for k, v in params) + ")"
        if self.cutoff is not None:
            c = self.cutoff
            text += "@" + (str(c) if isinstance(c, int) else _num(c))
        return text

    def __repr__(self) -> str:
        return f"Measure({str(self)!r})"


def fractional_refusal(measure: Measure) -> str:
    """Why a family with ``fractional="refused"`` refuses qrels with fractional grades."""
    return (
        f"{measure} is not defined for fractional relevance (it reads grades as whole "
        "levels) and these qrels hold non-integer values; evaluate it with integer qrels"
    )


CUTOFF_ALLOWED = {
    "rank": f"a positive integer rank in [1, {_bound(MAX_RANK)}]",
    "recall": "a recall level in [0, 1]",
    "positive": f"a positive number in (0, {_bound(MAX_MULTIPLE)}]",
}


def _check_cutoff(definition: MeasureDef, cutoff):
    """The cutoff as an int rank or a float, checked against the family's range.

    Ranks beyond every ranking are allowed (they cost nothing: kernels compare ranks
    with the cutoff, never allocate by it) up to trec_eval's largest int.
    """
    label = definition.name
    if cutoff is None:
        if definition.cutoff_required:
            raise MeasureError(f"{label} needs a cutoff, e.g. {label}@10")
        return None
    if definition.cutoff is None:
        raise MeasureError(f"{label} takes no cutoff (got @{cutoff})")
    try:
        if isinstance(cutoff, (bool, str)):
            raise TypeError
        value = float(cutoff)
    except (TypeError, ValueError, OverflowError):
        value = float("nan")
    exact = isinstance(cutoff, int) and not isinstance(cutoff, bool)
    if exact and definition.cutoff == "rank":  # a float cannot hold every rank up to 2^63-1
        ok, value = 1 <= cutoff <= MAX_RANK, cutoff
    elif definition.cutoff == "rank":
        ok = value.is_integer() and 1 <= value <= MAX_RANK
    elif definition.cutoff == "recall":
        ok = 0.0 <= value <= 1.0
    else:
        ok = 0.0 < value <= MAX_MULTIPLE
    if not ok:
        allowed = CUTOFF_ALLOWED[definition.cutoff]
        raise MeasureError(f"{label}: {invalid_value('cutoff', allowed, cutoff)}")
    return int(value) if definition.cutoff == "rank" else value
