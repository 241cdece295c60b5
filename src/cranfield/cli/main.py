"""The ``cranfield`` command: dispatch to one module per subcommand.

:data:`SUBCOMMANDS` names each subcommand's module and holds its one-line description
(the only copy: ``cranfield --help`` shows it without importing any subcommand, and
``cranfield SUB --help`` shows it too). A subcommand module defines
``add_arguments(parser)`` and ``run(args) -> int``, or ``main(argv) -> int`` when it
parses its own arguments (trec_eval, ndeval, pool); the module is imported only when used, so
``cranfield trec_eval`` does not pay for plotting or statistics imports. Every parser is
a :class:`~cranfield.cli._args.Parser`: a usage error is one line and exit status 2.
"""

from __future__ import annotations

import sys

from .. import _interrupt
from ..errors import CranfieldError

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a cold CLI)
if TYPE_CHECKING:
    from argparse import Namespace

    from ._args import Parser

# name -> (module, one-line description). Kept here so `cranfield --help` needs no imports.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "eval": ("eval_cmd", "evaluate runs against qrels with readable measure names"),
    "trec_eval": (
        "trec_eval_cmd",
        "drop-in replacement for trec_eval 10.0 (same flags and output)",
    ),
    "cwl": ("cwl_cmd", "drop-in for cwl_eval: C/W/L measures (EU, ETU, EC, ETC, ED, residuals)"),
    "ndeval": (
        "ndeval_cmd",
        "drop-in replacement for ndeval (TREC diversity evaluation: same options and output)",
    ),
    "sample_eval": (
        "sample_eval_cmd",
        "drop-in for TREC's sample_eval.pl: infAP (xinfAP), infNDCG from sampled judgments",
    ),
    "measures": ("measures_cmd", "list the measures, or show one with its formula and source"),
    "runs": ("runs_cmd", "describe runs: topics, depth, ties, score range, ir_metadata"),
    "compare": ("compare_cmd", "compare runs: significance tests, effect sizes, tables"),
    "correlate": (
        "correlate_cmd",
        "rank correlation between two runs (per query) or two result tables (system orderings)",
    ),
    "repro": (
        "repro_cmd",
        "how closely a reproduced or replicated experiment matches the original",
    ),
    "meta": (
        "meta_cmd",
        "evaluate the evaluation: discriminative power, swap rates, topic-set size, ANOVA",
    ),
    "curve": ("curve_cmd", "precision-recall curves as data"),
    "plot": (
        "plot_cmd",
        "draw one figure as SVG, PNG or PDF: pr, avg, delta, dist, depth, coverage, asl, swap",
    ),
    "report": ("report_cmd", "write a self-contained HTML evaluation report"),
    "classify": ("classify_cmd", "evaluate a classifier: confusion matrix, rates, ROC, thresholds"),
    "cluster": ("cluster_cmd", "evaluate a clustering against a gold standard"),
    "demo": ("demo_cmd", "evaluate the bundled sample test collection"),
    "fuse": ("fuse_cmd", "fuse runs into one: CombSUM, CombMNZ, RRF, Borda, ...; tune weights"),
    "pool": ("pool_cmd", "build a judgment pool from runs; pool stats, reuse, assign, merge"),
    "agreement": ("agreement_cmd", "agreement between assessors: kappa, alpha, AC1, per topic"),
    "aggregate": ("aggregate_cmd", "combine labels into one qrels: vote, Dawid-Skene, MACE"),
    "assessors": ("assessors_cmd", "assessor quality: gold accuracy, confusion, speed, spammers"),
    "judge": ("judge_cmd", "label a pool with a machine assessor (a language model), cached"),
    "validate": (
        "validate_cmd",
        "a machine assessor against people: confusion, kappa, alpha, bias, rankings",
    ),
    "ppi": (
        "ppi_cmd",
        "run scores with valid intervals from machine labels plus a human sample (PPI)",
    ),
    "clicks": ("clicks_cmd", "click logs: fit and compare click models, relevance from clicks"),
    "ab": ("ab_cmd", "A/B test from per-unit logs: Welch, Mann-Whitney, bootstrap, delta, CUPED"),
    "ltr": ("ltr_cmd", "learning to rank by optimising a measure: train, eval, cross-validate"),
    "campaign": (
        "campaign_cmd",
        "evaluation campaigns: init, add-user, pool, assign, export (see serve)",
    ),
    "serve": (
        "serve_cmd",
        "the campaign service: run submission, blind judging, qrels and results in a browser",
    ),
    "rec": (
        "rec_cmd",
        "recommender evaluation: accuracy, coverage, novelty, popularity bias; splits",
    ),
    "interleave": (
        "interleave_cmd",
        "simulate interleaving of two runs (or multileaving) against offline nDCG",
    ),
}


