"""Readers of learning-to-rank data: SVMlight/LETOR lines, fold directories, LightGBM's
layout, Parquet and DataFrames.

SVMlight ranking lines (LETOR 3.0/4.0, MSLR-WEB; Joachims 2002) read
``label qid:Q 1:v 2:v ... # docid = X ...``: a whole-number label, the query id, and
``index:value`` pairs with 1-based feature indices up to 2^31 - 1, in any order, each at
most once on a line (a missing feature is 0). What follows
``#`` is a comment; its ``docid = X`` names the document. LightGBM's layout has no
``qid:`` but a file ``NAME.query`` beside the data, one line per query giving how many
consecutive lines belong to it.

The lines are parsed by the compiled engine (the crate ``rust/ltr``, module
``svmlight``): one pass over the bytes, on several threads, naming the file and line of
the first problem. The features come back dense when the matrix is small or at least a
quarter full, else as compressed sparse rows
(:class:`~cranfield.ltr.sparse.SparseFeatures`, memory proportional to the values
listed); ``layout`` forces one or the other.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..core.io.source import read_bytes, source_name
from ..errors import InputError, ParameterError
from .data import RankingData, from_arrays
from .sparse import MAX_INDEX, SparseFeatures

#: The largest feature index read: int32 column indices, as in SciPy and LightGBM.
MAX_FEATURE = MAX_INDEX
LAYOUTS = ("auto", "dense", "sparse")
FOLD_PARTS = ("train", "vali", "test")


def read(path, *, query_file=None, format: str | None = None, **table_options) -> RankingData:
    """Read ranking data, the format told by the content unless ``format`` says.

    Parquet or Arrow IPC (their magic bytes, or a ``.parquet``/``.pq``/``.arrow``/
    ``.feather`` name) -> :func:`read_table`; a file with a ``.query`` file beside it
    (or ``query_file`` given) -> LightGBM's layout; anything else SVMlight/LETOR lines.
    """
    name = str(path)
    fmt = format
    if fmt is None:
        from ..core.io.table import holds_binary_table

        if holds_binary_table(path):
            fmt = "parquet"
        elif query_file is not None or os.path.exists(name + ".query"):
            fmt = "lightgbm"
        else:
            fmt = "svmlight"
    if fmt == "parquet":
        return read_table(path, **table_options)
    if fmt == "lightgbm":
        return read_svmlight(path, query_file=query_file or name + ".query")
    if fmt == "svmlight":
        return read_svmlight(path, query_file=query_file)
    raise ParameterError("format", "one of svmlight, lightgbm, parquet", format)


def read_svmlight(
    path, *, query_file=None, source: str | None = None, layout: str = "auto"
) -> RankingData:
    """Read SVMlight ranking lines (``label qid:Q i:v ... # docid = X``).

    The lines are parsed by the compiled engine (``rust/ltr/src/svmlight.rs``; its
    documentation states the format exactly), without the interpreter lock and on
    several threads; errors name the file and line.

    Parameters
    ----------
    path
        A file path, ``-``, bytes or a file object; gzip is recognised by content.
    query_file
        LightGBM's group sizes (one integer per line); then lines carry no ``qid:`` and
        the queries are numbered 1, 2, ... in order.
    layout
        ``auto`` (dense when the matrix has at most 2^20 cells or at least one listed
        value per 4 cells, else sparse), ``dense`` or ``sparse``.
    """
    from .. import _engine
    from ..core.memory import input_budget

    if layout not in LAYOUTS:
        raise ParameterError("layout", "one of " + ", ".join(LAYOUTS), layout)
    source = source or source_name(path)
    data = read_bytes(path, source)
    has_qid = query_file is None
    try:
        labels, qids, x, docs, line_no = _engine.read_svmlight(
            data, has_qid, MAX_FEATURE, input_budget(), layout
        )
    except _engine.ReadError as exc:
        raise _input_error(exc.args, source) from None
    if query_file is not None:
        qids = _groups(query_file, len(labels))
    if isinstance(x, tuple):
        indptr, indices, values, width = x
        x = SparseFeatures(indptr, indices, values, (len(labels), int(width)))
    docs = None if docs is None else np.array(docs, dtype=object)
    return _assemble(x, labels, qids, docs, source, line_no)


def _input_error(args, source: str) -> InputError:
    """The InputError of the engine's ``ReadError((what, line, detail))``."""
    what, line, detail = args
    messages = {
        "label": lambda: f"label {_show(detail)} is not a number",
        "qid": lambda: "expected 'qid:ID' after the label",
        "unexpected_qid": lambda: "a 'qid:' field, but the queries come from a .query file",
        "pair": lambda: f"expected INDEX:VALUE, got {_show(detail)}",
        "index": lambda: f"feature index {int(detail)} is outside [1, {MAX_FEATURE}] (2^31 - 1)",
        "twice": lambda: "a feature index appears twice",
        "finite": lambda: "a feature value is not a finite number",
        "empty": lambda: "no documents",
    }
    if what == "size":
        return _size_error(*detail, source)
    if what not in messages:  # a panic in the engine: a bug
        return InputError(f"internal error of the reader ({what})", source)
    return InputError(messages[what](), source, line)


def _assemble(x, labels, qids, docs, source, line_no) -> RankingData:
    try:
        return from_arrays(x, labels, qids, docs, source=source)
    except InputError as exc:
        line = None if exc.line is None else int(line_no[exc.line - 1])
        raise InputError(exc.message, source, line) from None


def _size_error(rows: int, features: int, source: str) -> InputError:
    """Features that would not fit in the memory this process may use."""
    from ..core.memory import input_budget

    budget = input_budget() or 0
    return InputError(
        f"the features of {rows} documents ({features} features) need more than the "
        f"{budget / 2**30:.1f} GiB available",
        source,
    )


def _show(token: bytes) -> str:
    text = token.decode("utf-8", "replace")
    return repr(text if len(text) <= 40 else text[:40] + "...")


def _groups(query_file, num_lines: int) -> np.ndarray:
    """Query number (1-based) of every line, from LightGBM's group sizes."""
    source = source_name(query_file)
    text = read_bytes(query_file, source).decode("utf-8", "replace")
    sizes = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            size = int(line.strip())
        except ValueError:
            raise InputError(
                f"expected a group size, got {line.strip()[:40]!r}", source, n
            ) from None
        if size < 1:
            raise InputError(f"group size {size} is below 1", source, n)
        sizes.append(size)
    total = sum(sizes)
    if total != num_lines:
        raise InputError(
            f"the group sizes add up to {total}, but the data has {num_lines} lines", source
        )
    return np.repeat(np.arange(1, len(sizes) + 1), sizes).astype(str)


def read_table(
    table,
    *,
    query: str = "qid",
    doc: str | None = "doc",
    label: str = "label",
    features=None,
    source: str | None = None,
) -> RankingData:
    """Ranking data from a table, one row per document: a file (Parquet, Arrow IPC,
    CSV or TSV with a header, read by :func:`cranfield.core.io.table.read_table`), an
    Arrow table or a pandas/polars DataFrame.

    ``features`` names the feature columns (default: every other numeric column, in
    table order); ``doc`` may be None or absent (ids are then made up).
    """
    import pyarrow as pa

    from ..core.io.table import read_table as read_any

    formats = ("parquet", "arrow", "csv", "tsv")
    read = read_any(table, formats=formats, strings=[query, doc or ""], source=source)
    table, source = read.table, read.source
    names = table.column_names
    for role, col in (("query", query), ("label", label)):
        if col not in names:
            raise read.missing(col, role)
    has_doc = doc is not None and doc in names
    if features is None:
        skip = {query, label, doc if has_doc else None}
        features = [
            n
            for n in names
            if n not in skip
            and (
                pa.types.is_integer(table.schema.field(n).type)
                or pa.types.is_floating(table.schema.field(n).type)
            )
        ]
    if not features:
        raise InputError("no feature columns", source)
    missing = [f for f in features if f not in names]
    if missing:
        raise InputError(f"no feature column {missing[0]!r}", source)
    try:
        x = np.column_stack(
            [table.column(f).to_numpy(zero_copy_only=False).astype(np.float64) for f in features]
        )
    except (TypeError, ValueError):
        raise InputError("feature columns must be numbers", source) from None
    labels = table.column(label).to_numpy(zero_copy_only=False)
    qids = table.column(query).to_numpy(zero_copy_only=False).astype(str)
    docs = table.column(doc).to_numpy(zero_copy_only=False).astype(str) if has_doc else None
    for c in (query, label, *features):
        if table.column(c).null_count:
            read.require({c: "any"})  # names the first row (line) without a value
    return from_arrays(x, labels, qids, docs, source=source)


@dataclass(frozen=True)
class FoldPaths:
    """The three files of one fold (``vali`` may be None)."""

    name: str
    train: Path
    vali: Path | None
    test: Path


def fold_paths(directory) -> list[FoldPaths]:
    """The folds of a LETOR directory: ``Fold1..FoldK/{train,vali,test}.txt``.

    A directory that itself holds ``train.txt`` and ``test.txt`` is one fold.
    """
    root = Path(directory)
    if not root.is_dir():
        raise InputError("not a directory (expected Fold1, Fold2, ... inside)", str(root))
    dirs = sorted(
        (d for d in root.iterdir() if d.is_dir() and re.fullmatch(r"Fold\d+", d.name)),
        key=lambda d: int(d.name[4:]),
    )
    if not dirs and (root / "train.txt").exists():
        dirs = [root]
    if not dirs:
        raise InputError("no Fold1, Fold2, ... directories and no train.txt", str(root))
    folds = []
    for d in dirs:
        found = {}
        for part in FOLD_PARTS:
            path = d / f"{part}.txt"
            if not path.exists() and part != "vali":
                raise InputError(f"missing {part}.txt", str(d))
            found[part] = path if path.exists() else None
        folds.append(FoldPaths(d.name, found["train"], found["vali"], found["test"]))
    return folds
