"""Run x Qrels -> JudgedRun: the ranked relevance labels of every evaluated query.

This is trec_eval's ``RES_RELS`` (``form_res_rels.c``) computed for all queries at
once, as flat arrays with CSR offsets (see docs/architecture.md):

* ranking order: score descending, ties broken by document id descending in byte
  order; with ``compat=9`` scores are first rounded to float32 as trec_eval 9.x and
  pytrec_eval read them;
* label of a retrieved document: its grade when judged (>= 0), ``NOT_POOLED`` (-1)
  when absent from the qrels, ``UNJUDGED`` (-2) when the qrels give it a negative
  value ("pooled but unjudged");
* ``depth`` (trec_eval ``-M``) truncates each ranking after sorting; ``judged_only``
  (``-J``) then drops labels < 0, keeping the relative order of the rest;
* topics: those of the qrels that the run answers; with ``complete=True`` (``-c``)
  every qrels topic, a missing one being an empty ranking. Run topics absent from the
  qrels are ignored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import segments
from ._background import in_thread
from .io import keys
from .options import JudgeOptions, merged
from .run import trec_order

NOT_POOLED = -1
UNJUDGED = -2


@dataclass(frozen=True, eq=False)
class Positions:
    """A subset of the ranked documents of every query, in rank order (CSR).

    Attributes
    ----------
    idx
        Flat index of each selected document into ``JudgedRun.labels``.
    offsets
        ``idx[offsets[q]:offsets[q+1]]`` are the selected documents of query ``q``.
    rank
        1-based rank of each selected document in its query's ranking.
    labels
        Label of each selected document.
    """

    idx: np.ndarray
    offsets: np.ndarray
    rank: np.ndarray
    labels: np.ndarray

    @classmethod
    def of(cls, mask: np.ndarray, jr: JudgedRun) -> Positions:
        idx, sub = segments.compress(mask, jr.offsets)
        rank = idx - np.repeat(jr.offsets[:-1], np.diff(sub)) + 1
        return cls(idx, sub, rank, jr.labels[idx])

    def where(self, keep: np.ndarray) -> Positions:
        """The selected documents for which ``keep`` (one flag per document) holds."""
        counts = segments.int_sum(keep, self.offsets)
        offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        return Positions(self.idx[keep], offsets, self.rank[keep], self.labels[keep])

    @property
    def counts(self) -> np.ndarray:
        return np.diff(self.offsets)

    @cached_property
    def segment(self) -> np.ndarray:
        return segments.segment_ids(self.offsets)


@dataclass(eq=False)
class JudgedRun:
    """Ranked relevance labels of one run for all evaluated queries.

    Attributes
    ----------
    query_ids
        Evaluated query ids, in byte order (trec_eval's per-topic order).
    offsets
        ``labels[offsets[q]:offsets[q+1]]`` is the ranking of query ``q``.
    labels
        Grade of each retrieved document in rank order; -1 not pooled, -2 unjudged
        (float64 gains when the qrels are fractional, see :attr:`fractional`).
    qrels_offsets, qrels_grades
        Non-negative grades of every judged document of each query (retrieved or
        not), sorted descending within a query: the material of ideal rankings.
    in_run
        False for queries evaluated as empty rankings because of ``complete``.
    rel_level
        Default relevance threshold: a document is relevant when grade >= rel_level.
    run_name
        The run's name (TREC tag).
    doc_rows
        Row of the run table of each ranked document (to recover document ids);
        None when they are all the rows in table order, except that ``doc_fix``
        ``(positions, rows)`` may swap a few tied documents.
    """

    query_ids: np.ndarray
    offsets: np.ndarray
    labels: np.ndarray
    qrels_offsets: np.ndarray
    qrels_grades: np.ndarray
    in_run: np.ndarray
    rel_level: int = 1
    run_name: str = ""
    doc_rows: np.ndarray | None = None
    compat: int = 10
    doc_fix: tuple | None = None
    _num_rel_cache: dict = field(default_factory=dict, repr=False)
    _memo: dict = field(default_factory=dict, repr=False)

    @cached_property
    def fractional(self) -> bool:
        """Whether some judged grade is not a whole number (fractional gains, from
        qrels read with ``fractional=True``); integer-valued float grades are not."""
        g = self.qrels_grades
        return g.dtype.kind == "f" and bool((g != np.floor(g)).any())

    def memo(self, key, make):
        """``make()``, computed once per key for this run (arrays shared by measures)."""
        if key not in self._memo:
            self._memo[key] = make()
        return self._memo[key]

    @cached_property
    def pooled(self) -> Positions:
        """Ranked documents present in the qrels (judged or pooled-unjudged).

        Every other ranked document is NOT_POOLED: it has no grade and no gain, so
        kernels that only need judged documents read these few positions.
        """
        return Positions.of(self.labels != NOT_POOLED, self)

    def at_least(self, level: int) -> Positions:
        """Ranked documents with label >= level (the relevant ones for level >= 1)."""
        level = int(level)

        def make():
            if level >= 0:
                return self.pooled.where(self.pooled.labels >= level)
            return Positions.of(self.labels >= level, self)

        return self.memo(("at_least", level), make)

    def relevant_positions(self, rel_level: int | None = None) -> Positions:
        return self.at_least(self.rel_level if rel_level is None else rel_level)

    @property
    def num_queries(self) -> int:
        return len(self.query_ids)

    @cached_property
    def num_ret(self) -> np.ndarray:
        """Number of ranked documents per query."""
        return np.diff(self.offsets)

    @cached_property
    def segment(self) -> np.ndarray:
        """Query index of every ranked document."""
        return segments.segment_ids(self.offsets)

    @cached_property
    def rank(self) -> np.ndarray:
        """1-based rank of every ranked document."""
        return segments.positions(self.offsets) + 1

    @cached_property
    def max_len(self) -> int:
        return int(self.num_ret.max()) if self.num_queries else 0

    def relevant(self, rel_level: int | None = None) -> np.ndarray:
        """Boolean mask: ranked document is relevant (grade >= level)."""
        level = self.rel_level if rel_level is None else rel_level
        return self.labels >= level

    def num_rel(self, rel_level: int | None = None) -> np.ndarray:
        """Number of judged documents per query with grade >= level."""
        level = self.rel_level if rel_level is None else rel_level
        if level not in self._num_rel_cache:
            mask = self.qrels_grades >= level
            self._num_rel_cache[level] = segments.int_sum(mask, self.qrels_offsets)
        return self._num_rel_cache[level]

    def num_judged_nonrel(self, rel_level: int | None = None) -> np.ndarray:
        """Number of judged documents per query with 0 <= grade < level."""
        level = self.rel_level if rel_level is None else rel_level
        judged = np.diff(self.qrels_offsets)
        return judged - self.num_rel(level) if level > 0 else np.zeros_like(judged)

    def num_rel_ret(self, rel_level: int | None = None) -> np.ndarray:
        return self.relevant_positions(rel_level).counts

    def doc_ids(self, run) -> np.ndarray:
        """Document ids of the ranked documents (needs the Run it was built from)."""
        ids = run.table.column("doc_id")
        if self.doc_rows is not None:
            ids = ids.take(keys.ints(self.doc_rows))
        elif self.doc_fix is not None:
            rows = np.arange(len(ids), dtype=np.int64)
            rows[self.doc_fix[0]] = self.doc_fix[1]
            ids = ids.take(keys.ints(rows))
        return np.asarray(ids.to_pylist(), dtype=object)


def from_engine(parts: tuple, *, rel_level: int, compat: int, doc_rows=None) -> JudgedRun:
    """The :class:`JudgedRun` of the engine's judging (``_engine.judge_trec_files`` and
    the engine's other judges): ``parts`` is its tuple ``(query ids, offsets, labels,
    qrels offsets, qrels grades, in_run, run name)``, arrays the engine owns (no copy)."""
    query_ids, offsets, labels, qrels_offsets, qrels_grades, in_run, run_name = parts[:7]
    return JudgedRun(
        query_ids=np.asarray(query_ids, dtype=object),
        offsets=offsets,
        labels=labels,
        qrels_offsets=qrels_offsets,
        qrels_grades=qrels_grades,
        in_run=in_run,
        rel_level=rel_level,
        run_name=run_name,
        doc_rows=doc_rows,
        compat=compat,
    )


def judged_view(jr: JudgedRun) -> JudgedRun:
    """The same rankings without unjudged documents (labels < 0), order kept.

    Equivalent to judging with ``judged_only=True`` (trec_eval ``-J``); used by
    measures with ir_measures' ``judged_only`` parameter.
    """
    labels, offsets, rows = _keep_ranked(jr.labels >= 0, jr.labels, jr.offsets, jr.doc_rows)
    return JudgedRun(
        query_ids=jr.query_ids,
        offsets=offsets,
        labels=labels,
        qrels_offsets=jr.qrels_offsets,
        qrels_grades=jr.qrels_grades,
        in_run=jr.in_run,
        rel_level=jr.rel_level,
        run_name=jr.run_name,
        doc_rows=rows,
        compat=jr.compat,
    )


def _keep_ranked(keep: np.ndarray, labels: np.ndarray, offsets: np.ndarray, rows):
    """The ranked documents where ``keep`` holds, order kept (``-M``, ``-J``).

    Returns their labels, the new CSR offsets and their document rows (None stays None).
    """
    counts = segments.int_sum(keep, offsets)
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    return labels[keep], offsets, None if rows is None else rows[keep]


def _grades(col) -> np.ndarray:
    """The qrels' relevance values as int64, or float64 when they are fractional gains."""
    values = keys.numbers(col) if not isinstance(col, np.ndarray) else col
    return values.astype(np.float64 if values.dtype.kind == "f" else np.int64, copy=False)


