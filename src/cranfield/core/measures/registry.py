"""The measure registry: each measure family is declared once, with its parameters.

A :class:`MeasureDef` describes a family (``nDCG``, ``P``, ``AP``, ...): typed
parameters with defaults and constraints, whether it takes a rank or recall cutoff,
how per-query values aggregate, its formula and its source, and the kernel that
computes it for all queries at once. A :class:`Measure` is a value naming one member
of a family (``nDCG@10``, ``P(rel=2)@5``); it is hashable and prints canonically.

Kernels have the signature ``kernel(judged_run, cutoff, **params) -> ndarray`` and
return one value per query of the :class:`~cranfield.core.judged.JudgedRun`.
"""

from __future__ import annotations

from ..._record import Record
from ...errors import MeasureError, invalid_value

# The parameter vocabulary and its ranges are the shared ones of every registry
# (cranfield.core.declarations); a measure's Param is that Param.
from ..declarations import (  # noqa: F401 (re-exported)
    MAX_COUNT,
    MAX_GRADE,
    MAX_MAGNITUDE,
    MAX_POINTS,
    MAX_RANK,
    MIN_GRADE,
    MIN_MAGNITUDE,
    WEIGHT_ALLOWED,
    Param,
    _bound,
    integer_in,
    number_in,
    weight,
    weights,
)

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a cold CLI)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_set = object.__setattr__  # how the frozen values below fill their fields

AGGREGATES = ("mean", "sum", "gmean", "none")

MAX_MULTIPLE = 1e6  # largest multiple of R (Rprec_mult@x)
MAX_NAME = 10_000  # characters of one measure name


TREC_NICKNAMES = ("official", "set", "all_trec", "all_prefs", "prefs", "qrels_jg")
"""trec_eval 10.0's nicknames (``-m official``), in its order (measures.c)."""
TREC_DEFAULT_NICKNAME = "official"  # what trec_eval prints without -m
OFFICIAL = ("official", "all_trec")
SET = ("set", "all_trec")
OFFICIAL_AND_SET = ("official", "set", "all_trec")
ALL_TREC = ("all_trec",)
STANDARD_CUTOFFS = "5,10,15,20,30,100,200,500,1000"
"""trec_eval's default cutoffs of P, recall, relative_P, map_cut and ndcg_cut."""


class TrecEval(Record):
    """How trec_eval 10.0 names, parameterises and prints one of its measures.

    Declared with the family that computes it (``@measure(trec=TrecEval(...))``), so
    that every trec_eval fact lives in one declaration; ``cranfield trec_eval`` and
    the trec_eval names of the measure language are derived from these (see
    :func:`trec_measures`, :func:`trec_nicknames`). tests/test_measures_trec_registry.py
    checks them against trec_eval 10.0's own tables.

    Parameters
    ----------
    name
        trec_eval's name (``map``, ``ndcg_cut``).
    order
        Position in trec_eval's measure table (``te_trec_measures`` in measures.c),
        which is the order of its output.
    nicknames
        The nicknames (:data:`TREC_NICKNAMES`) that select it.
    cutoffs
        For a measure computed at several cutoffs (one cranfield measure per value,
        printed ``P_5``): its default cutoffs as trec_eval writes them.
    values
        The parameters a ``name.v1,v2,...`` list fills, in order (``utility``: a, b,
        c, d; ``cutoff`` for relstring's length).
    pairs
        For ``name.k=v,...`` lists (trec_eval's ``p_pair`` measures): the keys read;
        ``"gains"`` stands for the integer gain levels. None: not a pair list.
    kind
        How trec_eval prints it; derived from the family when empty (see
        :func:`_trec_kind`): ``run_name`` (runid), ``query_count`` (num_q), ``long``
        (a count, ``%ld``),
        ``float``, ``gm`` (geometric mean), ``cut_long`` / ``cut_double`` (one value
        per rank / real cutoff), ``params`` (``name_params`` when given), ``string``
        (per query only), or ``unsupported``.
    reset_with_c
        The topics ``-c`` adds score 0 here (trec_eval.c resets these by printed
        name: the measure without parameters, or each cutoff).
    recount_with_c
        Under ``-c`` the summary is recounted from the qrels: every line with a
        relevance above 0 (m_num_rel.c's average).
    family
        The cranfield family computing it (set at registration; None for ``runid``
        and the unsupported measures).
    """

    __slots__ = (
        "name",
        "order",
        "nicknames",
        "cutoffs",
        "values",
        "pairs",
        "kind",
        "reset_with_c",
        "recount_with_c",
        "family",
    )
    name: str
    order: int
    nicknames: tuple[str, ...]
    cutoffs: str | None
    values: tuple[str, ...]
    pairs: tuple[str, ...] | None
    kind: str
    reset_with_c: bool
    recount_with_c: bool
    family: str | None

    def __init__(
        self,
        name: str,
        order: int,
        nicknames: tuple[str, ...] = ALL_TREC,
        cutoffs: str | None = None,
        values: tuple[str, ...] = (),
        pairs: tuple[str, ...] | None = None,
        kind: str = "",
        reset_with_c: bool = False,
        recount_with_c: bool = False,
        family: str | None = None,
    ) -> None:
        _set(self, "name", name)
        _set(self, "order", order)
        _set(self, "nicknames", nicknames)
        _set(self, "cutoffs", cutoffs)
        _set(self, "values", values)
        _set(self, "pairs", pairs)
        _set(self, "kind", kind)
        _set(self, "reset_with_c", reset_with_c)
        _set(self, "recount_with_c", recount_with_c)
        _set(self, "family", family)

    @property
    def supported(self) -> bool:
        return self.kind != "unsupported"


