"""The parts of the command line that need no ``argparse``: the usage-error exception and
the judging and engine options read from parsed arguments.

``cranfield trec_eval`` reads its usual command lines without ``argparse`` (importing
it and building the parser is a third of the Python work of a small evaluation: see
:func:`cranfield.cli.trec_eval_cmd.quick_parse`), so what it needs after parsing lives
here; :mod:`cranfield.cli._args` re-exports it for the other subcommands.
"""

from __future__ import annotations

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a cold CLI)
if TYPE_CHECKING:
    from argparse import Namespace


class UsageError(SystemExit):
    """A usage error, already reported on stderr by :meth:`Parser.error`; ``code`` is
    the exit status. A ``SystemExit``, so an uncaught one ends the program as argparse's
    errors always have; a subcommand that returns its status itself catches this one."""


def quick_scan(argv: list[str], table: dict, defaults: dict) -> tuple[Parsed, list[str]] | None:
    """The options of a plain command line (``defaults`` where it gives none) and its
    file arguments; or None when the line is not plain (then the subcommand's argparse
    parser reads it).

    ``table`` and ``defaults`` are one command's, generated from its argparse parser
    (:mod:`cranfield.cli._quick_tables`): ``table`` maps each option, written out in
    full, to ``(dest, kind, arg)``: kind "const" stores ``arg``; "text", "int" (all
    digits), "append" and "measure" take a value (the last two append it; a measure
    without commas and not followed by another word, as a list of names after one
    ``-m`` is argparse's), ``arg`` being the values a choice accepts (as parsed), else
    None. Plain also means each value an argument of its own not starting with '-', and
    the files together (argparse reads them once). The quick parsers of ``eval`` and
    ``trec_eval`` are built on it; their tests check that argparse reads such lines
    alike.
    """
    args = Parsed()
    values = vars(args)
    values.update({k: list(v) if isinstance(v, list) else v for k, v in defaults.items()})
    files: list[str] = []
    last_file = -1
    i, n = 0, len(argv)
    while i < n:
        token = argv[i]
        if token == "-" or not token.startswith("-"):
            if files and last_file != i - 1:
                return None
            files.append(token)
            last_file = i
        elif token in table:
            dest, kind, arg = table[token]
            if kind == "const":
                values[dest] = arg
                i += 1
                continue
            if i + 1 >= n or argv[i + 1].startswith("-"):
                return None
            i += 1
            value = argv[i]
            if kind == "int":
                if not (value.isascii() and value.isdigit()):
                    return None
                value = int(value)
            if arg is not None and value not in arg:
                return None
            if kind == "measure":
                if "," in value or (i + 1 < n and not argv[i + 1].startswith("-")):
                    return None  # a comma list, or names after one -m
                value = value.strip()
            if kind in ("append", "measure"):
                value = [*(values[dest] or []), value]
            values[dest] = value
        else:
            return None
        i += 1
    return args, files


# option of each JudgeOptions field, for messages
_JUDGE_FLAGS = {
    "rel_level": "--rel-level",
    "depth": "--depth",
    "judged_only": "--judged-only",
    "complete": "--complete",
    "compat": "--compat",
    "duplicates": "--duplicates",
}


def judge_options(args: Namespace, **values):
    """The :class:`~cranfield.core.options.JudgeOptions` of the parsed options (those a
    subcommand declares; the others keep their defaults), ``values`` taking precedence.

    The one place the command line turns ``-l/-M/-J/-c/--compat/--duplicates`` into
    judging options; a bad value is a ParameterError naming the option.
    """
    from ..core.options import JudgeOptions
    from ..errors import ParameterError

    given = {k: getattr(args, k) for k in _JUDGE_FLAGS if getattr(args, k, None) is not None}
    given.update(values)
    try:
        return JudgeOptions(**given)
    except ParameterError as exc:
        raise ParameterError(_JUDGE_FLAGS[exc.name], exc.allowed, exc.given) from None


def engine_value(args: Namespace) -> str:
    """The engine asked for: ``--engine``, or dask when ``--scheduler`` is given."""
    if args.scheduler is not None and args.engine == "local":
        from ..errors import ParameterError

        raise ParameterError("--engine", "dask (or no --engine) with --scheduler", "local")
    if args.engine is None:
        return "dask" if args.scheduler is not None else "local"
    return args.engine


