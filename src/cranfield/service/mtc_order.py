r"""The assessors' queues in the order of minimal test collections (MTC).

Carterette, Allan & Sitaraman (2006), "Minimal test collections for retrieval
evaluation", SIGIR, section 4; Carterette (2007), "Robust test collections for
retrieval evaluation", SIGIR. The coordinator states a question — a measure (AP, P@k or
DCG@k) and two named runs, or all the campaign's runs — about the measure's MEAN over
the campaign's topics (MAP for AP), and each assessor's next pair is the one the
library's weights choose (:class:`cranfield.pooling.mtc.MapJudging`) given the
judgments so far, until the question is decided.

The state is :class:`~cranfield.pooling.mtc.MapJudging` over every topic:

* per topic, the documents are those of each run's longest prefix of pooled documents
  (what people can judge; with a depth-:math:`k` pool, the top :math:`k` of every run:
  then it is :func:`cranfield.pooling.mtc_order.build_state` of the run files cut at
  :math:`k`), indexed in document id order (ties between weights fall by topic, then
  document id, never by a rank); the judgments are the exported (aggregated) labels
  (:func:`cranfield.service.exports.qrels_labels`; above 0 is relevant), a relevant
  pooled document outside the runs' prefixes counting in :math:`R_t`;
* each run pair's difference of means is :math:`\Delta_{ab} = \frac1T \sum_t
  S^t_{ab}/R_t` and the probability that its sign changes once everything is judged is
  :math:`\Phi(-|E[\Delta]| / \sqrt{Var[\Delta]})`, unjudged documents relevant with
  probability 0.5; a pair is decided below the threshold (0.05 by default) or when
  every document is judged (the difference is then exact, a tie included); the question
  is decided when every pair is, and judging may stop;
* the next (topic, document) is the unjudged one of largest :math:`\sum_{ab\
  \mathrm{open}} |w^t_{ab,i}| / R_t` (:meth:`~cranfield.pooling.mtc.MapJudging.scores`).

An assessor is served, among the unjudged pairs of their own queue not set aside (the
topics :func:`cranfield.service.pooling.assign` gave them: assignment and blindness
are kept), the pair of largest weight; a pair another assessor already judged has its
label and weighs nothing (with ``per_topic`` above 1 the overlap copies come, in the
blind order, once the question is decided). When the question is decided, or the
queue holds no pair that weighs, the rest of the queue comes in the blind order
(flagged ``decided`` in the first case).

The state is cached per campaign (:func:`question`) under the runs and pool and the
judgments' key (:func:`_judgment_key`: one statement; any save changes it, so every
worker process notices); new judgments of unjudged documents are recorded in place
(one topic's update each), anything else rebuilds it. Its size is bounded at
:func:`choose` (:data:`MAX_CELLS` and :data:`cranfield.pooling.mtc.MAX_CELLS`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ParameterError

#: the default threshold on the probability that a decision changes
DEFAULT_THRESHOLD = 0.05
#: the relevance probability of an unjudged document
PRIOR = 0.5
#: the bound on (run pairs) x (documents of a topic)^2: the coefficients of one topic
#: held at once (32 MB of doubles)
MAX_CELLS = 4_000_000

_MEASURE = re.compile(r"^(AP|MAP|P@(\d{1,6})|DCG@(\d{1,6}))$", re.IGNORECASE)


def parse_measure(text: str) -> tuple[str, int]:
    """``"AP"`` -> ``("ap", 0)``, ``"P@10"`` -> ``("p", 10)``, ``"DCG@5"`` -> ``("dcg", 5)``
    (the measures of :func:`cranfield.pooling.mtc.coefficients`)."""
    m = _MEASURE.match(str(text).strip())
    k = int(m.group(2) or m.group(3) or 0) if m else 0
    if m is None or (m.group(1).upper() not in ("AP", "MAP") and not 1 <= k <= 10_000):
        raise ParameterError("measure", "AP, P@k or DCG@k (k from 1 to 10000)", text)
    head = m.group(1).upper()
    return ("ap", 0) if head in ("AP", "MAP") else ("p" if head.startswith("P") else "dcg", k)


def check_threshold(threshold) -> float:
    """The threshold: a number in (0, 0.5)."""
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
        raise ParameterError("threshold", "a number in (0, 0.5)", threshold)
    if not 0 < threshold < 0.5:
        raise ParameterError("threshold", "a number in (0, 0.5)", threshold)
    return float(threshold)


@dataclass(frozen=True)
class TopicRuns:
    """One topic: its documents (id order) and each run's ranking as indices into them."""

    docs: tuple[str, ...]
    runs: tuple[np.ndarray, ...]


