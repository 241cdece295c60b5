"""Open an input given as a path, ``"-"`` (standard input) or a file object.

Files are only ever opened for reading. Problems become :class:`InputError` naming the
source, so the command-line interface can print one line and exit with status 2.

Every input is read exactly once. A regular, uncompressed file is handed on as its
path (the reader opens it; the TREC reader is the compiled engine, which checks the
text as it reads it, as :func:`load` does). Anything else — standard input, a named
pipe, ``<(...)``, a character device, a gzip file, a file object — is read once, in
pieces, into memory (:func:`load`):

* gzip is recognised by its first two bytes (``1f 8b``), never by the file name, and
  decompressed piece by piece; truncated or corrupt data is an error naming the file;
* a text input stops at the first NUL byte (no text format holds one: it is binary
  data, such as ``/dev/zero``) and at the first line longer than :data:`MAX_LINE`
  bytes, each reported with its line number;
* the whole content may not exceed what fits in memory (``memory.input_budget``).

A reader that passes over a table more than once, a record batch at a time, reads a
gzip file through :func:`open_content` (decompressed piece by piece at every pass) and
standard input or a pipe from the temporary file :func:`spool` copies it to as it
arrives (:func:`cranfield.core.io.table.read_table` with ``stream=True``).
"""

from __future__ import annotations

import errno
import os
import stat
import sys

from ...errors import InputError

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a cold CLI)
if TYPE_CHECKING:
    from pathlib import Path

GZIP_MAGIC = b"\x1f\x8b"
MAX_LINE = 1 << 26
"""The longest line a text input may hold, in bytes (64 MiB)."""
_PIECE = 1 << 20


def source_name(path_or_file) -> str:
    """A short description of an input for messages: the path, ``<stdin>`` or ``<file>``."""
    if isinstance(path_or_file, (str, os.PathLike)):
        return "<stdin>" if str(path_or_file) == "-" else str(path_or_file)
    return str(getattr(path_or_file, "name", "<file>"))


def _os_error(exc: OSError, path, source: str) -> InputError:
    """A one-line message for a failed ``open``/``stat``, naming what really happened."""
    code = exc.errno
    if code == errno.ENOENT:
        if os.path.islink(path):
            return InputError(
                f"no such file: dangling symbolic link to {os.readlink(path)!r}", source=source
            )
        return InputError("no such file", source=source)
    if code == errno.ELOOP:
        return InputError("symbolic link loop (too many levels of symbolic links)", source=source)
    if code == errno.EISDIR:
        return InputError("is a directory, expected a file", source=source)
    if code in (errno.EACCES, errno.EPERM):
        return InputError("permission denied", source=source)
    return InputError(f"cannot read: {exc.strerror or exc}", source=source)


def check_path(path: str | os.PathLike, source: str) -> Path:
    """Fail with a readable :class:`InputError` unless ``path`` can be opened as a file
    (``stat`` only: a named pipe is not opened here)."""
    from pathlib import Path  # (not at the top: the CLI's cold path imports this module)

    p = Path(path)
    try:
        st = os.stat(p)
    except OSError as exc:
        raise _os_error(exc, p, source) from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError("is a directory, expected a file", source=source)
    if not os.access(p, os.R_OK):
        raise InputError("permission denied", source=source)
    return p


def open_binary(path: str | os.PathLike, source: str):
    """Open a path for reading (binary, buffered), with one-line errors."""
    try:
        fh = open(path, "rb")  # noqa: SIM115  (the caller closes it)
    except OSError as exc:
        raise _os_error(exc, path, source) from None
    try:
        if stat.S_ISDIR(os.fstat(fh.fileno()).st_mode):
            raise InputError("is a directory, expected a file", source=source)
    except BaseException:
        fh.close()
        raise
    return fh


def is_regular(fh) -> bool:
    try:
        return stat.S_ISREG(os.fstat(fh.fileno()).st_mode)
    except (OSError, AttributeError, ValueError):
        return False


def resolve(
    path_or_file, source: str, *, text: bool = True, check=None, gzip: bool = False
) -> Path | bytes:
    """What a reader should parse: a regular uncompressed file's path (or a gzip
    file's, when the reader decompresses it: ``gzip=True``), else its content read once
    (:func:`load`: gunzipped and, for ``text``, checked)."""
    if isinstance(path_or_file, (str, os.PathLike)) and str(path_or_file) != "-":
        with open_binary(path_or_file, source) as fh:
            if not is_regular(fh):
                return _load_from(fh, source, text, check)
            if gzip or _peek(fh, 2) != GZIP_MAGIC:
                from pathlib import Path

                return Path(path_or_file)
            return _load_from(fh, source, text)  # gzip: the whole parse follows anyway
    return read_bytes(path_or_file, source, text=text, check=check)