def _label_dtype(grades: np.ndarray) -> type:
    """The smallest dtype holding the labels of these grades and the -1/-2 codes: int8
    for grades in [-128, 127], int64 for other integers, float64 for fractional gains."""
    if grades.dtype.kind == "f":
        return np.float64
    small = not len(grades) or (grades.min() >= -128 and grades.max() <= 127)
    return np.int8 if small else np.int64


def _codes(values: pa.ChunkedArray | pa.Array, universe: pa.Array) -> np.ndarray:
    """Index of each value in ``universe`` (-1 when absent)."""
    return keys.codes_or_minus_one(pc.index_in(values, value_set=universe))


def _as_array(col) -> pa.Array:
    return col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col


def judge(
    qrels,
    run,
    options: JudgeOptions | None = None,
    *,
    join_thread: bool | None = None,
    **judging,
) -> JudgedRun:
    """Join a run with qrels into a :class:`JudgedRun` (trec_eval semantics).

    Parameters
    ----------
    qrels, run
        :class:`cranfield.Qrels` and :class:`cranfield.Run`.
    options
        The :class:`~cranfield.core.options.JudgeOptions` (relevance level, depth,
        judged-only, complete, compat); or give its fields as keyword arguments
        (``rel_level=2, depth=100``), not both.
    join_thread
        Look the labels up in a thread while the ranking order is verified: faster,
        for a little more memory. Default: for runs of a million rows or more
        (streaming, which bounds memory, turns it off for its pieces).
    """
    opts = merged(options, judging)
    rel_level, depth, judged_only = opts.rel_level, opts.depth, opts.judged_only
    complete, compat = opts.complete, opts.compat
    rt = run.table
    topics, qrels_offsets, qrels_grades = qrels_side(qrels)
    num_topics = len(topics)

    # run rows of qrels topics, in trec_eval order: topic, score desc, docno desc
    r_index = run.pair_index
    rb = r_index.query_blocks
    block_code = _codes(rb.values, topics)
    scores = rt.column("score")
    if compat == 9:
        scores = pc.cast(scores, pa.float32(), safe=False)
    # the labels (a join) and the ranking order are independent: the join runs in a
    # thread meanwhile (both are whole-array NumPy and Arrow work, which releases the GIL)
    threaded = rt.num_rows >= _JOIN_IN_THREAD_ROWS if join_thread is None else join_thread
    lookup = in_thread(_lookup_labels, qrels, run, r_index) if threaded else None
    ranked = _presorted_order(rb, block_code, scores, rt.column("doc_id"))
    fix = None
    if ranked is False:
        r_code = rb.expand(block_code)
        rows = _sorted_order(r_code, scores, rt.column("doc_id"))
        del r_code
    else:
        rows, fix = ranked  # rows None: the file order is the ranking already
        if rows is None and fix is not None and (depth is not None or judged_only):
            rows = np.arange(rt.num_rows, dtype=np.int64)
            rows[fix[0]] = fix[1]
            fix = None

    # labels: join on (topic, docno) against the qrels, in file order, then ranked
    labels = _lookup_labels(qrels, run, r_index) if lookup is None else lookup()
    if rows is not None:
        labels = labels[rows]
    elif fix is not None:
        labels[fix[0]] = labels[fix[1]]

    in_run_all = np.zeros(num_topics, dtype=bool)
    in_run_all[block_code[block_code >= 0]] = True
    evaluated = np.arange(num_topics) if complete else np.flatnonzero(in_run_all)

    # rows per topic (ranked rows are grouped by topic, in topic order)
    kept = block_code >= 0
    counts = np.bincount(block_code[kept], weights=rb.lengths[kept], minlength=num_topics)
    offsets_all = np.concatenate(([0], np.cumsum(counts.astype(np.int64)))).astype(np.int64)
    # depth / judged-only filtering
    if depth is not None or judged_only:
        keep_rank = np.ones(len(labels), dtype=bool)
        if depth is not None:
            keep_rank &= segments.positions(offsets_all) < depth
        if judged_only:
            keep_rank &= labels >= 0
        if rows is None:
            rows = np.arange(len(labels), dtype=np.int64)
        labels, offsets_all, rows = _keep_ranked(keep_rank, labels, offsets_all, rows)

    # restrict to evaluated topics (contiguous blocks, in topic order)
    lengths = np.diff(offsets_all)[evaluated]
    return _assemble(
        (topics, qrels_offsets, qrels_grades),
        evaluated,
        lengths,
        labels,
        in_run_all,
        rel_level=rel_level,
        run_name=getattr(run, "name", "") or "",
        doc_rows=rows,
        compat=compat,
        doc_fix=fix,
    )


