"""The click-model registry: each model declared once, with its definition, source and
behaviour (:class:`ClickModel`, the shared :class:`~cranfield.core.declarations.Declaration`).

Notation as in :mod:`cranfield.clicks.models`. ``cranfield clicks models``, the CLI's
model choices and the table of docs/clicks.md come from :data:`CLICK_MODELS`. The
models are declared in the modules of :data:`MODULES` (imported at the end of this
one); nothing outside them tells a model by its name: fitting, click probabilities,
simulation, models from judgments and the distributed EM all go through the
declaration (a test fails on an ``if name == "pbm"`` elsewhere).
"""

from __future__ import annotations

import importlib

from ..core.declarations import Declaration, Param, Registry, number_in
from .models import DEFAULT, draw_independent

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

BOOK = "Chuklin, Markov & de Rijke (2015), Click Models for Web Search, Morgan & Claypool"

LAYOUTS = ("pair", "rank", "global")
"""Where a fitted parameter has its values: one per (query, document) pair, per rank
(a vector, or a matrix for UBM), or one value (the sections of a model file)."""


def probability(name: str, doc: str) -> Param:
    """A fitted probability of a click model: in [0, 1], :data:`~.models.DEFAULT` where
    there is no data (and EM's start)."""
    return Param(name, float, DEFAULT, doc, **number_in(0, 1))


class ClickModel(Declaration):
    """Declaration of a click model (:class:`~cranfield.core.declarations.Declaration`).

    ``behaviour`` is its estimation, ``behaviour(log, pairs, tol=, max_iter=, rng=,
    prior=) -> (Params, iterations, converged, trace)`` (:mod:`~.estimate`); ``params``
    are the probabilities it fits, and ``layout`` (given as a dict) says where each has
    its values (one of :data:`LAYOUTS` per parameter; kept as ``(name, layout)`` pairs). ``probabilities(m, conditional)`` gives the
    ``n x K`` click probabilities on a :class:`~.models.Matrices` (``P(C_r = 1 | C_<r)``
    or ``P(C_r = 1)``), ``draw(m, rng)`` draws the clicks of a simulated log (default:
    every rank independently, :func:`~.models.draw_independent`); a cascade-family model
    gives both with ``**chain(terms)`` (:func:`~.models.chain`).

    Optional: ``from_qrels(alpha, position_bias, gamma, max_rank) -> Params`` builds the
    model from judgments (:func:`~.simulate.from_qrels`); ``em`` is its EM on
    sufficient statistics (:class:`~.estimate.CellsEM` or :class:`~.estimate.TailsEM`),
    which lets it be fitted over a partitioned log (:mod:`cranfield.distributed.clicks`);
    ``note`` is a caveat printed under the ``clicks compare`` table when it is compared.
    ``label`` names it in ``clicks models``; ``estimation`` says how it is fitted.
    """

    __slots__ = (
        "label",
        "estimation",
        "layout",
        "probabilities",
        "draw",
        "from_qrels",
        "em",
        "note",
    )
    _no_repr = ("behaviour", "probabilities", "draw", "from_qrels", "em")
    label: str
    estimation: str
    layout: tuple[tuple[str, str], ...]
    probabilities: Callable
    draw: Callable
    from_qrels: Callable | None
    em: Any
    note: str

    def __init__(
        self,
        *declared: Any,
        label: str,
        estimation: str,
        layout: dict[str, str],
        probabilities: Callable,
        draw: Callable | None = None,
        from_qrels: Callable | None = None,
        em: Any = None,
        note: str = "",
        **named: Any,
    ) -> None:
        """``declared``/``named``: the fields of :class:`Declaration`, then these."""
        super().__init__(*declared, **named)
        if set(layout) != {p.name for p in self.params} or not set(layout.values()) <= set(LAYOUTS):
            raise ValueError(f"{self.name}: layout must place every parameter in {LAYOUTS}")
        if draw is None:

            def draw(m, rng):
                return draw_independent(probabilities, m, rng)

        for field, value in (
            ("label", label),
            ("estimation", estimation),
            ("layout", tuple((p.name, layout[p.name]) for p in self.params)),
            ("probabilities", probabilities),
            ("draw", draw),
            ("from_qrels", from_qrels),
            ("em", em),
            ("note", note),
        ):
            object.__setattr__(self, field, value)

    @property
    def fit(self) -> Callable:
        """The estimation (``behaviour``), by the name this registry gives it."""
        return self.behaviour

    def laid_out(self, layout: str) -> tuple[str, ...]:
        """The names of the parameters with values per ``layout`` (one of :data:`LAYOUTS`)."""
        return tuple(name for name, where in self.layout if where == layout)


CLICK_MODELS: Registry = Registry("click model")
"""Every click model, in the order shown (``clicks models``, docs/clicks.md)."""

MODULES = ("standard",)
"""The modules of :mod:`cranfield.clicks` that declare click models (each registers its
own in :data:`CLICK_MODELS` when imported)."""


def spellings(models=None) -> tuple[str, ...]:
    """Every name and alias of ``models`` (default: all), in registry order: the choices
    a command accepts."""
    models = CLICK_MODELS.values() if models is None else models
    return tuple(n for d in models for n in (d.name, *d.aliases))


def get(name: Any, among=None) -> ClickModel:
    """The model named ``name`` or one of its aliases (case-insensitive, surrounding
    space ignored), or a :class:`~cranfield.errors.ParameterError` listing the choices;
    ``among`` restricts the choice to those declarations."""
    from ..errors import ParameterError

    d = CLICK_MODELS.find(name.strip() if isinstance(name, str) else name)
    among = tuple(CLICK_MODELS.values()) if among is None else tuple(among)
    if d is None or d not in among:
        raise ParameterError("click model", "one of " + ", ".join(spellings(among)), name)
    return d


def listed(models, upper: bool = False) -> str:
    """``"pbm, ubm, ccm or dbn"``: the names of ``models`` in a sentence (upper case:
    ``"PBM, UBM, CCM or DBN"``)."""
    names = [d.name.upper() if upper else d.name for d in models]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


for _module in MODULES:
    importlib.import_module(f"{__package__}.{_module}")

REGISTRY = CLICK_MODELS
NAMES = CLICK_MODELS.names
QRELS_MODELS = tuple(d for d in CLICK_MODELS.values() if d.from_qrels is not None)
"""The models :func:`cranfield.clicks.simulate.from_qrels` builds from judgments."""
DASK_MODELS = tuple(d for d in CLICK_MODELS.values() if d.em is not None)
"""The models fitted over a partitioned log (:mod:`cranfield.distributed.clicks`)."""
