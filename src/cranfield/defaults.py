"""Defaults shared by the library and the command line, in a module that imports nothing.

The command line reads them while it builds its parsers: building a parser imports no
NumPy or Arrow.
"""

#: The measures of :func:`cranfield.evaluate` and ``cranfield eval`` when none are
#: named: the usual summary of an ad hoc retrieval run.
DEFAULT_MEASURES: tuple[str, ...] = ("AP", "nDCG@10", "P@10", "R@100", "RR")

#: The measures of ``cranfield report`` and :func:`cranfield.report.write_report` when
#: none are named.
REPORT_MEASURES: tuple[str, ...] = ("AP", "nDCG@10", "P@10", "RR")
#: The diversity measures ``cranfield report --subtopic-qrels`` adds when none are named
#: (the TREC Web track's and NTCIR INTENT's headline measures).
DIVERSITY_REPORT_MEASURES: tuple[str, ...] = (
    "alpha_nDCG@20",
    "ERR_IA@20",
    "StRecall@20",
    "Dsharp_nDCG@10",
)
