"""Generated sections of the docs: a page keeps its hand-written text and one part
between two marker comments that a generator rewrites (and a staleness test compares)."""

from __future__ import annotations


def markers(name: str) -> tuple[str, str]:
    """The comments that open and close the generated part ``name``."""
    return f"<!-- {name}: generated -->", f"<!-- end of the generated {name} -->"


def with_section(page: str, name: str, content: str) -> str:
    """``page`` with its generated part ``name`` replaced by ``content``."""
    begin, end = markers(name)
    head, found, rest = page.partition(begin)
    if not found:
        raise ValueError(f"the page has no {begin}")
    _, _, tail = rest.partition(end)
    return f"{head}{begin}\n{content}{end}{tail}"


def rewrite(path: str, name: str, content: str) -> None:
    """Rewrite the generated part ``name`` of the page at ``path`` (atomically)."""
    from .io.atomic import write_text

    with open(path, encoding="utf-8") as fh:
        write_text(path, with_section(fh.read(), name, content))
