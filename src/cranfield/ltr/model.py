"""Learnt rankers saved as JSON: a linear model ``w . x`` or a boosted-trees baseline.

The file holds what is needed to score new data the same way and to say how the model
was made: the method and its parameters, the objective and its convention, the feature
normalisation, the seed, the training history (evaluations, training and validation
values at each checkpoint) and the weights (or the booster's own model text). It is
written atomically (``cranfield.core.io.atomic``) and read back with every field
checked.

One format, plain JSON at every size: the weights are a JSON list, ``WEIGHTS_PER_LINE``
to a line, each written as Python's ``repr(float)`` writes it (the shortest decimal
that reads back to the same double), so a 46-feature LETOR model is read by eye and any
JSON reader reads every model to the last bit. With sparse data a model has up to
``MAX_INDEX`` weights (10,000,000 in the tests: a 206 MB file), and Python's ``json``
took 12 s to write those and 9.4 s to read them; the engine does both in bulk
(``cranfield_ltr::model_text``, on threads): the same bytes as ``json.dumps`` (the
digits of Ryu, Adams 2018, which are ``repr``'s: the shortest, the nearest among the
shortest), and the numbers ``json.loads`` reads (correctly rounded, Clinger 1990; a
JSON integer as Python's ``float(int(text))``, so ``-0`` is ``+0.0``). On load it
takes the array of the object's one top-level ``"weights"`` key, found by a scan
following JSON's strings and nesting, and Python's ``json`` reads the rest of the
file with ``null`` in its place; a file of any other shape (no such key or two, a key
written with escapes, weights that are not all plain JSON numbers) is read whole by
``json``, as before, and checked by :meth:`Model.from_dict` alike. The alternatives
weighed: a binary block (``.npy`` beside or inside the file) is fast but a second
format, not readable for small models; ``orjson`` (the ``ltr`` extra) writes the same
shortest digits but would be optional, so the core would keep the slow path as a
second writer. The format is unchanged (version 1): files written before load as they
did, and old readers read new files.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from .data import NORMALISATIONS, RankingData
from .sparse import MAX_INDEX

WEIGHTS_PER_LINE = 1000
#: Weights formatted per call of the engine (a ~20 MB block of text at a time).
WEIGHTS_PER_BLOCK = 1000 * WEIGHTS_PER_LINE

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
        """Write the model as JSON, atomically (the layout: see the module's text)."""
        from .. import _engine
        from ..core.io.atomic import atomic_path, write_text
        from ..output import dumps_json

        d = self._fields()
        if self.weights is None:
            write_text(path, dumps_json(d) + "\n")
            return
        # the weights a thousand to a line (one line of millions would exceed the
        # readers' limit), a block of lines at a time, written by the engine: the text
        # json.dumps writes, at ~100 ns of CPU a weight instead of ~1.2 us
        mark = "\0weights\0"
        d["weights"] = mark
        head, tail = dumps_json(d).split(json.dumps(mark))
        w = np.ascontiguousarray(self.weights, dtype=np.float64)
        with atomic_path(path) as tmp, open(tmp, "wb") as fh:
            fh.write((head + "[").encode("utf-8"))
            for start in range(0, len(w), WEIGHTS_PER_BLOCK):
                block = w[start : start + WEIGHTS_PER_BLOCK]
                fh.write(_engine.ltr_weight_lines(block, WEIGHTS_PER_LINE, b"    ", start > 0))
            fh.write(("\n  ]" + tail + "\n").encode("utf-8"))

    @classmethod
    def from_dict(cls, d: dict, source: str = "<model>") -> Model:
        """The model of a model file's fields, every one checked (``InputError``, one
        line naming ``source``); ``weights`` a list of numbers or a float64 array."""
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
        if isinstance(weights, np.ndarray):  # read by the engine (load)
            w = weights if weights.dtype == np.float64 and weights.ndim == 1 else None
        elif weights is not None:
            ok = isinstance(weights, list) and all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in weights
            )
            try:
                w = np.array(weights, dtype=np.float64) if ok else None
            except OverflowError:  # an integer beyond the doubles
                w = None
        if weights is not None and (w is None or len(w) != f or not np.isfinite(w).all()):
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
        """Read a model written by :meth:`save` (or any JSON of its fields)."""
        from .. import _engine
        from ..core.io.source import read_bytes, source_name

        source = source_name(path)
        raw = read_bytes(path, source)
        found = _engine.ltr_model_weights(raw)
        if found is None:
            return cls.from_dict(_decode(raw, source), source)
        start, end, weights = found
        try:
            d = json.loads((raw[:start] + b"null" + raw[end:]).decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            d = _decode(raw, source)  # (the message of the whole file's positions)
        else:
            # an object whose one "weights" key is the null put there
            d["weights"] = weights
        return cls.from_dict(d, source)


def _decode(raw: bytes, source: str):
    """The JSON value of a model file's bytes (UTF-8), or one line naming the problem."""
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise InputError(f"not valid JSON: {str(exc).splitlines()[0]}", source) from None
