r"""Estimates from a stratified sample of judgments, as TREC's ``sample_eval.pl`` computes
them: inferred AP (xinfAP), inferred nDCG (infNDCG), inferred precision at 10, 50 and
1000, the estimated number of relevant documents (retrieved), and the interpolated
precision at 11 recall levels.

Yilmaz, Kanoulas & Aslam (2008, "A simple and efficient sampling method for estimating
AP and NDCG", SIGIR) pool the runs, split the pool into strata (e.g. by depth) and judge
a random sample of each stratum at its own rate. The sampled qrels have five columns,
``topic iteration docno stratum relevance``: every pooled document is listed with its
stratum, its grade when it was judged, ``-1`` when it was pooled but not sampled.

Per topic and stratum :math:`s`: :math:`D_s` pooled documents, :math:`n_s` sampled,
:math:`r_s` sampled relevant. The number of relevant documents is estimated as
:math:`\hat R = \sum_s r_s D_s / n_s`; at a relevant retrieved document at rank
:math:`k`, with :math:`d` pooled documents above it, of which :math:`d_s` in stratum
:math:`s` (:math:`m_s` sampled, :math:`v_s` of them relevant),

.. math:: \hat P_k = \frac1k + \frac dk \sum_s \frac{d_s}{d}\,
          \frac{v_s + 10^{-5}}{m_s + 3\cdot 10^{-5}}

(the smoothing constants are sample_eval's); xinfAP is
:math:`\sum_s \frac{\hat R_s}{\hat R}\,\frac{1}{r_s}\sum_{k \in s} \hat P_k`, infNDCG the
stratified estimate of DCG (gain/log2(k+1), each stratum's sampled gains scaled by its
share of the pooled documents retrieved) over the ideal DCG of the estimated number of
documents of each grade (rounded to the nearest integer). sample_eval's conventions,
followed exactly: run topics in numeric order, documents by score descending, ties by
docno descending; the first 1000 documents of each topic; strata and grades in the
string order of their labels (the order of the floating-point sums); the mean over the
run's topics the qrels have; ``inum_rel all`` summed over every qrels topic.

Where cranfield differs, it refuses what sample_eval would read wrongly: a line without
five fields, a relevance that is not an integer, a document listed twice for a topic,
a duplicate document in a run (sample_eval keeps the last score silently); and topic ids
are compared with leading zeros removed on both sides (sample_eval removes them from the
run's ids only, so a qrels topic ``051`` never matches).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .._lazy import lazy
from ..errors import InputError

np = lazy("numpy", __name__, "np")

#: sample_eval's largest result list per topic (``$maxResultSize``)
MAX_RESULTS = 1000
#: the ranks of the inferred precisions (``@precisionranks``)
PRECISION_RANKS = (10, 50, MAX_RESULTS)
_SMOOTH_RELEVANT, _SMOOTH_SAMPLED = 0.00001, 0.00003


def _topic_key(topic: str) -> str:
    stripped = topic.lstrip("0")
    return stripped


@dataclass
class SampledTopic:
    """One topic's sampled qrels: per pooled document its stratum and relevance
    (``-1``: pooled, not sampled) and the relevance's text (its grade label)."""

    docs: dict[str, tuple[str, int, str]] = field(default_factory=dict)
    #: the inclusion probability of every pooled document (six-column files only)
    probability: dict[str, float] = field(default_factory=dict)


