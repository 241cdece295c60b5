"""The reference sections of docs/ that are generated from the registries.

A page holds a generated block per registry, between the two lines::

    <!-- generated from cranfield.compare.stats:STAT_TESTS by `python -m cranfield.core.reference_docs docs/compare.md`; do not edit -->
    <!-- end generated -->

:func:`render` writes a registry's table (name, aliases, parameters with their ranges,
formula, reference), and ``python -m cranfield.core.reference_docs FILE...`` rewrites
every block of the files in place; a test fails when a committed block differs from what
the registry renders (as docs/measures.md is checked against the measure registry).
"""

from __future__ import annotations

import importlib
import re
import sys

from .declarations import Declaration, Param, Registry

_BLOCK = re.compile(
    r"(<!-- generated from (?P<source>[\w.]+:\w+) by [^\n]*-->\n)(?P<body>.*?)(<!-- end generated -->)",
    re.S,
)


def _param_text(p: Param) -> str:
    default = "required" if p.default is None else f"default {p.default}"
    return f"`{p.name}`: {p.doc}; {p.allowed_text}, {default}"


def _row(d: Declaration) -> list[str]:
    return [
        f"`{d.name}`",
        ", ".join(f"`{a}`" for a in d.aliases),
        "<br>".join(_param_text(p) for p in d.params),
        d.summary,
        d.formula,
        d.citation,
    ]


def render(registry: Registry) -> str:
    """The Markdown table of a registry's declarations, in the order registered."""
    from ..output import markdown_table

    head = [registry.kind, "aliases", "parameters", "summary", "formula", "reference"]
    body = [_row(d) for d in registry.values()]
    return markdown_table(head, body, left=len(head), escape=True) + "\n"


def registry_at(source: str) -> Registry:
    """The registry named ``module:NAME`` (``cranfield.compare.stats:STAT_TESTS``)."""
    module, _, name = source.partition(":")
    found = getattr(importlib.import_module(module), name)
    if not isinstance(found, Registry):
        raise TypeError(f"{source} is not a Registry")
    return found


def blocks(text: str) -> list[tuple[str, str]]:
    """``(source, committed body)`` of each generated block of a page."""
    return [(m.group("source"), m.group("body")) for m in _BLOCK.finditer(text)]


def regenerated(text: str) -> str:
    """``text`` with every generated block rendered afresh from its registry."""
    return _BLOCK.sub(
        lambda m: m.group(1) + render(registry_at(m.group("source"))) + m.group(4), text
    )


def main(paths: list[str]) -> int:
    for path in paths:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        new = regenerated(text)
        if new != text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