_JOIN_IN_THREAD_ROWS = 1 << 20  # smaller runs: not worth a thread


def qrels_side(qrels) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    """(topics in byte order, CSR offsets, non-negative grades sorted descending per topic).

    Computed once per qrels table (runs judged against the same qrels share it: kept
    by the ``Qrels`` object, see :meth:`cranfield.Qrels.derived`).
    """
    return qrels.derived("judge_side", lambda: _qrels_side(qrels))


def _qrels_side(qrels) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    qt = qrels.table
    q_qid = _as_array(qt.column("query_id"))
    topics = pc.unique(q_qid)
    topics = topics.take(pc.sort_indices(topics))
    num_topics = len(topics)
    # qrels grouped by topic, grades descending (ideal ranking material)
    q_code = _codes(q_qid, topics)
    grades = _grades(qt.column("relevance"))
    order = np.lexsort((-grades, q_code))
    q_code_sorted = q_code[order]
    grades_sorted = grades[order]
    judged_mask = grades_sorted >= 0
    qrels_offsets = np.searchsorted(
        q_code_sorted[judged_mask], np.arange(num_topics + 1), side="left"
    ).astype(np.int64)
    return topics, qrels_offsets, grades_sorted[judged_mask]


def _assemble(side, evaluated, lengths, labels, in_run_all, **fields) -> JudgedRun:
    """The JudgedRun of the ``evaluated`` topics, whose rankings lie back to back in
    ``labels`` with the given ``lengths``."""
    topics, qrels_offsets, qrels_grades = side
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    q_lengths = np.diff(qrels_offsets)[evaluated]
    q_offsets = np.concatenate(([0], np.cumsum(q_lengths))).astype(np.int64)
    chosen = np.zeros(len(topics), dtype=bool)
    chosen[evaluated] = True
    q_sel = np.repeat(chosen, np.diff(qrels_offsets))
    query_ids = np.asarray(topics.to_pylist(), dtype=object)[evaluated]
    return JudgedRun(
        query_ids=query_ids,
        offsets=offsets,
        labels=labels,
        qrels_offsets=q_offsets,
        qrels_grades=qrels_grades[q_sel],
        in_run=in_run_all[evaluated],
        **fields,
    )