def read_sampled_qrels(path) -> dict[str, SampledTopic]:
    """Sampled qrels (``topic iteration docno stratum relevance``), by topic (leading
    zeros of the topic removed); :class:`InputError` with the line of a problem.

    Every line may carry a sixth field, the document's inclusion probability in (0, 1]
    (``cranfield pool sampled --probabilities``: what statAP needs); then all lines do.
    The file is split and checked as whole Arrow arrays (fields by
    ``utf8_split_whitespace``, grades and probabilities by one cast each); only the
    line of a problem is looked for element by element."""
    import pyarrow as pa
    import pyarrow.compute as pc

    name, counts, tokens = split_fields(path)
    filled = np.flatnonzero(counts > 0)
    if not len(filled):
        raise InputError("the sampled qrels are empty", name)
    width = 6 if counts[filled[0]] == 6 else 5
    problems = []  # (line, order, message): the first line's problem is raised
    bad = filled[counts[filled] != width]
    if len(bad):
        problems.append(
            (
                int(bad[0]) + 1,
                0,
                f"expected {width} fields 'topic iteration docno stratum relevance"
                f"{' probability' if width == 6 else ''}', got {counts[bad[0]]}",
            )
        )
    number, column = field_columns(tokens, counts, width)
    topic, doc, stratum, rel = column[0], column[2], column[3], column[4]
    grade, wrong = _parsed(rel, pa.int64(), int)
    if wrong is not None:
        problems.append((int(number[wrong]), 1, _not_integer(rel[wrong].as_py())))
    key = pc.utf8_ltrim(topic, characters="0")
    again = _repeated(key, doc)
    if again is not None:
        message = (
            f"document {doc[again].as_py()!r} is listed twice for topic {topic[again].as_py()}"
        )
        problems.append((int(number[again]), 2, message))
    probability = None
    if width == 6:
        probability, _ = _parsed(column[5], pa.float64(), float)
        outside = np.flatnonzero(~((probability > 0) & (probability <= 1)))
        if len(outside):
            i = int(outside[0])
            problems.append((int(number[i]), 3, _not_probability(column[5][i].as_py())))
    if problems:
        line, _, message = min(problems)
        raise InputError(message, name, line)
    return _by_topic(key, doc, stratum, grade, rel, probability)


def split_fields(path) -> tuple:
    """A whitespace-separated text file as whole Arrow arrays: ``(source name, number of
    fields of each line (0: blank), the fields of each line as a list array)``
    (``utf8_split_whitespace`` of the trimmed lines: what ``str.split()`` gives)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from .io.source import read_bytes, source_name

    name = source_name(str(path))
    text = read_bytes(str(path), name).decode("utf-8", "replace")
    lines = pc.utf8_trim_whitespace(pa.array(text.splitlines(), pa.string()))
    tokens = pc.utf8_split_whitespace(lines)
    counts = pc.list_value_length(tokens).to_numpy(zero_copy_only=False).copy()
    counts[pc.utf8_length(lines).to_numpy(zero_copy_only=False) == 0] = 0  # blank lines
    return name, counts, tokens


def field_columns(tokens, counts: np.ndarray, width: int) -> tuple:
    """``(line number of each row, [column 0, column 1, ...])`` of the lines of
    :func:`split_fields` that have ``width`` fields, the columns as Arrow string arrays."""
    import pyarrow as pa
    import pyarrow.compute as pc

    rows = np.flatnonzero(counts == width)
    flat = pc.list_flatten(tokens.filter(pa.array(counts == width)))
    column = [pc.take(flat, pa.array(np.arange(i, len(flat), width))) for i in range(width)]
    return rows + 1, column


def _not_integer(text: str) -> str:
    return f"the relevance is not an integer (-1: pooled, not judged): {text!r}"


def _not_probability(text: str) -> str:
    return f"the inclusion probability is not in (0, 1]: {text!r}"


def _parsed(texts, kind, parse) -> tuple:
    """``(values, index of the first text that does not read, or None)``: ``texts``
    cast to ``kind`` as one array; where Arrow refuses, the values as Python's
    ``parse`` reads them (``int``/``float``: what the reader always accepted; a float
    that does not read is NaN, refused by the range check)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        return pc.cast(texts, kind).to_numpy(zero_copy_only=False), None
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    out, first = [], None
    for i, text in enumerate(texts.to_pylist()):  # (an error path, or Python-only forms)
        try:
            out.append(parse(text))
        except ValueError:
            out.append(math.nan if parse is float else 0)
            first = i if first is None and parse is not float else first
    return np.asarray(out, dtype=np.float64 if parse is float else np.int64), first


def _codes(values) -> tuple:
    """``(codes, distinct values)`` of an Arrow string array, numbered in order of first
    appearance (``dictionary_encode``: hashing, no sort of the strings)."""
    import pyarrow.compute as pc

    encoded = pc.dictionary_encode(values)
    return encoded.indices.to_numpy(zero_copy_only=False), encoded.dictionary


