"""The trec_eval 10.0 front end: measure selection, order, names and output format.

``cranfield trec_eval`` takes trec_eval's arguments and prints byte-identical output
(``%-22s\\t%s\\t%6.4f``; counts with ``%ld``), measures in trec_eval's internal order,
per-topic blocks (``-q``) in byte order of topic id, then the ``all`` block. The
output is printed by the compiled engine (``rust/eval/src/trec_eval.rs``, the one home
of the format); this module runs the evaluation (one engine call, else the general
path) and computes the values; :mod:`.trec_eval_columns` selects the columns.

Deliberate deviations from trec_eval 10.0 (documented in docs/trec_eval.md):

* qrels topics absent from the run, without ``-c``, are ignored with a note on
  stderr (trec_eval 10.0 aborts with a misleading message; its help text and 9.x
  ignore them);
* ndcg/G with custom gains less than 1 apart sort the ideal ranking correctly;
* two parameterised members of {ndcg, dcg, ideal_dcg} can be requested together;
* rbp normalises gains with the true minimum and maximum;
* and the others listed in docs/trec_eval.md, each checked against the trec_eval 10.0
  binary in tests/reference.
"""

from __future__ import annotations

import os

from .. import _engine
from .._lazy import lazy
from .._record import Record
from ..errors import CranfieldError, InputError, MeasureError
from .options import JudgeOptions, merged
from .trec_eval_columns import (  # noqa: F401 - re-exported: where callers import them
    TAKES_NO_PARAMS,
    Column,
    c_atof,
    c_atol,
    columns,
    engine_columns,
    quick_columns,
    select,
    trec_columns_table,
    write_trec_columns,
)

# The CLI's cold path needs neither NumPy nor the judging code (PyArrow): imported on
# first use (the measure selection and columns: core/trec_eval_columns.py)
np = lazy("numpy", __name__, "np")

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from .judged import JudgedRun


# trec_eval.h: the value given to a (topic, measure) without a usable mean and stddev
MISSING_ZSCORE_VALUE = -1000000.0


def read_zscores(path: str) -> dict[tuple[str, str], tuple[float, float]]:
    """z-score file: lines ``qid measure mean stddev`` (blank lines are skipped); ids are
    bytes, read as Latin-1 like the qrels and run."""
    table: dict[tuple[str, str], tuple[float, float]] = {}
    try:
        with open(path, "rb") as fh:
            lines = fh.readlines()
    except OSError as exc:
        reason = exc.strerror or exc.__class__.__name__
        raise InputError(f"cannot read z-score file '{path}': {reason}") from None
    for lineno, line in enumerate(lines, 1):
        fields = [f.decode("latin-1") for f in line.split()]
        if not fields:
            continue
        if len(fields) != 4:
            raise InputError(
                f"expected 4 fields (qid measure mean stddev), got {len(fields)}", path, lineno
            )
        try:
            mean, sd = float(fields[2]), float(fields[3])
        except ValueError:
            raise InputError("mean and stddev must be numbers", path, lineno) from None
        key = (fields[0], fields[1])
        if key in table:
            raise InputError(
                f"a second mean/stddev for query {key[0]!r} and measure {key[1]!r}", path, lineno
            )
        table[key] = (mean, sd)
    if not table:
        raise InputError("empty z-score file", path)
    return table


def note_ignored_params(selected, notes) -> None:
    """The note on parameters given to measures that take none (``-m map.5``)."""
    ignored = [
        f"{tm.name}.{p}" for tm, p in selected if p is not None and tm.kind in TAKES_NO_PARAMS
    ]
    if ignored:
        notes(
            f"note: these measures take no parameters, ignored as trec_eval does: {' '.join(ignored)}"
        )


def note_missing_topics(missing: list[str], notes) -> None:
    """The note on qrels topics without results (``missing``, sorted), without ``-c``."""
    if missing:
        shown = " ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
        notes(
            f"note: {len(missing)} qrels topic(s) have no results and are ignored "
            f"(use -c to score them as 0): {shown}"
        )


