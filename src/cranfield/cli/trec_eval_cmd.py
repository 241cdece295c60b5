"""``cranfield trec_eval``: a drop-in replacement for trec_eval 10.0.

Same arguments and output as trec_eval; ``--compat 9`` reproduces trec_eval 9.x
(pytrec_eval). Exit status: 0 success, 1 bad option or measure, 2 input error.
"""

from __future__ import annotations

import sys

from ..errors import CranfieldError, MeasureError
from ._common import UsageError, engine_value, judge_options, quick_scan
from ._quick_tables import TREC_EVAL, TREC_EVAL_DEFAULTS

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a cold CLI)
if TYPE_CHECKING:
    from ._args import Parser

USAGE = """usage: cranfield trec_eval [-h] [-q] [-m measure[.params]] [-c] [-n] [-l <num>]
                           [-D debug_level] [-N <num>] [-M <num>] [-R rel_format]
                           [-T results_format] [-Z zscore_file] [-J] [--compat 9|10]
                           [--engine local|dask] [--scheduler ADDRESS]
                           rel_info_file results_file"""

DESCRIPTION = """Evaluate a TREC run against qrels exactly as trec_eval 10.0 does.

  -q, --query_eval_wanted        also print the value of every query
  -m, --measure MEASURE[.PARAMS] measure to print (repeatable); nicknames: official
                                 (default), set, all_trec; e.g. -m P.5,10 -m ndcg_cut.10
  -c, --complete_rel_info_wanted average over every qrels topic; topics without
                                 results score 0 (default: such topics are ignored,
                                 with a note on stderr)
  -n, --nosummary                do not print the 'all' summary lines
  -l, --level_for_rel NUM        minimum grade of a relevant document (default 1, >= 0)
  -N, --Number_docs_in_coll NUM  collection size, for utility's d coefficient
  -M, --Max_retrieved_per_topic NUM  evaluate only the top NUM documents of each topic
  -J, --Judged_docs_only         drop unjudged documents from the rankings
  -Z, --Zscore FILE              print z-scores using 'qid measure mean stddev' lines;
                                 values without a usable mean/stddev print as
                                 -1000000 per query, as in trec_eval (with a note)
  -R, -T FORMAT                  input formats: only 'qrels' and 'trec_results'
  -D LEVEL                       accepted and ignored (trec_eval debug output)
  --compat 9|10                  reproduce trec_eval 10.0 (default) or 9.x/pytrec_eval
  --stream, --no-stream          read the run in query-aligned pieces (bounded memory;
                                 default for runs over 512 MiB, gzip and standard
                                 input) / read it whole
  --engine local|dask            dask: the run's partitions (a directory or quoted glob
                                 pattern of files partitioned by topic) judged in Dask
                                 workers, same output (needs cranfield[dask])
  --scheduler ADDRESS            the Dask scheduler to use (implies --engine dask;
                                 default: a local cluster of one worker per core)
  Use '-' for one of the files to read standard input.
  See 'cranfield measures' for what every measure computes."""


# trec_eval's own options, in the order argparse is given them (its messages list
# options in that order): (option strings, dest, action, default); the quick parser's
# table is generated from build_parser (cli/_quick_gen.py)
OPTIONS = (
    (("-h", "--help"), "help", "store_true", False),
    (("-v", "--version"), "version", "store_true", False),
    (("-q", "--query_eval_wanted"), "per_query", "store_true", False),
    (("-m", "--measure"), "measures", "append", None),  # (default: a new list)
    (("-c", "--complete_rel_info_wanted"), "complete", "store_true", False),
    (("-n", "--nosummary"), "nosummary", "store_true", False),
    (("-l", "--level_for_rel"), "rel_level", "store", "1"),
    (("-N", "--Number_docs_in_coll"), "num_docs", "store", "0"),
    (("-M", "--Max_retrieved_per_topic"), "depth", "store", None),
    (("-J", "--Judged_docs_only"), "judged_only", "store_true", False),
    (("-Z", "--Zscore"), "zscores", "store", None),
    (("-R", "--Rel_info_format"), "rel_format", "store", "qrels"),
    (("-T", "--Results_format"), "results_format", "store", "trec_results"),
    (("-D", "--Debug_level"), "debug", "store", None),
    (("-o", "--Output_old_results_format"), "Output_old_results_format", "store_true", False),
)


def build_parser() -> Parser:
    """trec_eval's options; a usage error exits with status 1, as trec_eval's do."""
    import argparse

    from ._args import Parser, add_compat, add_engine, add_stream

    p = Parser(
        prog="cranfield trec_eval",
        usage_status=1,
        usage=USAGE.removeprefix("usage: "),
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        add_help=False,
    )
    for flags, dest, action, default in OPTIONS:
        if action == "store_true":
            p.add_argument(*flags, action=action, dest=dest)
        else:
            p.add_argument(
                *flags, action=action, dest=dest, default=[] if action == "append" else default
            )
    add_compat(p)
    add_stream(p)
    add_engine(p)
    p.add_argument("files", nargs="*")
    return p