def description(name: str) -> str:
    """The one-line description of subcommand ``name`` (from :data:`SUBCOMMANDS`)."""
    return SUBCOMMANDS[name][1]


def _available() -> dict[str, tuple[str, str]]:
    from importlib.util import find_spec

    return {
        name: spec
        for name, spec in SUBCOMMANDS.items()
        if find_spec(f"cranfield.cli.{spec[0]}") is not None
    }


def subcommand_parser(name: str):
    """(module, parser) of subcommand ``name`` with its arguments declared."""
    from ._args import Parser

    module = _import(f"cranfield.cli.{SUBCOMMANDS[name][0]}")
    parser = Parser(prog=f"cranfield {name}", description=description(name))
    module.add_arguments(parser)
    return module, parser


def parse(parser: Parser, argv: list[str]) -> Namespace:
    """Parse ``argv``: the names after one ``-m`` first become ``-m`` options of their
    own (:func:`~cranfield.cli._args.expand_measure_lists`, with the parser of the
    action for a subcommand that has actions), then argparse parses."""
    from ._args import expand_measure_lists

    # a subcommand with actions (meta power ...): the -m of the action's own parser
    actions = next((a for a in parser._actions if a.dest == "action" and a.choices), None)
    if actions is not None and argv and argv[0] in actions.choices:
        action = actions.choices[argv[0]]
        args, extra = parser.parse_known_args([argv[0], *expand_measure_lists(action, argv[1:])])
        if extra:  # the action's own error: "cranfield meta anova: error: ..."
            action.error(f"unrecognized arguments: {' '.join(extra)}")
        return args
    return parser.parse_args(expand_measure_lists(parser, argv))


def _import(path: str):
    """``importlib.import_module(path)`` for an absolute name, without importing importlib
    (which the console script has not loaded: a cold start)."""
    __import__(path)
    return sys.modules[path]


def _module(name: str):
    """The module of subcommand ``name``, or None when it is not installed."""
    path = f"cranfield.cli.{SUBCOMMANDS[name][0]}"
    try:
        return _import(path)
    except ModuleNotFoundError as exc:
        if exc.name != path:  # a module it needs is missing, not the subcommand itself
            raise
        return None


def _top_level(argv: list[str]) -> int:
    """``cranfield``, ``cranfield --help``, ``--version`` or an unknown subcommand: the
    parser of the subcommand names (built only here: a subcommand does not need it)."""
    from ._args import Parser

    available = _available()
    parser = Parser(
        prog="cranfield",
        description="Evaluate retrieval, ranking and classification systems.",
    )
    from .. import _engine

    parser.add_argument(
        "--version",
        action="version",
        version=f"cranfield {_engine.__version__} (engine: {_engine.BUILD})",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_, help_text) in available.items():
        sub.add_parser(name, help=help_text, add_help=False)
    parser.parse_args(argv or ["--help"])
    return 1


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    module = _module(argv[0]) if argv and argv[0] in SUBCOMMANDS else None
    if module is None:
        return _top_level(argv)
    name = argv[0]
    if hasattr(module, "main"):  # subcommands that parse their own arguments
        return _guard(lambda: module.main(argv[1:]), name)
    # plain command lines read without argparse, where the subcommand can (eval)
    quick = getattr(module, "quick", None)
    args = quick(argv[1:]) if quick is not None else None
    if args is None:
        args = _parsed(name, argv[1:])
    return _guard(
        lambda: _check_output(args) or _prepare(args, name, argv) or _run(module, args), name
    )


def _prepare(args, name: str, argv: list[str]) -> None:
    """After the outputs are checked: the command line as given (provenance records it),
    and a collection id given as QRELS resolved to its qrels and conventions
    (cli/_collections.py)."""
    from ._collections import maybe_id

    args._command = ["cranfield", *argv]
    if maybe_id(getattr(args, "qrels", None)):
        from ._collections import apply

        apply(args, name)


