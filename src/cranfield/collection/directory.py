"""A directory of documents, one file each: ``.txt`` (plain text) and ``.html``/``.htm``.

The id is the file name without its extension (``FT911-3.txt`` -> ``FT911-3``); an HTML
file's title is its ``<title>`` and its text the visible text (:mod:`.html_text`); a
text file has an empty title. Files are read in name order, one at a time, as UTF-8;
names starting with ``.`` are skipped; any other entry (a subdirectory, another
extension) is an error, so nothing is left out silently.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from ..errors import InputError
from ._fields import Unique, check_id
from ._input import MAX_DOC_BYTES, read_small
from .html_text import html_to_text
from .records import Document

SUFFIXES = {".txt": "text", ".text": "text", ".html": "html", ".htm": "html"}


def read(path, source: str) -> Iterator[Document]:
    """The documents of a directory, in file-name order."""
    root = Path(path)
    try:
        names = sorted(e.name for e in os.scandir(root) if not e.name.startswith("."))
    except OSError as exc:
        raise InputError(
            f"cannot list the directory: {exc.strerror or exc}", source=source
        ) from None
    unique = Unique(source, "document id")
    for name in names:
        file = root / name
        shown = str(file)
        kind = SUFFIXES.get(file.suffix.lower())
        if kind is None or not file.is_file():
            raise InputError(
                "not a document file: expected .txt or .html files only"
                + (" (a directory)" if file.is_dir() else ""),
                source=shown,
            )
        did = check_id(file.stem, shown, None, "document id (the file name)")
        unique.add(did, at=name)
        data = read_small(file, shown, MAX_DOC_BYTES)
        if kind == "html":
            title, text = html_to_text(data)
        else:
            title, text = "", data.strip()
        yield Document(did, title, text)
    if not unique.seen:
        raise InputError("no documents (no .txt or .html file)", source=source)
