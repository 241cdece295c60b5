"""Helpers shared by the measure tests: build inputs, evaluate one measure per query."""

from __future__ import annotations

import numpy as np

from cranfield.core.evaluation import evaluate
from cranfield.core.measures.registry import Measure
from cranfield.core.qrels import Qrels
from cranfield.core.run import Run


def ranking(qid: str, labels, num_rel: int | None = None, extra_judged=()):
    """Qrels and run for one query whose ranking has the given grades (None = unjudged).

    ``num_rel`` adds relevant documents that are not retrieved so that the query has
    that many documents with grade >= 1; ``extra_judged`` adds unretrieved grades.
    """
    qrels, run = {}, {}
    n = len(labels)
    for i, g in enumerate(labels):
        doc = f"d{i:03d}"
        run[doc] = float(n - i)
        if g is not None:
            qrels[doc] = int(g)
    found = sum(1 for g in labels if g is not None and g >= 1)
    for j in range((num_rel or found) - found):
        qrels[f"m{j:03d}"] = 1
    for j, g in enumerate(extra_judged):
        qrels[f"x{j:03d}"] = int(g)
    qrels["zzz"] = 0  # a judgment, so that the query is evaluated even if nothing else is
    return {qid: qrels}, {qid: run}


def per_query(qrels: dict, run: dict, measure: str, **options) -> dict:
    """``{qid: value}`` of one measure."""
    res = evaluate(Qrels.coerce(qrels), Run.coerce(run), [measure], **options)
    return res.per_query(0, measure)


def one(labels, measure: str, num_rel: int | None = None, extra_judged=(), **options) -> float:
    q, r = ranking("q", labels, num_rel, extra_judged)
    return per_query(q, r, measure, **options)["q"]


def close(a, b, tol=1e-12) -> bool:
    return bool(np.isclose(a, b, rtol=0, atol=tol))


def instances(definition, collection_size: int = 1000) -> list[Measure]:
    """Default members of a family: with a typical cutoff, and without one if allowed."""
    params = {}
    if any(p.name == "collection_size" for p in definition.params):
        params["collection_size"] = collection_size
    cut = {"rank": 3, "recall": 0.5, "positive": 1.0, None: None}[definition.cutoff]
    out = [Measure.of(definition.name, cutoff=cut, **params)]
    if definition.cutoff is not None and not definition.cutoff_required:
        out.append(Measure.of(definition.name, **params))
    return out
