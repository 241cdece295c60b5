r"""Sampling designs over a pool: which pooled pairs to judge, and with which inclusion
probability (``cranfield pool --sample``).

Each design is declared once in :data:`SAMPLE_DESIGNS` (the one declaration shape,
:class:`~cranfield.core.declarations.Declaration`), with its formula and citation. Its
behaviour draws, for all topics at once, from the pooled pairs of every topic:

``behaviour(topic, best_rank, prior, rng, **params) -> (stratum, probability, sampled)``

``topic``: the topic code of every pooled pair (pairs sorted by topic); ``best_rank``:
the best rank any run gave the pair; ``prior``: the pair's AP-prior summed over the
runs. It returns the stratum (1, 2, ...) of every pair, its inclusion probability
:math:`\pi` and whether it was drawn. The draws are whole-array NumPy operations.

The result, :class:`SampledPool`, is written as a *sampling frame* (every pooled pair:
``topic docno stratum probability sampled``); :func:`join_judgments` joins the judgments
of the drawn pairs back into TREC's five-column sampled qrels (``topic 0 docno stratum
relevance``, ``-1`` for a pooled pair not drawn), which ``sample_eval`` reads, or the
six-column form with the inclusion probability appended, which ``sample_eval --statap``
reads.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .._lazy import lazy
from ..core.declarations import Declaration, Param, Registry, integer_at_least, number_in
from ..errors import InputError, ParameterError

np = lazy("numpy", __name__, "np")

__all__ = ["SAMPLE_DESIGNS", "SampledPool", "sample_pool", "ap_prior", "join_judgments"]

SAMPLE_DESIGNS: Registry = Registry("sampling design")
register = SAMPLE_DESIGNS.register


def _fixed_size_draw(group: np.ndarray, sizes: np.ndarray, rng) -> np.ndarray:
    """Simple random sampling without replacement of ``sizes[g]`` items of every group
    ``g`` (``group`` sorted): a uniform random key per item, the smallest keys drawn."""
    n = len(group)
    u = rng.random(n)
    order = np.lexsort((u, group))
    counts = np.bincount(group, minlength=len(sizes))
    offsets = np.r_[0, np.cumsum(counts)]
    position = np.arange(n) - offsets[group[order]]
    drawn = np.zeros(n, dtype=bool)
    drawn[order] = position < sizes[group[order]]
    return drawn


def _group_sizes(group: np.ndarray, n_groups: int, rate: float, size: int) -> np.ndarray:
    """Per group: ``size`` (refused when a group has fewer items), else
    ``max(1, floor(rate * N_g + 1/2))`` of its ``N_g`` items."""
    counts = np.bincount(group, minlength=n_groups)
    if size:
        if len(counts) and size > counts.min():
            raise ParameterError(
                "--size", f"at most the smallest pool ({int(counts.min())} pairs)", size
            )
        return np.full(n_groups, size, dtype=np.int64)
    return _rounded(counts, rate)


def _rounded(counts: np.ndarray, rate) -> np.ndarray:
    """``min(N, max(1, floor(rate * N + 1/2)))`` of each count N (halves up)."""
    return np.minimum(counts, np.maximum(1, np.floor(rate * counts + 0.5))).astype(np.int64)


def _rate_and_size(what: str) -> tuple[Param, Param]:
    """The ``rate`` and ``size`` parameters of a design drawing per topic (``what``:
    ``"expected "`` when the sample's size varies)."""
    return (
        Param(
            "rate",
            float,
            1.0,
            f"{what}fraction of each topic's pool",
            **number_in(0, 1, open_lo=True),
        ),
        Param("size", int, 0, f"{what}pairs per topic (0: use rate)", **integer_at_least(0)),
    )


def _uniform(topic, best_rank, prior, rng, rate: float, size: int):
    n_topics = int(topic.max()) + 1 if len(topic) else 0
    sizes = _group_sizes(topic, n_topics, rate, size)
    drawn = _fixed_size_draw(topic, sizes, rng)
    probability = (sizes / np.maximum(np.bincount(topic, minlength=n_topics), 1))[topic]
    return np.ones(len(topic), dtype=np.int64), probability, drawn


register(
    Declaration(
        name="uniform",
        behaviour=_uniform,
        summary="Simple random sample of every topic's pool (one stratum).",
        formula="per topic, n = size, or max(1, floor(rate * D + 1/2)) of its D pooled pairs, drawn "
        "without replacement, every n-subset equally likely; pi = n / D.",
        citation="Yilmaz & Aslam 2006 (infAP: estimating average precision with incomplete "
        "and imperfect judgments, CIKM)",
        params=_rate_and_size(""),
    )
)


def _check_strata(strata: tuple, rates: tuple) -> None:
    if len(strata) != len(rates):
        raise ParameterError(
            "--rate", f"one rate per stratum ({len(strata)} strata)", ",".join(map(str, rates))
        )
    bounds = np.asarray(strata)
    if np.any(bounds < 1) or np.any(bounds != np.floor(bounds)) or np.any(np.diff(bounds) <= 0):
        raise ParameterError("--strata", "increasing ranks >= 1, e.g. 10,30,100", strata)
    if any(not (0 < r <= 1) for r in rates):
        raise ParameterError("--rate", "numbers in (0, 1], one per stratum", rates)


def _stratified(topic, best_rank, prior, rng, strata: tuple, rates: tuple):
    _check_strata(strata, rates)
    bounds = np.asarray(strata, dtype=np.float64)
    # the first stratum whose bound is at least the pair's best rank; deeper pairs: the last
    stratum = np.minimum(np.searchsorted(bounds, best_rank, side="left"), len(bounds) - 1)
    n_strata = len(bounds)
    group = topic * n_strata + stratum
    n_groups = (int(topic.max()) + 1) * n_strata if len(topic) else 0
    counts = np.bincount(group, minlength=n_groups)
    rate = np.tile(np.asarray(rates, dtype=np.float64), n_groups // max(n_strata, 1))
    sizes = _rounded(counts, rate)
    drawn = _fixed_size_draw(group, sizes, rng)
    probability = (sizes / np.maximum(counts, 1))[group]
    return stratum + 1, probability, drawn


register(
    Declaration(
        name="stratified",
        behaviour=_stratified,
        summary="Strata by the best rank over the runs, each sampled at its own rate (xinfAP).",
        formula="stratum of a pair: the first bound b_s >= its best rank over the runs (pairs "
        "deeper than the last bound join the last stratum); in each (topic, stratum) of D_s "
        "pairs, n_s = max(1, floor(rate_s * D_s + 1/2)) drawn without replacement; pi = n_s / D_s.",
        citation="Yilmaz, Kanoulas & Aslam 2008 (a simple and efficient sampling method for "
        "estimating AP and NDCG, SIGIR)",
        params=(
            Param("strata", "floats", None, "rank bounds of the strata, e.g. 10,30,100"),
            Param("rates", "floats", None, "sampling rate of each stratum, e.g. 1,0.5,0.1"),
        ),
    )
)


def _pps_probabilities(topic: np.ndarray, prior: np.ndarray, expected: np.ndarray):
    """Per topic, pi_i = min(1, c_t prior_i) with sum pi = expected[t]: the pairs whose
    share would exceed 1 are taken for certain and the rest rescaled, until none exceeds
    1 (at most one round per certain pair; each round is whole-array)."""
    n_topics = len(expected)
    certain = np.zeros(len(topic), dtype=bool)
    while True:
        free = np.where(certain, 0.0, prior)
        mass = np.bincount(topic, weights=free, minlength=n_topics)
        left = expected - np.bincount(topic, weights=certain, minlength=n_topics)
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = np.where(mass > 0, left / mass, 0.0)
        pi = np.where(certain, 1.0, free * scale[topic])
        over = (pi >= 1.0) & ~certain
        if not over.any():
            return np.minimum(pi, 1.0)
        certain |= over


def _statap(topic, best_rank, prior, rng, rate: float, size: int):
    n_topics = int(topic.max()) + 1 if len(topic) else 0
    expected = _group_sizes(topic, n_topics, rate, size).astype(np.float64)
    pi = _pps_probabilities(topic, prior, expected)
    drawn = rng.random(len(topic)) < pi
    return np.ones(len(topic), dtype=np.int64), pi, drawn


register(
    Declaration(
        name="statap",
        behaviour=_statap,
        summary="Inclusion probability proportional to the AP-prior of the runs (statAP).",
        formula="prior(d) = sum over the runs that retrieved d, at any rank, of (1/(2N)) (1 + "
        "sum_{i=rank(d)}^{N} 1/i) (N: the deepest rank at which a run retrieved a pooled pair); pi_d = min(1, c prior(d)) with sum_d pi_d = n per topic (n = "
        "size, or max(1, floor(rate * D + 1/2))); each pair drawn independently with probability "
        "pi_d (Poisson sampling without replacement: the sample size is n on average).",
        citation="Aslam, Pavlu & Yilmaz 2006 (a statistical method for system evaluation "
        "using incomplete judgments, SIGIR); Pavlu & Aslam 2007 (a practical sampling "
        "strategy for efficient retrieval evaluation); Hájek 1964 (Poisson sampling)",
        params=_rate_and_size("expected "),
    )
)


def ap_prior(rank: np.ndarray, depth: int) -> np.ndarray:
    r"""The AP-prior weight of rank ``rank`` in a list of ``depth``:
    :math:`\frac1{2N}\bigl(1 + \sum_{i=r}^{N} 1/i\bigr)` (Aslam, Pavlu & Savell 2003;
    Aslam, Pavlu & Yilmaz 2006); it sums to 1 over the ranks 1..N."""
    harmonic = np.r_[0.0, np.cumsum(1.0 / np.arange(1, depth + 1))]
    tail = harmonic[depth] - harmonic[np.asarray(rank) - 1]
    return (1.0 + tail) / (2.0 * depth)


@dataclass(frozen=True)
class SampledPool:
    """Every pooled pair (``table``: ``query_id``, ``doc_id``, sorted as the pool) with
    its ``stratum``, inclusion ``probability`` and whether it was ``sampled``."""

    table: object
    stratum: np.ndarray
    probability: np.ndarray
    sampled: np.ndarray
    design: str

    def frame_bytes(self) -> bytes:
        """The sampling frame: ``topic docno stratum probability sampled`` lines."""
        import io

        import pyarrow as pa

        from ..core.io import trec

        t = self.table
        trec.check_writable_ids(t, "the pool")
        cols = [
            t["query_id"],
            t["doc_id"],
            pa.array(self.stratum.astype(str)),
            pa.array(self.probability, pa.float64()).cast(pa.string()),  # shortest round trip
            pa.array(self.sampled.astype(np.int64).astype(str)),
        ]
        sink = io.BytesIO()
        if len(t):
            trec.write(t, sink, cols)
        return sink.getvalue()

    def to_judge(self, format: str = "pairs") -> bytes:
        """The drawn pairs, as :meth:`cranfield.pooling.Pool.to_bytes` writes a pool."""
        from .pool import Pool

        return Pool(self.table.filter(self.sampled), self.design).to_bytes(format)


def sample_pool(runs, pool, design: str, seed: int = 0, **params) -> SampledPool:
    """Draw the pairs to judge from ``pool`` (:func:`~cranfield.pooling.build_pool`'s
    result for ``runs``) by the design named ``design`` (:data:`SAMPLE_DESIGNS`) with its
    parameters, from a generator seeded with ``seed``."""
    from .candidates import collect, pair_keys
    from .pool import as_runs

    definition = SAMPLE_DESIGNS.lookup(design)
    resolved = definition.resolve(params)
    cands = collect(as_runs(runs))
    keys, _ = pair_keys(cands, pool.table["query_id"], pool.table["doc_id"])
    in_pool = np.isin(cands.key, keys)
    ckey, crank = cands.key[in_pool], cands.rank[in_pool]
    depth = int(crank.max()) if len(crank) else 1
    position = np.searchsorted(keys, ckey)  # pool keys are sorted (topic, then doc)
    best = np.full(len(keys), np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(best, position, crank)
    prior = np.bincount(position, weights=ap_prior(crank, depth), minlength=len(keys))
    n_docs = np.int64(max(len(cands.docs), 1))
    _, topic = np.unique(keys // n_docs, return_inverse=True)
    rng = np.random.default_rng(seed)
    stratum, probability, sampled = definition.behaviour(
        topic.ravel(), best, prior, rng, **resolved
    )
    return SampledPool(pool.table, stratum, probability, sampled, definition.name)


def read_frame(path) -> tuple:
    """A sampling frame's columns: topic, docno and stratum (Arrow string arrays),
    probability (float64) and sampled (bool), read as whole arrays
    (:func:`~cranfield.core.sampled.split_fields`); :class:`InputError` with the line of
    the first problem."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from ..core.sampled import field_columns, split_fields

    name, counts, tokens = split_fields(path)
    bad = np.flatnonzero((counts > 0) & (counts != 5))
    number, (topic, doc, stratum, prob, flag) = field_columns(tokens, counts, 5)
    try:
        p = pc.cast(prob, pa.float64()).to_numpy(zero_copy_only=False)
    except pa.ArrowInvalid:  # (an error path: the line of the first that does not read)
        p = np.array([_float_or_nan(x) for x in prob.to_pylist()], dtype=np.float64)
    sampled = pc.equal(flag, "1").to_numpy(zero_copy_only=False)
    wrong = np.flatnonzero(
        ~((p > 0) & (p <= 1)) | ~(sampled | pc.equal(flag, "0").to_numpy(zero_copy_only=False))
    )
    first_bad = int(bad[0]) + 1 if len(bad) else None
    first_wrong = int(number[wrong[0]]) if len(wrong) else None
    if first_bad is not None and (first_wrong is None or first_bad < first_wrong):
        raise InputError(
            "expected 5 fields 'topic docno stratum probability sampled' "
            f"(cranfield pool --sample's frame), got {counts[bad[0]]}",
            name,
            first_bad,
        )
    if first_wrong is not None:
        raise InputError(
            "the probability must be in (0, 1] and 'sampled' 0 or 1", name, first_wrong
        )
    if not len(topic):
        raise InputError("the sampling frame is empty", name)
    return topic, doc, stratum, p, sampled


def _float_or_nan(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return math.nan


def join_judgments(frame, qrels, probabilities: bool = False) -> bytes:
    """TREC's sampled qrels from a sampling frame (a path) and the judgments of its
    drawn pairs (a :class:`~cranfield.Qrels` or path): ``topic 0 docno stratum grade``
    lines, ``-1`` for the pairs not drawn; with ``probabilities``, the inclusion
    probability as a sixth column. A drawn pair without a judgment is refused."""
    import io

    import pyarrow as pa
    import pyarrow.compute as pc

    from ..core.io import trec
    from ..core.qrels import Qrels

    topic, doc, stratum, prob, sampled = read_frame(frame)
    qrels = qrels if isinstance(qrels, Qrels) else Qrels.read(str(qrels))
    q = qrels.table
    judged = pc.greater_equal(q["relevance"], 0)  # a negative grade: pooled, not judged
    q = q.filter(judged)

    def pair(a, b):
        return pc.binary_join_element_wise(a.cast(pa.string()), b.cast(pa.string()), "\x00")

    joined_keys = pair(q["query_id"].combine_chunks(), q["doc_id"].combine_chunks())
    frame_keys = pair(topic, doc)
    at = pc.index_in(frame_keys, value_set=joined_keys)
    drawn = np.asarray(sampled, dtype=bool)
    found = np.asarray(pc.is_valid(at).to_numpy(zero_copy_only=False), dtype=bool)
    missing = np.flatnonzero(drawn & ~found)
    if len(missing):
        i = int(missing[0])
        raise InputError(
            f"{len(missing)} drawn pair(s) have no judgment, e.g. topic {topic[i].as_py()} "
            f"document {doc[i].as_py()}",
            getattr(qrels, "source", None),
        )
    grades = q["relevance"].to_numpy(zero_copy_only=False).astype(np.int64)
    index = np.asarray(at.fill_null(0).to_numpy(zero_copy_only=False), dtype=np.int64)
    grade = np.where(drawn, grades[index] if len(grades) else -1, -1)
    cols = [topic, "0", doc, stratum, pa.array(grade.astype(str))]
    if probabilities:
        cols.append(pa.array(prob, pa.float64()).cast(pa.string()))
    sink = io.BytesIO()
    trec.write(pa.table({"query_id": topic}), sink, cols)
    return sink.getvalue()
