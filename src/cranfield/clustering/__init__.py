"""Clustering evaluation and validation splits.

* :mod:`.measures` — external evaluation of a clustering against a gold standard
  (purity, NMI, AMI, Rand index, pair-counting F, ...; Manning, Raghavan & Schütze
  2008, ch. 16.3), re-exported here: ``from cranfield.clustering import purity``;
* :mod:`.splits` — train/test and k-fold splits of items or queries;
* :mod:`.labels` — arbitrary hashable labels to integer codes (shared by both).
"""

from __future__ import annotations

from .measures import *  # noqa: F403  (the scores: measures.__all__ is the one list)
from .measures import __all__ as __all__
from .measures import _log_factorial  # noqa: F401  (tests check it against math.lgamma)