def read_bytes(path_or_file, source: str, *, text: bool = True, check=None) -> bytes:
    """The whole content of an input as bytes, read once, gunzipped when it is
    gzip-compressed (see :func:`load` for the checks)."""
    if isinstance(path_or_file, (bytes, bytearray, memoryview)):
        return load(iter([bytes(path_or_file)]), source, text=text, check=check)
    if isinstance(path_or_file, (str, os.PathLike)) and str(path_or_file) == "-":
        stream = sys.stdin
        if stream is None:
            raise InputError("standard input is closed", source=source)
        return _load_from(getattr(stream, "buffer", stream), source, text, check)
    if isinstance(path_or_file, (str, os.PathLike)):
        with open_binary(path_or_file, source) as fh:
            return _load_from(fh, source, text, check)
    if hasattr(path_or_file, "read"):
        return _load_from(path_or_file, source, text, check)
    raise InputError(
        f"expected a path, '-' or a file object, got {type(path_or_file).__name__}",
        source=source,
    )


def _peek(fh, n: int) -> bytes:
    """The first ``n`` bytes of a buffered binary file without consuming them."""
    try:
        if hasattr(fh, "peek"):
            return fh.peek(n)[:n]
        pos = fh.tell()
        head = fh.read(n)
        fh.seek(pos)
    except OSError as exc:  # e.g. EIO: a file that opens but cannot be read
        raise _os_error(exc, getattr(fh, "name", ""), source_name(fh)) from None
    return head


def file_pieces(fh, source: str):
    """A file object's content, a MiB at a time (read errors as one line)."""
    while True:
        try:
            piece = fh.read(_PIECE)
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror or exc}", source=source) from None
        if not piece:
            return
        if isinstance(piece, str):
            piece = piece.encode("utf-8")
        yield piece


def _load_from(fh, source: str, text: bool, check=None) -> bytes:
    return load(file_pieces(fh, source), source, text=text, check=check)


def _gunzip(pieces, source: str):
    """Decompress gzip members (one after the other) piece by piece."""
    import zlib

    d = zlib.decompressobj(31)
    for raw in pieces:
        while raw:
            if d.eof:  # a member ended: another may follow, or zero padding
                if not raw.strip(b"\0"):
                    break
                if raw[:2] != GZIP_MAGIC[: len(raw)]:
                    raise InputError("corrupt gzip data: trailing bytes", source=source)
                d = zlib.decompressobj(31)
            try:
                out = d.decompress(raw, _PIECE)
            except zlib.error as exc:
                raise InputError(f"corrupt gzip data ({exc})", source=source) from None
            raw = d.unused_data if d.eof else d.unconsumed_tail
            if out:
                yield out
    if not d.eof:
        raise InputError("truncated gzip data (the file ends inside the stream)", source=source)


def _split(pieces):
    """Pieces of at most ``_PIECE`` bytes."""
    for piece in pieces:
        if len(piece) <= _PIECE:
            yield piece
        else:
            view = memoryview(piece)
            for i in range(0, len(view), _PIECE):
                yield bytes(view[i : i + _PIECE])


def too_large(budget: int, source: str) -> InputError:
    """The error for an input that would not fit in memory read whole."""
    return InputError(
        f"more than {budget >> 20} MiB, more than fits in the memory available to "
        "read it whole (save it to a file; runs can then be streamed)",
        source=source,
    )


def load(pieces, source: str, *, text: bool = True, check=None) -> bytes:
    """Join pieces of an input (decompressed when they start with the gzip magic),
    checking text as it arrives (:func:`checked`), no more in all than
    ``memory.input_budget()``.

    ``check``, when given, is called once with the complete lines of the first MiB
    (the whole MiB for binary input): the reader's parser, so that a stream that
    starts with what cannot be valid stops there, before the rest is read.
    """
    from ..memory import input_budget

    budget = input_budget()
    out: list[bytes] = []
    total = 0
    for piece in checked(pieces, source, text=text):
        total += len(piece)
        if budget is not None and total > budget:
            raise too_large(budget, source)
        out.append(piece)
        if check is not None and total >= _PIECE:
            head = b"".join(out)
            check(head[: head.rfind(b"\n") + 1] if text else head)
            out = [head]
            check = None
    return b"".join(out)


def checked(pieces, source: str, *, text: bool = True):
    """The pieces of an input, gunzipped when they start with the gzip magic, in
    pieces of at most ``_PIECE`` bytes, none empty; for ``text``: no NUL byte (no text
    format holds one), no line over :data:`MAX_LINE` bytes, each refused with its line."""
    import itertools

    pieces = _split(pieces)
    head = b""
    for piece in pieces:  # at least two bytes to look at (a pipe may give fewer)
        head += piece
        if len(head) >= 2:
            break
    pieces = itertools.chain([head], pieces)
    if head[:2] == GZIP_MAGIC:
        pieces = _gunzip(pieces, source)
    check = TextCheck(source) if text else None
    for piece in pieces:
        if not piece:
            continue
        if check is not None:
            check(piece)
        yield piece


