"""Output files written whole or not at all, and never over an input.

Every file cranfield writes (``eval -o``, ``plot -o``, ``report -o``, the sample
collection, ``to_trec``) goes through :func:`atomic_path`: the content is written to a
temporary file in the target's directory, flushed to disk (``fsync``) and renamed over
the target. A rename within one file system is atomic (POSIX ``rename(2)``), so a reader
sees the old file or the new one, never a part: a full disk, an error or a signal
leaves the old file as it was and no temporary file behind.

* An existing target keeps its permission bits (and owner, where allowed); a new one
  gets ``0o666`` less the umask, as ``open(path, "w")`` would.
* A symbolic link is followed: the file it names is replaced, the link stays.
* A target that is not a regular file (``/dev/null``, ``/dev/stdout``, a FIFO) is
  written directly: there is nothing to preserve and it cannot be renamed over.
* While a temporary file exists, SIGTERM and SIGHUP (when they have their default
  action) remove it before the process ends as the signal demands; SIGINT raises
  ``KeyboardInterrupt``, which removes it on the way out.

:func:`check_output` is the early check of the command line: the output is not a
directory, its directory exists, and it is not one of the inputs (same device and inode,
so also through symbolic and hard links; a dangling link to a file not yet there).
"""

from __future__ import annotations

import os
import signal
import stat
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ...errors import OutputError

_HANDLED = ("SIGTERM", "SIGHUP")
_live: set[str] = set()  # temporary files that exist now, removed on a signal
_lock = threading.Lock()
_saved: dict[int, object] = {}  # signal -> previous handler, while _live is not empty


def _on_signal(signum, frame) -> None:  # pragma: no cover - runs in a dying process
    for tmp in list(_live):
        try:
            os.unlink(tmp)
        except OSError:
            pass
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _install() -> None:
    if threading.current_thread() is not threading.main_thread():
        return  # signal handlers can only be set from the main thread
    for name in _HANDLED:
        sig = getattr(signal, name, None)
        if sig is None or sig in _saved:
            continue
        if signal.getsignal(sig) is signal.SIG_DFL:
            _saved[sig] = signal.signal(sig, _on_signal)


def _restore() -> None:
    if threading.current_thread() is not threading.main_thread():
        return
    for sig, previous in list(_saved.items()):
        signal.signal(sig, previous)
        del _saved[sig]


def _destination(target: str | os.PathLike) -> Path:
    """The file to replace: ``target``, or the file a symbolic link names."""
    path = Path(target)
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    if path.is_dir():
        raise OutputError("is a directory, expected a file name", str(target))
    return path


def _is_special(path: Path) -> bool:
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode)


def _create_temp(dest: Path, shown: str) -> str:
    """Create an empty temporary file next to ``dest``; returns its path."""
    name = dest.name[:100]
    flags = os.O_CREAT | os.O_EXCL | os.O_WRONLY | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = str(dest.parent / f".{name}.{os.urandom(4).hex()}.tmp{dest.suffix}")
        try:
            fd = os.open(tmp, flags, 0o666)  # the kernel applies the umask
        except FileExistsError:
            continue
        except OSError as exc:
            if isinstance(exc, FileNotFoundError):
                raise OutputError(f"no such directory: {dest.parent}", shown) from None
            raise OutputError(f"cannot write: {exc.strerror or exc}", shown) from None
        try:
            old = os.stat(dest)
        except OSError:
            old = None
        try:
            if old is not None:
                os.fchmod(fd, stat.S_IMODE(old.st_mode))
                if hasattr(os, "fchown") and (old.st_uid, old.st_gid) != os.fstat(fd)[4:6]:
                    try:
                        os.fchown(fd, old.st_uid, old.st_gid)
                    except OSError:
                        pass  # not allowed: the new file belongs to whoever writes it
        except BaseException:
            os.close(fd)
            os.unlink(tmp)
            raise
        os.close(fd)
        return tmp
    raise OutputError("cannot create a temporary file next to it", shown)