def _with_placeholder(jr: JudgedRun, judged_only: bool) -> JudgedRun:
    """The topics ``-c`` adds (no results) as trec_eval 10.0 evaluates them.

    trec_eval ranks one placeholder document, absent from the qrels, for such a topic
    (``-J`` drops it, leaving an empty ranking), computes every measure on that, and
    then resets some values by printed name (:data:`_RESET_FOR_PLACEHOLDER`). The
    parameterised forms of those measures keep what the placeholder gives (e.g.
    ``utility_a,b,c,d`` = b + c*R + d*(N - 1 - R), ``relstring_5`` = ``'-'``).
    Checked against the binary in tests/reference.
    """
    from .judged import NOT_POOLED, JudgedRun

    missing = ~jr.in_run
    if not missing.any():
        return jr
    offsets, labels = jr.offsets, jr.labels
    if not judged_only:
        at = offsets[:-1][missing]  # the (empty) rankings of those topics start here
        labels = np.insert(labels, at, NOT_POOLED)
        counts = np.diff(offsets) + missing
        offsets = np.concatenate(([0], np.cumsum(counts))).astype(offsets.dtype)
    return JudgedRun(
        query_ids=jr.query_ids,
        offsets=offsets,
        labels=labels.astype(jr.labels.dtype),
        qrels_offsets=jr.qrels_offsets,
        qrels_grades=jr.qrels_grades,
        in_run=np.ones_like(jr.in_run),
        rel_level=jr.rel_level,
        run_name=jr.run_name,
        compat=jr.compat,
    )


def run_trec_eval(
    qrels,
    run,
    measure_args: list[str],
    options: JudgeOptions | None = None,
    *,
    per_query: bool = False,
    summary: bool = True,
    num_docs_in_coll: int = 0,
    zscores_path: str | None = None,
    notes=None,
    judged: JudgedRun | None = None,
    **judging,
) -> str:
    """Evaluate like trec_eval and return its exact output text.

    ``options`` (or its fields as keyword arguments: ``rel_level``, ``depth``,
    ``judged_only``, ``complete``, ``compat``) are the
    :class:`~cranfield.core.options.JudgeOptions` of ``-l/-M/-J/-c``. ``judged`` is the
    run already judged with these options (e.g. by
    :func:`cranfield.core.engine_judge.judge_trec`); ``run`` is then not read.
    """
    from .evaluation import require_queries
    from .judged import judge
    from .measures.engine import compute_many

    opts = merged(options, judging)
    complete, judged_only = opts.complete, opts.judged_only
    selected = select(measure_args)
    cols = columns(selected, num_docs_in_coll)
    if notes is not None:
        note_ignored_params(selected, notes)
    zscores = read_zscores(zscores_path) if zscores_path else None
    jr: JudgedRun = judged if judged is not None else judge(qrels, run, opts, doc_rows=False)
    require_queries(jr, jr.run_name)
    if not complete and notes is not None:
        note_missing_topics(sorted(set(qrels.query_ids()) - set(jr.query_ids)), notes)

    added = ~jr.in_run  # topics -c adds: evaluated on trec_eval's placeholder ranking
    jr = _with_placeholder(jr, judged_only)
    measured = [c for c in cols if c.measure is not None]
    computed = iter(compute_many([c.measure for c in measured], jr))
    values = []
    for col in cols:
        if col.measure is None:
            values.append(None)
        elif col.kind == "string":
            values.append([str(v) for v in next(computed)])
        else:
            values.append(np.ascontiguousarray(next(computed), dtype=np.float64))
    relevant = 0.0
    if complete and any(c.recount for c in cols):
        relevant = float(np.sum(qrels.table.column("relevance").to_numpy() > 0))
    table = None
    if zscores is not None:
        table = {(_bytes(q), m): v for (q, m), v in zscores.items()}
    text, unusable = _engine.trec_eval_print(
        [c.described() for c in cols],
        values,
        added.tolist(),
        [_bytes(q) for q in jr.query_ids],
        _bytes(jr.run_name),
        per_query,
        summary,
        complete,
        relevant,
        table,
    )
    if notes is not None:
        note_unusable_zscores([_text(u) for u in unusable], notes)
    return _text(text)


def note_unusable_zscores(unusable: list[str], notes) -> None:
    """The note on (query, measure) pairs without a usable mean and stddev (``-Z``)."""
    if unusable:
        shown = ", ".join(unusable[:10]) + (", ..." if len(unusable) > 10 else "")
        notes(
            f"note: {len(unusable)} (query, measure) value(s) have no usable mean/stddev in "
            f"the z-score file and print as {MISSING_ZSCORE_VALUE:.0f} per query, as in "
            f"trec_eval: {shown}"
        )


def _bytes(text: str) -> bytes:
    """A query id or run name for the engine (which prints bytes)."""
    return text.encode("utf-8", "surrogatepass")


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogatepass")


class Evaluated(Record):
    """trec_eval's output of one evaluation by the engine: the text (bytes of the ids
    as read), the qrels topics without results, for the note (without ``-c``), and the
    qrels' first fractional grade read truncated (``(line, grade)`` or None)."""

    __slots__ = ("text", "missing", "unusable", "truncated")
    _frozen = False
    text: bytes
    missing: list[str]
    unusable: list[str]  # (query, measure) pairs without a usable z-score, for the note
    truncated: tuple[int, str] | None

    def __init__(self, text: bytes, missing: list[str], unusable: list[str], truncated=None):
        self.text, self.missing, self.unusable = text, missing, unusable
        self.truncated = truncated