def _gather(values: np.ndarray, first: np.ndarray, lengths: np.ndarray, batch: int = 1 << 22):
    """``values[first[i]:first[i]+lengths[i]]`` for every i, back to back.

    Index arrays are built for about ``batch`` elements at a time (a loop over a few
    batches, not over segments), so a 70M-element gather needs no 70M-index temporary.
    """
    out = np.empty(int(lengths.sum()), dtype=values.dtype)
    ends = np.cumsum(lengths)
    cuts = np.searchsorted(ends, np.arange(batch, int(ends[-1]) if len(ends) else 0, batch))
    bounds = np.unique(np.concatenate(([0], cuts + 1, [len(lengths)])).clip(0, len(lengths)))
    pos = 0
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        lens = lengths[a:b]
        sub = np.concatenate(([0], np.cumsum(lens))).astype(np.int64)
        k = int(sub[-1])
        out[pos : pos + k] = values[np.repeat(first[a:b], lens) + segments.positions(sub)]
        pos += k
    return out


def concat(
    qrels,
    pieces: list[JudgedRun],
    options: JudgeOptions | None = None,
    *,
    run_name: str = "",
) -> JudgedRun:
    """One JudgedRun from the JudgedRuns of parts of a run that share no query.

    The parts must have been judged against ``qrels`` with ``options`` and
    ``complete=False``; the result equals judging the whole run at once (with
    ``options.complete`` applied here), except that document rows are not kept.
    """
    opts = JudgeOptions.of(options)
    side = qrels_side(qrels)
    topics = side[0]
    num_topics = len(topics)
    starts = np.zeros(num_topics, dtype=np.int64)
    lengths = np.zeros(num_topics, dtype=np.int64)
    in_run_all = np.zeros(num_topics, dtype=bool)
    code_of = {t: i for i, t in enumerate(topics.to_pylist())}
    base = 0
    for p in pieces:  # one step per part; (pa.array of a list would import pandas)
        if p.num_queries:
            code = np.array([code_of[q] for q in p.query_ids], dtype=np.int64)
            if in_run_all[code].any():
                raise ValueError("two parts share a query")
            starts[code] = base + p.offsets[:-1]
            lengths[code] = np.diff(p.offsets)
            in_run_all[code] = True
        base += len(p.labels)
    evaluated = np.arange(num_topics) if opts.complete else np.flatnonzero(in_run_all)
    if pieces:
        labels = np.concatenate([p.labels for p in pieces])
    else:
        labels = np.zeros(0, dtype=_label_dtype(keys.numbers(qrels.table["relevance"])))
    lens = lengths[evaluated]
    first = starts[evaluated]
    expected = np.concatenate(([0], np.cumsum(lens)[:-1])).astype(np.int64)
    if not (int(lens.sum()) == len(labels) and np.array_equal(first, expected)):
        labels = _gather(labels, first, lens)
    return _assemble(
        side,
        evaluated,
        lens,
        labels,
        in_run_all,
        rel_level=opts.rel_level,
        run_name=run_name,
        doc_rows=None,
        compat=opts.compat,
    )