def run_pairs(names: list[str]) -> list[tuple[str, str]]:
    """The pairs of runs in :func:`itertools.combinations` order (as :func:`rank_runs`)."""
    return [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]


def topic_runs(runs, pooled: set[tuple[str, str]]) -> dict[str, TopicRuns]:
    """Per topic, each run truncated at its longest prefix of ``pooled`` documents, the
    union of those prefixes in document id order and each prefix as indices into it."""
    import pyarrow as pa
    import pyarrow.compute as pc

    keys = pa.array(sorted(q + "\x00" + d for q, d in pooled), pa.string())
    prefixes: list[dict[str, np.ndarray]] = []
    for run in runs:
        t = run.ranked()
        q = t["query_id"].combine_chunks()
        d = t["doc_id"].combine_chunks()
        inside = np.asarray(
            pc.is_in(pc.binary_join_element_wise(q, d, "\x00"), value_set=keys), bool
        )
        qs = np.asarray(q.to_pylist(), dtype=object)
        ds = np.asarray(d.to_pylist(), dtype=object)
        n = len(qs)
        per: dict[str, np.ndarray] = {}
        if n:
            starts = np.flatnonzero(np.r_[True, qs[1:] != qs[:-1]])
            pos = np.arange(n)
            first_out = np.minimum.reduceat(np.where(inside, n, pos), starts)
            ends = np.minimum(first_out, np.r_[starts[1:], n])
            for s, e in zip(starts.tolist(), ends.tolist(), strict=True):
                per[str(qs[s])] = ds[s:e]
        prefixes.append(per)
    out: dict[str, TopicRuns] = {}
    for topic in sorted({t for per in prefixes for t in per}):
        ranked = [per.get(topic, np.array([], dtype=object)) for per in prefixes]
        docs = np.unique(np.concatenate(ranked)) if any(len(r) for r in ranked) else ranked[0]
        if not len(docs):
            continue
        out[topic] = TopicRuns(
            tuple(str(x) for x in docs),
            tuple(np.searchsorted(docs, r).astype(np.int64) for r in ranked),
        )
    return out


# -- the campaign's design --------------------------------------------------------------


def design_of(text: str | None) -> dict | None:
    return None if text is None else json.loads(text)


