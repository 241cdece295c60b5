"""The file formats of qrels and runs, and how a file's format is told (no imports of
NumPy or PyArrow: the command line decides its path with this before reading)."""

from __future__ import annotations

import os
from pathlib import Path

FORMATS = ("trec", "csv", "tsv", "parquet")


def infer_format(path_or_file, format: str | None) -> str:
    """The explicit ``format``, else one guessed from the file extension (default TREC)."""
    if format is not None:
        if format not in FORMATS:
            from ...errors import ParameterError

            raise ParameterError("format", "one of " + ", ".join(map(repr, FORMATS)), format)
        return format
    if not isinstance(path_or_file, (str, os.PathLike)):
        return "trec"
    suffixes = [s.lower() for s in Path(path_or_file).suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    ext = suffixes[-1] if suffixes else ""
    return {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".tsv": "tsv"}.get(ext, "trec")
