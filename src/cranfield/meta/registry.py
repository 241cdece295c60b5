"""The statistics of meta-evaluation and reproducibility, declared once each.

:data:`META_STATISTICS` is a :class:`~cranfield.core.declarations.Registry` of
:class:`MetaStatistic` declarations (name, behaviour, summary, formula, reference, and
the ``command`` that reports it: ``repro``, ``power``, ``swap``, ``topics`` or
``anova``). Each module of this package registers its statistics beside their
functions; the command line's choices and help (``meta power --method``, ``meta topics
--design``) and the table of docs/meta-evaluation.md are generated from it.
"""

from __future__ import annotations

from ..core.declarations import Declaration, Param, Registry, integer_in

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["MetaStatistic", "META_STATISTICS", "SEED", "declared", "of_command"]

COMMANDS = ("repro", "power", "swap", "topics", "anova")


class MetaStatistic(Declaration):
    """Declaration of one statistic (:class:`~cranfield.core.declarations.Declaration`).

    ``command``: the subcommand that reports it; ``label``: its column or row heading.
    ``behaviour`` is the function computing it, one signature per command: ``power``
    ``(runs x topics, samples, seed, alpha) -> {"asl": ASL per pair, ...}``; ``topics`` ``(alpha, beta,
    min_diff, variance, systems) -> topics``; the others as their modules state.
    """

    __slots__ = ("command", "label")
    command: str
    label: str

    def __init__(self, *declared: Any, command: str, label: str, **named: Any) -> None:
        """``declared``/``named``: the fields of :class:`Declaration`, then these."""
        super().__init__(*declared, **named)
        if command not in COMMANDS:
            raise ValueError(f"{self.name}: command must be one of {COMMANDS}, not {command!r}")
        object.__setattr__(self, "command", command)
        object.__setattr__(self, "label", label)


#: The seed of ``numpy.random.default_rng`` of every randomised statistic (--seed).
SEED = Param(
    "seed", int, 0, "seed of numpy.random.default_rng (--seed)", **integer_in(0, 2**63 - 1)
)


#: Every statistic of ``cranfield repro`` and ``cranfield meta``, in the order registered.
class _InOrder(Registry):
    """A registry whose members keep :data:`ORDER` whichever module registers first (the
    modules register on import, and which is imported first depends on the caller)."""

    def register(self, declaration: Declaration) -> Declaration:
        done = super().register(declaration)
        members = sorted(self.items(), key=lambda kv: ORDER.index(kv[0]))
        self.clear()
        self.update(members)
        return done


#: the statistics in the order of the docs and the CLI (power, reproducibility, swap,
#: topic-set size, variance)
ORDER = (
    "bootstrap",
    "tukey",
    "ktu",
    "rbo",
    "rmse",
    "er",
    "delta_ri",
    "same_run_t",
    "swap_rate",
    "error_rate",
    "topics_t",
    "topics_anova",
    "topics_ci",
    "anova",
    "mixed",
    "standardised",
)
META_STATISTICS = _InOrder("statistic")


def declared(statistic: str, name: str) -> Param:
    """The parameter ``name`` of ``statistic`` (the command line's defaults and ranges)."""
    return META_STATISTICS[statistic].param(name)


def of_command(command: str) -> tuple[MetaStatistic, ...]:
    """The statistics ``command`` reports, in the order registered."""
    return tuple(d for d in META_STATISTICS.values() if d.command == command)


# the modules that register statistics (imported last: they import the names above)
from . import anova, mixed, power, repro, swap, topics  # noqa: E402, F401
