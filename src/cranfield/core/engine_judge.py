"""A TREC run judged by the compiled engine, for paths that compute in Python.

:func:`judge_trec` reads a TREC run (a file, plain or gzip, a named pipe or standard
input) the way the engine paths of ``cranfield eval`` and ``cranfield trec_eval`` read
it (``rust/eval/src/judge/stream.rs``: whole when small, in query-aligned pieces of
bounded size otherwise, decided inside the engine) and judges it against qrels already
read in Python: the :class:`~cranfield.core.judged.JudgedRun` that ``judge(qrels,
Run.read(path), options)`` gives, in bounded memory whatever the run's size. The
qrels are given to the engine as their file when it is a regular TREC file, else as
TREC text written from the :class:`~cranfield.core.qrels.Qrels` (qrels from standard
input, a pipe, Parquet, CSV, ...).
"""

from __future__ import annotations

import os

from .judged import JudgedRun
from .options import JudgeOptions


def judge_trec(
    qrels,
    qrels_path,
    run_path,
    options: JudgeOptions,
    *,
    encoding: str = "utf-8",
    stream: bool | None = None,
    trec: bool = False,
) -> JudgedRun | None:
    """Judge the TREC run at ``run_path`` (``-``: standard input) against ``qrels``
    (read from ``qrels_path``, a path or None) with the engine.

    ``encoding``: ids as ``"utf-8"`` or ``"latin-1"`` (as ``Run.read`` reads them);
    ``trec``: both inputs are TREC files whatever their names (else the format is told
    from each name, as ``Run.read`` tells it); ``stream``: ``--stream`` (True), ``--no-stream`` (False) or neither (None), see
    :func:`cranfield.core.memory.engine_reading`. Returns None when the engine cannot
    judge it and the input is still unread (not a TREC path, standard input replaced
    by a stream, qrels ids that cannot be written as TREC text, a directory): the
    caller then reads the run in Python. A problem in the run raises the
    :class:`~cranfield.errors.InputError` ``Run.read`` and ``judge`` raise.
    """
    from .. import _engine
    from .io.formats import infer_format
    from .io.source import MAX_LINE
    from .memory import engine_reading, engine_stdin, read_once
    from .results import default_run_name

    if not isinstance(run_path, (str, os.PathLike)):
        return None
    if not trec and infer_format(run_path, None) != "trec":
        return None
    run_path = str(run_path)
    if run_path == "-" and not engine_stdin():
        return None
    qrels_text = None
    if not _regular_trec_file(qrels_path, trec):
        qrels_text = _trec_text(qrels, encoding)
        if qrels_text is None:
            return None
    source = "<stdin>" if run_path == "-" else run_path
    once = read_once(run_path)  # standard input, a pipe: reported here once read
    try:
        parts = _engine.judge_trec_files(
            run_path,
            str(qrels_path) if qrels_text is None else "<qrels>",
            latin1=encoding == "latin-1",
            fractional=qrels.fractional,
            rel_level=options.rel_level,
            depth=options.depth,
            judged_only=options.judged_only,
            complete=options.complete,
            compat=options.compat,
            duplicates=options.duplicates,
            qrels_text=qrels_text,
            **{"max_line": MAX_LINE, **engine_reading(stream)},
        )
    except _engine.JudgeError as exc:
        from .io.problems import engine_error, unread
        from .memory import engine_error as streaming_error

        error = streaming_error(exc) or engine_error(
            exc, {"run": run_path, "qrels": str(qrels_path)}, fractional=qrels.fractional
        )
        if error is None and once:
            error = unread(exc)
        if error is None:
            return None
        raise error from None
    from .judged import from_engine

    name = parts[6] or default_run_name(source)  # the TREC tag, else the file's name
    return from_engine((*parts[:6], name), rel_level=options.rel_level, compat=options.compat)


def _regular_trec_file(path, trec: bool) -> bool:
    """Whether the engine can read the qrels again from ``path``: a regular TREC file
    (``trec``: whatever its name)."""
    from .io.formats import infer_format

    if not isinstance(path, (str, os.PathLike)) or str(path) == "-":
        return False
    return os.path.isfile(path) and (trec or infer_format(path, None) == "trec")


def _trec_text(qrels, encoding: str) -> bytes | None:
    """The qrels as TREC text in ``encoding`` (relevance written exactly: integers, or
    the shortest text of each real that reads back as it), or None when an id cannot be
    written (whitespace, empty) or encoded."""
    import io

    from ..errors import InputError

    sink = io.BytesIO()
    try:
        qrels.to_trec(sink)
    except InputError:
        return None
    data = sink.getvalue()
    if encoding == "utf-8":
        return data
    try:
        return data.decode("utf-8").encode(encoding)
    except (UnicodeDecodeError, UnicodeEncodeError):
        return None