def _run(module, args) -> int:
    """``module.run(args)``; for a command that prints its result and has ``-o FILE``
    (``add_output(..., via_stdout=True)``), what it prints goes into FILE, atomically
    (:func:`cranfield.cli._output.printed_into`)."""
    dest = getattr(args, "_stdout_output", None)
    target = getattr(args, dest, None) if dest else None
    if target in (None, "-"):
        return module.run(args)
    from ._output import printed_into

    return printed_into(target, lambda: module.run(args))


def _parsed(name: str, argv: list[str]) -> Namespace:
    """The arguments of subcommand ``name``, read by its argparse parser."""
    module, sub_parser = subcommand_parser(name)
    early = getattr(module, "early", None)
    if early is not None:  # background work that must start before the heavy imports
        try:
            early(argv)
        except OSError:  # best effort: the subcommand does the same work itself
            pass
    return parse(sub_parser, argv)


def _check_output(args) -> None:
    """Refuse unusable outputs before any work (:func:`cranfield.cli._output.check_outputs`)."""
    from ._output import check_outputs

    check_outputs(args)


def _notes_printed(name: str | None) -> None:
    """cranfield's notes from the library (:func:`cranfield.errors.note`) become the
    command's one-line notes on stderr (``None``: warnings again, once it ends)."""
    from .. import errors

    if name is None:
        errors.set_note_sink(None)
        return

    def sink(text: str) -> None:
        from ._output import print_notes

        print_notes(name, [text])

    errors.set_note_sink(sink)


def _guard(call, name: str) -> int:
    """Run a subcommand; user errors become one line on stderr and exit status 2.

    Memory the compiled engine cannot have (outside its fallible allocations, which it
    reports as errors) ends the process with the same line as a :class:`MemoryError`
    (``rust/engine/src/out_of_memory.rs``), instead of Rust's abort.
    """
    engine = None
    _notes_printed(name)
    try:
        from .. import _engine as engine

        engine.set_out_of_memory_line(_out_of_memory_line(name))
        return int(call() or 0)
    except BrokenPipeError:
        return 0
    except (CranfieldError, OSError, UnicodeDecodeError) as exc:
        if _interrupt.interrupted:  # e.g. a read cut short by the signal
            return _interrupted_status(name)
        print(f"cranfield {name}: error: {exc}", file=sys.stderr)
        return 2
    except MemoryError:
        return _out_of_memory(name)
    except KeyboardInterrupt:
        return _interrupted_status(name)
    except Exception as exc:
        if _interrupt.interrupted:  # Ctrl-C half-way through an import shows as any exception
            return _interrupted_status(name)
        if not _lacks_memory(exc):
            raise
        return _out_of_memory(name)
    finally:
        if engine is not None:
            engine.set_out_of_memory_line("")
        _notes_printed(None)


def _interrupted_status(name: str) -> int:
    """The one line of an interrupted command (on stderr, when there is one); 130."""
    if _interrupt.interrupted:
        _interrupt.say(f"cranfield {name}")
    elif sys.stderr is not None:  # a KeyboardInterrupt raised by other means (in-process)
        try:
            print(f"cranfield {name}: interrupted", file=sys.stderr, flush=True)
        except OSError:
            pass
    return 130


def _out_of_memory_line(name: str) -> str:
    hint = (
        "; --stream reads a run in pieces of bounded size" if name in ("eval", "trec_eval") else ""
    )
    return f"cranfield {name}: error: out of memory{hint}"


def _out_of_memory(name: str) -> int:
    print(_out_of_memory_line(name), file=sys.stderr)
    return 2


# what the system says when memory runs out other than by MemoryError: a library that
# cannot be mapped (dlopen), a thread whose stack cannot be had (Arrow's thread pool)
_NO_MEMORY = ("failed to map segment from shared object", "cannot allocate memory")
_NO_THREAD = "failed to launch worker thread"


def _lacks_memory(exc: BaseException) -> bool:
    """Whether ``exc`` is the system running out of memory (under ``ulimit -v`` or a
    control group's limit) in a form other than :class:`MemoryError`."""
    text = str(exc).lower()
    if isinstance(exc, ImportError):
        return any(s in text for s in _NO_MEMORY)
    return type(exc).__module__.startswith("pyarrow") and (
        _NO_THREAD in text or any(s in text for s in _NO_MEMORY)
    )