def _latin1_names(text: bytes, cols: list[Column]) -> bytes:
    """The engine's output with the printed names that are not ASCII in Latin-1 (a
    character beyond it as '?'), as the general path writes its whole text: every line
    starts with the padded name (``Z`` first with ``-Z``), then a tab."""
    names = [f"{c.printed:<22}" for c in cols if not c.printed.isascii()]
    if not names:
        return text
    text = b"\n" + text
    for name in names:
        utf8, latin1 = name.encode("utf-8"), name.encode("latin-1", "replace")
        for start in (b"\n", b"\nZ"):
            text = text.replace(start + utf8 + b"\t", start + latin1 + b"\t")
    return text[1:]


def _unusable_note(pair: bytes) -> str:
    """A (query, measure) pair of the engine's -Z note: the query's bytes as Latin-1,
    the printed name (after the first space) as UTF-8."""
    qid, _, rest = pair.partition(b" ")
    return qid.decode("latin-1") + " " + rest.decode("utf-8")


def trec_eval_by_engine(
    qrels_path: str,
    run_path: str,
    cols: list[Column] | None,
    options: JudgeOptions,
    *,
    per_query: bool = False,
    summary: bool = True,
    zscores_path: str | None = None,
    stream: bool | None = None,
    described: list[tuple] | None = None,
) -> Evaluated | None:
    """trec_eval on two TREC files (ids read as Latin-1, as bytes) in one engine call:
    read, judge, compute and print (``zscores_path``: ``-Z``; ``stream``: ``--stream``
    or ``--no-stream``, see :func:`cranfield.core.memory.engine_reading`).

    Returns None when the engine cannot do it: a measure it does not compute, an input
    it does not read (a directory). The caller then evaluates with
    :func:`run_trec_eval`. Standard input (``-``) and named pipes are read once, so once
    the engine has read one every problem is raised here.
    ``described``: the columns as :func:`engine_columns` gives them, when already known
    (:func:`quick_columns`; then ``cols`` is not read).
    Raises the :class:`InputError` (or :class:`MeasureError`) :func:`run_trec_eval` raises, in its order: a problem in the qrels or the run
    (naming the file), then in the z-score file, then no query to evaluate or a
    measure refusing the data.
    """
    from .io.source import MAX_LINE
    from .memory import engine_reading, engine_stdin, read_once

    if described is None:
        described = engine_columns(cols)
    if described is None or options.duplicates != "error":
        return None
    if "-" in (str(qrels_path), str(run_path)) and not engine_stdin():
        return None
    # standard input, a pipe: no general path after reading
    once = [p for p in (qrels_path, run_path) if read_once(p)]
    if once and os.path.isdir(run_path):
        return None  # (left to the general path by the engine, after reading the qrels)
    zscore_error = None  # reported after any problem in the qrels or the run
    try:
        zscores = read_zscores(zscores_path) if zscores_path else None
    except InputError as exc:
        zscores, zscore_error = None, exc
    table = None
    if zscores is not None:
        table = {(q.encode("latin-1"), m): v for (q, m), v in zscores.items()}
    try:
        from ..progress import ReadProgress

        with ReadProgress([qrels_path, run_path], "reading") as bar:
            done = _engine.trec_eval_files(
                described,
                qrels_path,
                run_path,
                options,
                per_query,
                summary,
                table,
                MAX_LINE,
                progress=bar.counter,
                **engine_reading(stream),  # the run in pieces; read whole when it must and fits
            )
    except _engine.JudgeError as exc:
        from .io.problems import engine_error, unread
        from .memory import engine_error as streaming_error

        error = streaming_error(exc) or engine_error(
            exc, {"qrels": str(qrels_path), "run": str(run_path)}
        )
        if error is None and once:
            error = unread(exc, once)
        if error is None:
            return None
        raise (
            error if zscore_error is None or error.source is not None else zscore_error
        ) from None
    except (InputError, MeasureError):  # a refusal: after reading the z-scores
        if zscore_error is not None:
            raise zscore_error from None
        raise
    if zscore_error is not None:
        raise zscore_error
    if done is None:
        if once:
            from .io.problems import read_once_names

            raise CranfieldError(f"internal error in the engine reading {read_once_names(once)}")
        return None
    text, missing, unusable, truncated = done
    if cols is not None:  # (quick_columns' names are ASCII)
        text = _latin1_names(text, cols)
    return Evaluated(text, missing, [_unusable_note(u) for u in unusable], truncated)


