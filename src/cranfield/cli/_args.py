"""The command line's shared parts: the parser class and the options of several subcommands.

:class:`Parser` is the one ``argparse.ArgumentParser`` of every subcommand: a usage
error (unknown option, missing argument, bad choice) is ONE line on stderr,
``cranfield SUB: error: MESSAGE (see cranfield SUB --help)``, and exit status 2.

Each option used by more than one subcommand is declared here once, with its one help
text (``add_judging``, ``add_output``, ``add_format``, ...); a subcommand calls the
functions it needs.

``-m/--measure`` (:func:`add_measures`) is written the three ways users type it, all
unambiguous:

* one measure per ``-m``, repeated: ``-m AP -m nDCG@10 QRELS RUN``;
* a comma list: ``-m AP,nDCG@10`` (split only at commas outside parentheses, brackets,
  braces and quotes, so ``nDCG(gains={0:0,1:1})`` stays whole; trec_eval's parameter
  lists stay whole too: ``P.5,10`` is P at 5 and at 10);
* several names after one ``-m``: ``QRELS RUN -m AP nDCG@10 P@10``. The words after a
  ``-m`` are measures while they are measure names; the first word that is not (a file
  name, an option) ends the list. A word that is both a measure name and an existing file
  is an error (repeat ``-m`` or put the files first), and a word that is neither gets
  the unknown-measure message with its suggestions: nothing is guessed silently.

The third form is rewritten into the first by :func:`expand_measure_lists`, which
``cli/main.py`` applies before argparse parses (:func:`cranfield.cli.main.parse`).
"""

from __future__ import annotations

import argparse
import os
import re
import sys

# (their home is _common, which needs no argparse; the subcommands import them from here)
from ._common import UsageError, digits_value, engine_value, judge_options, number  # noqa: F401


