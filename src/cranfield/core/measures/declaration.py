"""The declaration of a measure family (:class:`MeasureDef`), on the one declaration
shape of cranfield's registries (:class:`~cranfield.core.declarations.Declaration`).

A family (``nDCG``, ``P``, ``AP``, ...) declares its typed parameters with defaults and
ranges (the shared :class:`~cranfield.core.declarations.Param`), whether it takes a
rank or recall cutoff, how per-query values aggregate, its formula and its source, and
its kernel, which computes it for all queries at once:
``kernel(judged_run, cutoff, **params) -> ndarray``, one value per query of the
:class:`~cranfield.core.judged.JudgedRun`.
"""

from __future__ import annotations

from ..._record import Record
from ..declarations import Declaration, Param

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a cold CLI)
if TYPE_CHECKING:
    from collections.abc import Callable

    from .trec_table import TrecEval

_set = object.__setattr__  # how the frozen values below fill their fields

AGGREGATES = ("mean", "sum", "gmean", "none")


#: How a measure family reads fractional relevance (qrels with real-valued gains, e.g.
#: the expected gains ``cranfield aggregate --soft`` writes), as docs/measures.md says.
FRACTIONAL = {
    "gain": "the value is the document's gain, fraction included",
    "threshold": "binarised: relevant when the value is at least the relevance level",
    "judged": "reads only whether a document is judged, not its value",
    "refused": "non-integer values are refused (grades are read as whole levels)",
}


class Micro(Record):
    """A family's micro average (``micro=`` of its declaration): the pooled counts of
    every query combined by one formula.

    ``formula`` names the engine's computation of it (``rust/eval/src/micro.rs``; one
    of ``cranfield._engine.micro_formulas()``), which every path uses;
    ``specification(judged_run, cutoff, **params) -> float`` is its NumPy statement,
    the oracle the engine is tested against bit for bit
    (tests/engine/test_kernels_registry.py).
    """

    __slots__ = ("formula", "specification")
    _no_repr = ("specification",)
    formula: str
    specification: Callable

    def __init__(self, formula: str, specification: Callable) -> None:
        _set(self, "formula", formula)
        _set(self, "specification", specification)


class MeasureDef(Declaration):
    """Declaration of a measure family (:class:`~cranfield.core.declarations.Declaration`).

    ``behaviour`` is the family's NumPy kernel, the executable specification
    (:attr:`kernel`): ``kernel(judged_run, cutoff, **params) -> ndarray``, one value per
    query. ``trec`` holds the trec_eval measures it computes (:class:`TrecEval`; the
    first is its trec_eval name, e.g. ``map`` then ``map_cut`` for AP); ``micro`` is the
    micro average (:class:`Micro`: pooled counts of all queries, the engine's formula
    and its NumPy specification), for the families that define one.
    """

    __slots__ = (
        "cutoff",
        "cutoff_required",
        "aggregate",
        "kind",
        "trec",
        "edge_cases",
        "family",
        "micro",
        "fractional",
        "check",
        "no_engine_kernel",
    )
    _no_repr = ("behaviour", "micro", "check")
    cutoff: str | None  # None, "rank" (int >= 1) or "recall" (float in [0, 1])
    cutoff_required: bool
    aggregate: str
    kind: str  # "float", "int" (counts) or "str"
    trec: tuple[TrecEval, ...]
    edge_cases: str
    family: str
    micro: Micro | None  # pooled-count aggregate
    fractional: str | None  # see FRACTIONAL; None: by family (graded -> "gain")
    # check(judged_run, cutoff, **params): raises MeasureError where the measure is not
    # defined on this run; run before the kernel (the engine's or the NumPy one)
    check: Callable | None
    # why the engine (rust/eval) has no kernel for this family, which then runs on its
    # NumPy kernel; empty: the engine computes it (tests/engine/test_kernels_registry.py)
    no_engine_kernel: str

    def __init__(
        self,
        name: str,
        behaviour: Callable,
        summary: str,
        formula: str,
        citation: str,
        params: tuple[Param, ...] = (),
        aliases: tuple[str, ...] = (),
        cutoff: str | None = None,
        cutoff_required: bool = False,
        aggregate: str = "mean",
        kind: str = "float",
        trec: tuple[TrecEval, ...] = (),
        edge_cases: str = "",
        family: str = "ranked",
        micro: Micro | None = None,
        fractional: str | None = None,
        check: Callable | None = None,
        no_engine_kernel: str = "",
    ) -> None:
        if fractional is not None and fractional not in FRACTIONAL:
            raise ValueError(f"{name}: bad fractional={fractional!r}")
        super().__init__(name, behaviour, summary, formula, citation, params, aliases)
        _set(self, "cutoff", cutoff)
        _set(self, "cutoff_required", cutoff_required)
        _set(self, "aggregate", aggregate)
        _set(self, "kind", kind)
        _set(self, "trec", trec)
        _set(self, "edge_cases", edge_cases)
        _set(self, "family", family)
        _set(self, "micro", micro)
        _set(self, "fractional", fractional)
        _set(self, "check", check)
        _set(self, "no_engine_kernel", no_engine_kernel)

    @property
    def kernel(self) -> Callable:
        """The family's NumPy kernel (its ``behaviour``): the specification the engine's
        kernel is checked against."""
        return self.behaviour

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
