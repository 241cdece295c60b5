"""trec_eval 10.0's measure table, as the measure families declare it.

:class:`TrecEval` says how trec_eval names, parameterises and prints one of its
measures; each is declared with the family computing it (``@measure(trec=...)``), and
the trec_eval measures without a family (``runid``, the preference and judgment-group
measures) are declared here. :mod:`cranfield.core.measures.families` registers them.
"""

from __future__ import annotations

from ..._record import Record

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a cold CLI)
if TYPE_CHECKING:
    from .declaration import MeasureDef

_set = object.__setattr__  # how the frozen values below fill their fields


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


_TREC: dict[str, TrecEval] = {}  # trec_eval name -> declaration
_TREC_ORDER: dict[int, str] = {}  # position in trec_eval's table -> trec_eval name


def register_trec(t: TrecEval) -> None:
    clash = t.name if t.name in _TREC else _TREC_ORDER.get(t.order)
    if clash is not None:
        raise ValueError(f"trec_eval measure {t.name!r} clashes with {clash!r}")
    if not set(t.nicknames) <= set(TREC_NICKNAMES):
        raise ValueError(f"{t.name}: unknown trec_eval nickname in {t.nicknames}")
    _TREC[t.name] = t
    _TREC_ORDER[t.order] = t.name


def trec_kind(d: MeasureDef, t: TrecEval) -> str:
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
    register_trec(_t)