def read_pieces(path_or_file, source: str, *, text: bool = True):
    """The content of an input as :func:`read_bytes` reads it, checked as
    :func:`load` checks it, but in pieces as they are read, never whole."""
    if isinstance(path_or_file, (bytes, bytearray, memoryview)):
        yield from checked(iter([bytes(path_or_file)]), source, text=text)
    elif isinstance(path_or_file, (str, os.PathLike)) and str(path_or_file) != "-":
        with open_binary(path_or_file, source) as fh:
            yield from checked(file_pieces(fh, source), source, text=text)
    else:
        stream = sys.stdin if str(path_or_file) == "-" else path_or_file
        if stream is None:
            raise InputError("standard input is closed", source=source)
        if not hasattr(stream, "read"):
            raise InputError(
                f"expected a path, '-' or a file object, got {type(stream).__name__}",
                source=source,
            )
        yield from checked(
            file_pieces(getattr(stream, "buffer", stream), source), source, text=text
        )


class TextCheck:
    """The checks of a text input's pieces, called with each piece in turn: no NUL
    byte, no line over :data:`MAX_LINE` bytes (each error naming its line);
    :attr:`lines` counts the line ends so far."""

    def __init__(self, source: str):
        self.source = source
        self.lines = 0  # line ends before the current piece
        self._since = 0  # bytes since the last line end

    def __call__(self, piece: bytes) -> None:
        nul = piece.find(b"\0")
        if nul >= 0:
            line = self.lines + piece.count(b"\n", 0, nul) + 1
            raise InputError(
                "NUL byte: this is binary data, not a text file", source=self.source, line=line
            )
        first = _first_end(piece)
        if first < 0:  # the line goes on
            self._since += len(piece)
        elif self._since + first > MAX_LINE:  # the line that ends here was too long
            self._since = MAX_LINE + 1
        else:
            self._since = len(piece) - max(piece.rfind(b"\n"), piece.rfind(b"\r")) - 1
        if self._since > MAX_LINE:
            raise InputError(
                f"line longer than {MAX_LINE >> 20} MiB (the most one line may hold)",
                source=self.source,
                line=self.lines + 1,
            )
        self.lines += piece.count(b"\n")


def _first_end(piece: bytes) -> int:
    """The position of the first line end (``\\n`` or ``\\r``) in ``piece``, -1 if none."""
    n, r = piece.find(b"\n"), piece.find(b"\r")
    return min(n, r) if n >= 0 and r >= 0 else max(n, r)


def is_gzip_file(path: Path) -> bool:
    """True when the file starts with the gzip magic number (whatever its extension)."""
    with open(path, "rb") as fh:
        return fh.read(2) == GZIP_MAGIC


class PieceFile:
    """A binary file object reading an iterator of pieces (``read``, ``readinto``,
    ``close``): the decompressed content of a gzip file handed to a reader that takes
    a file (Arrow's CSV and IPC readers), a piece at a time; errors raise as the
    pieces' iterator raises them (:class:`InputError`)."""

    def __init__(self, pieces, close=None):
        self._pieces = iter(pieces)
        self._held = memoryview(b"")
        self._close = close
        self.closed = False

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def writable(self) -> bool:
        return False

    def read(self, size: int = -1) -> bytes:
        out: list[bytes] = []
        want = size if size is not None and size >= 0 else None
        got = 0
        while want is None or got < want:
            if not self._held:
                piece = next(self._pieces, None)
                if piece is None:
                    break
                self._held = memoryview(piece)
                continue
            take = len(self._held) if want is None else min(want - got, len(self._held))
            out.append(bytes(self._held[:take]))
            self._held = self._held[take:]
            got += take
        return b"".join(out)

    def readinto(self, buffer) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            if self._close is not None:
                self._close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def open_content(path: str | os.PathLike, source: str) -> PieceFile:
    """A regular file's content as a file object, gunzipped piece by piece when it is
    gzip-compressed (:func:`checked`: truncated or corrupt data is one error naming
    the file); a file that may be opened again, unlike standard input."""
    fh = open_binary(path, source)
    return PieceFile(checked(file_pieces(fh, source), source, text=False), fh.close)


def spool(path_or_file, source: str):
    """Standard input (``"-"``), a named pipe or a file object copied as it is read
    (still compressed, if it is) to a temporary file, a MiB at a time: a table reader
    that reads a file more than once (or from its end, as Parquet's) then reads it
    from there, with the memory of one piece. The returned temporary file (its
    ``name`` the path) is deleted when closed."""
    import tempfile

    if isinstance(path_or_file, (str, os.PathLike)) and str(path_or_file) == "-":
        stream = sys.stdin
        if stream is None:
            raise InputError("standard input is closed", source=source)
        stream = getattr(stream, "buffer", stream)
        opened = None
    elif isinstance(path_or_file, (str, os.PathLike)):
        stream = opened = open_binary(path_or_file, source)
    else:
        stream, opened = getattr(path_or_file, "buffer", path_or_file), None
    out = tempfile.NamedTemporaryFile(prefix="cranfield-", suffix=".spool")  # noqa: SIM115
    try:
        for piece in file_pieces(stream, source):
            out.write(piece)
        out.flush()
    except OSError as exc:
        out.close()
        raise InputError(
            f"cannot copy to a temporary file: {exc.strerror or exc}", source
        ) from None
    except BaseException:
        out.close()
        raise
    finally:
        if opened is not None:
            opened.close()
    return out
