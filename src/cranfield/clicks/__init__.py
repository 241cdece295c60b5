"""Click logs and click models (Chuklin, Markov & de Rijke 2015, *Click Models for Web
Search*): reading logs, fitting models, evaluating them, relevance from clicks and
simulated logs. See docs/clicks.md."""

from .._lazy import exports

_EXPORTS = {  # name -> the submodule that defines it, imported on first use
    "Evaluation": "evaluation",
    "compare": "evaluation",
    "evaluate": "evaluation",
    "FittedClickModel": "fitted",
    "fit": "fitted",
    "from_json": "fitted",
    "to_json": "fitted",
    "ClickLog": "log",
    "from_arrays": "log",
    "read_log": "log",
    "CLICK_MODELS": "registry",
    "NAMES": "registry",
    "REGISTRY": "registry",
    "ClickModel": "registry",
    "estimates": "relevance",
    "from_qrels": "simulate",
    "shuffled_sessions": "simulate",
    "simulate": "simulate",
}

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

exports(__name__, _EXPORTS)
