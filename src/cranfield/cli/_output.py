"""Output helpers of the subcommands: delivering a result (a file or standard output) and notes."""

from __future__ import annotations

import sys


class warnings_as_notes:  # (used as a function: `with warnings_as_notes(notes):`)
    """Collect the warnings raised inside (NumPy, SciPy) into ``notes``, once each,
    instead of letting Python print them raw with file names and line numbers.

    (A class rather than a ``contextlib.contextmanager``: ``cranfield eval`` imports
    this module, and contextlib costs a cold start ``collections`` and ``functools``.)
    """

    def __init__(self, notes: list[str]) -> None:
        self._notes = notes

    def __enter__(self) -> None:
        import warnings

        self._catching = warnings.catch_warnings(record=True)
        self._caught = self._catching.__enter__()
        warnings.simplefilter("always")

    def __exit__(self, *error) -> None:
        self._catching.__exit__(*error)
        if error[0] is not None:  # (the notes are collected only when the block ends)
            return
        caught = self._caught
        for text in dict.fromkeys(str(w.message).splitlines()[0] for w in caught if str(w.message)):
            self._notes.append(text)


def emit(text: str) -> None:
    """Write ``text`` and a newline to standard output; a closed stdout is an error."""
    if sys.stdout is None:  # started with >&-
        from ..errors import CranfieldError

        raise CranfieldError("standard output is closed: nowhere to write the result")
    sys.stdout.write(text + "\n")


def deliver(data: str | bytes, output: str | None, encoding: str = "utf-8") -> None:
    """Write a command's result: into the file ``output`` atomically (never half-written),
    or to standard output when ``output`` is None or ``"-"`` (a closed stdout is an error;
    a reader that went away, ``cranfield ... | head``, is not).

    ``data`` is text, or bytes written as they are (``trec_eval`` keeps the ids' bytes as
    they came; ``pool`` writes what the pool encoded). ``encoding`` is only for bytes on a
    standard output that takes text alone (a ``StringIO`` in place of ``sys.stdout``).
    """
    if output not in (None, "-"):
        from ..core.io.atomic import write_bytes, write_text

        if isinstance(data, bytes):
            write_bytes(output, data)
        else:
            write_text(output, data)
        return
    out = sys.stdout
    if out is None:  # started with >&-
        from ..errors import CranfieldError

        raise CranfieldError("standard output is closed: nowhere to write the result")
    try:
        if isinstance(data, str):
            out.write(data)
        elif hasattr(out, "buffer"):
            out.flush()  # what was printed before goes first
            out.buffer.write(data)
        else:
            out.write(data.decode(encoding))
        out.flush()
    except BrokenPipeError:
        pass


def printed_into(target: str | None, call):
    """``call()``, with what it prints on standard output written into the file
    ``target`` instead, atomically: the file appears complete when ``call`` succeeds and
    is left as it was if not (``add_output(..., via_stdout=True)``; ``None`` or ``"-"``:
    standard output itself)."""
    if target in (None, "-"):
        return call()
    from ..core.io.atomic import atomic_path

    saved = sys.stdout
    with atomic_path(target) as tmp, open(tmp, "w", encoding="utf-8") as fh:
        sys.stdout = fh
        try:
            return call()
        finally:
            sys.stdout = saved


def check_outputs(args, extra_inputs=()) -> None:
    """Refuse, before any work, the outputs of ``args`` (declared by
    :func:`cranfield.cli._args.add_output`) that cannot be written, that are one of the
    inputs, or that name the same file as another output (or, both ``-``, standard
    output twice): two outputs of one command never share a path.

    Every other argument that names a file counts as an input (the title of a report
    does not), so a subcommand that gains an option is covered without a list;
    ``extra_inputs`` are inputs no argument names (the files inside a directory that
    ``pool merge`` reads).
    """
    dests = getattr(args, "_outputs", None) or ("output",)
    # -o left out is standard output: another output given as '-' would share it
    outputs = [(d, getattr(args, d, None) or ("-" if d == "output" else None)) for d in dests]
    outputs = [(d, v) for d, v in outputs if isinstance(v, str)]
    if all(path == "-" for _, path in outputs) and len(outputs) < 2:
        return  # standard output: nothing to check (and nothing to import: eval's cold start)
    from ..core.io.atomic import check_output, same_destination
    from ..errors import OutputError

    skip = {*dests, "_outputs", "_stdout_output", "title"}
    inputs: list[str] = list(extra_inputs)
    for key, value in vars(args).items():
        if key in skip:
            continue
        for item in value if isinstance(value, (list, tuple)) else [value]:
            if isinstance(item, str):
                inputs.append(item)
    for i, (dest, path) in enumerate(outputs):
        for other, earlier in outputs[:i]:
            if same_destination(path, earlier):
                where = "standard output" if path == "-" else "the same file"
                raise OutputError(
                    f"--{dest.replace('_', '-')} and --{other.replace('_', '-')} both name "
                    f"{where}: give each output its own file",
                    path,
                )
        if path != "-":
            check_output(path, inputs)


def print_notes(command: str, notes: list[str]) -> None:
    """``cranfield COMMAND: note: ...`` lines on stderr (nothing when stderr is closed:
    ``print(file=None)`` would write them into the result on stdout)."""
    if sys.stderr is None:
        return
    try:
        for text in notes:
            print(f"cranfield {command}: note: {text}", file=sys.stderr, flush=True)
    except OSError:  # stderr closed under us: notes are dropped, the result stands
        pass


def rounded_note(source: str) -> str:
    """The note for a score file whose values trec_eval rounded to 4 decimals."""
    return (
        f"{source} holds values rounded to 4 decimals (as trec_eval and the text tables print "
        "them); statistics are "
        "computed on the rounded values (cranfield eval --per-query --format csv keeps "
        "full precision)"
    )
