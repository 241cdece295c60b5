"""A TREC run judged by the compiled engine, for paths that compute in Python.

:func:`judge_trec` reads a TREC run (a file, plain or gzip, a named pipe or standard
input) the way the engine paths of ``cranfield eval`` and ``cranfield trec_eval`` read
it (``rust/eval/src/judge/stream.rs``: whole when small, in query-aligned pieces of
bounded size otherwise, decided inside the engine) and judges it against qrels already
read in Python: the :class:`~cranfield.core.judged.JudgedRun` that ``judge(qrels,
Run.read(path), options)`` gives, in bounded memory whatever the run's size. The
qrels are given to the engine as their file when it is a regular TREC file (read with
the run's encoding), else as the :class:`~cranfield.core.qrels.Qrels` object's index
(:meth:`~cranfield.core.qrels.Qrels.index`: qrels from standard input, a pipe,
Parquet, CSV, ...; made once per object).
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
    from each name, as ``Run.read`` tells it); ``stream``: ``--stream`` (True),
    ``--no-stream`` (False) or neither (None), see
    :func:`cranfield.core.memory.engine_reading`.

    Returns None when the engine cannot judge it and the input is still unread (not a
    TREC path, standard input replaced by a stream, a directory): the caller then reads
    the run in Python. A problem in the
    run raises the :class:`~cranfield.errors.InputError` ``Run.read`` and ``judge``
    raise; once standard input or a pipe is read, every problem is raised here.
    """
    from .. import _engine
    from ..progress import ReadProgress
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
    index = None if _regular_trec_file(qrels_path, trec) else qrels.index()
    source = "<stdin>" if run_path == "-" else run_path
    once = read_once(run_path)  # standard input, a pipe: reported here once read
    inputs = [run_path] if index is not None else [run_path, qrels_path]
    try:
        with ReadProgress(inputs, "reading") as bar:
            parts = _engine.judge_trec_files(
                run_path,
                str(qrels_path) if index is None else index,
                options=options,
                latin1=encoding == "latin-1",
                fractional=qrels.fractional,
                progress=bar.counter,
                **{"max_line": MAX_LINE, **engine_reading(stream)},
            )
    except _engine.JudgeError as exc:
        from .io.problems import engine_error, unread
        from .memory import engine_error as streaming_error

        error = streaming_error(exc) or engine_error(
            exc, {"run": run_path, "qrels": str(qrels_path)}, fractional=qrels.fractional
        )
        if error is None and once:
            error = unread(exc, [run_path])
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
