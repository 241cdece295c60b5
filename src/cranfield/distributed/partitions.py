"""Inputs partitioned by query: what one worker task reads.

An input is a TREC/Parquet/CSV/TSV file (one partition), a directory (its Parquet
files -- told by their magic bytes ``PAR1`` or their name -- recursively, when it
holds any: a partitioned Parquet dataset; otherwise the
regular files directly in it, names starting with ``.`` or ``_`` left out), a glob
pattern (``runs/part-*.txt``; ``**`` recurses), or an in-memory
:class:`~cranfield.Run` / table; a list or tuple of these is the partitions of one
run. Partitions are listed in sorted path order.

Partitions must hold whole queries: a query of a run (or of the qrels) in two
partitions is an :class:`~cranfield.errors.InputError` (see :func:`check_disjoint`),
never evaluated twice.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError

GLOB_CHARS = frozenset("*?[")


@dataclass(frozen=True)
class Partition:
    """One task's input: ``data`` (a path, or an in-memory run), the index of the input
    it belongs to (``group``), the name of a run whose data carry none
    (``default_name``), and a label for messages."""

    data: Any
    group: int
    default_name: str
    label: str


def _listing(directory: Path) -> list[str]:
    from ..core.io.table import binary_format

    parquet = sorted(
        str(p)
        for p in directory.rglob("*")
        if p.is_file()
        and not any(part.startswith((".", "_")) for part in p.relative_to(directory).parts)
        and binary_format(p) == "parquet"  # its magic bytes, or its name
    )
    if parquet:
        return parquet
    return sorted(
        str(p) for p in directory.iterdir() if p.is_file() and not p.name.startswith((".", "_"))
    )


def paths(spec: str | os.PathLike) -> list[str]:
    """The partition files of one input given by path, directory or glob pattern, as
    absolute paths: a worker process has a working directory of its own (on a
    cluster, the same shared file system mounted at the same place is required)."""
    return [os.path.abspath(p) for p in _relative_paths(spec)]


def _relative_paths(spec: str | os.PathLike) -> list[str]:
    text = os.fspath(spec)
    if text == "-":
        raise InputError(
            "the Dask workers cannot read standard input: give files", source="<stdin>"
        )
    if os.path.isdir(text):
        found = _listing(Path(text))
        if not found:
            raise InputError("the directory holds no files to evaluate", source=text)
        return found
    if GLOB_CHARS & set(text) and not os.path.exists(text):
        found = sorted(p for p in glob.glob(text, recursive=True) if os.path.isfile(p))
        if not found:
            raise InputError("no file matches this pattern", source=text)
        return found
    if not os.path.exists(text):
        raise InputError("no such file", source=text)
    return [text]


def partitions(inputs, default_name) -> list[Partition]:
    """Every partition of ``inputs``, in input order.

    ``inputs`` is one input or a list of inputs (runs); an input is a path, directory
    or glob pattern (its files are its partitions), an in-memory run, or a list or
    tuple of these (the partitions of one run). ``default_name(path)`` names a run
    read from ``path`` without a name of its own (the local engine's file name).
    """
    from ..core.columnar import is_in_memory
    from ..core.run import Run

    if isinstance(inputs, (str, os.PathLike, Run)) or is_in_memory(inputs):
        inputs = [inputs]
    out: list[Partition] = []
    for group, spec in enumerate(inputs):
        members = list(spec) if isinstance(spec, (list, tuple)) else [spec]
        for item in members:
            if isinstance(item, (str, os.PathLike)):
                name = default_name(os.fspath(item if len(members) == 1 else members[0]))
                out.extend(Partition(p, group, name, p) for p in paths(item))
            else:
                label = getattr(item, "source", None) or f"run {group + 1}"
                name = getattr(item, "name", None) or "run"
                out.append(Partition(item, group, name, f"{label} (part {len(out) + 1})"))
    if not out:
        from ..errors import ParameterError

        raise ParameterError("runs", "at least one run", inputs)
    return out


def check_disjoint(ids: list[np.ndarray], labels: list[str], what: str) -> None:
    """Raise :class:`InputError` when an id occurs in two of the arrays.

    ``ids[i]`` are the distinct query ids of partition ``labels[i]``; ``what`` says
    whose queries they are (``"run 'bm25'"``, ``"the qrels"``).
    """
    if len(ids) < 2:
        return
    import pyarrow as pa
    import pyarrow.compute as pc

    flat = pa.array([q for a in ids for q in a], pa.string())
    owner = np.repeat(np.arange(len(ids)), [len(a) for a in ids])
    order = pc.sort_indices(flat).to_numpy()
    ranked = flat.take(pa.array(order))
    same = pc.equal(ranked[1:], ranked[:-1]).to_numpy(zero_copy_only=False)
    if not same.any():
        return
    k = int(np.flatnonzero(same)[0])
    first, second = sorted((labels[owner[order[k]]], labels[owner[order[k + 1]]]))
    duplicate = ranked[k].as_py()
    raise InputError(
        f"query {duplicate!r} of {what} is in two partitions ({first} and {second}): "
        "partition the data by query, each query's lines in one partition"
    )
