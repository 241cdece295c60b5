"""The file formats of qrels and runs, and how a file's format is told (no imports of
NumPy or PyArrow: the command line decides its path with this before reading)."""

from __future__ import annotations

import os

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
    suffixes = [s.lower() for s in _suffixes(path_or_file)]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    ext = suffixes[-1] if suffixes else ""
    return {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".tsv": "tsv"}.get(ext, "trec")


def _suffixes(path_or_file) -> list[str]:
    """``pathlib.PurePath(path).suffixes``, without importing pathlib on POSIX (the CLI's
    cold path): the last component that is not ``.``, its dots as pathlib reads them."""
    path = os.fspath(path_or_file)
    if os.name != "posix" or not isinstance(path, str):
        from pathlib import PurePath

        return PurePath(path_or_file).suffixes
    parts = [part for part in path.split("/") if part and part != "."]
    name = parts[-1] if parts else ""
    if name.endswith("."):
        return []
    return ["." + suffix for suffix in name.lstrip(".").split(".")[1:]]