class _Closed:
    """Stands in for a standard stream that was closed (``<&-``, ``>&-``).

    Reading or writing it raises a one-line error; flushing does nothing.
    """

    encoding = "utf-8"
    errors = "strict"

    def __init__(self, error) -> None:
        self._error = error

    @property
    def buffer(self):
        return self

    def _fail(self, *_args, **_kw):
        raise self._error()

    read = readline = readlines = readinto = write = writelines = _fail
    __iter__ = _fail

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        raise self._error()


def _stdin_closed() -> Exception:
    from ..errors import InputError

    return InputError("standard input is closed", source="<stdin>")


def _stdout_closed() -> Exception:
    from ..errors import OutputError

    return OutputError("standard output is closed", "<stdout>")


def _standard_streams() -> None:
    """Make closed standard streams safe before any file is opened.

    A closed descriptor 0, 1 or 2 gets ``/dev/null``, so no file opened later can take
    its number (an output landing on descriptor 1 would receive whatever is printed).
    Then: a closed standard input fails to read with one line; a closed standard output
    fails to write with one line (status 2), which commands writing to ``-o`` never do;
    a closed standard error drops notes and warnings — never sends them to standard
    output — and leaves the exit status alone.
    """
    import os

    closed = []
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
            closed.append(fd)
    if 0 in closed:
        sys.stdin = _Closed(_stdin_closed)
    if 1 in closed:
        sys.stdout = _Closed(_stdout_closed)
    if 2 in closed:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - process-long


class _WithoutPandas:
    """A finder for which pandas is not installed.

    pyarrow imports pandas (0.3 s for a cold process, more than NumPy and Arrow together)
    when it converts between NumPy and Arrow, only to tell whether a value is a pandas
    object; the command line never hands it one, and no command uses pandas. For
    pyarrow, a pandas it cannot import is one that is not installed: the conversions give
    the same arrays.
    """

    def find_spec(self, name, path=None, target=None):
        if name == "pandas" or name.startswith("pandas."):
            raise ModuleNotFoundError("pandas is left out of the command line", name=name)
        return None


def without_pandas() -> None:
    """Install :class:`_WithoutPandas` (the console script does, before a command runs;
    a program importing cranfield keeps pyarrow's pandas integration)."""
    if "pandas" not in sys.modules:
        sys.meta_path.insert(0, _WithoutPandas())


def entry() -> None:
    """The console script: :func:`main`, then a quick exit.

    Once the output is flushed, the process ends with ``os._exit``: tearing down the
    interpreter would free every array and module one by one, which costs a large
    evaluation about 0.1 s of nothing (measured on a 7-million-line run). Called from
    Python, :func:`main` returns normally.
    """
    import os

    # Ctrl-C anywhere (an import, an engine call, a half-imported module raising some
    # other exception) ends the command with one line and status 130
    _interrupt.install()
    _interrupt.running = True
    name = sys.argv[1] if sys.argv[1:2] and sys.argv[1] in SUBCOMMANDS else ""
    _interrupt.command = f"cranfield {name or '(starting)'}"
    try:
        _standard_streams()
        without_pandas()
        from ..core.memory import one_malloc_arena_under_a_limit

        one_malloc_arena_under_a_limit()
        if "numpy" not in sys.modules:
            # no BLAS thread pool: the commands' matrix products are tall and thin (the
            # engine's threads do the parallel work), and OpenBLAS's idle threads spin
            # after every threaded product (a 2-run `report`: 0.81 -> 0.46 s of CPU;
            # `meta power` on 100 runs: 8.4 -> 5.3 s wall, benchmarks/README.md)
            os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        status = main()
    except BaseException:
        if not _interrupt.interrupted:
            raise
        os._exit(_interrupted_status(name or "(starting)"))
    if _interrupt.interrupted:  # a compiled module swallowed the KeyboardInterrupt
        os._exit(_interrupted_status(name or "(starting)"))
    # the result is complete: a signal now no longer interrupts its delivery
    _interrupt.ignore()
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (cranfield ... | head)
        pass
    except OSError:
        status = status or 1
    try:
        sys.stderr.flush()
    except OSError:
        pass
    os._exit(status)


if __name__ == "__main__":
    entry()
