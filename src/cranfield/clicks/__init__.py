"""Click logs and click models (Chuklin, Markov & de Rijke 2015, *Click Models for Web
Search*): reading logs, fitting models, evaluating them, relevance from clicks and
simulated logs. See docs/clicks.md."""

from .evaluation import Evaluation, compare, evaluate
from .fitted import FittedClickModel, fit, from_json, to_json
from .log import ClickLog, from_arrays, read_log
from .registry import CLICK_MODELS, NAMES, REGISTRY, ClickModel
from .relevance import estimates
from .simulate import from_qrels, shuffled_sessions, simulate

__all__ = [
    "CLICK_MODELS",
    "NAMES",
    "REGISTRY",
    "ClickLog",
    "ClickModel",
    "Evaluation",
    "FittedClickModel",
    "compare",
    "estimates",
    "evaluate",
    "fit",
    "from_arrays",
    "from_json",
    "from_qrels",
    "read_log",
    "shuffled_sessions",
    "simulate",
    "to_json",
]
