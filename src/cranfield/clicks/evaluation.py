"""Evaluating click models on a test log, as in Chuklin, Markov & de Rijke (2015), ch. 5.

Only test sessions whose query occurs in the training log are scored; the others are
left out and counted (``sessions_left_out``). A (query, document) pair of a known query
that training never showed takes the value 0.5 for its parameters.

* **Log-likelihood** (natural logarithm), normalised as PyClick reports it: for each
  session the mean over its shown ranks of ``log P(C_r = c_r | C_<r)``, then the mean
  over sessions. It is at most 0; higher is better.
* **Perplexity at rank r**: ``2 ** (-(1/|S_r|) sum_s log2 P(C_r = c_r))`` over the
  sessions ``S_r`` showing rank ``r``, with the model's unconditional click probability
  ``P(C_r = 1)``; the overall perplexity is the mean over ranks. 1 is perfect, 2 is a
  coin toss; lower is better.
* **CTR error**: the root mean squared difference between each test (query, document)
  pair's observed click-through rate and the mean of the model's ``P(C_r = 1)`` over
  its impressions, weighted by impressions.

Probabilities are clipped to ``[1e-10, 1 - 1e-10]`` before logarithms (the cascade
model gives a second click probability 0).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .estimate import EPS, MAX_ITER, PYCLICK_PRIOR, TOL
from .fitted import FittedClickModel, fit
from .log import ClickLog
from .models import Pairs
from .registry import get


@dataclass
class Evaluation:
    """One model's scores on one test log."""

    model: str
    log_likelihood: float
    perplexity: float
    perplexity_at: list = field(default_factory=list)
    ctr_error: float = float("nan")
    sessions: int = 0
    sessions_left_out: int = 0
    iterations: int = 0
    converged: bool = True

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def evaluate(model: FittedClickModel, test: ClickLog) -> Evaluation:
    """Score ``model`` on ``test`` (see the module docstring for the definitions)."""
    known = model.known_queries(test)
    left_out = int((~known).sum())
    if not known.any():
        nan = float("nan")
        return Evaluation(
            model.name, nan, nan, [], nan, 0, left_out, model.iterations, model.converged
        )
    log = test.subset(known)
    shown, clicks = log.shown, log.clicks
    cond = np.clip(model.probabilities(log, True), EPS, 1 - EPS)
    full = np.clip(model.probabilities(log, False), EPS, 1 - EPS)
    ll = np.where(shown, np.where(clicks, np.log(cond), np.log1p(-cond)), 0.0)
    per_session = ll.sum(axis=1) / shown.sum(axis=1)
    log2 = np.where(shown, np.where(clicks, np.log2(full), np.log2(1 - full)), 0.0)
    counts = shown.sum(axis=0)
    at = 2.0 ** (-log2.sum(axis=0) / np.maximum(counts, 1))
    at = at[counts > 0]
    pairs = Pairs(log)
    observed = np.bincount(pairs.index[clicks], minlength=pairs.n) / pairs.impressions
    predicted = np.bincount(pairs.index[shown], weights=full[shown], minlength=pairs.n)
    predicted /= pairs.impressions
    err = float(np.sqrt(np.average((observed - predicted) ** 2, weights=pairs.impressions)))
    return Evaluation(
        model.name,
        float(per_session.mean()),
        float(at.mean()),
        at.tolist(),
        err,
        int(log.n_sessions),
        left_out,
        model.iterations,
        model.converged,
    )


def compare(
    train: ClickLog,
    test: ClickLog,
    models,
    *,
    tol: float = TOL,
    max_iter: int = MAX_ITER,
    seed: int | None = None,
    prior=PYCLICK_PRIOR,
) -> list[Evaluation]:
    """Fit each of ``models`` on ``train`` (see :func:`~.fitted.fit`) and score it on
    ``test``."""
    options = {"tol": tol, "max_iter": max_iter, "seed": seed, "prior": prior}
    return [evaluate(fit(train, m, **options), test) for m in models]


_COLUMNS = (
    ("model", "model"),
    ("log_likelihood", "log-likelihood"),
    ("perplexity", "perplexity"),
    ("ctr_error", "CTR error"),
    ("iterations", "iterations"),
)


def render(evaluations: list[Evaluation], fmt: str = "text", digits: int = 4) -> str:
    """The comparison table in one of :data:`cranfield.output.TABLE_FORMATS` or ``json``
    (the shared renderer and cell formatter), one column per rank's perplexity. In text
    and markdown the :func:`notes` follow the table; csv and tsv hold the table alone."""
    from ..output import dumps_json, number_cell, table

    if fmt == "json":
        return dumps_json([e.as_dict() for e in evaluations]) + "\n"
    k = max((len(e.perplexity_at) for e in evaluations), default=0)
    heads = [h for _, h in _COLUMNS] + [f"ppl@{r + 1}" for r in range(k)]
    rows = [
        [number_cell(getattr(e, key), digits) for key, _ in _COLUMNS]
        + [number_cell(v, digits) for v in e.perplexity_at]
        + [""] * (k - len(e.perplexity_at))
        for e in evaluations
    ]
    text = table(heads, rows, fmt, left=1)
    if fmt in ("csv", "tsv"):
        return text
    return "\n".join([text, "", *notes(evaluations)]).rstrip("\n") + "\n"


def notes(evaluations: list[Evaluation]) -> list[str]:
    """What the table's reader should know: the sessions scored and left out, and how
    to read the cascade model's log-likelihood."""
    out = []
    if evaluations:
        e = evaluations[0]
        out.append(
            f"{e.sessions} test sessions scored; {e.sessions_left_out} left out "
            "(their query is not in the training log)"
        )
    for note in dict.fromkeys(get(e.model).note for e in evaluations):
        if note:
            out.append(note)
    return out