class Parser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` with cranfield's usage errors and a record of its options.

    A usage error prints one line, ``PROG: error: MESSAGE (see PROG --help)``, and exits
    with ``usage_status`` (2; ``cranfield trec_eval`` keeps trec_eval's 1).
    ``arguments`` lists the actions added with :meth:`add_argument` on the parser itself
    (not through argument groups, which cranfield uses only for exclusive options);
    ``measure_action`` is the ``-m`` option declared by :func:`add_measures`, if any.
    """

    def __init__(self, *args, usage_status: int = 2, **kwargs) -> None:
        self.arguments: list[argparse.Action] = []
        self.measure_action: argparse.Action | None = None
        # why a word after -m is not a measure name, None if it is one (add_measures)
        self.measure_problem = None
        self.usage_status = usage_status
        self._declaring = False
        super().__init__(*args, **kwargs)

    def add_argument(self, *args, **kwargs) -> argparse.Action:
        self._declaring = True
        try:
            action = super().add_argument(*args, **kwargs)
        finally:
            self._declaring = False
        self.arguments.append(action)
        return action

    def _get_formatter(self):
        # add_argument makes a formatter only to check the metavar against nargs: give it
        # a width, which spares the import of shutil and a terminal-size query for each
        # option (help and usage text still get the terminal's width)
        if self._declaring:
            return self.formatter_class(prog=self.prog, width=80)
        return super()._get_formatter()

    def error(self, message: str):
        """One line on stderr and exit status ``usage_status``: the usage-error policy."""
        text = " ".join(str(message).split())
        try:
            sys.stderr.write(f"{self.prog}: error: {text} (see {self.prog} --help)\n")
        except (AttributeError, OSError):  # no standard error: the status still says it
            pass
        raise UsageError(self.usage_status)


# -- options shared by several subcommands: one declaration and one help text each --


def add_qrels_and_runs(p: argparse.ArgumentParser) -> None:
    """``QRELS RUN [RUN ...]``: the judgments and one or more runs."""
    p.add_argument(
        "qrels",
        help="relevance judgments: TREC qrels, Parquet, CSV/TSV, - for stdin, or a test "
        "collection's ir_datasets id (irds:ID)",
    )
    p.add_argument("runs", nargs="+", help="one or more runs (TREC run files, Parquet, CSV/TSV)")


def add_subtopic_qrels(p: argparse.ArgumentParser) -> None:
    """``--subtopic-qrels FILE`` and ``--intent-probabilities FILE``: the subtopic
    (intent) judgments of the diversity measures (:func:`cranfield.cli._common.subtopic_qrels_value`)."""
    p.add_argument(
        "--subtopic-qrels",
        metavar="FILE",
        help="subtopic qrels 'topic subtopic docno grade' (ndeval's format; Parquet, "
        "CSV/TSV too) for the diversity measures (alpha_nDCG@20, ERR_IA@20, StRecall@10, "
        "...); a query without subtopic judgments scores 0 on them",
    )
    p.add_argument(
        "--intent-probabilities",
        metavar="FILE",
        help="P(subtopic | topic) for the diversity measures: a table with columns "
        "query_id, subtopic, probability (each topic's summing to 1); default: the "
        "subtopics of a topic weigh alike, as in ndeval",
    )


def add_sampled_qrels(p: argparse.ArgumentParser) -> None:
    """``--sampled-qrels FILE``: the sampled judgments of the sampled estimators
    (:func:`cranfield.cli._common.sampled_qrels_value`)."""
    p.add_argument(
        "--sampled-qrels",
        metavar="FILE",
        help="sampled qrels 'topic iteration docno stratum relevance [probability]' "
        "(sample_eval's format; -1: pooled, not judged) for the sampled estimators "
        "(xinfAP, infNDCG, statAP, statPC@10: docs/sampling.md); a query without sampled "
        "judgments scores 0 on them",
    )


def add_ci(p: argparse.ArgumentParser, what: str) -> None:
    """``--ci``: 95% confidence intervals, of ``what`` (each command's own table)."""
    p.add_argument("--ci", action="store_true", help="95%% confidence intervals " + what)


def add_rel_level(p: argparse.ArgumentParser) -> None:
    """``-l/--rel-level``: the smallest grade that counts as relevant."""
    p.add_argument(
        "-l",
        "--rel-level",
        type=int,
        help="minimum relevant grade (default 1, or the convention of a collection given by "
        "its id)",
    )


def rel_level_value(args: argparse.Namespace) -> int:
    """``-l``'s value: 1 when not given (:func:`add_rel_level`)."""
    return 1 if args.rel_level is None else args.rel_level


def add_complete(p: argparse.ArgumentParser) -> None:
    """``-c/--complete``: qrels topics a run does not answer score 0."""
    p.add_argument(
        "-c",
        "--complete",
        action="store_true",
        help="score qrels topics missing from a run as 0 and include them in means",
    )


def add_judged_only(p: argparse.ArgumentParser) -> None:
    """``-J/--judged-only``: condensed lists (unjudged documents dropped)."""
    p.add_argument("-J", "--judged-only", action="store_true", help="drop unjudged documents first")


def add_duplicates(p: argparse.ArgumentParser) -> None:
    """``--duplicates``: what a document listed twice for a query means."""
    p.add_argument(
        "--duplicates",
        choices=["error", "first", "max"],
        default="error",
        help="a document listed twice for a query: error (default), keep first, keep max",
    )


def add_judging(p: argparse.ArgumentParser) -> None:
    """The evaluation options of eval, report and plot: -l, -c, -J, --duplicates."""
    add_rel_level(p)
    add_complete(p)
    add_judged_only(p)
    add_duplicates(p)


def eval_options(args: argparse.Namespace) -> dict:
    """The keyword arguments of :func:`cranfield.evaluate` that :func:`add_judging` sets."""
    opts = judge_options(args)
    return dict(rel_level=opts.rel_level, complete=opts.complete, judged_only=opts.judged_only)


def add_convention(p: argparse.ArgumentParser, default: str | None = "textbook") -> None:
    """``--convention textbook|trec_eval``: how precision is interpolated at recall r."""
    p.add_argument(
        "--convention",
        choices=["textbook", "trec_eval"],
        default=default,
        help="interpolated precision at recall r. textbook (default): the largest "
        "precision at any rank whose recall is >= r, recall compared exactly (Manning, "
        "Raghavan & Schuetze 2008, sec. 8.4); trec_eval: trec_eval's iprec_at_recall, "
        "which first rounds r*R to a whole number of relevant documents (the IPrec@r "
        "measure); figures name the one shown",
    )


def add_figure_inputs(
    p: Parser, measure_help: str, query_help: str, output_help: str | None = None
) -> None:
    """The arguments of ``cranfield report`` and ``cranfield plot``: inputs, measures,
    baseline, query, evaluation options and the file to write."""
    add_qrels_and_runs(p)
    add_measures(p, measure_help)
    add_baselines(p, "default: the first run")
    p.add_argument("--query", help=query_help)
    add_judging(p)
    add_convention(p)
    add_output(p, required=True, help=output_help)


def add_header(p: argparse.ArgumentParser) -> None:
    """``--header/--no-header``: whether text label files start with a header line."""
    header = p.add_mutually_exclusive_group()
    header.add_argument(
        "--header",
        dest="header",
        action="store_true",
        default=None,
        help="the first line of each text file is a header",
    )
    header.add_argument(
        "--no-header",
        dest="header",
        action="store_false",
        help="no text file has a header (default: told from the data, or an error)",
    )


def add_compat(p: argparse.ArgumentParser) -> None:
    """``--compat 9|10``: trec_eval 10.0 semantics or trec_eval 9.x (pytrec_eval)."""
    p.add_argument(
        "--compat",
        type=int,
        choices=[9, 10],
        default=10,
        help="10: trec_eval 10.0 semantics (default); 9: trec_eval 9.x / pytrec_eval",
    )


def add_stream(p: argparse.ArgumentParser) -> None:
    """``--stream/--no-stream``: read TREC runs in query-aligned pieces, or whole."""
    p.add_argument(
        "--stream",
        action="store_const",
        const=True,
        default=None,
        help="read TREC runs in query-aligned pieces (bounded memory; each query's lines "
        "must be together); default: runs over 512 MiB, gzip runs and standard input "
        "in pieces (read whole when not grouped by query and it fits), smaller runs whole",
    )
    p.add_argument(
        "--no-stream",
        dest="stream",
        action="store_const",
        const=False,
        help="read TREC runs whole, whatever their size",
    )


ENGINE_HELP = (
    "local: this process (default); dask: partitions of the runs evaluated in Dask workers, "
    "same results (a run may then be a directory or a quoted glob pattern of files "
    "partitioned by query; needs cranfield[dask])"
)


def add_engine(p: argparse.ArgumentParser, help: str = ENGINE_HELP) -> None:
    """``--engine local|dask`` and ``--scheduler ADDRESS`` (docs/scaling.md)."""
    p.add_argument("--engine", choices=["local", "dask"], default=None, help=help)
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="the Dask scheduler to run on, e.g. tcp://host:8786 (implies --engine dask; "
        "default: a local cluster of one worker per core)",
    )


def add_format(
    p: argparse.ArgumentParser,
    choices,
    default: str | None = None,
    what: str = "",
    *,
    otherwise: str | None = None,
) -> None:
    """``-f/--format``: the output format, one of ``choices`` (default: the first);
    ``what`` says what the formats are, where their names do not. ``otherwise``: the
    format has no default value, and this says how it is chosen when not given (``from
    -o's extension``)."""
    choices = list(choices)
    if otherwise is None:
        default = choices[0] if default is None else default
        when = f"default {default}"
    else:
        default, when = None, f"default: {otherwise}"
    detail = f"; {what}" if what else ""
    p.add_argument(
        "-f",
        "--format",
        choices=choices,
        default=default,
        help=f"output format ({when}){detail}",
    )


ROUNDING_FORMATS = ("text", "markdown", "trec", "latex", "html")  # the formats --digits rounds


def add_digits(p: argparse.ArgumentParser, default: int = 4) -> None:
    """``--digits``: decimals of the numbers in the formats for people; read with
    :func:`digits_value`. Its help names the command's own formats that it rounds (the
    ``-f`` declared before it), never a format the command does not have."""
    formats = next((a.choices for a in p._actions if a.dest == "format" and a.choices), None)
    rounded = [f for f in (formats or ()) if f in ROUNDING_FORMATS]
    where = (
        "in "
        + (", ".join(rounded[:-1]) + " and " + rounded[-1] if len(rounded) > 1 else rounded[0])
        + " output"
        if rounded
        else "in the output"
    )
    p.add_argument(
        "--digits",
        default=str(default),
        help=f"decimals {where}, 0 to 17 (default {default})",
    )


def add_output(
    p: argparse.ArgumentParser,
    required: bool = False,
    help: str | None = None,
    flags: tuple[str, ...] = ("-o", "--output"),
    via_stdout: bool = False,
) -> None:
    """An option naming a file the command writes (``-o/--output FILE`` unless ``flags``
    says otherwise; ``-`` is standard output).

    Every output of every command is declared here: its dest joins the parser's
    ``_outputs`` default, and :func:`cranfield.cli._output.check_outputs` refuses, before
    any work, an output that is an input, cannot be written, or names the same file as
    another output of the same command (``tests/cli/test_outputs_declared.py``).
    ``via_stdout``: the command prints its result on standard output, and
    ``cli/main.py`` writes what it prints into the file instead (atomically).
    """
    default_help = "file to write" if required else "write to this file instead of standard output"
    metavar = None if flags == ("-o", "--output") else "FILE"
    action = p.add_argument(*flags, required=required, metavar=metavar, help=help or default_help)
    p.set_defaults(_outputs=(*(p.get_default("_outputs") or ()), action.dest))
    if via_stdout:  # the command prints its result: cli/main.py sends it to the file
        p.set_defaults(_stdout_output=action.dest)


def add_seed(
    p: argparse.ArgumentParser, what: str = "randomised steps", without: str | None = None
) -> None:
    """``--seed N``: the seed of the random generator; read with :func:`seed_value`.

    ``without``: what happens when no seed is given, for a command whose default is not
    random at all (``--seed`` then has no default, :func:`seed_value` gives None)."""
    default = "0" if without is None else None
    tail = "default 0" if without is None else f"without it: {without}"
    p.add_argument(
        "--seed",
        default=default,
        help=f"random seed of the {what}, an integer from 0 to 2^63-1 ({tail})",
    )


def seed_value(args: argparse.Namespace) -> int | None:
    """``--seed`` as an integer, checked (:class:`~cranfield.errors.ParameterError`);
    None when the option has no default and was not given."""
    if args.seed is None:
        return None
    return number(args.seed, "--seed", int, 0, 2**63 - 1)


def parse_ints(text: str, name: str) -> list[int]:
    """A comma list of positive integers (``--depths 1,5,10``)."""
    from ..errors import ParameterError

    try:
        values = [int(x) for x in text.split(",")]
    except ValueError:
        raise ParameterError(name, "comma-separated positive integers", text) from None
    if not values or min(values) < 1:
        raise ParameterError(name, "comma-separated positive integers", text)
    return values


MEASURE_HELP = (
    "; one per -m (repeat -m for more), or a comma list (-m AP,nDCG@10), or several "
    "after one -m, ended by the first word that is not a measure name "
    "(QRELS RUN -m AP nDCG@10); a name that is also an existing file must be given "
    "with its own -m or before the files"
)

# (compiled on first use, by re's cache: a lone measure name does not need them)
_NUMBER = r"\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*"
_PAIR = r"\s*[\w.+-]+\s*=\s*[\w.+-]*\s*"
_TREC_DOTTED = r"\s*[A-Za-z0-9_]+\.[^(@]*"


def split_measures(text: str) -> list[str]:
    """Split a comma list of measure names; each item is one ``-m`` value.

    Commas inside ``()``, ``[]``, ``{}`` or quotes do not split. After a trec_eval name
    with parameters (``P.5``, ``ndcg.1=3``), items that are numbers or ``key=value``
    pairs continue its parameter list, as in trec_eval: ``P.5,10,AP`` is ``P.5,10``
    and ``AP``.
    """
    from ..core.measures.names import split_top_level

    parts = split_top_level(text)
    out: list[str] = []
    for part in parts:
        if (
            out
            and re.fullmatch(_TREC_DOTTED, out[-1])
            and (re.fullmatch(_NUMBER, part) or re.fullmatch(_PAIR, part))
        ):
            out[-1] += "," + part
        else:
            out.append(part)
    return [p.strip() for p in out]


class _MeasureAction(argparse.Action):
    """One ``-m`` value: a measure name or a comma list of them, appended in order."""

    def __call__(self, parser, namespace, values, option_string=None):
        current = list(getattr(namespace, self.dest, None) or [])
        setattr(namespace, self.dest, current + split_measures(values))


def add_measures(parser: Parser, help_text: str, dest: str = "measures", problem=None) -> None:
    """``-m/--measure MEASURE``: repeatable, comma lists, or names after one ``-m``.

    See the module docstring for the rules; the names after one ``-m`` are expanded by
    :func:`expand_measure_lists` when ``cli/main.py`` parses the command line.
    ``problem(word)``: why a word is not one of the command's measure names (None if it
    is); by default the measure language's.
    """
    parser.measure_problem = problem
    parser.measure_action = parser.add_argument(
        "-m",
        "--measure",
        dest=dest,
        action=_MeasureAction,
        metavar="MEASURE",
        help=help_text + MEASURE_HELP,
    )


def _is_measure_option(parser: Parser, token: str) -> bool:
    flags = parser.measure_action.option_strings
    if token in flags:
        return True
    if not token.startswith("--") or "=" in token or len(token) < 3:
        return False
    # argparse accepts unambiguous abbreviations of long options
    longs = [f for a in parser.arguments for f in a.option_strings if f.startswith(token)]
    return len(longs) == 1 and longs[0] in flags


def _measure_problem(word: str) -> str | None:
    """Why ``word`` is not a measure name (or comma list of them); None if it is one."""
    from ..core.measures.names import parse_many

    try:
        for item in split_measures(word):
            parse_many(item)
    except (ValueError, TypeError) as exc:  # MeasureError, ParameterError are ValueErrors
        return str(exc)
    return None


def _chosen_subparser(parser: Parser, args: list[str]) -> Parser | None:
    """The parser of the action ``args[0]`` names, when ``parser`` has actions."""
    for action in parser._actions:  # add_subparsers does not go through add_argument
        choices = getattr(action, "choices", None)
        if isinstance(action, argparse._SubParsersAction) and args and args[0] in choices:
            chosen = choices[args[0]]
            return chosen if isinstance(chosen, Parser) else None
    return None


def _positional_choices(parser: Parser) -> set[str]:
    return {
        str(choice)
        for action in parser.arguments
        if not action.option_strings and action.choices
        for choice in action.choices
    }


def expand_measure_lists(parser: Parser, args: list[str]) -> list[str]:
    """Rewrite ``-m A B C FILE`` as ``-m A -m B -m C FILE`` (rules: module docstring).

    ``parser`` declared its ``-m`` with :func:`add_measures`; a word after ``-m`` that is
    both a measure and a file, or neither, is a usage error (:meth:`Parser.error`).
    """
    if parser.measure_action is None:
        chosen = _chosen_subparser(parser, args)  # cranfield rec eval ... -m A B
        if chosen is None:
            return list(args)
        return [args[0], *expand_measure_lists(chosen, args[1:])]
    problem_of = parser.measure_problem or _measure_problem
    takes_files = any(not a.option_strings for a in parser.arguments)
    out: list[str] = []
    i = 0
    while i < len(args):
        token = args[i]
        out.append(token)
        i += 1
        if token == "--":
            out.extend(args[i:])
            break
        if not _is_measure_option(parser, token) or i >= len(args) or args[i].startswith("-"):
            continue
        out.append(args[i])  # the value of the -m itself: checked when the command runs
        i += 1
        while i < len(args) and not args[i].startswith("-"):
            word = args[i]
            if takes_files:
                if word in _positional_choices(parser):
                    break
                problem, exists = problem_of(word), os.path.exists(word)
                if problem is None and exists:
                    parser.error(
                        f"{word!r} after -m is both a measure name and an existing file: "
                        f"write -m before each measure ('-m {word}') or put the files "
                        "before -m"
                    )
                if problem is not None:
                    if exists:
                        break
                    parser.error(
                        f"{word!r} after -m is neither a measure name ({problem}) nor an "
                        "existing file"
                    )
            out += [token, word]
            i += 1
    return out


def _same_file(a: str, b: str) -> bool:
    try:
        import os

        return os.path.samefile(a, b)
    except OSError:
        return False


def add_topic_groups(p: argparse.ArgumentParser) -> None:
    """``--topic-groups FILE``: a topic-to-group table; results per group beside the
    overall ones (:mod:`cranfield.core.groups`). (``pool --groups`` groups runs by
    participant: another thing, another name.)"""
    p.add_argument(
        "--topic-groups",
        metavar="FILE",
        help="a topic-to-group table (columns query_id and group; a topic may be in several "
        "groups): every run's means, and tests, per group beside the overall ones",
    )


def add_systems(p: argparse.ArgumentParser) -> None:
    """``--system NAME=RUN[,RUN...]``, repeatable: the runs of one system under several
    seeds or folds, merged into per-topic means over seeds (:mod:`cranfield.compare.seeds`;
    read with :func:`cranfield.cli._common.systems_value`)."""
    p.add_argument(
        "--system",
        action="append",
        metavar="NAME=RUN,...",
        help="the runs of one system under several seeds or folds (run names, run files or "
        "patterns such as 'dense_seed*'), repeatable: the system's per-topic mean over its "
        "seeds is tested, and its spread over seeds (sd, min, max, t interval) reported",
    )


def add_baselines(p: argparse.ArgumentParser, default: str) -> None:
    """``--baseline RUN``, repeatable: the runs the others are compared with, by run name
    or by the path of one of the run files (:func:`resolve_baselines`)."""
    p.add_argument(
        "--baseline",
        action="append",
        metavar="RUN",
        help="a run the others are compared with, by run name or by the path of one of the "
        f"RUN files; repeat it for several baselines ({default})",
    )


def resolve_baseline(baseline: str | None, names, paths=()) -> str | None:
    """The run name one ``--baseline`` value designates: a run name, or the path of one
    of the run files (``paths[i]`` is the file of run ``names[i]``)."""
    if baseline is None or baseline in names:
        return baseline
    for name, path in zip(names, paths, strict=False):
        if baseline == str(path) or _same_file(baseline, str(path)):
            return name
    allowed = "a run name (" + ", ".join(names) + ")"
    if paths:
        allowed += " or one of the run files"
    from ..errors import ParameterError

    raise ParameterError("--baseline", allowed, baseline)


def resolve_baselines(baselines, names, paths=(), *, most: int | None = None) -> tuple[str, ...]:
    """The run names of every ``--baseline`` (:func:`add_baselines`), in the order given,
    each once; ``most`` caps how many the command can use (a plot has one)."""
    out: list[str] = []
    for value in baselines or ():
        name = resolve_baseline(value, names, paths)
        if name in out:
            from ..errors import ParameterError

            raise ParameterError("--baseline", "each run once", value)
        out.append(name)
    if most is not None and len(out) > most:
        from ..errors import ParameterError

        raise ParameterError("--baseline", f"at most {most} run here", baselines)
    return tuple(out)


class _Refused(argparse.Action):
    def __call__(self, parser, namespace, values, option_string=None):
        parser.error(self.const)


def add_refused(p: argparse.ArgumentParser, flag: str, hint: str) -> None:
    """``flag`` is refused with ``hint`` (a usage error, one line; not in the help): an
    option spelling that means something else in the rest of cranfield (``-m`` is always
    a measure)."""
    p.add_argument(flag, nargs="?", action=_Refused, const=hint, help=argparse.SUPPRESS)


class _NameList(argparse.Action):
    """Values of a name-list option: each a name or a comma list of names,
    repeatable; checked against ``choices_allowed`` (case-insensitive)."""

    def __call__(self, parser, namespace, values, option_string=None):
        canonical = {c.lower(): c for c in self.choices_allowed}
        names = []
        for name in (v.strip() for v in values.split(",") if v.strip()):
            if name.lower() not in canonical:
                parser.error(
                    f"argument {self.option_strings[0]}: invalid choice: {name!r} (choose from "
                    + ", ".join(self.choices_allowed)
                    + ")"
                )
            names.append(canonical[name.lower()])
        setattr(namespace, self.dest, [*(getattr(namespace, self.dest) or []), *names])


class _TestList(_NameList):
    """``--test`` values (see :func:`add_tests`)."""


def add_name_list(
    p: argparse.ArgumentParser, flag: str, dest: str, names, help: str, metavar: str
) -> None:
    """``flag NAME``: repeatable, each value a name or a comma list of names of
    ``names`` (``flag a --flag b`` is ``flag a,b``); read as ``args.<dest>``, a list in
    the order given (None: not given)."""
    action = p.add_argument(flag, dest=dest, action=_NameList, metavar=metavar, help=help)
    action.choices_allowed = tuple(names)


def add_tests(p: argparse.ArgumentParser, names, help: str) -> None:
    """``--test TEST``: significance tests, in every command that has them the same way:
    repeatable, and each value may be a comma list (``--test t --test wilcoxon`` is
    ``--test t,wilcoxon``); the first decides significance. Read as ``args.tests``
    (None: the command's default)."""
    action = p.add_argument(
        "--test", dest="tests", action=_TestList, metavar="TEST[,TEST...]", help=help
    )
    action.choices_allowed = tuple(names)


def add_declared(p: argparse.ArgumentParser, flag: str, param, help: str | None = None) -> None:
    """An option whose value is a declared :class:`~cranfield.core.declarations.Param`:
    its default, range and help come from the declaration (read with
    :func:`declared_value`)."""
    text = help or param.doc.split(" (--")[0]
    p.add_argument(
        flag,
        default=str(param.default),
        help=f"{text}: {param.allowed_text} (default {param.default})",
    )


def declared_value(text, flag: str, param):
    """``text`` read and checked as the declared ``param`` (:class:`ParameterError`
    naming ``flag`` and the declared range)."""
    from ..errors import ParameterError

    return param.coerce(
        text, flag, lambda owner, p, given, read: ParameterError(flag, p.allowed_text, given)
    )
