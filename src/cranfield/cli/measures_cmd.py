"""``cranfield measures [NAME]``: list the measures, or show one in full."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "name", nargs="?", help="a measure, e.g. nDCG or 'nDCG(dcg=jk)@10' (default: list all)"
    )


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
    print(docs.describe(definition), end="")
    return 0