#: How a measure family reads fractional relevance (qrels with real-valued gains, e.g.
#: the expected gains ``cranfield aggregate --soft`` writes), as docs/measures.md says.
FRACTIONAL = {
    "gain": "the value is the document's gain, fraction included",
    "threshold": "binarised: relevant when the value is at least the relevance level",
    "judged": "reads only whether a document is judged, not its value",
    "refused": "non-integer values are refused (grades are read as whole levels)",
}


class MeasureDef(Record):
    """Declaration of a measure family.

    ``trec`` holds the trec_eval measures it computes (:class:`TrecEval`; the first is
    its trec_eval name, e.g. ``map`` then ``map_cut`` for AP); ``micro`` is the
    micro-averaged value, ``micro(judged_run, cutoff, **params) -> float`` (pooled
    counts of all queries), for the families that define one.
    """

    __slots__ = (
        "name",
        "kernel",
        "summary",
        "formula",
        "reference",
        "params",
        "cutoff",
        "cutoff_required",
        "aggregate",
        "kind",
        "aliases",
        "trec",
        "edge_cases",
        "family",
        "micro",
        "fractional",
        "check",
        "no_engine_kernel",
    )
    _no_repr = ("kernel", "micro", "check")
    name: str
    kernel: Callable
    summary: str
    formula: str
    reference: str
    params: tuple[Param, ...]
    cutoff: str | None  # None, "rank" (int >= 1) or "recall" (float in [0, 1])
    cutoff_required: bool
    aggregate: str
    kind: str  # "float", "int" (counts) or "str"
    aliases: tuple[str, ...]
    trec: tuple[TrecEval, ...]
    edge_cases: str
    family: str
    micro: Callable | None  # pooled-count aggregate
    fractional: str | None  # see FRACTIONAL; None: by family (graded -> "gain")
    # check(judged_run, cutoff, **params): raises MeasureError where the measure is not
    # defined on this run; run before the kernel (the engine's or the NumPy one)
    check: Callable | None
    # why the engine (rust/eval) has no kernel for this family, which then runs on its
    # NumPy kernel; empty: the engine computes it (tests/engine/test_registry_engine.py)
    no_engine_kernel: str

    def __init__(
        self,
        name: str,
        kernel: Callable,
        summary: str,
        formula: str,
        reference: str,
        params: tuple[Param, ...] = (),
        cutoff: str | None = None,
        cutoff_required: bool = False,
        aggregate: str = "mean",
        kind: str = "float",
        aliases: tuple[str, ...] = (),
        trec: tuple[TrecEval, ...] = (),
        edge_cases: str = "",
        family: str = "ranked",
        micro: Callable | None = None,
        fractional: str | None = None,
        check: Callable | None = None,
        no_engine_kernel: str = "",
    ) -> None:
        if fractional is not None and fractional not in FRACTIONAL:
            raise ValueError(f"{name}: bad fractional={fractional!r}")
        _set(self, "name", name)
        _set(self, "kernel", kernel)
        _set(self, "summary", summary)
        _set(self, "formula", formula)
        _set(self, "reference", reference)
        _set(self, "params", params)
        _set(self, "cutoff", cutoff)
        _set(self, "cutoff_required", cutoff_required)
        _set(self, "aggregate", aggregate)
        _set(self, "kind", kind)
        _set(self, "aliases", aliases)
        _set(self, "trec", trec)
        _set(self, "edge_cases", edge_cases)
        _set(self, "family", family)
        _set(self, "micro", micro)
        _set(self, "fractional", fractional)
        _set(self, "check", check)
        _set(self, "no_engine_kernel", no_engine_kernel)

    @property
    def fractional_use(self) -> str:
        """How the family reads fractional gains (qrels read with ``fractional=True``):
        a key of :data:`FRACTIONAL`."""
        if self.fractional is not None:
            return self.fractional
        return "gain" if self.family == "graded" else "threshold"

    @property
    def trec_name(self) -> str | None:
        """trec_eval's name of the family (the first of :attr:`trec`), or None."""
        return self.trec[0].name if self.trec else None

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)