class TrecEvalOutput(Record):
    """What :func:`trec_eval_files` gives: trec_eval's output (bytes from the engine,
    text from the general path: ids read as Latin-1), the notes for standard error,
    in order (each starts with ``note:``), and ``truncated``: the qrels' first
    fractional grade read truncated, ``(line, grade)``, or None (found by the engine as
    it read them; on the general path by
    :func:`~cranfield.core.io.grades.first_fractional_grade`)."""

    __slots__ = ("text", "notes", "truncated")
    _frozen = False
    text: bytes | str
    notes: list[str]
    truncated: tuple[int, str] | None

    def __init__(self, text: bytes | str, notes: list[str], truncated=None) -> None:
        self.text, self.notes, self.truncated = text, notes, truncated


def trec_eval_files(
    qrels_path,
    run_path,
    measure_args: list[str],
    options: JudgeOptions | None = None,
    *,
    per_query: bool = False,
    summary: bool = True,
    num_docs_in_coll: int = 0,
    zscores_path: str | None = None,
    stream: bool | None = None,
    engine: str = "local",
    scheduler: str | None = None,
    notes=None,
) -> TrecEvalOutput:
    """trec_eval on a qrels file and a run file (``-``: standard input; named pipes;
    plain or gzip): the one path of ``cranfield trec_eval``.

    In order of preference: the whole evaluation in one engine call
    (:func:`trec_eval_by_engine`: neither NumPy nor PyArrow imported), else the qrels read in
    Python and the run read and judged by the engine
    (:func:`cranfield.core.engine_judge.judge_trec`; ``engine``: the execution
    backend, :mod:`cranfield.core.backends`, e.g. ``"dask"``: in Dask workers), else read by
    ``Run.read``, measured and printed by :func:`run_trec_eval`. ``measure_args`` are
    trec_eval's ``-m`` values; the other arguments are its options (``stream``:
    ``--stream``/``--no-stream``). ``notes``, if given, is called with each note as it
    arises (before an error raised after it); the notes are returned too.

    Raises the :class:`~cranfield.errors.InputError` or
    :class:`~cranfield.errors.MeasureError` the command line reports (status 2 or 1).
    """
    said: list[str] = []

    def note(msg: str) -> None:
        said.append(msg)
        if notes is not None:
            notes(msg)

    opts = merged(options, {})
    if engine == "local":
        # measures without parameters: no parameters to note as ignored
        described = quick_columns(measure_args, num_docs_in_coll)
        selected: list | None = []
        cols = None
        if described is None:
            try:
                selected = select(measure_args)
                cols = columns(selected, num_docs_in_coll)
            except MeasureError:
                selected = None  # reported by the general path
        if selected is not None:
            try:
                done = trec_eval_by_engine(
                    qrels_path,
                    run_path,
                    cols,
                    opts,
                    per_query=per_query,
                    summary=summary,
                    zscores_path=zscores_path,
                    stream=stream,
                    described=described,
                )
            except CranfieldError as exc:
                source = getattr(exc, "source", None)
                if source not in (str(qrels_path), str(run_path), "<stdin>"):
                    # found after reading the qrels and the run (the z-scores, no query,
                    # a refusal): after the notes, as the general path
                    note_ignored_params(selected, note)
                raise
            if done is not None:
                note_ignored_params(selected, note)
                note_missing_topics(done.missing, note)
                note_unusable_zscores(done.unusable, note)
                return TrecEvalOutput(done.text, said, done.truncated)
    text = _general_trec_eval(
        qrels_path,
        run_path,
        measure_args,
        opts,
        per_query=per_query,
        summary=summary,
        num_docs_in_coll=num_docs_in_coll,
        zscores_path=zscores_path,
        stream=stream,
        backend=engine,
        scheduler=scheduler,
        notes=note,
    )
    from .io.grades import first_fractional_grade  # (read in Python: looked at again)

    return TrecEvalOutput(text, said, first_fractional_grade(qrels_path))


def _general_trec_eval(
    qrels_path, run_path, measure_args, opts, *, stream, backend, scheduler, notes, **printing
) -> str:
    """The general path of :func:`trec_eval_files`: the qrels read in Python (ids as
    Latin-1, as bytes), the run judged by the execution ``backend``
    (:mod:`cranfield.core.backends`; locally by the compiled engine), else read by
    ``Run.read``."""
    from .memory import check_room_for_arrays

    check_room_for_arrays()
    from .backends import backend as find_backend
    from .qrels import Qrels
    from .run import Run

    select(measure_args)  # validate measure names before reading large files
    qrels = Qrels.read(qrels_path, format="trec", encoding="latin-1")
    run = None
    # locally: read and judged by the engine (in pieces when large), measured here
    judged = find_backend(backend).judge(
        qrels, qrels_path, run_path, opts, encoding="latin-1", stream=stream, scheduler=scheduler
    )
    if judged is None:
        run = Run.read(run_path, format="trec", encoding="latin-1")
    return run_trec_eval(qrels, run, measure_args, opts, notes=notes, judged=judged, **printing)
