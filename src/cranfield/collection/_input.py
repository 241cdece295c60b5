"""Streaming text input for the collection readers: lines with numbers, checked as read.

A file is opened once and read line by line (gzip recognised by its first two bytes and
decompressed as it streams), so memory stays bounded by the longest line, never the
file. Each line is checked as it arrives; the first problem stops the reading with an
:class:`~cranfield.errors.InputError` naming the file and the line:

* a line longer than :data:`MAX_LINE` bytes (a single huge line is no text format);
* a NUL byte (binary data: no text format holds one);
* bytes that are not UTF-8 (a leading byte-order mark is dropped);
* truncated or corrupt gzip data.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import zlib
from collections.abc import Iterator
from pathlib import Path

from ..core.io.source import GZIP_MAGIC, MAX_LINE, check_path, open_binary
from ..errors import InputError

PEEK = 1 << 16
"""Bytes (decompressed) looked at to recognise a format."""


def source_name(path: str | os.PathLike) -> str:
    return str(path)


@contextlib.contextmanager
def open_stream(path: str | os.PathLike, source: str):
    """A binary stream of the file's content, gunzipped when it starts with the gzip magic."""
    check_path(path, source)
    raw = open_binary(path, source)
    try:
        if raw.peek(2)[:2] == GZIP_MAGIC:
            with gzip.GzipFile(fileobj=raw, mode="rb") as fh:
                yield fh
        else:
            yield raw
    finally:
        raw.close()


def _decode(data: bytes, source: str, line: int) -> str:
    if b"\0" in data:
        raise InputError("NUL byte: binary data, not a text file", source=source, line=line)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"not UTF-8 text (byte 0x{data[exc.start]:02x} at column {exc.start + 1})",
            source=source,
            line=line,
        ) from None


def lines(path: str | os.PathLike, source: str | None = None) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` for each line of a text file, line ends kept (1-based)."""
    source = source or source_name(path)
    with open_stream(path, source) as fh:
        number = 0
        try:
            while True:
                data = fh.readline(MAX_LINE + 1)
                if not data:
                    return
                number += 1
                if len(data) > MAX_LINE:
                    raise InputError(
                        f"line longer than {MAX_LINE >> 20} MiB: not a text file of this kind",
                        source=source,
                        line=number,
                    )
                if number == 1 and data.startswith(b"\xef\xbb\xbf"):
                    data = data[3:]
                yield number, _decode(data, source, number)
        except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
            raise InputError(
                f"corrupt or truncated gzip data ({exc or type(exc).__name__})",
                source=source,
                line=number + 1,
            ) from None


def peek_text(path: str | os.PathLike, source: str) -> str:
    """The first non-blank characters of a file (up to :data:`PEEK` bytes, gunzipped),
    decoded leniently: enough to recognise its format."""
    with open_stream(path, source) as fh:
        try:
            head = fh.read(PEEK)
        except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
            raise InputError(f"corrupt or truncated gzip data ({exc})", source=source) from None
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    return head.decode("utf-8", errors="replace").lstrip()


def is_parquet(path: Path) -> bool:
    """True when the file starts with Parquet's magic bytes ``PAR1``."""
    try:
        with open(path, "rb") as fh:
            return fh.read(4) == b"PAR1"
    except OSError:
        return False


MAX_DOC_BYTES = 1 << 26
"""The largest single-document file accepted, in bytes (64 MiB)."""


def read_small(path: Path, source: str, limit: int) -> str:
    """The whole text of a file of at most ``limit`` bytes, checked like :func:`lines`."""
    with open_stream(path, source) as fh:
        try:
            data = fh.read(limit + 1)
        except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
            raise InputError(f"corrupt or truncated gzip data ({exc})", source=source) from None
    if len(data) > limit:
        raise InputError(f"file larger than {limit >> 20} MiB", source=source)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    nul = data.find(b"\0")
    if nul >= 0:
        raise InputError(
            "NUL byte: binary data, not a text file",
            source=source,
            line=data.count(b"\n", 0, nul) + 1,
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"not UTF-8 text (byte 0x{data[exc.start]:02x})",
            source=source,
            line=data.count(b"\n", 0, exc.start) + 1,
        ) from None
