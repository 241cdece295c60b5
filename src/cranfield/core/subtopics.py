"""Subtopic (intent) judgments: the qrels of diversity evaluation (ndeval's format).

A line ``topic subtopic docno grade`` says that ``docno`` is relevant (``grade`` > 0)
or not (0) to one subtopic (intent, aspect) of ``topic``: trec_eval's iteration column
carries the subtopic, as in the TREC Web track's diversity qrels. ndeval's conventions
hold (docs/diversity.md): judgments are binary (a grade above 1 counts as 1), every
line is read (a repeated (topic, subtopic, document) line counts twice among the
subtopic's relevant documents; its relevance is the last line's), a subtopic without a
relevant document does not count.

:class:`SubtopicQrels` reads TREC text with the compiled engine and CSV, TSV, Parquet,
Arrow tables and DataFrames through the one table reader
(:func:`cranfield.core.io.tabular.normalise`). :func:`judge_intents` judges a run
against them: a :class:`~cranfield.core.judged.JudgedRun` whose labels number the
judged documents, which the diversity measures (:mod:`cranfield.core.measures.diversity`)
read with the judgments (:func:`intents_of`).
"""

from __future__ import annotations

from .._lazy import lazy
from ..errors import InputError, MeasureError
from .columnar import Columnar
from .io import tabular, trec

np = lazy("numpy", __name__, "np")
pa = lazy("pyarrow", __name__, "pa")

# the key under which a judged run keeps its subtopic judgments (JudgedRun.memo)
_KEY = "subtopic_intents"


class SubtopicQrels(Columnar):
    """Subtopic (intent) qrels, held as one Arrow table in reading order.

    Columns: ``query_id: string``, ``subtopic: int64``, ``doc_id: string``,
    ``relevance: int64`` (subtopics and grades >= 0). Column names are matched with
    aliases (``qid``/``topic``, ``subtopic``/``intent``/``iteration``, ``docno``,
    ``rel``/``grade``...).

    Examples
    --------
    >>> import pyarrow as pa
    >>> q = SubtopicQrels(pa.table({"qid": ["1", "1"], "subtopic": [1, 2],
    ...                             "docno": ["d1", "d1"], "rel": [1, 0]}))
    >>> len(q), q.query_ids()
    (2, ['1'])
    """

    _value = tabular.SUBTOPICS
    _layout = trec.QRELS

    #: intent probabilities (``query_id``, ``subtopic``, ``probability``), or None:
    #: every actual subtopic of a topic weighs 1/S (ndeval's)
    intents = None

    def __init__(self, table, source: str | None = None, **_policies) -> None:
        # (every line is kept: ``duplicates`` and ``fractional`` do not apply)
        self.table = tabular.normalise(table, self._value, source)
        self.source = source

    def with_intents(self, intents) -> SubtopicQrels:
        """These judgments with intent probabilities P(subtopic | topic) (Agrawal et al.
        2009): a table, DataFrame or file (CSV, TSV, JSON lines, Parquet) with columns
        ``query_id`` (or ``qid``, ``topic``), ``subtopic`` (or ``intent``, ...) and
        ``probability`` (or ``prob``, ``weight``); each topic's probabilities are >= 0
        and sum to 1. A topic they name weighs each subtopic by its probability
        instead of 1/S (an actual subtopic left out weighs 0); the others keep
        ndeval's weights. docs/diversity.md gives the weighted definitions."""
        out = SubtopicQrels.of_table(self.table, self.source)
        out.intents = read_intents(intents)
        return out

    @classmethod
    def read(cls, path_or_file, *, format: str | None = None) -> SubtopicQrels:
        """Read subtopic qrels: TREC text ``topic subtopic docno grade`` (default; ``-``
        is standard input, gzip detected; blank and ``#`` lines skipped), CSV, TSV or
        Parquet (chosen from the extension unless ``format`` is given), or an Arrow
        table or pandas/polars DataFrame. A bad line is an
        :class:`~cranfield.errors.InputError` naming the file and line."""
        made = cls._read_object(path_or_file, format, "error")
        if made is not None:
            return made
        fmt = tabular.infer_format(path_or_file, format)
        if fmt != "trec":
            table, source, _ = cls.read_table(path_or_file, fmt, "error")
            return cls.of_table(table, source)
        from .. import _engine
        from .io.source import read_bytes, source_name

        source = source_name(path_or_file)
        data = read_bytes(path_or_file, source)
        q_off, q_data, subtopic, d_off, d_data, grade = _engine.read_subtopic_qrels(data, source)

        def text(offsets, data):
            return pa.LargeStringArray.from_buffers(
                len(offsets) - 1, pa.py_buffer(offsets), pa.py_buffer(data)
            ).cast(pa.string())

        table = pa.table(
            {
                "query_id": text(q_off, q_data),
                "subtopic": pa.array(subtopic),
                "doc_id": text(d_off, d_data),
                "relevance": pa.array(grade),
            }
        )
        return cls.of_table(table, source)

    @classmethod
    def from_dict(cls, d, **kw):
        raise InputError(
            "subtopic qrels come as a table (query_id, subtopic, doc_id, relevance), not a dict",
            source=kw.get("source", "<dict>"),
        )

    def numbered(self) -> Numbered:
        """The judgments numbered for the engine (built once per table)."""
        return self.derived("numbered", lambda: Numbered(self))