def _sorted_order(r_code: np.ndarray, scores, doc_ids) -> np.ndarray:
    """Rows of qrels topics in trec_eval order (:func:`cranfield.core.run.trec_order`; topics
    by their code, which sorts as the ids do): one Arrow sort."""
    keep = np.flatnonzero(r_code >= 0)
    perm = trec_order(keys.ints(r_code[keep]), keys.take(scores, keep), keys.take(doc_ids, keep))
    return keep[keys.numbers(perm).astype(np.int64, copy=False)]


def _ties_if_descending(scores, starts: np.ndarray) -> np.ndarray | None:
    """Rows i tied with row i + 1 of the same block, or None if a score rises in a block.

    Reads the score column chunk by chunk (no copy of the whole column).
    """
    chunks = scores.chunks if isinstance(scores, pa.ChunkedArray) else [scores]
    ties = []
    pos = 0
    prev = None
    for c in chunks:
        m = len(c)
        if m == 0:
            continue
        s = keys.numbers(c)
        if prev is not None:  # the pair across the chunk border
            s = np.concatenate(([prev], s))
            base = pos - 1
        else:
            base = pos
        # pairs (i, i + 1) in this slice; skip those where i + 1 starts a block
        new_block = np.zeros(len(s) - 1, dtype=bool)
        inner = starts[(starts > base) & (starts < base + len(s))]
        new_block[inner - base - 1] = True
        if ((s[1:] > s[:-1]) & ~new_block).any():
            return None
        ties.append(np.flatnonzero((s[1:] == s[:-1]) & ~new_block) + base)
        prev = s[-1]
        pos += m
    return np.concatenate(ties) if ties else np.zeros(0, dtype=np.int64)


