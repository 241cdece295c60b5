"""``read_documents``: a document collection in any supported format, streamed."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

from ..errors import InputError, ParameterError
from . import directory, jsonl, parquet_docs, trec_docs
from ._input import is_parquet, peek_text
from .records import Document

READERS = {
    "jsonl": jsonl.read_documents,
    "trec": trec_docs.read,
    "parquet": parquet_docs.read,
    "directory": directory.read,
}
"""Document formats by name (the values ``format=`` accepts)."""


def detect(path: str | os.PathLike, source: str | None = None) -> str:
    """The format of a collection: ``"directory"``, ``"parquet"`` (magic bytes ``PAR1``),
    ``"trec"`` (starts with ``<DOC>``) or ``"jsonl"`` (starts with ``{``)."""
    source = source or str(path)
    p = Path(path)
    if p.is_dir():
        return "directory"
    if p.is_file() and is_parquet(p):
        return "parquet"
    head = peek_text(path, source)
    if not head:
        raise InputError("no documents (empty file)", source=source)
    if re.match(r"<\s*doc\s*>", head, re.I):
        return "trec"
    if head.startswith("{"):
        return "jsonl"
    raise InputError(
        "unknown document format: expected JSON Lines, TREC <DOC> blocks, Parquet, "
        "or a directory of .txt/.html files",
        source=source,
        line=1,
    )


def read_documents(path: str | os.PathLike, format: str | None = None) -> Iterator[Document]:
    """Stream the documents of a collection, one at a time (bounded memory).

    Parameters
    ----------
    path
        A JSON Lines file (``{"id", "title", "text"}`` per line), a TREC SGML file
        (``<DOC><DOCNO>``; gzip-compressed too), a Parquet file (``id``, ``title``,
        ``text`` columns), a directory of ``.txt``/``.html`` files, or an ir_datasets
        collection by id (``irds:ID``, docs/collections.md: its documents streamed).
    format
        ``"jsonl"``, ``"trec"``, ``"parquet"`` or ``"directory"``; by default recognised
        from the content.

    Yields
    ------
    Document
        In the order of the input. Document ids are checked to be unique as they come
        (the set of ids seen is the only thing that grows).

    Raises
    ------
    InputError
        With the file and line of the first problem, when the iteration reaches it (a
        duplicate or missing id, bad JSON, an unterminated ``<DOC>``, binary data, an
        unknown format). The format is checked at the call.
    """
    from ..core.io.collections import Collection, collection_id

    named = collection_id(path)
    if named is not None:
        return (Document(*d) for d in Collection.load(named).documents_iter())
    source = str(path)
    if format is None:
        format = detect(path, source)
    elif format not in READERS:
        raise ParameterError("format", "one of " + ", ".join(READERS), format)
    return READERS[format](path, source)


def documents_by_id(path: str | os.PathLike, ids) -> dict[str, Document]:
    """``{doc_id: Document}`` of the ``ids`` found in a collection: an ir_datasets
    collection (``irds:ID``) is asked by id (its document store), a file is streamed
    once keeping only those ids (bounded by what is asked for)."""
    from ..core.io.collections import Collection, collection_id

    named = collection_id(path)
    if named is not None:
        found = Collection.load(named).documents_by_id(ids)
        return {k: Document(*d) for k, d in found.items()}
    wanted = set(map(str, ids))
    return {d.id: d for d in read_documents(path) if d.id in wanted}
