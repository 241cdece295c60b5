"""The measure registry: each measure family is declared once, with its parameters.

The public face of four small modules, whose names it re-exports (import them from
here): :mod:`~cranfield.core.measures.declaration` (:class:`MeasureDef`, a family's
declaration), :mod:`~cranfield.core.measures.trec_table` (:class:`TrecEval`, how
trec_eval names and prints each of its measures), :mod:`~cranfield.core.measures.families`
(:func:`register`, the :func:`measure` decorator, :func:`lookup` and the loading of
the built-in families as they are needed) and :mod:`~cranfield.core.measures.measure`
(:class:`Measure`, one member of a family: ``nDCG@10``).

Kernels have the signature ``kernel(judged_run, cutoff, **params) -> ndarray`` and
return one value per query of the :class:`~cranfield.core.judged.JudgedRun`.
"""

# ruff: noqa: F401 (every name below is re-exported)
from ..declarations import (
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
    _num,
    integer_in,
    number_in,
    weight,
    weights,
)
from .declaration import AGGREGATES, FRACTIONAL, MeasureDef, Micro
from .families import (
    all_definitions,
    all_names,
    case_twins,
    generation,
    index_table,
    lookup,
    measure,
    register,
    trec_measure,
    trec_measures,
    trec_nicknames,
    write_index,
)
from .measure import (
    CUTOFF_ALLOWED,
    MAX_MULTIPLE,
    MAX_NAME,
    Measure,
    _format_value,
    fractional_refusal,
)
from .trec_table import (
    ALL_TREC,
    OFFICIAL,
    OFFICIAL_AND_SET,
    SET,
    STANDARD_CUTOFFS,
    TREC_DEFAULT_NICKNAME,
    TREC_NICKNAMES,
    TrecEval,
)
