"""Learnt rankers saved as JSON: a linear model ``w . x`` or a boosted-trees baseline.

The file holds what is needed to score new data the same way and to say how the model
was made: the method and its parameters, the objective and its convention, the feature
normalisation, the seed, the training history (evaluations, training and validation
values at each checkpoint) and the weights (or the booster's own model text). It is
written atomically (``cranfield.core.io.atomic``) and read back with every field
checked.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from .data import NORMALISATIONS, RankingData
from .sparse import MAX_INDEX

WEIGHTS_PER_LINE = 1000

FORMAT = "cranfield-ltr-model"
VERSION = 1


@dataclass
class Model:
    """A trained ranker.

    Attributes
    ----------
    method
        The ranker's name (``mga``, ``ga``, ``coordinate-ascent``, ``lightgbm``, ...).
    num_features
        Width of the feature vectors it scores.
    normalisation
        ``"query"`` or ``"none"``: applied to data before scoring.
    weights
        The linear weights (None for boosted trees).
    booster
        The model text of a boosted-trees baseline (None for linear models).
    """

    method: str
    num_features: int
    normalisation: str = "none"
    weights: np.ndarray | None = None
    booster: str | None = None
    objective: str = ""
    convention: str = "trec"
    parameters: dict = field(default_factory=dict)
    seed: int = 0
    history: list = field(default_factory=list)
    train_value: float | None = None
    vali_value: float | None = None
    seconds: float | None = None

    def prepare(self, data: RankingData) -> RankingData:
        """``data`` normalised as in training and with this model's feature count."""
        return data.with_features(self.num_features).normalised(self.normalisation)

    def scores(self, data: RankingData) -> np.ndarray:
        """One score per document of ``data`` (prepared as in training)."""
        x = self.prepare(data).features
        if self.weights is not None:
            from .scoring import linear_scores

            return linear_scores(x, self.weights)
        from .boosting import predict

        return predict(self, x)

    def to_dict(self) -> dict:
        d = self._fields()
        d["weights"] = None if self.weights is None else [float(w) for w in self.weights]
        return d

    def _fields(self) -> dict:
        """The model file's fields, ``weights`` left None."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "method": self.method,
            "num_features": self.num_features,
            "normalisation": self.normalisation,
            "objective": self.objective,
            "convention": self.convention,
            "parameters": self.parameters,
            "seed": self.seed,
            "train_value": self.train_value,
            "vali_value": self.vali_value,
            "seconds": self.seconds,
            "weights": None,
            "booster": self.booster,
            "history": self.history,
        }

    def save(self, path) -> None:
        """Write the model as JSON, atomically."""
        from ..core.io.atomic import atomic_path, write_text
        from ..output import dumps_json

        d = self._fields()
        if self.weights is None:
            write_text(path, dumps_json(d) + "\n")
            return
        # the weights written a block of lines at a time, by the C encoder: with
        # millions of features (sparse data) the indented encoder's line per weight
        # takes ~130 bytes of memory each, and one line would exceed the readers' limit
        mark = "\0weights\0"
        d["weights"] = mark
        head, tail = dumps_json(d).split(json.dumps(mark))
        w = self.weights
        with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8") as fh:
            fh.write(head + "[")
            for start in range(0, len(w), WEIGHTS_PER_LINE):
                block = dumps_json(w[start : start + WEIGHTS_PER_LINE].tolist(), None, plain=True)
                fh.write(("," if start else "") + "\n    " + block[1:-1])
            fh.write("\n  ]" + tail + "\n")

    @classmethod
    def from_dict(cls, d: dict, source: str = "<model>") -> Model:
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise InputError(f"not a cranfield learning-to-rank model (no {FORMAT!r})", source)
        if d.get("version") != VERSION:
            raise InputError(f"model version {d.get('version')!r}, expected {VERSION}", source)
        f = d.get("num_features")
        if isinstance(f, bool) or not isinstance(f, int) or not 1 <= f <= MAX_INDEX:
            raise InputError(f"num_features must be an integer in [1, {MAX_INDEX}]", source)
        if d.get("normalisation") not in NORMALISATIONS:
            raise InputError("normalisation must be one of " + ", ".join(NORMALISATIONS), source)
        weights = d.get("weights")
        booster = d.get("booster")
        if weights is None and not isinstance(booster, str):
            raise InputError("the model has neither weights nor a booster", source)
        w = None
        if weights is not None:
            ok = isinstance(weights, list) and all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in weights
            )
            w = np.array(weights, dtype=np.float64) if ok else None
            if w is None or len(w) != f or not np.isfinite(w).all():
                raise InputError(f"weights must be {f} finite numbers", source)
        method = d.get("method")
        if not isinstance(method, str):
            raise InputError("method must be a name", source)
        return cls(
            method=method,
            num_features=f,
            normalisation=d["normalisation"],
            weights=w,
            booster=booster if isinstance(booster, str) else None,
            objective=str(d.get("objective", "")),
            convention=str(d.get("convention", "trec")),
            parameters=d.get("parameters") or {},
            seed=d.get("seed", 0),
            history=d.get("history") or [],
            train_value=d.get("train_value"),
            vali_value=d.get("vali_value"),
            seconds=d.get("seconds"),
        )

    @classmethod
    def load(cls, path) -> Model:
        """Read a model written by :meth:`save`."""
        from ..core.io.source import read_bytes, source_name

        source = source_name(path)
        raw = read_bytes(path, source)
        try:
            d = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
            raise InputError(f"not valid JSON: {str(exc).splitlines()[0]}", source) from None
        return cls.from_dict(d, source)