def _presorted_order(rb: keys.Blocks, block_code: np.ndarray, scores, doc_ids):
    """The order of :func:`_sorted_order` when the file is ranked already.

    Returns ``False`` when the file is not ranked (a full sort is needed), else
    ``(rows, fix)``: the rows in ranking order, or ``None`` when that is the file
    order itself; ``fix`` is None or ``(positions, rows)``, the few places where tied
    documents of an otherwise ranked file must change places.

    Verified, not assumed: every topic must fill one contiguous block of lines with
    scores non-increasing inside it; ties must list doc ids in descending byte order
    (tie groups that do not are sorted on their own). Blocks are then put in topic
    order, which costs one small sort.
    """
    kept = np.flatnonzero(block_code >= 0)
    codes = block_code[kept]
    sorted_codes = np.sort(codes)  # (np.unique would import numpy.ma: 15 ms at start-up)
    if (sorted_codes[1:] == sorted_codes[:-1]).any():  # a topic split over several blocks
        return False
    starts = rb.starts
    n = int(starts[-1])
    tie = _ties_if_descending(scores, starts)
    if tie is None:
        return False
    # rows in topic order (blocks reordered, blocks of non-qrels topics dropped)
    order = kept[np.argsort(codes, kind="stable")]
    if len(order) == len(block_code) and (np.diff(order) > 0).all():
        rows = None  # all blocks kept, already in topic order: the identity
    else:
        lengths = rb.lengths[order]
        total = int(lengths.sum())
        first = starts[:-1][order] - np.concatenate(([0], np.cumsum(lengths)[:-1]))
        rows = np.repeat(first, lengths) + np.arange(total, dtype=np.int64)
    # ties: adjacent equal scores in a block must have doc ids in descending order
    if len(tie) == 0:
        return rows, None
    ok = keys.bools(pc.greater(keys.take(doc_ids, tie), keys.take(doc_ids, tie + 1)))
    if ok.all():
        return rows, None
    # sort every tie group (maximal run of equal scores) by doc id descending, in place
    tie_start = np.zeros(n, dtype=bool)  # row i ties with row i + 1
    tie_start[tie] = True
    in_tie = tie_start.copy()
    in_tie[tie + 1] = True
    members = np.flatnonzero(in_tie)
    new_group = np.ones(len(members), dtype=bool)
    new_group[1:] = ~tie_start[members[1:] - 1]
    group = np.cumsum(new_group)
    sub = pa.table({"g": keys.ints(group), "d": keys.take(doc_ids, members)})
    perm = pc.sort_indices(sub, sort_keys=[("g", "ascending"), ("d", "descending")])
    sources = members[keys.numbers(perm).astype(np.int64, copy=False)]
    if rows is None:  # keep it sparse: position members[i] holds row sources[i]
        return None, (members, sources)
    fixed = np.arange(n, dtype=np.int64)
    fixed[members] = sources
    return fixed[rows], None