def choose(
    db, campaign: str, measure: str = "AP", *, runs=None, threshold: float = DEFAULT_THRESHOLD
) -> dict:
    """Judge the campaign in MTC order to decide ``measure`` between two named ``runs``
    (or, with none, the ranking of all the campaign's runs), stopping below ``threshold``.

    Must come after the pool; not with a human sample (its pairs are random, MTC's are
    chosen). Setting it again replaces the question. Nothing is stored unless every
    check passes. Returns ``{"measure", "runs", "threshold", "topics", "documents",
    "pairs"}`` (``documents``: the largest topic's; ``pairs``: the pairs of runs).
    """
    from sqlalchemy import func, select

    from . import campaigns, submissions
    from .models import Pair
    from .problems import Conflict

    name, k = parse_measure(measure)
    threshold = check_threshold(threshold)
    if runs is not None:
        runs = [str(r) for r in runs]
        if len(runs) != 2 or runs[0] == runs[1]:
            raise ParameterError("runs", "two different run names, or none (all runs)", runs)
    with db.read() as s:
        c = campaigns.get(s, campaign)
        cid = c.id
        if c.sample_design is not None:
            raise Conflict(
                f"campaign {campaign!r} has a human sample: its pairs are drawn at random, "
                "an MTC order chooses them"
            )
        if not s.scalar(select(func.count()).select_from(Pair).where(Pair.campaign_id == cid)):
            raise ParameterError("MTC order", "a campaign with a pool (build it first)", campaign)
        rows = submissions.runs_of(s, cid)
        pooled = set(
            map(tuple, s.execute(select(Pair.topic_id, Pair.doc_id).where(Pair.campaign_id == cid)))
        )
    names = [r.name for r in rows]
    if runs is not None:
        missing = [r for r in runs if r not in names]
        if missing:
            raise InputError(f"campaign {campaign!r} has no run named {missing[0]!r}")
        rows = [r for r in rows if r.name in runs]
        rows.sort(key=lambda r: runs.index(r.name))
    if len(rows) < 2:
        raise InputError(f"campaign {campaign!r} has fewer than two runs to compare")
    topics = topic_runs(submissions.load_runs(db, rows), pooled)
    n_pairs = len(rows) * (len(rows) - 1) // 2
    largest = max((len(t.docs) for t in topics.values()), default=0)
    from ..pooling import mtc

    cells = len(topics) * len(rows) * (largest + 1)
    if n_pairs * largest**2 > MAX_CELLS or cells > mtc.MAX_CELLS:
        raise InputError(
            f"{n_pairs} pairs of runs over {len(topics)} topics of up to {largest} documents "
            f"is more than an MTC order computes per request ({MAX_CELLS} coefficients a "
            f"topic, {mtc.MAX_CELLS} cells in all): name two runs or pool less deeply"
        )
    design = {
        "measure": str(measure).strip().upper(),
        "runs": [r.name for r in rows] if runs is not None else None,
        "threshold": threshold,
    }
    if name == "ap":
        design["measure"] = "AP"
    with db.write() as s:
        c = campaigns.get(s, campaign)
        if c.sample_design is not None:
            raise Conflict(f"campaign {campaign!r} has a human sample")
        c.mtc_design = json.dumps(design)
    return {**design, "topics": len(topics), "documents": largest, "pairs": n_pairs}


# -- what the campaign's runs are, cached -----------------------------------------------


def _structure(db, cid: int, design: dict) -> tuple[list[str], dict[str, TopicRuns], tuple]:
    """The design's runs (names), :func:`topic_runs` over the pool and the key they are
    cached under by the database object: the pool's size and the runs' ids (a run or
    pair added later changes it; one Core statement reads the key)."""
    from sqlalchemy import func, select

    from . import submissions
    from .models import Pair, Run

    size = select(func.count()).select_from(Pair).where(Pair.campaign_id == cid).scalar_subquery()
    with db.connection() as s:
        found_runs = s.execute(
            select(Run.id, Run.name, size).where(Run.campaign_id == cid).order_by(Run.name)
        ).all()
    wanted = design["runs"]
    if wanted is not None:
        found_runs = sorted(
            (r for r in found_runs if r[1] in wanted), key=lambda r: wanted.index(r[1])
        )
    key = (cid, tuple(r[0] for r in found_runs), found_runs[0][2] if found_runs else 0)
    cache = db.cache.setdefault("mtc_structure", {})
    found = cache.get(key)
    if found is not None:
        return (*found, key)
    with db.read() as s:
        by_id = {r.id: r for r in submissions.runs_of(s, cid)}
        rows = [by_id[r[0]] for r in found_runs if r[0] in by_id]
        pooled = set(
            map(tuple, s.execute(select(Pair.topic_id, Pair.doc_id).where(Pair.campaign_id == cid)))
        )
    found = ([r.name for r in rows], topic_runs(submissions.load_runs(db, rows), pooled))
    for old in [k for k in cache if k[0] == cid]:
        del cache[old]
    cache[key] = found
    return (*found, key)


