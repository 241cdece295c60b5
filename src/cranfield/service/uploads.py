"""Multipart uploads streamed to disk inside the data directory, with a size limit.

The request body is read piece by piece and fed to python-multipart's parser, which
writes every file part to a temporary file in a directory of its own under
``<data>/uploads`` (never elsewhere, and never held whole in memory); the body is
refused as soon as it exceeds the limit (default 200 MB; a ``Content-Length`` above it
is refused before reading, :mod:`cranfield.service.limits`). The request's directory
goes when the request ends (:meth:`Form.discard`), whatever happened: a refused, broken
or failed upload leaves nothing on disk, a file part cut off half-way included.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .limits import TooLarge, megabytes
from .problems import ServiceError

DEFAULT_LIMIT = 200 * 1024 * 1024
MAX_FIELD = 1 << 20


class BadForm(ServiceError):
    status = 400


@dataclass
class Form:
    fields: dict[str, str] = field(default_factory=dict)
    files: dict[str, Path] = field(default_factory=dict)
    filenames: dict[str, str] = field(default_factory=dict)
    directory: Path | None = None  # this request's own, under <data>/uploads

    def discard(self) -> None:
        """Remove the request's directory with what was not consumed (moved out)."""
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)


async def receive(request, directory: Path, limit: int = DEFAULT_LIMIT) -> Form:
    """The fields and files of a ``multipart/form-data`` or urlencoded request body."""
    from python_multipart import FormParser
    from python_multipart.multipart import parse_options_header

    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise TooLarge(f"the upload is larger than the limit of {megabytes(limit)}")
    ctype, params = parse_options_header(request.headers.get("content-type", ""))
    kind = ctype.decode("latin-1")
    if kind not in ("multipart/form-data", "application/x-www-form-urlencoded"):
        raise BadForm("expected a form (multipart/form-data or application/x-www-form-urlencoded)")
    directory.mkdir(parents=True, exist_ok=True)
    form = Form(directory=Path(tempfile.mkdtemp(prefix="request-", dir=directory)))
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
            "UPLOAD_DIR": str(form.directory),
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
                raise TooLarge(f"the upload is larger than the limit of {megabytes(limit)}")
            parser.write(chunk)
        parser.finalize()
        _close(pending, form)
    except TooLarge:
        form.discard()
        raise
    except BaseException as exc:  # a malformed body, a disconnect, a cancelled task
        form.discard()
        if isinstance(exc, Exception) and not isinstance(exc, ServiceError):
            raise BadForm(f"malformed form data: {exc}") from None
        raise
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
