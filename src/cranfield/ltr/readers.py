"""Readers of learning-to-rank data: SVMlight/LETOR lines, fold directories, LightGBM's
layout, Parquet and DataFrames.

SVMlight ranking lines (LETOR 3.0/4.0, MSLR-WEB; Joachims 2002) read
``label qid:Q 1:v 2:v ... # docid = X ...``: a whole-number label, the query id, and
``index:value`` pairs with 1-based feature indices (a missing feature is 0). What follows
``#`` is a comment; its ``docid = X`` names the document. LightGBM's layout has no
``qid:`` but a file ``NAME.query`` beside the data, one line per query giving how many
consecutive lines belong to it.

The dense case (every line lists the same features in the same order, as LETOR and MSLR
files do) is parsed by Arrow's CSV reader after the comments are cut and ``:`` becomes a
separator; anything else (sparse lines, LightGBM's files) by a line-by-line reader, which
is also what names the file and line of the first problem.
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

MAX_FEATURE = 100_000
_DOCID = re.compile(rb"docid[ \t]*=[ \t]*([^\s#]+)")
_COMMENT_DOCID = re.compile(rb"#[^\n#]*?docid[ \t]*=[ \t]*([^\s#]+)")  # one per comment
_COMMENT = re.compile(rb"#[^\n]*")
FOLD_PARTS = ("train", "vali", "test")


def read(path, *, query_file=None, format: str | None = None, **table_options) -> RankingData:
    """Read ranking data, the format told by the file name unless ``format`` says.

    ``.parquet``/``.pq`` -> :func:`read_table`; a file with a ``.query`` file beside it
    (or ``query_file`` given) -> LightGBM's layout; anything else SVMlight/LETOR lines.
    """
    name = str(path)
    fmt = format
    if fmt is None:
        if name.lower().endswith((".parquet", ".pq")):
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


def read_svmlight(path, *, query_file=None, source: str | None = None) -> RankingData:
    """Read SVMlight ranking lines (``label qid:Q i:v ... # docid = X``).

    Parameters
    ----------
    path
        A file path, ``-`` or a file object; gzip is recognised by content.
    query_file
        LightGBM's group sizes (one integer per line); then lines carry no ``qid:`` and
        the queries are numbered 1, 2, ... in order.
    """
    source = source or source_name(path)
    data = read_bytes(path, source)
    if b"\r" in data:  # CRLF line ends; a lone CR separates like a space
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b" ")
    # comments cut in one pass over the bytes, then the blanks that ended each line
    bodies = [b.rstrip() for b in _COMMENT.sub(b"", data).split(b"\n")]
    if bodies and bodies[-1] == b"":
        bodies.pop()
    blank = [i for i, b in enumerate(bodies) if not b.strip()]
    keep = None
    if blank:  # comment-only and empty lines carry no document
        keep = np.ones(len(bodies), dtype=bool)
        keep[blank] = False
        line_no = np.flatnonzero(keep) + 1
        bodies = [b for b, k in zip(bodies, keep, strict=True) if k]
    else:
        line_no = np.arange(1, len(bodies) + 1)
    if not bodies:
        raise InputError("no documents", source)
    has_qid = query_file is None
    parsed = _dense(bodies, has_qid) if has_qid else None
    if parsed is None:
        parsed = _lines(bodies, has_qid, source, line_no)
    labels, qids, x = parsed
    if query_file is not None:
        qids = _groups(query_file, len(bodies))
    docs = _doc_ids(data, len(bodies), keep)
    return _assemble(x, labels, qids, docs, source, line_no)


def _assemble(x, labels, qids, docs, source, line_no) -> RankingData:
    try:
        return from_arrays(x, labels, qids, docs, source=source)
    except InputError as exc:
        line = None if exc.line is None else int(line_no[exc.line - 1])
        raise InputError(exc.message, source, line) from None


def _doc_ids(data: bytes, count: int, keep) -> np.ndarray | None:
    """``docid = X`` of every document line's comment, or None unless every one has it.

    When every document line has one comment holding a docid (the usual LETOR file),
    one ``findall`` over the bytes gives them in order; otherwise the lines are read one
    by one.
    """
    found = _COMMENT_DOCID.findall(data)
    if keep is None and len(found) == count and data.count(b"#") == count:
        ids = found
    else:
        lines = data.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        if keep is not None:
            lines = [line for line, k in zip(lines, keep, strict=True) if k]
        matches = [_DOCID.search(line.partition(b"#")[2]) for line in lines]
        if not all(matches):
            return None
        ids = [m.group(1) for m in matches]
    return np.array([i.decode("utf-8", "replace") for i in ids], dtype=object)


def _dense(bodies: list[bytes], has_qid: bool):
    """(labels, qids, features) when every line lists features 1..F in order, else None."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    first = bodies[0].split()
    width = len(first)
    start = 2 if has_qid else 1
    if width < start or (has_qid and not first[1].startswith(b"qid:")):
        return None
    body = b"\n".join(bodies).replace(b":", b" ")
    first_feature = 3 if has_qid else 1
    nfeat = width - start
    cols = first_feature + 2 * nfeat
    # every column typed up front: no type inference, the same types in every block
    types = {"f0": pa.float64()}
    if has_qid:
        types.update(f1=pa.string(), f2=pa.string())
    for j in range(nfeat):
        types[f"f{first_feature + 2 * j}"] = pa.int64()
        types[f"f{first_feature + 2 * j + 1}"] = pa.float64()
    try:
        table = pcsv.read_csv(
            pa.py_buffer(body),
            read_options=pcsv.ReadOptions(column_names=list(types), block_size=1 << 20),
            parse_options=pcsv.ParseOptions(delimiter=" ", quote_char=False),
            convert_options=pcsv.ConvertOptions(column_types=types),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, ValueError):
        return None
    if table.num_columns != cols or table.num_rows != len(bodies):
        return None
    table = table.combine_chunks()
    column = [table.column(i).chunk(0) if table.column(i).num_chunks else None for i in range(cols)]
    if any(c is None or c.null_count for c in column):
        return None
    if has_qid and not all(t == "qid" for t in column[1].unique().to_pylist()):
        return None
    x = np.empty((table.num_rows, nfeat))
    for j in range(nfeat):
        idx, val = column[first_feature + 2 * j], column[first_feature + 2 * j + 1]
        idx_np = idx.to_numpy()
        if idx_np.min() != j + 1 or idx_np.max() != j + 1:
            return None
        x[:, j] = val.to_numpy()
    labels = column[0].to_numpy()
    qids = column[2].to_numpy(zero_copy_only=False) if has_qid else None
    return labels, qids, x


def _lines(bodies: list[bytes], has_qid: bool, source: str, line_no: np.ndarray):
    """The line-by-line reader: exact, with file:line in every error."""
    labels = np.empty(len(bodies), dtype=np.float64)
    qids: list[str] = []
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    for i, body in enumerate(bodies):
        line = int(line_no[i])
        tokens = body.split()
        try:
            labels[i] = float(tokens[0])
        except ValueError:
            raise InputError(f"label {_show(tokens[0])} is not a number", source, line) from None
        rest = tokens[1:]
        if has_qid:
            if not rest or not rest[0].startswith(b"qid:") or len(rest[0]) == 4:
                raise InputError("expected 'qid:ID' after the label", source, line)
            qids.append(rest[0][4:].decode("utf-8", "replace"))
            rest = rest[1:]
        elif rest and rest[0].startswith(b"qid:"):
            raise InputError(
                "a 'qid:' field, but the queries come from a .query file", source, line
            )
        if not rest:
            continue
        pairs = [t.partition(b":") for t in rest]
        try:
            index = np.array([int(p[0]) for p in pairs], dtype=np.int64)
            value = np.array([float(p[2]) for p in pairs], dtype=np.float64)
        except ValueError:
            bad = next(t for t in rest if not _is_pair(t))
            raise InputError(f"expected INDEX:VALUE, got {_show(bad)}", source, line) from None
        if any(not p[1] for p in pairs):
            bad = next(t for t, p in zip(rest, pairs, strict=True) if not p[1])
            raise InputError(f"expected INDEX:VALUE, got {_show(bad)}", source, line)
        if index.min() < 1 or index.max() > MAX_FEATURE:
            bad = int(index[(index < 1) | (index > MAX_FEATURE)][0])
            raise InputError(f"feature index {bad} is outside [1, {MAX_FEATURE}]", source, line)
        if len(np.unique(index)) != len(index):
            raise InputError("a feature index appears twice", source, line)
        if not np.isfinite(value).all():
            raise InputError("a feature value is not a finite number", source, line)
        rows.append(np.full(len(index), i, dtype=np.int64))
        cols.append(index - 1)
        vals.append(value)
    nfeat = int(max((c.max() for c in cols), default=-1)) + 1
    _check_size(len(bodies), nfeat, source)
    x = np.zeros((len(bodies), max(nfeat, 1)))
    if rows:
        x[np.concatenate(rows), np.concatenate(cols)] = np.concatenate(vals)
    return labels, (np.array(qids, dtype=object) if has_qid else None), x


def _check_size(rows: int, features: int, source: str) -> None:
    """Refuse a dense matrix that would not fit in the memory this process may use."""
    from ..core.memory import input_budget

    need = rows * max(features, 1) * 8
    budget = input_budget()
    if budget is not None and need > budget:
        raise InputError(
            f"{rows} documents x {features} features need {need / 2**30:.1f} GiB as a dense "
            f"matrix, more than the {budget / 2**30:.1f} GiB available",
            source,
        )


def _is_pair(token: bytes) -> bool:
    a, sep, b = token.partition(b":")
    try:
        int(a)
        float(b)
    except ValueError:
        return False
    return bool(sep)


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
    """Ranking data from a table: a Parquet path, an Arrow table or a pandas/polars
    DataFrame with one row per document.

    ``features`` names the feature columns (default: every other numeric column, in
    table order); ``doc`` may be None or absent (ids are then made up).
    """
    import pyarrow as pa

    if isinstance(table, (str, os.PathLike)):
        import pyarrow.parquet as pq

        source = source or str(table)
        try:
            table = pq.read_table(table)
        except (OSError, pa.ArrowInvalid) as exc:
            raise InputError(f"cannot read Parquet: {str(exc).splitlines()[0]}", source) from None
    source = source or "<table>"
    if not isinstance(table, pa.Table):
        try:
            table = pa.table(table)
        except (TypeError, ValueError, pa.ArrowInvalid) as exc:
            raise InputError(f"cannot read as a table: {exc}", source) from None
    names = table.column_names
    for role, col in (("query", query), ("label", label)):
        if col not in names:
            raise InputError(f"no {role} column {col!r} (columns: {', '.join(names)})", source)
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
    if any(table.column(c).null_count for c in [query, label, *features]):
        raise InputError("missing values in the table", source)
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