def _sync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextmanager
def atomic_path(target: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path to write; on success it replaces ``target`` atomically.

    The temporary file exists (empty) and ends with the target's suffix, so writers that
    choose a format by suffix (``matplotlib.Figure.savefig``) work. On any exception or
    signal the temporary file is removed and ``target`` is left as it was. Errors of the
    file system become :class:`~cranfield.errors.OutputError` naming ``target``.

    Examples
    --------
    >>> with atomic_path("figure.png") as tmp:  # doctest: +SKIP
    ...     fig.savefig(tmp)
    """
    shown = str(target)
    dest = _destination(target)
    if _is_special(dest):
        try:
            yield dest
        except OSError as exc:
            if isinstance(exc, OutputError) or exc.filename not in (None, str(dest)):
                raise
            raise OutputError(f"cannot write: {exc.strerror or exc}", shown) from exc
        return
    with _lock:
        tmp = _create_temp(dest, shown)
        _live.add(tmp)
        _install()
    renamed = False
    try:
        try:
            yield Path(tmp)
            fd = os.open(tmp, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, dest)
            renamed = True
        except OSError as exc:
            if isinstance(exc, OutputError) or exc.filename not in (None, tmp, str(dest)):
                raise
            raise OutputError(f"cannot write: {exc.strerror or exc}", shown) from exc
        _sync_dir(dest.parent)
    finally:
        with _lock:
            _live.discard(tmp)
            if not renamed:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
            if not _live:
                _restore()


def write_bytes(target: str | os.PathLike, data: bytes) -> Path:
    """Replace ``target`` with ``data`` atomically; returns ``Path(target)``."""
    with atomic_path(target) as tmp, open(tmp, "wb") as fh:
        fh.write(data)
    return Path(target)


def write_text(
    target: str | os.PathLike, text: str, encoding: str = "utf-8", newline: str | None = None
) -> Path:
    """Replace ``target`` with ``text`` atomically (``newline`` as in :func:`open`)."""
    with atomic_path(target) as tmp, open(tmp, "w", encoding=encoding, newline=newline) as fh:
        fh.write(text)
    return Path(target)


def _identity(path: str | os.PathLike) -> tuple[int, int] | None:
    try:
        st = os.fstat(0) if str(path) == "-" else os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


def same_destination(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Whether writing ``a`` and ``b`` would write one file: both ``"-"`` (standard
    output), the same existing file (device and inode: links too), or the same path once
    symbolic links and ``..`` are resolved."""
    if str(a) == "-" or str(b) == "-":
        return str(a) == str(b)
    ia, ib = _identity(a), _identity(b)
    if ia is not None and ia == ib:
        return True
    return os.path.realpath(_destination(a)) == os.path.realpath(_destination(b))


def check_output(target: str | os.PathLike, inputs: Iterable[str | os.PathLike] = ()) -> None:
    """Refuse, before any work, an output that cannot be written or is one of the inputs.

    Raises :class:`~cranfield.errors.OutputError` when ``target`` is a directory, its
    directory does not exist or takes no new file (read-only, no permission: a temporary
    file is created there and removed), or it is the same file as an input (``"-"`` is
    standard input): same device and inode, which also catches symbolic and hard links,
    or, for a file that does not exist yet, an input that is a symbolic link to it. A target that is not a regular
    file (``/dev/null``) holds nothing to lose and is accepted.
    """
    shown = str(target)
    dest = _destination(target)
    if _is_special(dest):
        return
    parent = dest.parent
    if not parent.is_dir():
        raise OutputError(f"no such directory: {parent}", shown)
    mine = _identity(dest)
    real = os.path.realpath(dest)
    for source in inputs:
        other = _identity(source)
        same = (mine is not None and mine == other) or (
            mine is None and os.path.islink(source) and os.path.realpath(source) == real
        )
        if same:
            what = "standard input" if str(source) == "-" else str(source)
            raise OutputError(f"is also an input ({what}); write the output to another file", shown)
    os.unlink(_create_temp(dest, shown))  # fails now rather than after the work