_QUEUE = []


def _queue():
    """The assessor's queue in order: pair, topic, document, set aside, own label (one
    statement, built once, bound parameters ``cid`` and ``uid``)."""
    if not _QUEUE:
        from sqlalchemy import and_, bindparam, select

        from .models import Judgment, Pair, Task

        _QUEUE.append(
            select(Task.pair_id, Pair.topic_id, Pair.doc_id, Task.skipped_at, Judgment.label)
            .join(Pair, Pair.id == Task.pair_id)
            .outerjoin(
                Judgment, and_(Judgment.pair_id == Task.pair_id, Judgment.user_id == Task.user_id)
            )
            .where(Task.campaign_id == bindparam("cid"), Task.user_id == bindparam("uid"))
            .order_by(Task.position)
        )
    return _QUEUE[0]


def _judgment_key(db, cid: int) -> tuple:
    """What the exported labels depend on, read in one statement: the last judgment event
    (every save adds one), the number of judgments (a deletion) and the adjudications'
    count and label sum. A new judgment changes it, so any worker process rebuilds."""
    from sqlalchemy import func, select

    from .models import Adjudication, Judgment, JudgmentEvent, Pair

    pairs = select(Pair.id).where(Pair.campaign_id == cid)
    q = select(
        select(func.max(JudgmentEvent.id))
        .where(JudgmentEvent.pair_id.in_(pairs))
        .scalar_subquery(),
        select(func.count())
        .select_from(Judgment)
        .where(Judgment.pair_id.in_(pairs))
        .scalar_subquery(),
        select(func.count())
        .select_from(Adjudication)
        .where(Adjudication.pair_id.in_(pairs))
        .scalar_subquery(),
        select(func.sum(Adjudication.label))
        .where(Adjudication.pair_id.in_(pairs))
        .scalar_subquery(),
    )
    with db.connection() as s:
        return tuple(s.execute(q).one())


@dataclass
class _Question:
    """The campaign's question over all topics: the design's run names, the topics (id
    order), each topic's documents and the :class:`~cranfield.pooling.mtc.MapJudging`
    state of the exported judgments (``judged``: its 1/0/-1 per topic and document)."""

    names: list[str]
    topics: list[str]
    docs: list[tuple[str, ...]]
    state: object
    judged: np.ndarray


def _judged_of(labels: dict, topics: list[str], docs: list, width: int):
    """``(1/0/-1 per topic x document, relevant labels outside each topic's documents)``
    from ``{(topic, doc): label}`` (a label above 0 is relevant)."""
    judged = np.full((len(topics), width), -1, np.int64)
    judged[np.arange(width)[None, :] >= np.array([len(d) for d in docs])[:, None]] = 0
    outside = np.zeros(len(topics))
    if labels:
        where = {(q, d): (t, i) for t, q in enumerate(topics) for i, d in enumerate(docs[t])}
        index = {q: t for t, q in enumerate(topics)}
        for key, label in labels.items():
            hit = where.get(key)
            if hit is not None:
                judged[hit] = int(label > 0)
            elif label > 0 and key[0] in index:
                outside[index[key[0]]] += 1.0
    return judged, outside