def _repeated(key, doc) -> int | None:
    """The first row that lists a (topic, document) again, or None: with codes in order
    of first appearance, a row repeats one above it when its code is not above every
    code before it."""
    import pyarrow.compute as pc

    if not len(key):
        return None
    code, _ = _codes(pc.binary_join_element_wise(key, doc, "\x00"))
    seen = np.maximum.accumulate(np.r_[-1, code[:-1]])
    again = np.flatnonzero(code <= seen)
    return int(again[0]) if len(again) else None


def _by_topic(key, doc, stratum, grade, rel, probability) -> dict[str, SampledTopic]:
    """The rows grouped by topic (topics in order of first appearance, documents in the
    file's order: the order of statAP's sums)."""
    code, names = _codes(key)
    docs = doc.to_pylist()
    entries = list(zip(stratum.to_pylist(), grade.tolist(), rel.to_pylist(), strict=True))
    order = np.argsort(code, kind="stable")
    bounds = np.searchsorted(code[order], np.arange(len(names) + 1))
    p = probability.tolist() if probability is not None else None
    topics = {}
    for t, name in enumerate(names.to_pylist()):  # one dict per topic
        rows = order[bounds[t] : bounds[t + 1]].tolist()
        entry = SampledTopic({docs[i]: entries[i] for i in rows})
        if p is not None:
            entry.probability = {docs[i]: p[i] for i in rows}
        topics[name] = entry
    return topics


@dataclass(frozen=True)
class TopicEstimate:
    """sample_eval's values of one topic."""

    topic: str
    inf_ap: float
    inf_ndcg: float
    precision: tuple[float, ...]  # at PRECISION_RANKS
    num_rel_ret: float
    num_rel: float
    num_ret: int
    retrieved: int  # documents evaluated (at most MAX_RESULTS)
    interpolated: tuple[float, ...]  # at recall 0.0, 0.1, ..., 1.0


def _stratum_totals(topic: SampledTopic) -> tuple[list[str], dict, dict, dict, dict]:
    strata = sorted({s for s, _, _ in topic.docs.values()})
    pooled = dict.fromkeys(strata, 0)
    sampled = dict.fromkeys(strata, 0)
    relevant = dict.fromkeys(strata, 0)
    by_grade: dict[str, dict[str, int]] = {s: {} for s in strata}
    for stratum, grade, label in topic.docs.values():
        pooled[stratum] += 1
        if grade >= 0:
            sampled[stratum] += 1
        if grade > 0:
            relevant[stratum] += 1
            by_grade[stratum][label] = by_grade[stratum].get(label, 0) + 1
    return strata, pooled, sampled, relevant, by_grade


def estimated_relevant(topic: SampledTopic) -> float:
    """:math:`\\hat R = \\sum_s r_s D_s / n_s` (strata in label order)."""
    strata, pooled, sampled, relevant, _ = _stratum_totals(topic)
    total = 0
    for s in strata:
        if sampled[s] != 0:
            total += relevant[s] * pooled[s] / sampled[s]
    return total


def _ideal_dcg(topic: SampledTopic) -> float:
    strata, pooled, sampled, _, by_grade = _stratum_totals(topic)
    per_grade: dict[str, float] = {}
    for s in strata:
        for label in sorted(by_grade[s]):
            per_grade[label] = per_grade.get(label, 0) + by_grade[s][label] * pooled[s] / sampled[s]
    ideal, start = 0.0, 0
    for label in sorted(per_grade, reverse=True):
        count = int(per_grade[label] + 0.5)
        gain = float(label)
        for r in range(start + 1, start + count + 1):  # a few hundred terms at most
            ideal += gain / (math.log(r + 1) / math.log(2))
            if r >= MAX_RESULTS:
                break
        start += count
    return ideal


def _discounts(n: int) -> np.ndarray:
    """log2(k + 1) for k = 1..n, from the C library's log (as Perl's)."""
    return np.array([math.log(k + 1) / math.log(2) for k in range(1, n + 1)])


