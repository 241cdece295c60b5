"""The pool strategy registry: each strategy is declared once, with its parameters.

A :class:`StrategyDef` (the one declaration shape of cranfield's registries,
:mod:`cranfield.core.declarations`) names a strategy, declares its typed parameters
(defaults and ranges, in the shared :class:`~cranfield.core.declarations.Param`
vocabulary), its formula and its source, and its behaviour: the kernel that selects the
pooled (topic, document) pairs of all topics at once from the coded ranked documents of
the runs (:class:`~cranfield.pooling.candidates.Candidates`). Kernels are whole-array
NumPy operations: no loop over topics or documents.

Strategies are written ``name`` or ``name(param=value, ...)``, e.g. ``depth(k=100)``,
``budget(n=500, order=rrf)``; :func:`parse` reads that form and :func:`canonical`
prints it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from .._lazy import lazy
from ..core import libm, segments
from ..core.declarations import Declaration, Param, Registry, integer_at_least, number_in
from ..errors import ParameterError

TYPE_CHECKING = False  # (typing.TYPE_CHECKING: `pool --help` imports no Arrow)
if TYPE_CHECKING:
    from .candidates import Candidates

np = lazy("numpy", __name__, "np")

__all__ = ["Param", "StrategyDef", "STRATEGIES", "lookup", "split", "parse", "canonical", "select"]


_set = object.__setattr__


class StrategyDef(Declaration):
    """Declaration of a pool strategy (:class:`~cranfield.core.declarations.Declaration`).

    ``behaviour`` is the kernel, ``behaviour(cands, **params) -> sorted pair keys``;
    ``max_rank(params)`` is the deepest rank it can select (None: any), so that only
    those ranks are collected.
    """

    __slots__ = ("max_rank",)
    _no_repr = ("behaviour", "max_rank")
    max_rank: Callable[[dict], int | None]

    def __init__(
        self,
        *declared: Any,
        max_rank: Callable[[dict], int | None] = lambda params: None,
        **named: Any,
    ) -> None:
        """``declared``/``named``: the fields of :class:`Declaration`, then ``max_rank``."""
        super().__init__(*declared, **named)
        _set(self, "max_rank", max_rank)


STRATEGIES: Registry = Registry("pool strategy")


register = STRATEGIES.register
lookup = STRATEGIES.lookup  # the strategy called ``name``; an unknown one lists them all


_SPEC = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*(?:\((.*)\))?\s*$", re.S)


def split(spec: str) -> tuple[StrategyDef, dict[str, str]]:
    """``"budget(n=500, order=rrf)"`` -> (definition, unchecked ``{param: text}``)."""
    m = _SPEC.match(spec) if isinstance(spec, str) else None
    if m is None:
        raise ParameterError(
            "pool strategy",
            "NAME or NAME(param=value, ...), NAME one of " + ", ".join(STRATEGIES),
            spec,
        )
    definition = lookup(m.group(1))
    given: dict[str, str] = {}
    for part in (m.group(2) or "").split(","):
        if not part.strip():
            continue
        if "=" not in part:
            raise ParameterError(f"{definition.name} parameter", "param=value", part.strip())
        key, value = part.split("=", 1)
        given[key.strip()] = value.strip()
    return definition, given


def parse(spec: str, **overrides: Any) -> tuple[StrategyDef, dict[str, Any]]:
    """``"budget(n=500, order=rrf)"`` -> (definition, checked parameters).

    ``overrides`` (``None`` values ignored) take precedence over the spec's values.
    """
    definition, given = split(spec)
    given.update({k: v for k, v in overrides.items() if v is not None})
    return definition, definition.resolve(given)


def canonical(definition: StrategyDef, params: dict[str, Any]) -> str:
    """``depth(k=100)``, ``budget(n=500, order=rrf)``: the first parameter always, the
    others when they differ from their defaults; :func:`parse` reads it back."""

    def text(p: Param) -> str:
        v = params[p.name]
        return f"{p.name}={v!r}" if p.kind is float else f"{p.name}={v}"

    shown = [
        text(p)
        for i, p in enumerate(definition.params)
        if i == 0 or p.default is None or params[p.name] != p.default
    ]
    return f"{definition.name}({', '.join(shown)})"


def select(definition: StrategyDef, params: dict[str, Any], cands: Candidates) -> np.ndarray:
    """Sorted pair keys of the pool (see :class:`Candidates`). Integer parameters beyond
    any rank or pool size are capped (they all mean "everything")."""
    from .candidates import MAX_RANK

    capped = {
        k: min(v, MAX_RANK) if isinstance(v, int) and not isinstance(v, bool) else v
        for k, v in params.items()
    }
    return definition.behaviour(cands, **capped)


# --- helpers: whole-array segment operations over sorted keys ------------------------------


def _runs_of(sorted_values: np.ndarray) -> np.ndarray:
    """Offsets of the runs of equal values in a sorted array (CSR style)."""
    n = len(sorted_values)
    if n == 0:
        return np.zeros(1, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, sorted_values[1:] != sorted_values[:-1]])
    return np.r_[starts, n].astype(np.int64)


def _first_per_topic(keys: np.ndarray, primary: np.ndarray, secondary, n: int, n_docs: int):
    """Per topic, the ``n`` pairs that come first by (primary, secondary) ascending.

    ``keys`` are distinct pair keys; returns the chosen keys sorted.
    """
    topic = keys // n_docs
    order = np.lexsort((secondary, primary, topic))
    offsets = _runs_of(topic[order])
    keep = segments.positions(offsets) < n
    return np.sort(keys[order][keep])


# --- the strategies -----------------------------------------------------------------------


def _depth(cands: Candidates, k: int) -> np.ndarray:
    return np.unique(cands.key[cands.rank <= k])


register(
    StrategyDef(
        name="depth",
        behaviour=_depth,
        summary="The top k documents of every run (TREC pooling).",
        formula="pool(t) = union over runs r of { d : rank_r(t, d) <= k }, ranks in "
        "trec_eval's order (score descending, then doc id descending).",
        citation="Spärck Jones & van Rijsbergen 1975 (the ideal test collection); "
        "Harman 1993 (TREC-1); Voorhees & Harman 2005 (TREC, ch. 2)",
        params=(Param("k", int, 100, "pool depth: ranks per run", **integer_at_least(1)),),
        max_rank=lambda params: params["k"],
    )
)


ORDERS = ("take", "rrf", "rbp-sum", "rbp-max")


def _budget(cands: Candidates, n: int, order: str, p: float, rrf_k: int) -> np.ndarray:
    n_docs = max(len(cands.docs), 1)
    key = cands.key
    if order == "take":
        # round-robin over the runs by rank: the document first met at (rank, run index)
        prio = cands.rank * np.int64(len(cands.names)) + cands.run
        srt = np.lexsort((prio, key))
        offsets = _runs_of(key[srt])
        first = srt[offsets[:-1]]
        return _first_per_topic(key[first], prio[first], key[first], n, n_docs)
    if order == "rrf":
        weight = 1.0 / (rrf_k + cands.rank.astype(np.float64))
    else:
        # p^(rank-1) by the C library's pow (NumPy's differs by CPU), once per distinct rank
        ranks, inverse = np.unique(cands.rank, return_inverse=True)
        weight = (1.0 - p) * libm.power(p, (ranks - 1).astype(np.float64))[inverse]
    # per pair, weights largest first: equal multisets of weights give equal sums
    srt = np.lexsort((-weight, key))
    skey, sw = key[srt], weight[srt]
    offsets = _runs_of(skey)
    if order == "rbp-max":
        fused = sw[offsets[:-1]]
    else:
        fused = segments.sequential_sum(sw, offsets)
    ukey = skey[offsets[:-1]]
    return _first_per_topic(ukey, -fused, ukey % n_docs, n, n_docs)


register(
    StrategyDef(
        name="budget",
        behaviour=_budget,
        summary="Exactly min(n, |union|) documents per topic, taken in a priority order.",
        formula="order=take: round-robin over the runs by rank (rank 1 of every run, "
        "then rank 2, ...; runs in the order given), each document counted at its first "
        "appearance (Take@N). order=rrf: priority sum_r 1/(rrf_k + rank_r(d)). "
        "order=rbp-sum: priority sum_r (1-p) p^(rank_r(d)-1); order=rbp-max: the largest "
        "such weight. Fused priorities are taken largest first, ties by doc id ascending "
        "(byte order); runs that did not retrieve d contribute nothing.",
        citation="Take@N: Lipani, Palotti, Lupu, Piroi, Zuccon & Hanbury 2017 (fixed-cost "
        "pooling strategies); RRF: Cormack, Clarke & Büttcher 2009; RBP: Moffat, Webber & "
        "Zobel 2007 (strategic system comparisons via targeted relevance judgments)",
        params=(
            Param("n", int, None, "documents per topic", **integer_at_least(1)),
            Param(
                "order",
                str,
                "take",
                "priority order",
                "one of " + ", ".join(ORDERS),
                choices=ORDERS,
            ),
            Param(
                "p",
                float,
                0.8,
                "RBP persistence (rbp-sum, rbp-max)",
                **number_in(0, 1, open_lo=True, open_hi=True),
            ),
            Param("rrf_k", int, 60, "RRF rank offset", **integer_at_least(0)),
        ),
    )
)
