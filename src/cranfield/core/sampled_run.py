"""The sampled estimators (xinfAP, infNDCG, statAP, statPC@k) as measures of ``eval``,
``compare`` and ``report``: a run's per-topic estimates against sampled qrels
(:func:`~cranfield.core.sampled.read_sampled_qrels`), attached to the run's
:class:`~cranfield.core.judged.JudgedRun` for the measure kernels
(:mod:`cranfield.core.measures.sampled`), as the subtopic qrels are for the diversity
measures.

The estimates are sample_eval's, topic by topic (:func:`~cranfield.core.sampled.
estimate_topic`, :func:`~cranfield.core.statap.estimate_statap`): the run read in
sample_eval's order (score descending, docno descending; the first 1000 documents of a
topic), whatever ``-M``/``-J`` do to the ordinary measures. A query of the ordinary
qrels that the sampled qrels lack scores 0 (as a query without subtopic judgments does
on the diversity measures); a query the run lacks (``-c``) is an empty ranking: 0.
"""

from __future__ import annotations

from .._lazy import lazy
from ..errors import InputError, MeasureError

np = lazy("numpy", __name__, "np")

#: the key of a judged run's memo that holds its :class:`SampledRun`
KEY = "sampled_qrels"

#: the family of the measures declared in :mod:`cranfield.core.measures.sampled`
FAMILY = "sampled"


def is_sampled(definition) -> bool:
    """Whether a measure family is a sampled estimator (its values need sampled qrels)."""
    return definition.family == FAMILY


def as_sampled(sampled, measures) -> dict | None:
    """The sampled qrels (a path, read once, or :func:`read_sampled_qrels`' result) when a
    measure of ``measures`` is a sampled estimator; None otherwise or without them."""
    if sampled is None or not any(is_sampled(m.definition) for m in measures):
        return None
    if isinstance(sampled, dict):
        return sampled
    from .sampled import read_sampled_qrels

    return read_sampled_qrels(sampled)


class SampledRun:
    """One run's estimates against the sampled qrels, computed per topic once per
    estimator and cutoff asked for."""

    def __init__(self, topics: dict, ranked: dict) -> None:
        self.topics, self.ranked = topics, ranked
        self._cache: dict = {}

    def _estimates(self, family: str, cutoff: int | None) -> dict:
        """``{topic: (value, variance)}``; xinfAP's and infNDCG's variances (a
        jackknife: :func:`~cranfield.core.sampled.jackknife_variances`) only in
        :meth:`columns` with ``variances``."""
        key = (family, cutoff if family == "statPC" else None)
        if key in self._cache:
            return self._cache[key]
        from .sampled import estimate_topic
        from .statap import estimate_statap

        nan = float("nan")
        out = {}
        for topic, sample in self.topics.items():  # (sample_eval's estimates are per topic)
            docs, lines = self.ranked.get(topic, ([], 0))
            if family in ("xinfAP", "infNDCG"):
                e = estimate_topic(topic, sample, docs, lines)
                out[topic] = (e.inf_ap, nan) if family == "xinfAP" else (e.inf_ndcg, nan)
            else:
                if not sample.probability:
                    raise MeasureError(
                        f"{family} needs the inclusion probabilities: six-column sampled "
                        "qrels (cranfield pool --sample statap)"
                    )
                e = estimate_statap(topic, sample, docs, *((cutoff,) if cutoff else ()))
                out[topic] = (
                    (e.stat_ap, e.stat_ap_var) if family == "statAP" else (e.stat_pc, e.stat_pc_var)
                )
        self._cache[key] = out
        return out

    def _jackknife(self, family: str, topics) -> dict:
        """``{topic: variance}`` of xinfAP or infNDCG for ``topics`` (computed once)."""
        from .sampled import jackknife_variances

        done = self._cache.setdefault("jackknife", {})
        for topic in topics:
            if topic in self.topics and topic not in done:
                docs, lines = self.ranked.get(topic, ([], 0))
                done[topic] = jackknife_variances(topic, self.topics[topic], docs, lines)
        index = 0 if family == "xinfAP" else 1
        return {t: v[index] for t, v in done.items()}

    def columns(self, family: str, cutoff: int | None, query_ids, variances: bool = False):
        """``(values, variances)`` of an estimator for ``query_ids`` (0 and 0 for a
        query the sampled qrels lack); the variances are NaN for xinfAP and infNDCG
        unless ``variances`` (their jackknife costs one estimate per sampled document)."""
        from .sampled import _topic_key

        keys = [_topic_key(str(q)) for q in query_ids]
        found = self._estimates(family, cutoff)
        pairs = [found.get(k, (0.0, 0.0)) for k in keys]
        table = np.array(pairs, dtype=np.float64).reshape(-1, 2)
        values, var = table[:, 0].copy(), table[:, 1].copy()
        if variances and family in ("xinfAP", "infNDCG"):
            jack = self._jackknife(family, keys)
            var = np.array([jack.get(k, 0.0) for k in keys], dtype=np.float64)
        return values, var


def attach_sampled(sampled: dict | None, jr, run, options) -> None:
    """Give ``jr`` (the judged run) its :class:`SampledRun`: ``run`` (a
    :class:`~cranfield.core.run.Run` or its path) read again in sample_eval's order.
    Nothing without sampled qrels."""
    if sampled is None:
        return
    from .run import Run
    from .sampled import ranked_by_topic

    if not isinstance(run, Run):
        from .memory import read_once

        if read_once(run):
            raise InputError(
                "a run read once (standard input, a pipe) cannot be measured against "
                "sampled qrels too: give it as a file",
                source=str(run),
            )
        run = Run.read(run, duplicates=options.duplicates)
    made = SampledRun(sampled, ranked_by_topic(run.table))
    jr.memo(KEY, lambda: made)


def sampled_of(jr, family: str) -> SampledRun:
    """The run's :class:`SampledRun`; a :class:`~cranfield.errors.MeasureError` when it
    was evaluated without sampled qrels."""

    def missing():
        raise MeasureError(
            f"{family} is estimated from sampled judgments: it needs sampled qrels "
            "(--sampled-qrels FILE; evaluate(..., sampled_qrels=...))"
        )

    return jr.memo(KEY, missing)