def question(db, cid: int, campaign: str, text: str) -> _Question:
    """The MapJudging state of the campaign's question and judgments, cached per
    campaign: kept while neither the runs, the pool (:func:`_structure`) nor the
    judgments (:func:`_judgment_key`) change; new judgments of unjudged documents are
    recorded in place (:meth:`~cranfield.pooling.mtc.MapJudging.judge`), anything else
    (a relabel, an adjudication, a new relevant document outside the runs) rebuilds it."""
    from ..pooling.mtc import MapJudging
    from . import exports

    design = json.loads(text)
    measure, k = parse_measure(design["measure"])
    names, by_topic, structure = _structure(db, cid, design)
    jkey = _judgment_key(db, cid)
    cache = db.cache.setdefault("mtc_state", {})
    found = cache.get(cid)
    if found is not None and found[0] == (structure, text, jkey):
        return found[1]
    old = found[1] if found is not None and found[0][:2] == (structure, text) else None
    if old is not None:
        fresh = _single_new_labels(db, cid, found[0][2], jkey, old)
        if fresh is not None:  # each new label is its pair's only one: the export's
            for t, i, x in fresh:
                old.state.judge(t, i, x)
                old.judged[t, i] = x
            cache[cid] = ((structure, text, jkey), old)
            return old
    topics = sorted(by_topic)
    docs = [by_topic[q].docs for q in topics]
    width = max((len(d) for d in docs), default=0)
    judged, outside = _judged_of(exports.qrels_labels(db, campaign), topics, docs, width)
    if old is not None and np.array_equal(old.state.outside, outside):
        changed = np.argwhere(old.judged != judged)
        if (old.judged[tuple(changed.T)] == -1).all():  # only new judgments: in place
            for t, i in changed.tolist():  # one update per new judgment (usually one)
                old.state.judge(t, i, int(judged[t, i]))
            old.judged = judged
            cache[cid] = ((structure, text, jkey), old)
            return old
    try:
        state = MapJudging(
            [list(by_topic[q].runs) for q in topics],
            [len(d) for d in docs],
            list(judged),
            measure=measure,
            k=k or 10,
            prior=PRIOR,
            outside=outside,
        )
    except ValueError as exc:  # the runs or the pool grew past the bound after choose
        raise InputError(f"the MTC order of campaign {campaign!r}: {exc}") from None
    found = _Question(names, topics, docs, state, judged)
    cache[cid] = ((structure, text, jkey), found)
    return found


def _single_new_labels(db, cid: int, before: tuple, after: tuple, q: _Question):
    """The judgments saved since ``before`` (:func:`_judgment_key`) as ``(topic, document,
    0/1)`` of the state, when the export's labels are known without aggregating again:
    majority aggregation, no adjudication changed, and every pair judged since has one
    judgment (the majority of one label is that label), no gold label, and is a document
    of the state not judged before; None otherwise (then :func:`question` rebuilds)."""
    from sqlalchemy import select

    from .models import Campaign, Judgment, JudgmentEvent, Pair

    if before[2:] != after[2:] or before[0] is None or after[0] is None:
        return None
    with db.connection() as s:
        if s.scalar(select(Campaign.aggregation).where(Campaign.id == cid)) != "majority":
            return None
        new_pairs = (
            select(JudgmentEvent.pair_id)
            .join(Pair, Pair.id == JudgmentEvent.pair_id)
            .where(Pair.campaign_id == cid, JudgmentEvent.id > before[0])
        )
        rows = s.execute(
            select(Judgment.pair_id, Pair.topic_id, Pair.doc_id, Pair.gold_label, Judgment.label)
            .join(Pair, Pair.id == Judgment.pair_id)
            .where(Judgment.pair_id.in_(new_pairs))
        ).all()
    pairs = [r[0] for r in rows]
    if not rows or len(set(pairs)) != len(pairs) or after[1] - before[1] != len(pairs):
        return None
    topic_index = {t: i for i, t in enumerate(q.topics)}
    out = []
    for _pid, topic, doc, gold, label in rows:  # the judgments since the last request
        t = topic_index.get(topic)
        docs = q.docs[t] if t is not None else ()
        i = int(np.searchsorted(docs, doc)) if docs else 0
        if gold is not None or t is None or i >= len(docs) or docs[i] != doc:
            return None
        if q.judged[t, i] != -1:
            return None
        out.append((t, i, int(label > 0)))
    return out


