"""Evaluation measures: a registry of measure families and the name language.

>>> from cranfield.core.measures import parse
>>> str(parse("ndcg_cut.10"))
'nDCG@10'
"""

from .names import parse, parse_many
from .registry import Measure, MeasureDef, Param, all_definitions, lookup

__all__ = ["Measure", "MeasureDef", "Param", "all_definitions", "lookup", "parse", "parse_many"]
