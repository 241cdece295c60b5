"""A simulated crowd: judgments of known items by assessors of known quality.

For planning (how many judgments per pair give 95% label accuracy?) and for tests of
parameter recovery. Every draw comes from ``numpy.random.default_rng(seed)``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from ..errors import ParameterError
from .data import Judgments, Scale


def simulate_crowd(
    truth,
    accuracies: Sequence[float],
    *,
    labels: int | Scale = 2,
    per_item: int = 3,
    spammers: Sequence[bool] | None = None,
    bias: Sequence[float] | None = None,
    seconds: Sequence[float] | None = None,
    topics=None,
    seed: int = 0,
) -> Judgments:
    """Judgments of items with true label codes ``truth`` by a crowd.

    Each item is judged by ``per_item`` assessors drawn without replacement. Assessor
    ``a`` gives the true label with probability ``accuracies[a]``, otherwise another
    label: uniformly, or by ``bias[a] = b`` (the share of errors that go one label up,
    toward "more relevant"; the rest go one label down, at the ends of the scale the
    only neighbour). A spammer (``spammers[a]``) ignores the item: it always gives one
    label (its most frequent answer, drawn once per spammer). ``seconds[a]`` is the
    mean time per judgment (exponentially distributed), recorded in ``seconds``.
    """
    truth = np.asarray(truth, np.int64)
    scale = labels if isinstance(labels, Scale) else Scale(tuple(range(int(labels))))
    k = scale.size
    acc = np.asarray(accuracies, np.float64)
    n_a = len(acc)
    if n_a == 0 or not ((acc >= 0) & (acc <= 1)).all():
        raise ParameterError("accuracies", "numbers in [0, 1], at least one", list(acc))
    if not 1 <= per_item <= n_a:
        raise ParameterError("per_item", f"an integer in [1, {n_a}]", per_item)
    if len(truth) and (truth.min() < 0 or truth.max() >= k):
        raise ParameterError("truth", f"label codes in [0, {k - 1}]", "out of range")
    rng = np.random.default_rng(seed)
    n = len(truth)
    # per_item distinct assessors per item: the first per_item of a random permutation
    who = np.argsort(rng.random((n, n_a)), axis=1)[:, :per_item].ravel()
    item = np.repeat(np.arange(n), per_item)
    true = truth[item]
    correct = rng.random(len(item)) < acc[who]
    b = np.full(n_a, 0.5) if bias is None else np.asarray(bias, np.float64)
    up = rng.random(len(item)) < b[who]
    step = np.where(up, 1, -1)
    step = np.where(true + step >= k, -1, np.where(true + step < 0, 1, step))
    if bias is None and k > 2:  # unbiased: any other label, uniformly
        other = (true + rng.integers(1, k, len(item))) % k
    else:
        other = np.clip(true + step, 0, k - 1)
    label = np.where(correct | (k == 1), true, other)
    if spammers is not None:
        spam = np.asarray(spammers, bool)
        constant = rng.integers(0, k, n_a)
        label = np.where(spam[who], constant[who], label)
    topic = np.zeros(n, np.int64) if topics is None else np.asarray(topics)
    if len(topic) != n:
        raise ParameterError("topics", f"one topic per item ({n})", len(topic))
    cols = {
        "topic": pa.array(topic[item]).cast(pa.string()),
        "document": _prefixed("d", item),
        "assessor": _prefixed("w", who),
        "label": pa.array(np.asarray(scale.values, np.int64)[label]),
    }
    if seconds is not None:
        mean = np.asarray(seconds, np.float64)[who]
        cols["seconds"] = pa.array(rng.exponential(mean))
    return Judgments.from_table(pa.table(cols), scale=scale, source="<simulated crowd>")


def _prefixed(prefix: str, numbers: np.ndarray) -> pa.Array:
    """``prefix`` followed by each number, as Arrow strings (no Python loop)."""
    import pyarrow.compute as pc

    return pc.binary_join_element_wise(prefix, pa.array(numbers).cast(pa.string()), "")


def simulate_assessor(labels, accuracy: float, grades, *, seed: int = 0) -> np.ndarray:
    """A noisy assessor's labels of items whose true labels are ``labels`` (values in
    ``grades``): the true label with probability ``accuracy``, otherwise another grade
    drawn uniformly (``numpy.random.default_rng(seed)``). With ``K`` grades used
    uniformly, Cohen's kappa against the truth is about ``(K * accuracy - 1) / (K - 1)``.
    """
    labels = np.asarray(labels, np.int64)
    grades = np.asarray(grades, np.int64)
    if not 0 <= accuracy <= 1:
        raise ParameterError("accuracy", "a number in [0, 1]", accuracy)
    pos = np.searchsorted(grades, labels)
    if len(labels) and not (
        (pos < len(grades)).all() and (grades[np.minimum(pos, len(grades) - 1)] == labels).all()
    ):
        raise ParameterError("labels", "values among the grades", "others")
    rng = np.random.default_rng(seed)
    keep = rng.random(len(labels)) < accuracy
    k = len(grades)
    other = (pos + rng.integers(1, max(k, 2), len(labels))) % k if k > 1 else pos
    return np.where(keep, labels, grades[other])


def simulate_collection(
    topics: int = 50,
    pool: int = 100,
    runs: int = 10,
    *,
    seed: int = 0,
):
    """A generated test collection with complete judgments: ``topics`` topics, each with
    ``pool`` judged documents graded 0-3 (a topic's share of relevant documents drawn from
    Beta(1, 4)), and ``runs`` runs ranking every pooled document by
    ``quality * grade + N(0, 1)`` with qualities spread over [0, 2]. Returns
    ``(qrels, {name: run})`` (:class:`~cranfield.core.qrels.Qrels`,
    :class:`~cranfield.core.run.Run`)."""
    from ..core.qrels import Qrels
    from ..core.run import Run

    rng = np.random.default_rng(seed)
    n = topics * pool
    topic = np.repeat(np.arange(topics), pool)
    share = rng.beta(1.0, 4.0, topics)[topic]
    relevant = rng.random(n) < share
    grade = np.where(relevant, rng.integers(1, 4, n), 0)
    qid = pa.array(topic).cast(pa.string())
    doc = _prefixed("d", np.arange(n))
    qrels = Qrels(pa.table({"query_id": qid, "doc_id": doc, "relevance": pa.array(grade)}))
    out = {}
    for r, quality in enumerate(np.linspace(0.0, 2.0, runs)):
        score = quality * grade + rng.normal(0.0, 1.0, n)
        table = pa.table({"query_id": qid, "doc_id": doc, "score": pa.array(score)})
        out[f"run{r:02d}"] = Run(table, name=f"run{r:02d}")
    return qrels, out


def simulate_assessor_qrels(qrels, accuracy: float, grades=(0, 1, 2, 3), *, seed: int = 0):
    """The qrels a noisy assessor (:func:`simulate_assessor`) would give for the pairs of
    ``qrels``: the same pairs, each label redrawn."""
    from ..core.qrels import Qrels

    labels = simulate_assessor(qrels.table["relevance"].to_numpy(), accuracy, grades, seed=seed)
    table = qrels.table.set_column(2, "relevance", pa.array(labels))
    return Qrels(table, source=f"<simulated assessor of accuracy {accuracy:g}>")
