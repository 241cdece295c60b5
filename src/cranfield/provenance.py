"""What a result was computed from: the record ``eval``, ``compare`` and ``report`` keep
in their JSON outputs and the report (Breuer et al., "How to Measure the
Reproducibility of System-oriented IR Experiments", SIGIR 2020, ask for exactly this).

:func:`provenance` gives the command line, cranfield's and the engine's versions, every
input file's size and SHA-256 (read in chunks: memory stays bounded), the collection id
when the qrels came from one, and the options. Standard input cannot be read twice: it
is recorded as ``-`` without a hash.
"""

from __future__ import annotations

import hashlib
import os
import stat

_CHUNK = 8 << 20


def file_record(path) -> dict:
    """``{"path", "bytes", "sha256"}`` of a regular file; ``{"path"}`` for standard input,
    a pipe or anything else that cannot be read twice."""
    shown = os.fspath(path)
    if shown == "-":
        return {"path": "-"}
    try:
        info = os.stat(shown)
    except OSError:
        return {"path": shown}
    if not stat.S_ISREG(info.st_mode):
        return {"path": shown}
    digest = hashlib.sha256()
    with open(shown, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return {"path": shown, "bytes": info.st_size, "sha256": digest.hexdigest()}


def provenance(
    command: list[str] | None,
    inputs: list,
    options: dict | None = None,
    collection: str | None = None,
) -> dict:
    """The provenance record of one result.

    Parameters
    ----------
    command
        The command line as given (``["cranfield", "eval", ...]``), or None.
    inputs
        Input paths (files are hashed, see :func:`file_record`); other objects (a qrels
        object, an in-memory run) are recorded by their ``source`` when they have one.
    options
        The options that shaped the numbers, JSON-safe.
    collection
        The ir_datasets id the qrels came from (docs/collections.md).
    """
    import platform
    import shlex

    from . import _engine

    files = []
    for item in inputs:
        if isinstance(item, (str, os.PathLike)):
            files.append(file_record(item))
        else:
            files.append({"source": str(getattr(item, "source", None) or type(item).__name__)})
    return {
        "cranfield": _engine.__version__,
        "engine": _engine.BUILD,
        "python": platform.python_version(),
        "command": None if command is None else shlex.join(command),
        "collection": collection,
        "inputs": files,
        "options": dict(sorted((options or {}).items())),
    }


def of_arguments(args, inputs: list) -> dict:
    """:func:`provenance` of a parsed command line: the command ``cli/main.py`` recorded,
    the options (every parsed value but the inputs, outputs and internal ones), and
    the collection :mod:`cranfield.cli._collections` resolved."""
    skip = {"qrels", "runs", "run", "output", "from_per_query", "action"}
    options = {
        k: v
        for k, v in vars(args).items()
        if not k.startswith("_")
        and k not in skip
        and isinstance(v, (str, int, float, bool, list, type(None)))
    }
    return provenance(
        getattr(args, "_command", None), inputs, options, getattr(args, "_collection", None)
    )
