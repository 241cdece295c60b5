"""Rank fusion and score normalisation (docs/fusion.md).

:func:`fuse` combines runs into one run by a method of :data:`FUSION_METHODS`
(CombSUM, CombMNZ, RRF, Borda, Condorcet, ProbFuse, ...) after a normalisation of
:data:`NORMALISATIONS`; :func:`optimise_fusion` chooses a method's weights and parameters on
training queries by a measure, with cross-validation over query folds.
"""

from .fuse import fuse
from .methods import FUSION_METHODS
from .normalise import NORMALISATIONS
from .optimise import optimise_fusion

__all__ = ["fuse", "optimise_fusion", "FUSION_METHODS", "NORMALISATIONS"]
