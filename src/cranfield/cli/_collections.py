"""A collection id where a command takes qrels: its qrels, and its conventions applied
where the user did not choose (docs/collections.md).

``cli/main.py`` calls :func:`apply` for every subcommand whose arguments have a
``qrels``; it imports this module only when the value may be an id (``irds:ID``, or a
path that names no file), so a plain command line pays nothing for it.
"""

from __future__ import annotations

import sys


def maybe_id(value) -> bool:
    """Whether ``value`` may name a collection (cheap: no import, one ``stat``)."""
    import os

    return isinstance(value, str) and (
        value.startswith("irds:") or ("/" in value and value != "-" and not os.path.exists(value))
    )


def apply(args, name: str) -> None:
    """Replace ``args.qrels`` by the collection's qrels (its TREC file, for the engine's
    reader, or a :class:`~cranfield.core.qrels.Qrels`), and apply its relevance level
    (``-l`` not given) and official measures (no ``-m``), each with a note on stderr."""
    from ..core.io.collections import Collection, collection_id
    from ..core.qrels import Qrels

    named = collection_id(args.qrels)
    if named is None:
        return
    collection = Collection.load(named)
    args._collection = named  # provenance records it
    conventions = collection.conventions()
    path = collection.qrels_file()
    args.qrels = path if path is not None else Qrels.read(collection.source)
    source = f" ({conventions.source})" if conventions.source else ""
    if getattr(args, "rel_level", 0) is None and conventions.rel_level is not None:
        args.rel_level = conventions.rel_level
        _note(
            name,
            f"{collection.source}: binary measures count grade >= {conventions.rel_level} "
            f"as relevant, the collection's convention{source}; -l overrides",
        )
    for dest in ("measures", "measure"):
        if hasattr(args, dest) and not getattr(args, dest) and conventions.measures:
            setattr(args, dest, list(conventions.measures))
            _note(
                name,
                f"{collection.source}: measuring the collection's official measures "
                f"{', '.join(conventions.measures)}{source}; -m overrides",
            )


def _note(name: str, text: str) -> None:
    print(f"cranfield {name}: note: {text}", file=sys.stderr)