_REGISTRY: dict[str, MeasureDef] = {}
_EXACT: dict[str, str] = {}  # name or alias -> family
_FOLDED: dict[str, set[str]] = {}  # lower-cased name or alias -> families
_TREC: dict[str, TrecEval] = {}  # trec_eval name -> declaration
_TREC_ORDER: dict[int, str] = {}  # position in trec_eval's table -> trec_eval name


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
        kind = t.kind or _trec_kind(definition, t)
        _register_trec(t._replace(family=definition.name, kind=kind))
    _REGISTRY[definition.name] = definition
    return definition


def _register_trec(t: TrecEval) -> None:
    clash = t.name if t.name in _TREC else _TREC_ORDER.get(t.order)
    if clash is not None:
        raise ValueError(f"trec_eval measure {t.name!r} clashes with {clash!r}")
    if not set(t.nicknames) <= set(TREC_NICKNAMES):
        raise ValueError(f"{t.name}: unknown trec_eval nickname in {t.nicknames}")
    _TREC[t.name] = t
    _TREC_ORDER[t.order] = t.name


def _trec_kind(d: MeasureDef, t: TrecEval) -> str:
    """How trec_eval prints a measure of family ``d`` (see :class:`TrecEval`)."""
    if t.cutoffs is not None:
        return "cut_long" if d.cutoff == "rank" else "cut_double"
    if d.kind == "str":
        return "string"
    if d.aggregate == "gmean":
        return "gm"
    if d.kind == "int":
        return "long"
    return "params" if t.values or t.pairs is not None else "float"


def measure(**spec) -> Callable[[Callable], Callable]:
    """Decorator: declare the decorated kernel as a measure family.

    ``trec=`` takes one :class:`TrecEval` or a tuple of them.
    """
    if isinstance(spec.get("trec"), TrecEval):
        spec["trec"] = (spec["trec"],)

    def wrap(kernel: Callable) -> Callable:
        register(MeasureDef(kernel=kernel, **spec))
        return kernel

    return wrap


# trec_eval measures without a cranfield family: runid (the run's name, printed by the
# trec_eval front end) and those that need preference or judgment-group files
_PREFS_OFFICIAL = ("all_prefs", "prefs")
_TREC_ONLY = (
    TrecEval("runid", 0, TREC_NICKNAMES, kind="run_name"),
    *(
        TrecEval(name, order, nicknames, kind="unsupported")
        for order, (name, nicknames) in enumerate(
            [
                ("prefs_num_prefs_poss", _PREFS_OFFICIAL),
                ("prefs_num_prefs_ful", _PREFS_OFFICIAL),
                ("prefs_num_prefs_ful_ret", _PREFS_OFFICIAL),
                ("prefs_simp", _PREFS_OFFICIAL),
                ("prefs_pair", _PREFS_OFFICIAL),
                ("prefs_avgjg", _PREFS_OFFICIAL),
                ("prefs_avgjg_Rnonrel", ("all_prefs",)),
                ("prefs_simp_ret", ("all_prefs",)),
                ("prefs_pair_ret", ("all_prefs",)),
                ("prefs_avgjg_ret", ("all_prefs",)),
                ("prefs_avgjg_Rnonrel_ret", ("all_prefs",)),
                ("prefs_simp_imp", ("all_prefs",)),
                ("prefs_pair_imp", ("all_prefs",)),
                ("prefs_avgjg_imp", ("all_prefs",)),
                ("map_avgjg", ("qrels_jg",)),
                ("P_avgjg", ("qrels_jg",)),
                ("Rprec_mult_avgjg", ("qrels_jg",)),
            ],
            start=36,
        )
    ),
)
for _t in _TREC_ONLY:
    _register_trec(_t)


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
    _use()
    _load_modules(_index().FOLDED.get(family.lower(), ()))
    return sorted(n for n in _FOLDED.get(family.lower(), ()) if n != family)


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
    from . import _index

    return _index


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
        '"""Which module declares each built-in measure name (see registry._load_modules).\n\n'
        "Generated by ``python -c 'from cranfield.core.measures.registry import write_index;"
        " write_index()'``\n"
        '(do not edit; tests/core/test_registry_index.py checks it)."""\n'
    )
    for key, value in table.items():
        text += f"\n{key} = {pformat(value, width=88, sort_dicts=False)}\n"
    with open(os.path.join(os.path.dirname(__file__), "_index.py"), "w") as fh:
        fh.write(text)


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


def _num(v: float) -> str:
    v = float(v)
    return str(int(v)) if v.is_integer() and abs(v) < 1e16 else repr(v)


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
        Manning, Raghavan & Schütze 2008, sec. 13.6); others raise
        :class:`~cranfield.errors.MeasureError`.
        """
        micro = self.definition.micro
        if micro is None:
            defined = ", ".join(d.name for d in all_definitions() if d.micro is not None)
            raise MeasureError(f"micro averaging is defined for {defined}, not {self}")
        judged_run, values = self._prepared(judged_run, check=False)
        return float(micro(judged_run, self.cutoff, **values))

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