def digits_value(args: Namespace) -> int:
    """``--digits`` as an integer from 0 to 17 (:class:`~cranfield.errors.ParameterError`)."""
    return number(args.digits, "--digits", int, 0, 17)


def number(text: str, name: str, kind: type, low: float, high: float, *, open_: bool = False):
    """``text`` as an ``int`` or ``float`` within [low, high] (``open_``: (low, high)).

    The range is a :class:`~cranfield.core.declarations.Param`'s, in the one vocabulary
    and wording of every registry (``an integer in [0, 17]``, ``a number in (0, 1)``);
    a bad value is a :class:`ParameterError` naming the option and the range. Integers
    may be written ``1e4``; non-finite and fractional values are refused for integers.
    """
    if kind is int and isinstance(text, str) and text.isascii() and text.isdigit():
        value = int(text[:18])  # (--digits 4: what the Param below gives, without it)
        if len(text) <= 18 and (low < value < high if open_ else low <= value <= high):
            return value
    from ..core.declarations import Param, integer_in, number_in
    from ..errors import ParameterError

    if kind is int:
        bounds = integer_in(low, high)
        if open_:
            raise ValueError("an integer range is closed: give [low + 1, high - 1]")
        value = text
        if isinstance(text, str):
            try:
                value = int(text)
            except ValueError:
                try:
                    value = float(text)  # 1e4 (then refused unless a whole number)
                except ValueError:
                    pass
    else:
        bounds = number_in(low, high, open_lo=open_, open_hi=open_)
        value = text
    param = Param(name, kind, None, "", **bounds)
    return param.coerce(
        value, name, lambda owner, p, given, read: ParameterError(name, p.allowed_text, text)
    )


class Parsed:
    """Options read without ``argparse`` (what an ``argparse.Namespace`` holds)."""


def subtopic_qrels_value(args: Namespace):
    """What ``evaluate(subtopic_qrels=)`` takes from :func:`add_subtopic_qrels`'s
    options: the path, the judgments with their intent probabilities, or None."""
    from ..errors import ParameterError

    path = getattr(args, "subtopic_qrels", None)
    intents = getattr(args, "intent_probabilities", None)
    if intents is None:
        return path
    if path is None:
        raise ParameterError("--intent-probabilities", "--subtopic-qrels beside it", intents)
    from ..core.subtopics import SubtopicQrels

    return SubtopicQrels.read(path).with_intents(intents)


def judgment_inputs(args: Namespace) -> list[str]:
    """The second judgment files given (``--subtopic-qrels``, ``--intent-probabilities``,
    ``--sampled-qrels``): inputs a JSON output's provenance hashes beside the qrels."""
    names = ("subtopic_qrels", "intent_probabilities", "sampled_qrels")
    return [getattr(args, n) for n in names if getattr(args, n, None) not in (None, "-")]


def sampled_qrels_value(args: Namespace):
    """What ``evaluate(sampled_qrels=)`` takes from :func:`add_sampled_qrels`'s option:
    the path (checked to exist even when no measure needs it: a mistyped path is not
    ignored), or None."""
    path = getattr(args, "sampled_qrels", None)
    if path is not None and path != "-":
        from ..core.io.source import check_path

        check_path(path, path)
    return path


def topic_groups_value(args: Namespace):
    """``--topic-groups FILE`` (:func:`~cranfield.cli._args.add_topic_groups`) read into
    a :class:`cranfield.core.groups.TopicGroups`, or None when not given."""
    path = getattr(args, "topic_groups", None)
    if path is None:
        return None
    from ..core.groups import read_groups

    return read_groups(path)


def systems_value(args: Namespace, names, paths=()) -> dict[str, list[str]]:
    """``--system`` values (:func:`~cranfield.cli._args.add_systems`) as ``{system: [run
    name, ...]}`` over the runs ``names`` (read from ``paths``); empty when not given."""
    specs = getattr(args, "system", None)
    if not specs:
        return {}
    from ..compare.seeds import systems_of

    return systems_of(specs, names, paths)