def quick_parse(argv: list[str]):
    """The options of a plain trec_eval command line without ``argparse``, or None.

    Plain: every option written out in full and alone (``-q``, ``-m all_trec``,
    ``--compat 9``), each value an argument of its own that does not start with '-',
    and the two files next to each other. That is how trec_eval is called (and
    importing and building an ``argparse`` parser costs more than the rest of the
    Python work of a small evaluation); anything else (``-qc``, ``-mP.5``,
    ``--measure=P``, an abbreviation, ``--``, a missing or odd value, not two files)
    returns None and :func:`build_parser`'s parser reads it, so results and messages
    are argparse's. tests/cli/test_trec_eval_quick_parse.py checks that both give the
    same options; the options are :mod:`cranfield.cli._quick_tables`'s, generated from
    :func:`build_parser`.
    """
    read = quick_scan(argv, TREC_EVAL, TREC_EVAL_DEFAULTS)
    if read is None or len(read[1]) != 2:
        return None
    args, files = read
    args.files = files
    return args


def _int_option(parser: Parser | _Later, value, flag: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        parser.error(f"option {flag} expects an integer, got {value!r}")


def _note(msg: str) -> None:
    print(f"cranfield trec_eval: {msg}", file=sys.stderr)


class _Later:
    """Stands in for :func:`build_parser`'s parser after :func:`quick_parse`: a usage
    error is reported by the parser, built then."""

    def error(self, message: str):
        build_parser().error(message)


def main(argv: list[str]) -> int:
    args = quick_parse(argv)
    parser = _Later() if args is not None else build_parser()
    try:
        if args is None:
            args = parser.parse_args(argv)
        if args.help:
            # the option table is DESCRIPTION; argparse's own list would repeat it
            print(f"{USAGE}\n\n{DESCRIPTION}")
            return 0
        if args.version:
            from .. import __version__

            print(f"cranfield trec_eval {__version__} (trec_eval 10.0 compatible)", file=sys.stderr)
            return 0
        if len(args.files) != 2:
            parser.error("expected two files: rel_info_file results_file")
        if args.rel_format != "qrels" or args.results_format != "trec_results":
            parser.error("only -R qrels and -T trec_results are supported")
        rel_level = _int_option(parser, args.rel_level, "-l")
        if rel_level < 0:
            # trec_eval 10.0 would count unjudged documents as relevant in some measures
            # and not in others (and crash on some inputs): docs/trec_eval.md
            parser.error("option -l expects an integer >= 0")
        num_docs = _int_option(parser, args.num_docs, "-N")
        depth = None if args.depth is None else _int_option(parser, args.depth, "-M")
        if depth is not None and depth <= 0:
            parser.error("option -M expects a positive integer")
        if args.files.count("-") > 1:
            parser.error("only one of the two files can be standard input")
        if args.scheduler is not None and args.engine == "local":
            parser.error("--scheduler needs --engine dask")
        dask = engine_value(args) == "dask"
        if dask and (args.stream or "-" in args.files):
            parser.error("--engine dask reads partitioned files: no --stream, no standard input")
        judging = judge_options(args, rel_level=rel_level, depth=depth)
    except UsageError as exc:  # reported on one line by Parser.error
        return int(exc.code)

    from ..core.trec_eval import trec_eval_files

    try:
        done = trec_eval_files(
            args.files[0],
            args.files[1],
            args.measures,
            judging,
            per_query=args.per_query,
            summary=not args.nosummary,
            num_docs_in_coll=num_docs,
            zscores_path=args.zscores,
            stream=args.stream,
            engine="dask" if dask else "local",
            scheduler=args.scheduler,
            notes=_note,  # printed as they arise, before an error found after them
        )
    except (CranfieldError, OSError) as exc:
        return _failed(exc)
    from ..core.io.grades import truncation_note

    note = truncation_note(done.truncated, args.files[0], "cranfield eval --fractional")
    if note is not None:
        _note(note)
    from ._output import deliver

    # the ids' bytes as they came: text was read as Latin-1, and is written back so
    text = done.text
    deliver(text.encode("latin-1", "replace") if isinstance(text, str) else text, None, "latin-1")
    return 0


def _failed(exc: Exception) -> int:
    """One line on stderr and the status: 1 for a measure (as trec_eval), 2 for input."""
    if isinstance(exc, MeasureError):
        print(f"cranfield trec_eval: {exc}", file=sys.stderr)
        return 1
    print(f"cranfield trec_eval: error: {exc}", file=sys.stderr)
    return 2