class Numbered:
    """Subtopic qrels numbered as the engine's diversity kernels read them.

    Topics are numbered in byte order (``topics``), the judged (topic, document) pairs
    in (topic, document id) byte order, by the engine (``_engine.number_subtopic_qrels``);
    ``line_topic``, ``line_doc`` give each line's;
    ``topic_docs`` are the CSR offsets of each topic's documents; ``pairs`` is
    :class:`~cranfield.core.qrels.Qrels` grading each pair with its number (what a run
    is judged against: :func:`judge_intents`).
    """

    def __init__(self, qrels: SubtopicQrels) -> None:
        from .. import _engine
        from .qrels import Qrels

        t = qrels.table
        q = t["query_id"].combine_chunks()
        d = t["doc_id"].combine_chunks()
        self.line_topic, self.line_doc, self.topic_docs, topic_line, doc_line = (
            _engine.number_subtopic_qrels(*_buffers(q), *_buffers(d))
        )
        self.line_subtopic = t["subtopic"].to_numpy().astype(np.int64)
        self.line_grade = t["relevance"].to_numpy().astype(np.int64)
        self.topics = np.asarray(q.take(pa.array(topic_line)).to_pylist(), dtype=object)
        pair_topic = np.repeat(np.arange(len(self.topics)), np.diff(self.topic_docs))
        pairs = pa.table(
            {
                "query_id": q.take(pa.array(topic_line[pair_topic])),
                "doc_id": d.take(pa.array(doc_line)),
                "relevance": pa.array(np.arange(len(doc_line), dtype=np.int64)),
            }
        )
        self.pairs = Qrels.of_table(pairs, qrels.source)
        self.weights = None
        if qrels.intents is not None:
            w = qrels.intents
            topic = self.topic_of(w["query_id"].to_numpy(zero_copy_only=False))
            keep = topic >= 0  # (topics without judgments score 0 anyway)
            self.weights = (
                np.ascontiguousarray(topic[keep]),
                np.ascontiguousarray(w["subtopic"].to_numpy()[keep], dtype=np.int64),
                np.ascontiguousarray(w["probability"].to_numpy()[keep], dtype=np.float64),
            )

    def topic_of(self, query_ids) -> np.ndarray:
        """The topic number of each query id (-1: a topic without judgments)."""
        ids = np.asarray(query_ids, dtype=object)
        at = np.searchsorted(self.topics, ids) if len(self.topics) else np.zeros(len(ids), int)
        at = np.minimum(at, max(len(self.topics) - 1, 0))
        found = (self.topics[at] == ids) if len(self.topics) else np.zeros(len(ids), bool)
        return np.where(found, at, -1).astype(np.int64)


_INTENT_COLUMNS = {
    "query_id": tabular.ALIASES["query_id"],
    "subtopic": tabular.ALIASES["subtopic"],
    "probability": ("probability", "prob", "p", "weight", "intent_probability"),
}


