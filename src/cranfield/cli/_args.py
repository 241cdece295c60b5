"""Argument definitions shared by several subcommands.

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
"""

from __future__ import annotations

import argparse
import os
import re
import sys

MEASURE_HELP = (
    "; one per -m (repeat -m for more), or a comma list (-m AP,nDCG@10), or several "
    "after one -m, ended by the first word that is not a measure name "
    "(QRELS RUN -m AP nDCG@10); a name that is also an existing file must be given "
    "with its own -m or before the files"
)

_NUMBER = re.compile(r"\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*")
_PAIR = re.compile(r"\s*[\w.+-]+\s*=\s*[\w.+-]*\s*")
_TREC_DOTTED = re.compile(r"\s*[A-Za-z0-9_]+\.[^(@]*")


def split_measures(text: str) -> list[str]:
    """Split a comma list of measure names; each item is one ``-m`` value.

    Commas inside ``()``, ``[]``, ``{}`` or quotes do not split. After a trec_eval name
    with parameters (``P.5``, ``ndcg.1=3``), items that are numbers or ``key=value``
    pairs continue its parameter list, as in trec_eval: ``P.5,10,AP`` is ``P.5,10``
    and ``AP``.
    """
    parts: list[str] = []
    depth, quote, current = 0, None, []
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(ch)
    parts.append("".join(current))
    out: list[str] = []
    for part in parts:
        if (
            out
            and _TREC_DOTTED.fullmatch(out[-1])
            and (_NUMBER.fullmatch(part) or _PAIR.fullmatch(part))
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


def add_measures(parser, help_text: str, dest: str = "measures") -> None:
    """``-m/--measure MEASURE``: repeatable, comma lists, or names after one ``-m``.

    See the module docstring for the rules. Names following a ``-m`` are turned into
    ``-m`` options of their own before argparse sees the command line, so the files after
    the measures stay positional arguments.
    """
    parser.add_argument(
        "-m",
        "--measure",
        dest=dest,
        action=_MeasureAction,
        metavar="MEASURE",
        help=help_text + MEASURE_HELP,
    )
    parse_known_args = parser.parse_known_args

    def parse_with_measure_lists(args=None, namespace=None):
        args = sys.argv[1:] if args is None else list(args)
        return parse_known_args(expand_measure_lists(parser, args), namespace)

    parser.parse_known_args = parse_with_measure_lists


def _is_measure_option(parser, token: str) -> bool:
    if token in ("-m", "--measure"):
        return True
    if not token.startswith("--") or "=" in token or len(token) < 3:
        return False
    # argparse accepts unambiguous abbreviations of long options
    longs = [s for s in parser._option_string_actions if s.startswith(token)]
    return longs == ["--measure"]


def _measure_problem(word: str) -> str | None:
    """Why ``word`` is not a measure name (or comma list of them); None if it is one."""
    from ..measures.names import parse_many

    try:
        for item in split_measures(word):
            parse_many(item)
    except (ValueError, TypeError) as exc:  # MeasureError, ParameterError are ValueErrors
        return str(exc)
    return None


def _positional_choices(parser) -> set[str]:
    return {
        str(choice)
        for action in parser._actions
        if not action.option_strings and action.choices
        for choice in action.choices
    }


def expand_measure_lists(parser, args: list[str]) -> list[str]:
    """Rewrite ``-m A B C FILE`` as ``-m A -m B -m C FILE`` (rules: module docstring)."""
    takes_files = any(not a.option_strings for a in parser._actions)
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
                problem, exists = _measure_problem(word), os.path.exists(word)
                if problem is None and exists:
                    parser.exit(
                        2,
                        f"{parser.prog}: error: {word!r} after -m is both a measure name and "
                        f"an existing file: write -m before each measure ('-m {word}') or "
                        "put the files before -m\n",
                    )
                if problem is not None:
                    if exists:
                        break
                    parser.exit(
                        2,
                        f"{parser.prog}: error: {word!r} after -m is neither a measure name "
                        f"({problem}) nor an existing file\n",
                    )
            out += [token, word]
            i += 1
    return out
