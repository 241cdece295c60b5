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
    suffixes = [s.lower() for s in file_suffixes(path_or_file)]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    ext = suffixes[-1] if suffixes else ""
    return {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".tsv": "tsv"}.get(ext, "trec")


def file_suffixes(path_or_file) -> list[str]:
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


# -- telling a table's format from its content ------------------------------------------------

TABLE_FORMATS = ("parquet", "arrow", "csv", "tsv", "whitespace", "jsonl")
"""The formats :func:`cranfield.core.io.table.read_table` reads."""

_MAGIC = (
    (b"PAR1", "parquet"),
    (b"ARROW1", "arrow"),  # the Arrow IPC file format (Feather version 2)
    (b"\xff\xff\xff\xff", "arrow"),  # an Arrow IPC stream (its continuation marker)
)
COMPRESSED = (
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
)
"""Compressions recognised by their magic bytes but not read (gzip is: see ``source``)."""

_EXTENSIONS = {
    ".parquet": "parquet",
    ".pq": "parquet",
    ".arrow": "arrow",
    ".feather": "arrow",
    ".ipc": "arrow",
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
}


def extension_format(path_or_file) -> str | None:
    """The table format a file name's extension suggests (a final ``.gz`` ignored), or
    None: only ever a hint for :func:`sniff`."""
    if not isinstance(path_or_file, (str, os.PathLike)) or os.fspath(path_or_file) == "-":
        return None
    suffixes = [s.lower() for s in file_suffixes(path_or_file)]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    return _EXTENSIONS.get(suffixes[-1]) if suffixes else None


def compression(head: bytes) -> str | None:
    """The name of a compression cranfield recognises but does not read, or None."""
    return next((name for magic, name in COMPRESSED if head.startswith(magic)), None)


def sniff(head: bytes, hint: str | None = None) -> str:
    """The format of a table whose (decompressed) content starts with ``head``.

    Binary formats by their magic bytes: Parquet ``PAR1``, Arrow IPC ``ARROW1`` (the
    file format, also Feather 2) or ``FF FF FF FF`` (the stream format). Text by its
    first non-blank line (a UTF-8 byte-order mark skipped): a JSON object is JSON lines;
    a tab makes TSV, a comma CSV, runs of spaces whitespace-separated columns. ``hint``
    (a format named by the file's extension) decides only what the content leaves open:
    a line holding both tabs and commas, or a single column.
    """
    for magic, name in _MAGIC:
        if head.startswith(magic):
            return name
    line = next((ln for ln in head[:65536].splitlines() if ln.strip()), b"")
    line = line.removeprefix(b"\xef\xbb\xbf").strip()
    if line.startswith(b"{"):
        return "jsonl"
    tab, comma, spaced = b"\t" in line, b"," in line, len(line.split()) > 1
    if hint in ("csv", "tsv") and ((hint == "csv" and comma) or (hint == "tsv" and tab)):
        return hint
    if tab:
        return "tsv"
    if comma:
        return "csv"
    if spaced:
        return "whitespace"
    return hint if hint in ("csv", "tsv", "whitespace") else "csv"