def read_intents(source):
    """Intent probabilities as a table ``query_id``, ``subtopic``, ``probability``
    (checked: whole subtopics >= 0, probabilities >= 0 summing to 1 per topic)."""
    from .io.table import read_table

    t = read_table(source, strings=list(tabular.ALIASES["query_id"]))
    names = {n.strip().lower(): n for n in t.table.column_names}
    picked = {}
    for target, aliases in _INTENT_COLUMNS.items():
        found = next((names[a] for a in aliases if a in names), None)
        if found is None:
            raise t.missing(target, "intent probabilities'")
        picked[target] = found
    t.require({picked["subtopic"]: "integer", picked["probability"]: "number"})
    query = t.column(picked["query_id"]).cast(pa.string())
    subtopic = t.column(picked["subtopic"]).to_numpy().astype(np.int64)
    probability = t.column(picked["probability"]).to_numpy().astype(np.float64)
    bad = np.flatnonzero(subtopic < 0)
    if len(bad):
        raise t.error(int(bad[0]), "the subtopic is negative")
    bad = np.flatnonzero(~np.isfinite(probability) | (probability < 0))
    if len(bad):
        raise t.error(int(bad[0]), "the probability is not a number >= 0")
    table = pa.table({"query_id": query, "subtopic": subtopic, "probability": probability})
    sums = table.group_by("query_id").aggregate([("probability", "sum")])
    off = np.flatnonzero(np.abs(sums["probability_sum"].to_numpy() - 1.0) > 1e-6)
    if len(off):
        topic = sums["query_id"][int(off[0])].as_py()
        total = sums["probability_sum"][int(off[0])].as_py()
        raise InputError(
            f"the intent probabilities of topic {topic!r} sum to {total:.6g}, not 1", t.source
        )
    return table


def _buffers(strings) -> tuple:
    """An Arrow string array's offsets (int64) and bytes, as NumPy arrays."""
    _, offsets, data = strings.buffers()
    kind = np.int64 if pa.types.is_large_string(strings.type) else np.int32
    n = len(strings)
    off = np.frombuffer(offsets, dtype=kind, count=strings.offset + n + 1)[strings.offset :]
    raw = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
    return off.astype(np.int64), raw


def judge_intents(subtopics: SubtopicQrels, run, options=None):
    """A :class:`~cranfield.core.judged.JudgedRun` of ``run`` against ``subtopics``:
    rankings as the judging options make them (order, ``depth``, ``judged_only``,
    ``complete``), each label the number of a judged document (-1: not judged); the
    judgments ride along for the diversity measures (:func:`intents_of`)."""
    from .judged import judge

    numbered = subtopics.numbered()
    jr = judge(numbered.pairs, run, options, doc_rows=False)
    jr.memo(_KEY, lambda: numbered)
    return jr


def as_subtopics(subtopics, measures) -> SubtopicQrels | None:
    """The subtopic qrels (an object, a path or a table, read once) when a measure of
    ``measures`` is a diversity measure; None otherwise or without them."""
    from .measures.diversity import is_diversity

    if subtopics is None or not any(is_diversity(m.definition) for m in measures):
        return None
    return SubtopicQrels.coerce(subtopics)


def intents_for(subtopics: SubtopicQrels | None, run, options):
    """``run`` (a :class:`~cranfield.core.run.Run` or a path) judged against
    ``subtopics`` (:func:`judge_intents`); None without them."""
    if subtopics is None:
        return None
    from .run import Run

    if not isinstance(run, Run):
        from .engine_judge import judge_trec
        from .memory import read_once

        if read_once(run):  # (the other measures read it already)
            raise InputError(
                "a run read once (standard input, a pipe) cannot be judged against "
                "subtopic qrels too: give it as a file",
                source=str(run),
            )
        numbered = subtopics.numbered()
        jr = judge_trec(numbered.pairs, None, run, options)  # a TREC file: the engine's
        if jr is not None:
            jr.memo(_KEY, lambda: numbered)
            return jr
        run = Run.read(run, duplicates=options.duplicates)
    return judge_intents(subtopics, run, options)


def intents_of(jr, family: str) -> Numbered:
    """The subtopic judgments a judged run was judged against (:func:`judge_intents`);
    a :class:`~cranfield.errors.MeasureError` when it was judged against ordinary qrels."""

    def missing():
        raise MeasureError(
            f"{family} is a diversity measure: it needs subtopic qrels "
            "(cranfield eval --subtopic-qrels FILE; evaluate(..., subtopic_qrels=...))"
        )

    return jr.memo(_KEY, missing)


def diversity_values(jr, specs) -> list:
    """Per-query values of diversity measures ``specs`` (``(family, cutoff, alpha,
    beta, gamma)``) on a run judged by :func:`judge_intents`, computed by the engine."""
    from .. import _engine

    numbered = intents_of(jr, specs[0][0])
    ranked = np.asarray(jr.labels).astype(np.int64)
    ranked = np.where(ranked >= 0, ranked, -1)
    return _engine.diversity_measures(
        [(f, int(c or 1), float(a), float(b), float(g)) for f, c, a, b, g in specs],
        numbered.line_topic,
        numbered.line_doc,
        numbered.line_subtopic,
        numbered.line_grade,
        numbered.topic_docs,
        numbered.topic_of(jr.query_ids),
        np.ascontiguousarray(jr.offsets, dtype=np.int64),
        np.ascontiguousarray(ranked),
        numbered.weights,
    )
