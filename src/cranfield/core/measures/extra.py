"""Measures beyond trec_eval 10.0 (issue 3), loaded by the registry.

One module per kind: set-based measures that need the collection size
(:mod:`.set_extra`), summaries of the precision-recall curve and Judged@k
(:mod:`.ranked_extra`), cumulated gain, ERR and ir_measures' RBP (:mod:`.graded_extra`),
ndeval's diversity measures (:mod:`.diversity`).
"""

# diversity: ndeval's intent-aware measures (issue 33)
# sampled: the estimators from sampled judgments (issue 35)
from . import (  # noqa: F401
    cwl,
    diversity,
    gdeval,
    graded_extra,
    ntcir,
    ranked_extra,
    sampled,
    set_extra,
)
