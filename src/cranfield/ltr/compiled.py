"""The compiled objective: the measures of :mod:`cranfield.ltr.objective` computed by
the engine's batched kernel (``cranfield._engine.LtrKernel``, the crate ``rust/ltr``).

The kernel receives the documents once, in the :class:`~cranfield.ltr.objective.Layout`'s
order (queries in evaluation order, each query's documents in tie order), with their
features (it scores weight vectors itself, block by block, with the linear rankers' one
scoring function, :mod:`cranfield.ltr.scoring`), the labels and, per measure, the per-document numbers computed here by NumPy with the
very operations of cranfield's kernels (gains, ERR's stop probabilities). For every
(individual, query) it ranks the documents by score descending, ties by that order
(trec_eval's document id descending, or LETOR's file order), keeping only the top
``k`` when every measure has a rank cutoff, and computes each measure as
``core/measures`` does; it runs without the interpreter lock on up to
:func:`threads` threads (split by individual) and returns a ``P x T x Q`` array, or
(``objective_weights``) each individual's objective: the measures' means summed left
to right as :func:`~cranfield.ltr.objective.mean_rows` sums them, weighted by their shares.

Measures it computes (with ``judged_only`` either way, every document being judged):

* ``trec``: ``nDCG`` (``dcg=log2`` or ``exp-log2``, any ``gains``; with or without a
  cutoff), ``P@k``, ``R@k``, ``Success@k``, ``relative_P@k``, ``AP`` (any
  ``normalise``, with or without a cutoff), ``Rprec``, ``RR``, ``ERR`` (when no label
  exceeds ``max_grade``), ``Bpref``, each with any ``rel``;
* ``letor``: ``NDCG@k`` (labels up to 60), ``P@k``, ``MAP``.

Any other measure (or parameter) makes :func:`kernel` answer None, and the objective
then runs on the NumPy path -- which also raises the errors the kernel does not
(ERR's grade above ``max_grade``, ``exp-log2`` gains above 512, LETOR labels above 60).
"""

from __future__ import annotations

import os

import numpy as np

from ..core import libm, segments
from ..core.measures.gain import MAX_EXP_GAIN, exp_gain, gain_of
from ..core.measures.graded_extra import err_stop
from ..core.measures.registry import Measure
from .sparse import is_sparse

# trec family -> kernel kind (binary-relevance measures taking `rel`)
_BINARY = {
    "P": "p",
    "R": "recall",
    "Success": "success",
    "relative_P": "relative_p",
    "Rprec": "rprec",
    "RR": "rr",
    "Bpref": "bpref",
}
# every trec family the kernel computes (parameters it does not take make kernel() None)
FAMILIES = (*_BINARY, "AP", "nDCG", "ERR")
DEFAULT_LEVEL = 1  # JudgedRun's default relevance level (trec_eval -l 1)


def threads() -> int:
    """Threads the kernel may use: the CPUs this process may run on, at most 8."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on every platform
        n = os.cpu_count() or 1
    return max(1, min(8, n))


def kernel(layout, data, terms, convention: str):
    """The engine's kernel for these measures, or None when one of them (or the
    engine) is not supported. It gets a dense feature matrix too (in its document
    order), and scores the documents itself in ``evaluate_weights``; sparse features
    are scored outside (:func:`~cranfield.ltr.scoring.linear_scores`) and given to
    ``evaluate``."""
    try:
        from .. import _engine
    except ImportError:  # a source tree without the compiled engine
        return None
    if not hasattr(_engine, "LtrKernel") or data.num_docs == 0:
        return None
    labels = np.ascontiguousarray(data.labels[layout.rows], dtype=np.int64)
    width = max(layout.width, 1)
    if convention == "letor":
        from .letor import log2_ranks

        discount = log2_ranks(width)  # LETOR: 1, 1, log2 r
    else:
        discount = np.ascontiguousarray(segments.log2_discounts(width), dtype=np.float64)
    specs = []
    for t in terms:
        spec = (
            _letor_spec(t.measure, labels)
            if convention == "letor"
            else _trec_spec(t.measure, labels)
        )
        if spec is None:
            return None
        specs.append(spec)
    if is_sparse(data.features):
        # no copy: the objective scores sparse rows itself and gives the kernel scores
        x = np.zeros((0, data.num_features))
    else:
        x = np.ascontiguousarray(data.features[layout.rows], dtype=np.float64)
    columns = np.ascontiguousarray(layout.rows, dtype=np.int64)
    offsets = np.ascontiguousarray(layout.offsets, dtype=np.int64)
    return _engine.LtrKernel(offsets, labels, discount, specs, x, columns)


def _per_value(f, values: np.ndarray) -> np.ndarray:
    """``f`` of every value, computed once per distinct value: the gains go through the
    C library's functions (:mod:`cranfield.core.libm`) as in the measures' own kernels,
    and a training set has millions of documents but a handful of labels."""
    distinct, inverse = np.unique(values, return_inverse=True)
    return np.ascontiguousarray(np.asarray(f(distinct), dtype=np.float64)[inverse])


def _spec(kind, cutoff=None, level=DEFAULT_LEVEL, normalise="R", short=False, a=None, b=None):
    return (kind, int(cutoff or 0), int(level), normalise, short, a, b)


def _trec_spec(m: Measure, labels: np.ndarray):
    definition = m.definition
    if definition.cutoff not in (None, "rank"):
        return None
    params = m.param_values()
    level = DEFAULT_LEVEL if params.get("rel") is None else int(params["rel"])
    cutoff = m.cutoff
    name = definition.name
    if name in _BINARY:
        return _spec(_BINARY[name], cutoff, level)
    if name == "AP":
        return _spec("ap", cutoff, level, params["normalise"])
    if name == "nDCG":
        if params["dcg"] not in ("log2", "exp-log2"):
            return None
        g = gain_of(labels, params["gains"])
        if params["dcg"] == "exp-log2":
            if len(g) and g.max() > MAX_EXP_GAIN:
                return None  # the NumPy path raises the error
            g = _per_value(exp_gain, g)
        return _spec("ndcg", cutoff, a=np.ascontiguousarray(g, dtype=np.float64))
    if name == "ERR":
        max_grade = int(params["max_grade"])
        if len(labels) and labels.max() > max_grade:
            return None  # the NumPy path raises when such a document is ranked
        stop = _per_value(lambda u: err_stop(u, max_grade), labels)
        log_continue = _per_value(lambda u: libm.log1p(-err_stop(u, max_grade)), labels)
        return _spec("err", cutoff, a=stop, b=log_continue)
    return None


def _letor_spec(m, labels: np.ndarray):
    from .letor import MAX_LABEL, gains

    if m.kind == "ndcg":
        if len(labels) and labels.max() > MAX_LABEL:
            return None  # the NumPy path raises the error
        return _spec("ndcg", m.k, short=True, a=np.ascontiguousarray(gains(labels)))
    if m.kind == "p":
        return _spec("p", m.k, 1)
    return _spec("ap", None, 1)
