"""Multipart uploads streamed to disk inside the data directory, with a size limit.

The request body is read piece by piece and fed to python-multipart's parser, which
writes every file part to a temporary file in ``<data>/uploads`` (never elsewhere, and
never held whole in memory); the body is refused as soon as it exceeds the limit
(default 200 MB), and a ``Content-Length`` above the limit is refused before reading.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .problems import ServiceError

DEFAULT_LIMIT = 200 * 1024 * 1024
MAX_FIELD = 1 << 20


class TooLarge(ServiceError):
    status = 413


class BadForm(ServiceError):
    status = 400


@dataclass
class Form:
    fields: dict[str, str] = field(default_factory=dict)
    files: dict[str, Path] = field(default_factory=dict)
    filenames: dict[str, str] = field(default_factory=dict)

    def discard(self) -> None:
        """Remove the files not consumed."""
        for path in self.files.values():
            try:
                path.unlink()
            except FileNotFoundError:
                pass


async def receive(request, directory: Path, limit: int = DEFAULT_LIMIT) -> Form:
    """The fields and files of a ``multipart/form-data`` or urlencoded request body."""
    from python_multipart import FormParser
    from python_multipart.multipart import parse_options_header

    directory.mkdir(parents=True, exist_ok=True)
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise TooLarge(f"the upload is larger than the limit of {_mb(limit)}")
    ctype, params = parse_options_header(request.headers.get("content-type", ""))
    kind = ctype.decode("latin-1")
    if kind not in ("multipart/form-data", "application/x-www-form-urlencoded"):
        raise BadForm("expected a form (multipart/form-data or application/x-www-form-urlencoded)")
    form = Form()
    pending = []

    def on_field(f) -> None:
        name = (f.field_name or b"").decode("utf-8", "replace")
        form.fields[name] = (f.value or b"").decode("utf-8", "replace")

    def on_file(f) -> None:
        pending.append(f)

    parser = FormParser(
        kind,
        on_field,
        on_file,
        boundary=params.get(b"boundary"),
        config={
            "UPLOAD_DIR": str(directory),
            "MAX_MEMORY_FILE_SIZE": 0,
            "UPLOAD_DELETE_TMP": False,
            "MAX_FIELD_SIZE": MAX_FIELD,
        },
    )
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise TooLarge(f"the upload is larger than the limit of {_mb(limit)}")
            parser.write(chunk)
        parser.finalize()
    except TooLarge:
        _close(pending, form)
        form.discard()
        raise
    except Exception as exc:  # a malformed body: python-multipart's own errors
        _close(pending, form)
        form.discard()
        raise BadForm(f"malformed form data: {exc}") from None
    _close(pending, form)
    return form


def _close(pending: list, form: Form) -> None:
    for f in pending:
        name = (f.field_name or b"").decode("utf-8", "replace")
        if f.in_memory:  # an empty file part: nothing was flushed to disk
            fd, tmp = tempfile.mkstemp(dir=form_dir(f))
            os.write(fd, f.file_object.getvalue())
            os.close(fd)
            path = Path(tmp)
        else:
            f.file_object.close()
            path = Path(os.fsdecode(f.actual_file_name))
        form.files[name] = path
        form.filenames[name] = (f.file_name or b"").decode("utf-8", "replace")
    pending.clear()


def form_dir(f) -> str:
    return f._config.get("UPLOAD_DIR")


def _mb(n: int) -> str:
    return f"{n / 1e6:g} MB"
