"""System runs: ranked, scored documents per query."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ._columnar import Columnar
from .errors import InputError
from .io import trec


def _plural(n: int) -> str:
    return f"{n} query" if n == 1 else f"{n} queries"


def _default_name(source: str | None) -> str:
    if source and not source.startswith("<"):
        name = Path(source).name
        for suffix in (".gz", ".txt", ".trec", ".run", ".parquet", ".pq", ".csv", ".tsv"):
            if name.lower().endswith(suffix) and len(name) > len(suffix):
                name = name[: -len(suffix)]
        return name
    return "run"


class Run(Columnar):
    """A system's retrieved documents with their scores, in reading order.

    Columns: ``query_id: string``, ``doc_id: string``, ``score: float64``. The ranking
    is not stored: it follows trec_eval (score descending, ties by doc id descending)
    and is computed when the run is judged.

    Parameters
    ----------
    table
        Any Arrow table with query id, doc id and score columns (aliases such as
        ``qid``, ``docno``, ``sim`` are accepted).
    source
        File name or description, used in messages.
    name
        The run's name; by default the file name without extension, or ``"run"``.
    duplicates
        A document retrieved twice for one query: ``"error"`` (default, as
        trec_eval), ``"first"`` (keep the first row) or ``"max"`` (keep the highest
        score).
    """

    _value = "score"
    _layout = trec.RUN
    name: str

    def __init__(
        self,
        table: pa.Table,
        source: str | None = None,
        *,
        name: str | None = None,
        duplicates: str = "error",
    ):
        super().__init__(table, source, duplicates=duplicates)
        self.name = name if name is not None else _default_name(source)

    @classmethod
    def _extra(cls, kw: dict, source: str | None) -> dict:
        name = kw.pop("name", None)
        if kw:
            raise TypeError(f"unexpected keyword arguments: {', '.join(kw)}")
        return {"name": name if name is not None else _default_name(source)}

    @classmethod
    def read(
        cls,
        path_or_file,
        *,
        name: str | None = None,
        format: str | None = None,
        duplicates: str = "error",
        encoding: str = "utf-8",
    ) -> Run:
        """Read a run: TREC (default; ``-`` is stdin, gzip detected), Parquet, CSV or TSV.

        TREC lines are ``qid iter docno rank score tag`` (at least six fields; ``iter``,
        ``rank`` and extra fields are ignored; the score is a double). The run's name is
        ``name`` if given, else the tag of the last line (as trec_eval), else the file
        name without extension. ``encoding`` (TREC files only): ``"utf-8"`` (default)
        or ``"latin-1"`` (ids as bytes, one character per byte, as ``cranfield
        trec_eval`` reads them; see docs/input-formats.md).
        """
        table, source, tag, index = cls._read_table(path_or_file, format, duplicates, encoding)
        if name is None:
            name = tag if tag is not None else _default_name(source)
        return cls._wrap(table, source, index=index, name=name)

    def ranked(self) -> pa.Table:
        """The rows in trec_eval order: query id ascending (byte order), then score
        descending, then doc id descending; with a 1-based ``rank`` column."""
        t = self.table.sort_by(
            [("query_id", "ascending"), ("score", "descending"), ("doc_id", "descending")]
        )
        q = t["query_id"].combine_chunks()
        n = len(q)
        starts = np.zeros(n, dtype=bool)
        if n:
            starts[0] = True
            starts[1:] = np.asarray(pc.not_equal(q[1:], q[:-1]))
        pos = np.arange(n)
        rank = pos - np.maximum.accumulate(np.where(starts, pos, 0)) + 1
        return t.append_column("rank", pa.array(rank, pa.int64()))

    def to_trec(self, path_or_file: str | os.PathLike) -> None:
        """Write ``qid Q0 docno rank score tag`` lines in trec_eval order (``-`` = stdout).

        Scores are written in the shortest form that reads back to the same double.
        """
        trec.check_writable_ids(self.table, self.source)
        if not self.name or any(c.isspace() for c in self.name):
            raise InputError(f"run name {self.name!r} cannot be a TREC tag (empty or has spaces)")
        t = self.ranked()
        trec.write(
            t, path_or_file, [t["query_id"], "Q0", t["doc_id"], t["rank"], t["score"], self.name]
        )

    def __repr__(self) -> str:
        src = f", source={self.source!r}" if self.source else ""
        return f"Run({self.name!r}, {_plural(len(self.query_ids()))}, {len(self)} documents{src})"
