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
from .io import arrays
from .options import JudgeOptions, merged

NOT_POOLED = -1
UNJUDGED = -2


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
        None when they are all the rows in table order, or not kept.
    has_doc_rows
        False when the document rows were not kept (``judge(..., doc_rows=False)``,
        :func:`concat`): :meth:`doc_ids` then refuses.
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
    has_doc_rows: bool = True
    # what is attached to this run's own arrays (its subtopic judgments, its judged
    # view); not an argument, so that a copy made with dataclasses.replace (other
    # arrays) starts without it
    _memo: dict = field(default_factory=dict, init=False, repr=False)

    @cached_property
    def fractional(self) -> bool:
        """Whether some judged grade is not a whole number (fractional gains, from
        qrels read with ``fractional=True``); integer-valued float grades are not."""
        g = self.qrels_grades
        return g.dtype.kind == "f" and bool((g != np.floor(g)).any())

    def memo(self, key, make):
        """``make()``, computed once per key for this run: what belongs to it beyond
        its arrays (its subtopic judgments, :func:`judged_view` shared by the
        ``judged_only`` measures of one evaluation)."""
        if key not in self._memo:
            self._memo[key] = make()
        return self._memo[key]

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
        return segments.int_sum(self.qrels_grades >= level, self.qrels_offsets)

    def num_judged_nonrel(self, rel_level: int | None = None) -> np.ndarray:
        """Number of judged documents per query with 0 <= grade < level."""
        level = self.rel_level if rel_level is None else rel_level
        judged = np.diff(self.qrels_offsets)
        return judged - self.num_rel(level) if level > 0 else np.zeros_like(judged)

    def doc_ids(self, run) -> np.ndarray:
        """Document ids of the ranked documents (needs the Run it was built from)."""
        if not self.has_doc_rows:
            raise ValueError("this judged run was made without its document rows")
        ids = run.table.column("doc_id")
        if self.doc_rows is not None:
            ids = ids.take(arrays.ints(self.doc_rows))
        return np.asarray(ids.to_pylist(), dtype=object)


def from_engine(
    parts: tuple, *, rel_level: int, compat: int, doc_rows=None, has_doc_rows: bool = False
) -> JudgedRun:
    """The :class:`JudgedRun` of the engine's judging (``_engine.judge_trec_files`` and
    the engine's other judges): ``parts`` is its tuple ``(query ids, offsets, labels,
    qrels offsets, qrels grades, in_run, run name)``, arrays the engine owns (no copy).
    ``doc_rows``/``has_doc_rows``: the document rows when the engine kept them (only
    ``_engine.judge_arrow_runs`` does; see :class:`JudgedRun`)."""
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
        has_doc_rows=has_doc_rows,
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
        has_doc_rows=jr.has_doc_rows,
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
    values = arrays.numbers(col) if not isinstance(col, np.ndarray) else col
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
    return arrays.codes_or_minus_one(pc.index_in(values, value_set=universe))


def judge(
    qrels, run, options: JudgeOptions | None = None, *, doc_rows: bool = True, **judging
) -> JudgedRun:
    """Join a run with qrels into a :class:`JudgedRun` (trec_eval semantics, see the
    module's documentation), in the compiled engine (``_engine.judge_arrow_runs``:
    ``cranfield_eval::judge``, which judges TREC files the same way).

    Parameters
    ----------
    qrels, run
        :class:`cranfield.Qrels` and :class:`cranfield.Run`: their tables' query ids
        need not be grouped; a (query, document) pair appears at most once in each
        (their readers apply the duplicates policies).
    options
        The :class:`~cranfield.core.options.JudgeOptions` (relevance level, depth,
        judged-only, complete, compat); or give its fields as keyword arguments
        (``rel_level=2, depth=100``), not both.
    doc_rows
        Keep the run row of each ranked document (:meth:`JudgedRun.doc_ids`); False
        saves their array (8 bytes per ranked document) where only measures are needed.
    """
    return _judged_by_engine(qrels, [run], merged(options, judging), doc_rows)[0]


def judge_runs(
    qrels, runs: list, options: JudgeOptions | None = None, *, doc_rows: bool = True
) -> list[JudgedRun]:
    """:func:`judge` for several runs against the same qrels, the qrels indexed once
    by the engine (for a small run against large qrels the index is most of the
    work). Each result is :func:`judge`'s; a problem is raised as :func:`judge` raises
    it for the first run that has one."""
    from .. import _engine

    opts = merged(options, {})
    try:
        return _judged_by_engine(qrels, runs, opts, doc_rows)
    except _engine.JudgeError:  # each run alone: judge's error, in judge's order
        return [judge(qrels, run, opts, doc_rows=doc_rows) for run in runs]


def _judged_by_engine(qrels, runs: list, opts: JudgeOptions, doc_rows: bool) -> list[JudgedRun]:
    """The runs judged in one engine call (``_engine.judge_arrow_runs``:
    ``cranfield_eval::judge::arrays``, which judges as TREC files are judged) against
    the qrels' index (:meth:`cranfield.Qrels.index`)."""
    from .. import _engine

    parts = _engine.judge_arrow_runs(
        [arrays.engine_batches(run.table, "score") for run in runs],
        qrels.index(),  # indexed once per Qrels object
        options=opts,
        doc_rows=doc_rows,
    )
    return [
        from_engine(
            (*p[:6], getattr(run, "name", "") or ""),
            rel_level=opts.rel_level,
            compat=opts.compat,
            doc_rows=p[7],
            has_doc_rows=doc_rows,
        )
        for run, p in zip(runs, parts, strict=True)
    ]


def qrels_side(qrels) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    """(topics in byte order, CSR offsets, non-negative grades sorted descending per topic).

    Computed once per qrels table (runs judged against the same qrels share it: kept
    by the ``Qrels`` object, see :meth:`cranfield.Qrels.derived`).
    """
    return qrels.derived("judge_side", lambda: _qrels_side(qrels))


def _qrels_side(qrels) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    qt = qrels.table
    q_qid = arrays.as_array(qt.column("query_id"))
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
        labels = np.zeros(0, dtype=_label_dtype(arrays.numbers(qrels.table["relevance"])))
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
        has_doc_rows=False,
    )
