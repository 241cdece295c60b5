"""Documents in Parquet: columns ``id``, ``text`` and optionally ``title`` (other columns
are ignored), read in batches of :data:`BATCH` rows so memory stays bounded by a batch.
``id`` may be a string or an integer column; nulls in ``id`` or ``text`` are errors
naming the row (``title`` null is an empty title).
"""

from __future__ import annotations

from collections.abc import Iterator

import pyarrow as pa

from ..errors import InputError
from ._fields import Unique, check_id
from .records import Document

BATCH = 1024


def read(path, source: str) -> Iterator[Document]:
    """The documents of a Parquet file, in row order."""
    import pyarrow.parquet as pq

    try:
        file = pq.ParquetFile(path)
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"not a readable Parquet file ({exc})", source=source) from None
    names = file.schema_arrow.names
    missing = [c for c in ("id", "text") if c not in names]
    if missing:
        raise InputError(
            f"Parquet documents need columns id and text (missing {', '.join(missing)}); "
            f"columns: {', '.join(names)[:100]}",
            source=source,
        )
    columns = ["id", "text"] + (["title"] if "title" in names else [])
    for column in columns:
        kind = file.schema_arrow.field(column).type
        ok = pa.types.is_string(kind) or pa.types.is_large_string(kind)
        if column == "id":
            ok = ok or pa.types.is_integer(kind)
        if not ok:
            raise InputError(f"column {column!r} must hold strings, not {kind}", source=source)
    unique = Unique(source, "document id")
    row = 0
    try:
        for batch in file.iter_batches(batch_size=BATCH, columns=columns):
            data = batch.to_pydict()
            titles = data.get("title") or [None] * batch.num_rows
            for did, text, title in zip(data["id"], data["text"], titles, strict=True):
                row += 1
                if did is None:
                    raise InputError(f"row {row}: missing id", source=source)
                if text is None:
                    raise InputError(f"row {row}: missing text", source=source)
                did = check_id(str(did), source, None, f"id of row {row}")
                unique.add(did, at=f"row {row}")
                yield Document(did, title or "", text)
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"cannot read row {row + 1}: {exc}", source=source) from None
    if not unique.seen:
        raise InputError("no documents (no rows)", source=source)