def estimate_topic(
    topic_id: str, topic: SampledTopic, ranked: list[str], num_ret: int
) -> TopicEstimate:
    """sample_eval's estimates for one topic: ``ranked`` the run's documents in
    sample_eval's order (score descending, docno descending), ``num_ret`` its lines."""
    strata, pooled_total, sampled_total, relevant_total, _ = _stratum_totals(topic)
    num_rel = estimated_relevant(topic)
    docs = ranked[:MAX_RESULTS]
    n = len(docs)
    code = {s: i for i, s in enumerate(strata)}
    info = [topic.docs.get(d) for d in docs]
    in_pool = np.array([x is not None for x in info], dtype=bool)
    grade = np.array([x[1] if x is not None else -1 for x in info], dtype=np.int64)
    stratum = np.array([code[x[0]] if x is not None else -1 for x in info], dtype=np.int64)
    rank = np.arange(1, n + 1, dtype=np.float64)
    relevant = grade > 0
    depth_after = np.cumsum(in_pool)  # pooled documents up to and including each rank
    depth_before = (depth_after - in_pool).astype(np.float64)
    after, before = [], []  # per stratum: (pooled, sampled, relevant) counts
    for i in range(len(strata)):
        mine = stratum == i
        counts = [
            np.cumsum(mine & in_pool),
            np.cumsum(mine & (grade >= 0)),
            np.cumsum(mine & relevant),
        ]
        after.append([c.astype(np.float64) for c in counts])
        step = [mine & in_pool, mine & (grade >= 0), mine & relevant]
        before.append([(c - s).astype(np.float64) for c, s in zip(counts, step, strict=True)])
    # the precision above each relevant document, stratum by stratum in label order
    above = np.zeros(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        for pooled_, sampled_, relevant_ in before:
            prob = pooled_ / depth_before
            term = prob * (relevant_ + _SMOOTH_RELEVANT) / (sampled_ + _SMOOTH_SAMPLED)
            above = above + np.where((depth_before != 0) & (prob != 0), term, 0.0)
    precision_at = 1 / rank + (depth_before / rank) * above
    discount = _discounts(n)
    gains = np.where(relevant, grade / np.where(relevant, discount, 1.0), 0.0)
    # estimated relevant retrieved up to each rank (inclusive)
    rel_ret = np.zeros(n)
    for pooled_, sampled_, relevant_ in after:
        rel_ret = rel_ret + pooled_ * (relevant_ + _SMOOTH_RELEVANT) / (sampled_ + _SMOOTH_SAMPLED)
    num_rel_ret = float(rel_ret[-1]) if n else 0.0
    precision = tuple(
        float(rel_ret[c - 1]) / c if c <= n else num_rel_ret / c for c in PRECISION_RANKS
    )
    ap = 0.0
    depth = float(depth_after[-1]) if n else 0.0
    dcg = 0.0
    for i, s in enumerate(strata):
        mine = (stratum == i) & relevant
        sap = float(np.cumsum(np.where(mine, precision_at, 0.0))[-1]) if n else 0.0
        gain = float(np.cumsum(np.where(mine, gains, 0.0))[-1]) if n else 0.0
        if sampled_total[s] != 0:
            estimate = relevant_total[s] * pooled_total[s] / sampled_total[s]
            if num_rel != 0:
                share = estimate / num_rel
                within = sap / relevant_total[s] if relevant_total[s] != 0 else 0
                ap += share * within
        if depth != 0:
            share = (float(after[i][0][-1]) if n else 0.0) / depth
            sampled_here = float(after[i][1][-1]) if n else 0.0
            if sampled_here != 0:
                dcg += share * gain / sampled_here
    ideal = _ideal_dcg(topic)
    ndcg = depth * dcg / ideal if ideal != 0 else 0.0
    return TopicEstimate(
        topic_id,
        ap,
        ndcg,
        precision,
        num_rel_ret,
        num_rel,
        num_ret,
        n,
        _interpolated(rel_ret, num_rel, num_rel_ret),
    )


def jackknife_variances(
    topic_id: str, topic: SampledTopic, ranked: list[str], num_ret: int
) -> tuple[float, float]:
    r"""Variances of one topic's xinfAP and infNDCG (:func:`estimate_topic`) over the
    draw of the stratified sample: the stratified delete-one jackknife (Wolter 2007,
    *Introduction to Variance Estimation*, §4.5; Särndal, Swensson & Wretman 1992,
    §11.5), with each stratum's finite population correction,

    .. math:: \hat V = \sum_s \Bigl(1 - \frac{n_s}{D_s}\Bigr) \frac{n_s - 1}{n_s}
              \sum_{j \in S_s} \bigl(\hat\theta_{(sj)} - \bar\theta_{(s)}\bigr)^2

    :math:`\hat\theta_{(sj)}` the estimate with the sampled document :math:`j` of
    stratum :math:`s` treated as pooled and not sampled, :math:`\bar\theta_{(s)}` their
    mean over :math:`j`. A stratum with fewer than two sampled documents, or judged
    whole, adds 0. Yilmaz, Kanoulas & Aslam (2008) derive the estimator's variance
    analytically; this is the design-based resampling estimate of the same quantity
    (coverage measured in docs/sampling.md). One :func:`estimate_topic` per sampled
    document: the cost of ``--ci``."""
    strata, pooled, sampled, _, _ = _stratum_totals(topic)
    var_ap = var_ndcg = 0.0
    for s in strata:
        n, total = sampled[s], pooled[s]
        if n < 2 or n == total:
            continue
        members = [d for d, (st, g, _) in topic.docs.items() if st == s and g >= 0]
        replicates = []
        for d in members:  # (one re-estimate per sampled document of the stratum)
            docs = dict(topic.docs)
            docs[d] = (s, -1, "-1")
            e = estimate_topic(topic_id, SampledTopic(docs), ranked, num_ret)
            replicates.append((e.inf_ap, e.inf_ndcg))
        r = np.asarray(replicates, dtype=np.float64)
        spread = ((r - r.mean(axis=0)) ** 2).sum(axis=0)
        scale = (1 - n / total) * (n - 1) / n
        var_ap += scale * float(spread[0])
        var_ndcg += scale * float(spread[1])
    return var_ap, var_ndcg


def _interpolated(rel_ret: np.ndarray, num_rel: float, num_rel_ret: float) -> tuple[float, ...]:
    """sample_eval's interpolated precision at recall 0, 0.1, ..., 1 of one topic: the
    ranks from the deepest up, each lowering the recall level by at most one."""
    levels = [c * num_rel for c in (0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1)]
    out = [0.0] * 11
    current = 10
    while current >= 0 and levels[current] > num_rel_ret:
        current -= 1
    best = 0.0
    precision = rel_ret / np.arange(1, len(rel_ret) + 1)
    for k in range(len(rel_ret) - 1, -1, -1):  # one pass over at most 1000 ranks
        if best < precision[k]:
            best = float(precision[k])
        if current >= 0 and levels[current] > rel_ret[k]:
            out[current] += best
            current -= 1
    while current >= 0:
        out[current] += best
        current -= 1
    return tuple(out)


@dataclass(frozen=True)
class SampledEvaluation:
    """sample_eval's estimates of one run: ``topics`` in its order (numeric), and the
    ``num_rel`` of every qrels topic (its ``inum_rel all`` sums them all)."""

    topics: list[TopicEstimate]
    qrels_num_rel: dict[str, float]
    #: statAP and statPC@10 of the same topics (``evaluate_sampled(statap=True)``)
    stat: list | None = None
    #: (xinfAP, infNDCG) variances of the same topics (``evaluate_sampled(variances=True)``:
    #: :func:`jackknife_variances`)
    variances: list | None = None


def _topic_order(ids: list[str]) -> list[str]:
    """sample_eval's order of the run's topics: numeric (ids that are not numbers after
    them, in text order)."""

    def key(t: str):
        try:
            return (0, float(t), t)
        except ValueError:
            return (1, 0.0, t)

    return sorted(ids, key=key)


def ranked_by_topic(table) -> dict[str, tuple[list[str], int]]:
    """A run's documents by topic (leading zeros of the topic removed) in sample_eval's
    order, score descending then docno descending, with the topic's number of lines:
    ``{topic: (docnos, lines)}``, from the run's Arrow table (one sort of the whole run)."""
    qid = np.asarray(table["query_id"].to_pylist(), dtype=object)
    doc = np.asarray(table["doc_id"].to_pylist(), dtype=object)
    score = table["score"].to_numpy(zero_copy_only=False).astype(np.float64)
    if not len(qid):
        return {}
    names = np.array([_topic_key(q) for q in qid], dtype=object)
    _, doc_code = np.unique(doc, return_inverse=True)
    topic_names, topic_code = np.unique(names, return_inverse=True)
    order = np.lexsort((-doc_code, -score, topic_code))
    code, doc = topic_code[order], doc[order]
    starts = np.flatnonzero(np.r_[True, code[1:] != code[:-1]])
    ends = np.r_[starts[1:], len(code)]
    return {
        topic_names[code[a]]: (doc[a:b].tolist(), int(b - a))
        for a, b in zip(starts, ends, strict=True)
    }


def evaluate_sampled(
    qrels, run, statap: bool = False, variances: bool = False
) -> SampledEvaluation:
    """sample_eval's estimates of the run at path ``run`` against the sampled qrels
    (a path, or :func:`read_sampled_qrels`' result); with ``statap``, also statAP and
    statPC@10 (:mod:`cranfield.core.statap`; the qrels need probabilities); with
    ``variances``, xinfAP's and infNDCG's per-topic variances (:func:`jackknife_variances`)."""
    from .run import Run

    topics = read_sampled_qrels(qrels) if not isinstance(qrels, dict) else qrels
    by_topic = ranked_by_topic(Run.read(str(run)).table)
    order = [t for t in _topic_order(list(by_topic)) if t in topics]
    estimates = [estimate_topic(t, topics[t], *by_topic[t]) for t in order]
    if not estimates:
        raise InputError("no topic of the run is in the sampled qrels", str(run))
    stat = None
    if statap:
        from .statap import estimate_statap

        if not all(topics[t].probability for t in topics):
            raise InputError(
                "statAP needs the inclusion probabilities: six-column sampled qrels "
                "('cranfield pool sampled --probabilities')",
                qrels if isinstance(qrels, str) else None,
            )
        stat = [estimate_statap(t, topics[t], by_topic[t][0]) for t in order]
    num_rel = {t: estimated_relevant(topics[t]) for t in sorted(topics)}
    jack = None
    if variances:
        jack = [jackknife_variances(t, topics[t], *by_topic[t]) for t in order]
    return SampledEvaluation(estimates, num_rel, stat, jack)


def sample_eval_text(result: SampledEvaluation, per_topic: bool = False) -> str:
    """sample_eval's output (``-q``: each topic's lines first), byte for byte."""
    lines = []
    topics = result.topics
    if per_topic:
        for e in topics:
            lines.append(f"infAP\t\t{e.topic}\t\t{e.inf_ap:6.4f}")
            lines.append(f"infNDCG\t\t{e.topic}\t\t{e.inf_ndcg:6.4f}")
            for cutoff, p in zip(PRECISION_RANKS, e.precision, strict=True):
                lines.append(f"iP{cutoff}\t\t{e.topic}\t\t{p:6.4f}")
            lines.append(f"inum_rel_ret\t{e.topic}\t{e.num_rel_ret:14.4f}")
            lines.append(f"inum_rel\t{e.topic}\t{e.num_rel:14.4f}")
            lines.append(f"num_ret\t\t{e.topic}\t{e.num_ret:9d}")
    n = len(topics)

    def total(values) -> float:
        s = 0
        for v in values:  # in sample_eval's order: the floating-point sum it makes
            s += v
        return s

    lines.append(f"infAP\t\tall\t\t{total(e.inf_ap for e in topics) / n:6.4f}")
    lines.append(f"infNDCG\t\tall\t\t{total(e.inf_ndcg for e in topics) / n:6.4f}")
    by_text = sorted(topics, key=lambda e: e.topic)  # its interpolation loop's order
    for i in range(11):
        value = total(e.interpolated[i] for e in by_text) / n
        lines.append(f"iprec@rec{i / 10:4.2f}\tall\t\t{value:6.4f}")
    for j, cutoff in enumerate(PRECISION_RANKS):
        lines.append(f"iP{cutoff}\t\tall\t\t{total(e.precision[j] for e in topics) / n:6.4f}")
    lines.append(f"inum_rel_ret\tall\t{total(e.num_rel_ret for e in topics):14.4f}")
    lines.append(f"inum_rel\tall\t{total(result.qrels_num_rel.values()):14.4f}")
    lines.append(f"num_ret\t\tall\t{sum(e.retrieved for e in topics):9d}")
    return "\n".join(lines) + "\n"
