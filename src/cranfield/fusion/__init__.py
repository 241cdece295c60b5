"""Rank fusion and score normalisation (docs/fusion.md).

:func:`fuse` combines runs into one run by a method of :data:`FUSION_METHODS`
(CombSUM, CombMNZ, RRF, Borda, Condorcet, ProbFuse, ...) after a normalisation of
:data:`NORMALISATIONS`; :func:`optimise_fusion` chooses a method's weights and parameters on
training queries by a measure, with cross-validation over query folds.
"""

from __future__ import annotations

from .._lazy import exports

_EXPORTS = {  # name -> the submodule that defines it, imported on first use
    "fuse": "fuse",
    "FUSION_METHODS": "methods",
    "NORMALISATIONS": "normalise",
    "optimise_fusion": "optimise",
}

__all__ = [
    "fuse",
    "optimise_fusion",
    "FUSION_METHODS",
    "NORMALISATIONS",
]

exports(__name__, _EXPORTS)
