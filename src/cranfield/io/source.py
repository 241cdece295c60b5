"""Open an input given as a path, ``"-"`` (standard input) or a file object.

Files are only ever opened for reading. Problems become :class:`InputError` naming the
source, so the command-line interface can print one line and exit with status 2.
"""

from __future__ import annotations

import gzip
import os
import sys
from pathlib import Path

from ..errors import InputError

GZIP_MAGIC = b"\x1f\x8b"


def source_name(path_or_file) -> str:
    """A short description of an input for messages: the path, ``<stdin>`` or ``<file>``."""
    if isinstance(path_or_file, (str, os.PathLike)):
        return "<stdin>" if str(path_or_file) == "-" else str(path_or_file)
    return str(getattr(path_or_file, "name", "<file>"))


def check_path(path: str | os.PathLike, source: str) -> Path:
    """Fail with a readable :class:`InputError` unless ``path`` is a readable file."""
    p = Path(path)
    if not p.exists():
        raise InputError("no such file", source=source)
    if p.is_dir():
        raise InputError("is a directory, expected a file", source=source)
    if not os.access(p, os.R_OK):
        raise InputError("permission denied", source=source)
    return p


def read_bytes(path_or_file, source: str) -> bytes:
    """The whole content of an input as bytes, gunzipped when it is gzip-compressed."""
    try:
        if isinstance(path_or_file, (str, os.PathLike)) and str(path_or_file) == "-":
            stream = sys.stdin
            data = stream.buffer.read() if hasattr(stream, "buffer") else stream.read()
        elif isinstance(path_or_file, (str, os.PathLike)):
            with open(check_path(path_or_file, source), "rb") as fh:
                data = fh.read()
        elif hasattr(path_or_file, "read"):
            data = path_or_file.read()
        else:
            raise InputError(
                f"expected a path, '-' or a file object, got {type(path_or_file).__name__}",
                source=source,
            )
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", source=source) from exc
    if isinstance(data, str):
        data = data.encode("utf-8")
    if data[:2] == GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise InputError(f"corrupt gzip data: {exc}", source=source) from exc
    return bytes(data)


def is_gzip_file(path: Path) -> bool:
    """True when the file starts with the gzip magic number (whatever its extension)."""
    with open(path, "rb") as fh:
        return fh.read(2) == GZIP_MAGIC
