"""Writes ``cli/_quick_tables.py``: the options of ``eval`` and ``trec_eval`` as their
quick parsers read them (:func:`cranfield.cli._common.quick_scan`), derived from the
subcommands' argparse declarations, so that every option is declared once.

The quick parsers exist because importing ``argparse`` and building a parser cost more
than the rest of the Python work of a small evaluation; the generated module is a few
dict literals, imported in microseconds. After changing an option of either command::

    PYTHONPATH=src python -m cranfield.cli._quick_gen

tests/cli/test_quick_tables.py fails while the committed module differs from what
this writes.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

TARGET = Path(__file__).with_name("_quick_tables.py")

HEADER = '''"""The options of ``cranfield eval`` and ``cranfield trec_eval`` as their quick parsers
read them (:func:`cranfield.cli._common.quick_scan`). GENERATED from the argparse
declarations by ``python -m cranfield.cli._quick_gen``: do not edit.

Each table maps an option, written out in full, to ``(dest, kind, arg)``: kind "const"
stores ``arg`` (``store_true``, ``store_const``...); "text", "int", "append" and
"measure" take a value, ``arg`` being the values a choice accepts (as parsed) or None.
An option missing from a table (``--help``, a value of another type) sends the command
line to argparse. The defaults are those of the parser's namespace, positionals aside.
"""
'''


def _literal(value) -> str:
    """``value`` (None, bool, int, str, or a tuple or list of them) as ruff writes it."""
    if isinstance(value, str):
        return json.dumps(value)
    if value is None or isinstance(value, (bool, int)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, tuple):
        return "(" + ", ".join(_literal(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    raise TypeError(f"a default the quick parser cannot hold: {value!r}")


def _entry(action: argparse.Action) -> tuple[str, object] | None:
    """``(kind, arg)`` of an option for quick_scan, or None when only argparse reads it."""
    from ._args import _MeasureAction

    if isinstance(action, argparse._StoreConstAction):  # store_true/false too
        return "const", action.const
    if action.nargs is not None:
        return None
    accepted = tuple(action.choices) if action.choices is not None else None
    if isinstance(action, _MeasureAction) and action.type is None:
        return "measure", accepted
    if type(action) is argparse._AppendAction and action.type is None:
        return "append", accepted
    if type(action) is argparse._StoreAction and action.type in (None, int):
        return ("int" if action.type is int else "text"), accepted
    return None


def tables(parser: argparse.ArgumentParser) -> tuple[dict, dict]:
    """(options, defaults) of ``parser`` for the quick parser."""
    options: dict[str, tuple] = {}
    defaults: dict[str, object] = {}
    for action in parser._actions:
        if not action.option_strings:
            continue  # the files: set by the quick parser itself
        if action.default is not argparse.SUPPRESS:
            defaults.setdefault(action.dest, action.default)  # argparse: the first wins
        entry = _entry(action)
        if entry is not None:
            for flag in action.option_strings:
                options[flag] = (action.dest, *entry)
    for dest, value in parser._defaults.items():
        defaults.setdefault(dest, value)
    return options, defaults


def parsers() -> dict[str, argparse.ArgumentParser]:
    """The parsers whose options are generated, by the table's name."""
    from . import trec_eval_cmd
    from .main import subcommand_parser

    return {"EVAL": subcommand_parser("eval")[1], "TREC_EVAL": trec_eval_cmd.build_parser()}


def render(named: dict[str, argparse.ArgumentParser] | None = None) -> str:
    """The text of ``_quick_tables.py``."""
    lines = [HEADER]
    for name, parser in (named or parsers()).items():
        options, defaults = tables(parser)
        lines.append(f"{name} = {{")
        lines += [f"    {_literal(k)}: {_literal(v)}," for k, v in options.items()]
        lines.append("}")
        lines.append(f"{name}_DEFAULTS = {{")
        lines += [f"    {_literal(k)}: {_literal(v)}," for k, v in defaults.items()]
        lines.append("}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    TARGET.write_text(render())
    print(f"wrote {TARGET}")
