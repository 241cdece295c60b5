"""``cranfield measures [NAME]``: list the measures, or show one in full."""

from __future__ import annotations

import argparse

from ._args import add_format, add_output


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "name", nargs="?", help="a measure, e.g. nDCG or 'nDCG(dcg=jk)@10' (default: list all)"
    )
    add_format(parser, ("text", "markdown"), what="markdown: as in docs/measures.md")
    add_output(parser, via_stdout=True)


def as_text(markdown: str) -> str:
    """A measure's Markdown description laid out for a terminal: the heading underlined,
    ``- **Key**: value`` as ``Key: value``, code marks dropped, tables aligned."""
    import re

    from ..output import text_table

    out: list[str] = []
    table: list[list[str]] = []

    def cells(line: str) -> list[str]:
        inner = line.strip()[1:-1].replace("\\|", "\x00")
        return [c.strip().replace("\x00", "|").replace("`", "") for c in inner.split("|")]

    def flush() -> None:
        if table:
            body = [r for r in table[1:] if not all(set(c) <= set("-: ") for c in r)]
            out.append(text_table(table[0], body, left=len(table[0]), rule=True))
            table.clear()

    for line in markdown.splitlines():
        if line.startswith("|"):
            table.append(cells(line))
            continue
        flush()
        if line.startswith("#"):
            title = line.lstrip("#").strip()
            out += [title, "=" * len(title)]
            continue
        line = re.sub(r"^- \*\*(.+?)\*\*:", r"\1:", line)
        out.append(line.replace("`", "").replace("**", ""))
    flush()
    return "\n".join(out).rstrip("\n") + "\n"


def run(args) -> int:
    from ..core.measures import docs
    from ..core.measures.names import parse_many
    from ..core.measures.registry import all_definitions, lookup

    if args.name is None:
        rows = [(docs.signature(d), d.summary) for d in all_definitions()]
        width = max(len(r[0]) for r in rows)
        for sig, summary in rows:
            print(f"{sig:<{width}}  {summary}")
        return 0
    definition = lookup(args.name)
    if definition is None:  # a full name: its own error (unclosed bracket, bad range, ...)
        definition = parse_many(args.name)[0].definition
    text = docs.describe(definition)
    print(text if args.format == "markdown" else as_text(text), end="")
    return 0