class _QrelsLookup:
    """What the label lookup needs of a qrels table: computed once per table, each part
    when first needed (a blocked run index needs no pair keys)."""

    def __init__(self, qrels, q_index: keys.PairIndex):
        self.table = qrels.table
        self.blocks = q_index.query_blocks

    @cached_property
    def doc_hashes(self) -> np.ndarray:
        return keys.hash_strings(self.table["doc_id"])

    @cached_property
    def row_topic(self) -> np.ndarray:
        """A topic code per row: the topic's first block (qrels files may list a topic
        in several blocks)."""
        qb = self.blocks
        first_block = keys.codes_or_minus_one(pc.index_in(qb.values, value_set=qb.values))
        return np.repeat(first_block, qb.lengths)

    @cached_property
    def sorted_pair_keys(self) -> tuple[np.ndarray, np.ndarray]:
        """(pair keys ascending, the qrels row of each)."""
        row_keys = keys.pair_keys(self.blocks, self.table["doc_id"])
        order = np.argsort(row_keys)
        return row_keys[order], order


def _qrels_lookup_side(qrels, q_index: keys.PairIndex) -> _QrelsLookup:
    """The qrels' lookup material, kept by the ``Qrels`` object (once per table)."""
    return qrels.derived("lookup_side", lambda: _QrelsLookup(qrels, q_index))


def _qrels_rows_of(q_blocks: keys.Blocks, r_blocks: keys.Blocks) -> np.ndarray | None:
    """Mask of the qrels rows of the topics the run answers, or None when that is most
    of them."""
    inside = keys.bools(pc.is_in(q_blocks.values, value_set=r_blocks.values))
    lengths = np.where(inside, q_blocks.lengths, 0)
    if int(lengths.sum()) * 2 > int(q_blocks.starts[-1]):
        return None
    return np.repeat(inside, q_blocks.lengths)


def _lookup_labels(qrels, run, r_index: keys.PairIndex) -> np.ndarray:
    """Grade of each run row (file order): NOT_POOLED when absent, UNJUDGED when negative.

    The qrels' pair keys are searched among the run's sorted keys; every key match is
    confirmed exactly: the query ids through their blocks (qrels block -> run block,
    matched on the strings), the doc ids string by string.
    """
    qt, rt = qrels.table, run.table
    grades_all = keys.numbers(qt["relevance"])
    labels = np.full(rt.num_rows, NOT_POOLED, dtype=_label_dtype(grades_all))
    q_index = qrels.pair_index
    qb, rb = q_index.query_blocks, r_index.query_blocks
    side = _qrels_lookup_side(qrels, q_index)
    if r_index.block_bits:  # keys name the run's blocks: one per topic
        run_block = keys.codes_or_minus_one(pc.index_in(qb.values, value_set=rb.values))
        run_block = np.repeat(run_block, qb.lengths)
        key_rows = np.flatnonzero(run_block >= 0)
        needles = r_index.needles(side.doc_hashes[key_rows], run_block[key_rows])
        order = np.argsort(needles)
        sorted_keys, key_rows = needles[order], key_rows[order]
    else:
        sorted_keys, key_rows = side.sorted_pair_keys
        chosen = _qrels_rows_of(qb, rb)
        if chosen is not None:  # a run with few of the qrels topics (a streamed piece)
            sel = chosen[key_rows]
            sorted_keys, key_rows = sorted_keys[sel], key_rows[sel]
    which, rows = r_index.find_sorted(sorted_keys)
    if len(which) == 0:
        return labels
    which = key_rows[which]
    block_topic = keys.codes_or_minus_one(pc.index_in(rb.values, value_set=qb.values))
    row_block = np.searchsorted(rb.starts, rows, "right") - 1
    same_query = block_topic[row_block] == side.row_topic[which]
    which, rows = which[same_query], rows[same_query]
    same_doc = keys.bools(pc.equal(keys.take(qt["doc_id"], which), keys.take(rt["doc_id"], rows)))
    which, rows = which[same_doc], rows[same_doc]
    grades = _grades(grades_all)[which]
    labels[rows] = np.where(grades >= 0, grades, UNJUDGED)
    return labels