def _open(q: _Question, threshold: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """``(differences, risks, decided per run pair, whole question decided)``: a pair is
    decided when its sign-change probability is below ``threshold`` or every document
    is judged (the difference is then known exactly, a tie included)."""
    from ..pooling.mtc import sign_change_probabilities

    means, var = q.state.moments()
    risks = sign_change_probabilities(means, var)
    complete = bool((q.judged >= 0).all() or not q.judged.size)
    decided = (risks < threshold) | complete
    return means, risks, decided, bool(decided.all())


def next_for(db, cid: int, user_id: int, text: str) -> tuple[int | None, bool]:
    """``(pair id or None, decided)`` for the assessor: among the unjudged pairs of their
    queue not set aside, the one of largest MTC weight over the question's open run
    pairs (:meth:`~cranfield.pooling.mtc.MapJudging.next_judgments`, ties by topic then
    document id); None when the question is decided (``decided``) or the assessor's
    queue holds no pair that weighs."""
    from ..pooling.mtc import best_first

    design = json.loads(text)
    with db.connection() as s:
        name = s.scalar(_name_of(), {"cid": cid})
    q = question(db, cid, name, text)
    _means, _risks, decided, done = _open(q, float(design["threshold"]))
    if done:
        return None, True
    q.state.set_open(~decided)
    with db.connection() as s:
        rows = s.execute(_queue(), {"cid": cid, "uid": user_id}).all()
    width = q.judged.shape[1] + 1  # the state's documents and its dummy column
    topic_index = {t: i for i, t in enumerate(q.topics)}
    doc_index = [{d: i for i, d in enumerate(docs)} for docs in q.docs]
    cell_pair: dict[int, int] = {}
    for pid, topic, doc, skipped, label in rows:  # the assessor's queue (one topic's share)
        t = topic_index.get(topic)
        i = None if t is None or label is not None or skipped is not None else doc_index[t].get(doc)
        if i is not None:
            cell_pair[t * width + i] = pid
    if not cell_pair:
        return None, False
    score = q.state.scores().ravel()
    mine = np.zeros(len(score), bool)
    mine[list(cell_pair)] = True
    order = best_first(score, len(score))
    order = order[mine[order]]
    return (cell_pair[int(order[0])] if len(order) else None), False


_NAME = []


def _name_of():
    if not _NAME:
        from sqlalchemy import bindparam, select

        from .models import Campaign

        _NAME.append(select(Campaign.name).where(Campaign.id == bindparam("cid")))
    return _NAME[0]


# -- the decisions, for the coordinator --------------------------------------------------


def status(db, campaign: str) -> dict:
    """The question and each pair of runs' expected difference of the measure's mean over
    the topics and probability that its sign changes, from the exported (aggregated)
    labels (:func:`cranfield.service.exports.qrels_labels`); a pair is decided when that
    probability is below the threshold or every document is judged; ``decided``: every
    pair is (judging may stop).
    ``{"enabled": False}`` when the campaign is served in the blind order."""
    from . import campaigns

    with db.read() as s:
        c = campaigns.get(s, campaign)
        cid, text = c.id, c.mtc_design
    if text is None:
        return {"enabled": False}
    design = json.loads(text)
    q = question(db, cid, campaign, text)
    means, risks, decided, done = _open(q, float(design["threshold"]))
    pairs = run_pairs(q.names)
    documents = int(sum(len(d) for d in q.docs))
    return {
        "enabled": True,
        **design,
        "decided": done,
        "pairs_decided": int(decided.sum()),
        "topics": len(q.topics),
        "documents": documents,
        "judged": int((q.judged >= 0).sum()) - (q.judged.size - documents),  # padding: 0
        "pairs": [
            {
                "runs": [a, b],
                "difference": float(means[i]),
                "p_change": float(risks[i]),
                "decided": bool(decided[i]),
            }
            for i, (a, b) in enumerate(pairs)
        ],
    }


def status_json(db, campaign: str) -> str:
    """:func:`status` as JSON text (``campaign export --what mtc``)."""
    return json.dumps(status(db, campaign), indent=2) + "\n"
