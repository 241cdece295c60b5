"""Test collections by id, through ir_datasets (MacAvaney et al., SIGIR 2021).

Wherever cranfield takes qrels it also takes an ir_datasets id: ``irds:ID`` always, and a
bare ``ID`` (``msmarco-passage/trec-dl-2019/judged``) when no file of that name exists
and ir_datasets knows it. The `ir_datasets` extra is imported only when an id is given.

A collection's **conventions** travel with it (:class:`Conventions`): the relevance
level of its binary measures, its official measures and the meaning of each grade.
They come from :data:`KNOWN` (curated, each with its source) and, for the collections it
does not list, from the ``official_measures`` ir_datasets documents per dataset; the
command line applies them when the user did not choose (``-l``, ``-m``) and says so.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from ...errors import InputError

PREFIX = "irds:"


@dataclass(frozen=True)
class Known:
    """What cranfield knows of a family of collections (ids starting with ``prefix``)."""

    prefix: str
    rel_level: int
    measures: tuple[str, ...]
    source: str


#: The collections whose conventions cranfield states itself, most specific first; the
#: table in docs/collections.md is generated from it (``python -m
#: cranfield.core.io.collections docs/collections.md``), tests/irds checks it against ir_datasets'
#: ``official_measures`` wherever the package documents them.
KNOWN: tuple[Known, ...] = (
    Known(
        "msmarco-passage/trec-dl-hard",
        2,
        ("nDCG@10", "RR(rel=2)"),
        "Mackie, Dalton & Yates, How Deep is your Learning: the DL-HARD Annotated Deep "
        "Learning Dataset, SIGIR 2021 (passage grades 2-3 relevant for binary measures)",
    ),
    Known(
        "msmarco-passage/trec-dl-2019",
        2,
        ("nDCG@10", "RR(rel=2)", "AP(rel=2)"),
        "Craswell et al., Overview of the TREC 2019 Deep Learning Track, TREC 2019 "
        "(passage task: grades 2-3 relevant for binary measures)",
    ),
    Known(
        "msmarco-passage/trec-dl-2020",
        2,
        ("nDCG@10", "RR(rel=2)", "AP(rel=2)"),
        "Craswell et al., Overview of the TREC 2020 Deep Learning Track, TREC 2020 "
        "(passage task: grades 2-3 relevant for binary measures)",
    ),
    Known(
        "msmarco-passage-v2/trec-dl-2021",
        2,
        ("AP@100", "nDCG@10", "P(rel=2)@10", "RR(rel=2)"),
        "Craswell et al., Overview of the TREC 2021 Deep Learning Track, TREC 2021 "
        "(passage task: grades 2-3 relevant for binary measures)",
    ),
    Known(
        "msmarco-document/trec-dl-2019",
        1,
        ("nDCG@10", "RR", "MAP"),
        "Craswell et al., Overview of the TREC 2019 Deep Learning Track, TREC 2019 "
        "(document task: grades 1-3 relevant)",
    ),
    Known(
        "msmarco-document/trec-dl-2020",
        1,
        ("nDCG@10", "RR", "MAP"),
        "Craswell et al., Overview of the TREC 2020 Deep Learning Track, TREC 2020 "
        "(document task: grades 1-3 relevant)",
    ),
    Known(
        "msmarco-passage/dev",
        1,
        ("RR@10",),
        "Nguyen et al., MS MARCO: A Human Generated MAchine Reading COmprehension "
        "Dataset, 2016 (binary judgments; MRR@10 is the leaderboard's measure)",
    ),
    Known(
        "disks45/nocr/trec-robust-2004",
        1,
        ("AP", "P@10", "GMAP"),
        "Voorhees, Overview of the TREC 2004 Robust Retrieval Track, TREC 2004 "
        "(grades 1-2 relevant; MAP, P@10 and the geometric MAP official)",
    ),
    Known(
        "beir/",
        1,
        ("nDCG@10", "R@100"),
        "Thakur et al., BEIR: A Heterogeneous Benchmark for Zero-shot Evaluation of "
        "Information Retrieval Models, NeurIPS 2021 Datasets and Benchmarks (nDCG@10, "
        "Recall@100)",
    ),
)


@dataclass(frozen=True)
class Conventions:
    """How a collection is evaluated.

    Attributes
    ----------
    rel_level
        The smallest grade its binary measures count as relevant (``None``: not stated).
    measures
        Its official measures, in the measure language.
    grades
        ``{grade: meaning}`` as ir_datasets documents them.
    source
        Where the conventions come from.
    """

    rel_level: int | None
    measures: tuple[str, ...]
    grades: dict[int, str] = field(default_factory=dict)
    source: str = ""


def known(collection_id: str) -> Known | None:
    """The :data:`KNOWN` entry of an id (the most specific prefix), or None."""
    return next(
        (
            k
            for k in KNOWN
            if collection_id == k.prefix.rstrip("/")
            or collection_id.startswith(k.prefix if k.prefix.endswith("/") else k.prefix + "/")
        ),
        None,
    )


_REL = re.compile(r"\brel=(\d+)")


def conventions_for(collection_id: str, documentation: dict, grades: dict) -> Conventions:
    """The conventions of ``collection_id``: :data:`KNOWN` where it lists the id, else
    ir_datasets' ``official_measures`` (the relevance level is the ``rel=k`` all its
    binary measures name, when they agree; none named: not stated)."""
    entry = known(collection_id)
    if entry is not None:
        return Conventions(entry.rel_level, entry.measures, grades, entry.source)
    measures = tuple(documentation.get("official_measures") or ())
    levels = {int(m) for m in _REL.findall(" ".join(measures))}
    level = levels.pop() if len(levels) == 1 else None
    source = "ir_datasets' documentation of " + collection_id if measures else ""
    return Conventions(level, measures, grades, source)


def _ir_datasets():
    from ...errors import require

    return require("ir_datasets", "ir_datasets")


def collection_id(spec) -> str | None:
    """The collection id ``spec`` names, or None when it is a file (or not a string).

    ``irds:ID`` is always an id; a bare string is one only when no such file exists,
    it is not ``-`` and ir_datasets (when installed) knows it."""
    if not isinstance(spec, str):
        return None
    if spec.startswith(PREFIX):
        return spec[len(PREFIX) :]
    if spec == "-" or "/" not in spec or os.path.exists(spec) or spec.startswith((".", "/")):
        return None
    try:
        irds = _ir_datasets()
    except ImportError:
        return None
    return spec if spec in irds.registry else None


@dataclass
class Collection:
    """A collection of ir_datasets: its qrels, topics and conventions."""

    id: str
    dataset: object

    @classmethod
    def load(cls, collection_id: str) -> Collection:
        irds = _ir_datasets()
        if collection_id not in irds.registry:
            raise InputError(
                f"unknown collection id {collection_id!r}: ir_datasets has no such dataset "
                "(its ids: https://ir-datasets.com)",
                source=PREFIX + collection_id,
            )
        return cls(collection_id, irds.load(collection_id))

    @property
    def source(self) -> str:
        return PREFIX + self.id

    def conventions(self) -> Conventions:
        doc = {}
        documentation = getattr(self.dataset, "documentation", None)
        if callable(documentation):
            doc = documentation() or {}
        grades = {}
        if self.dataset.has_qrels():
            grades = {int(k): str(v) for k, v in (self.dataset.qrels_defs() or {}).items()}
        return conventions_for(self.id, doc, grades)

    def need(self, what: str) -> None:
        """:class:`InputError` unless the collection has ``what`` (``"docs"``,
        ``"qrels"``, ``"queries"``)."""
        if not getattr(self.dataset, f"has_{what}")():
            raise InputError(f"collection {self.id!r} has no {what}", source=self.source)

    def qrels_file(self) -> str | None:
        """The local TREC qrels file (``qid iter docno grade``) when the collection's
        qrels are one, for the engine's reader; None otherwise. May download it, as
        ir_datasets does."""
        self.need("qrels")
        from ir_datasets.formats import TrecQrels

        handler = self.dataset.qrels_handler()
        if type(handler) is not TrecQrels or handler._format_3col:
            return None
        return _fetched(self, lambda: str(self.dataset.qrels_path()))

    def qrels_table(self):
        """The qrels as an Arrow table (query_id, doc_id, relevance), from ir_datasets'
        iterator (any qrels format)."""
        self.need("qrels")
        import pyarrow as pa

        rows = _fetched(self, lambda: list(self.dataset.qrels_iter()))
        return pa.table(
            {
                "query_id": pa.array([r.query_id for r in rows], pa.string()),
                "doc_id": pa.array([r.doc_id for r in rows], pa.string()),
                "relevance": pa.array([r.relevance for r in rows]),
            }
        )

    def topics_table(self):
        """The topics as an Arrow table: ``query_id`` and every text field the
        collection has (``title``, ``description``, ``narrative``; ``text`` as
        ``title``)."""
        self.need("queries")
        import pyarrow as pa

        rows = _fetched(self, lambda: list(self.dataset.queries_iter()))
        fields = self.dataset.queries_cls()._fields
        columns = {"query_id": pa.array([r.query_id for r in rows], pa.string())}
        for name in fields[1:]:
            shown = "title" if name == "text" else name
            if shown in columns:
                continue
            values = [getattr(r, name) for r in rows]
            if all(isinstance(v, str) or v is None for v in values):
                columns[shown] = pa.array(values, pa.string())
        return pa.table(columns)

    def documents_iter(self):
        """Every document of the collection as ``(doc_id, title, text)`` (see
        :func:`_document`), streamed from ir_datasets' iterator (may download the collection, as ir_datasets
        does)."""
        self.need("docs")  # at the call, not at the first document
        fields = self.dataset.docs_cls()._fields
        it = _fetched(self, self.dataset.docs_iter)

        def stream():
            while (doc := _fetched(self, lambda: next(it, None))) is not None:
                yield _document(doc, fields)

        return stream()

    def documents_by_id(self, ids) -> dict:
        """``{doc_id: (doc_id, title, text)}`` of the ``ids`` the collection has, looked up in
        ir_datasets' document store (``docs_store().get_many``: no pass over the whole
        collection; the store is built on first use, as ir_datasets does)."""
        self.need("docs")
        fields = self.dataset.docs_cls()._fields
        store = _fetched(self, self.dataset.docs_store)
        try:
            found = _fetched(self, lambda: store.get_many([str(i) for i in ids]))
        finally:
            lookup = getattr(store, "lookup", None)
            lookup = lookup() if callable(lookup) else lookup
            if hasattr(lookup, "close"):  # its own __del__ would fail at interpreter exit
                lookup.close()
        return {str(k): _document(v, fields) for k, v in found.items()}


def _document(doc, fields) -> tuple[str, str, str]:
    """An ir_datasets document as ``(doc_id, title, text)`` (the fields of
    :class:`cranfield.collection.Document`): ``title`` when the collection has one; the
    text from ``text`` or ``body``, else ir_datasets' ``default_text()``."""
    title = str(getattr(doc, "title", "") or "") if "title" in fields else ""
    name = next((f for f in ("text", "body") if f in fields), None)
    if name is not None:
        text = getattr(doc, name)
    else:
        text = doc.default_text() if hasattr(doc, "default_text") else ""
    text = str(text or "").strip()
    if title and name is None and text.startswith(title):  # default_text() repeats it
        text = text[len(title) :].strip()
    return str(doc.doc_id), title, text


def _fetched(collection: Collection, get):
    """``get()``, a download or a read by ir_datasets: its failure as one line."""
    try:
        return get()
    except (KeyboardInterrupt, MemoryError, InputError):
        raise
    except Exception as exc:  # ir_datasets raises many kinds (network, formats, files)
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(
            f"ir_datasets could not provide {collection.id!r}: {reason}",
            source=collection.source,
        ) from None


def conventions_markdown() -> str:
    """The table of docs/collections.md: every :data:`KNOWN` entry with its source."""
    lines = [
        "| collection (id prefix) | binary relevance | official measures | source |",
        "|---|---:|---|---|",
    ]
    for k in KNOWN:
        measures = ", ".join(f"`{m}`" for m in k.measures)
        lines.append(f"| `{k.prefix}` | grade >= {k.rel_level} | {measures} | {k.source} |")
    return "\n".join(lines) + "\n"


def with_table(page: str) -> str:
    """``page`` (docs/collections.md) with its generated table replaced by today's."""
    from ..generated import with_section

    return with_section(page, "conventions table", conventions_markdown())


if __name__ == "__main__":  # python -m cranfield.core.io.collections docs/collections.md
    import sys

    from ..generated import rewrite

    rewrite(sys.argv[1], "conventions table", conventions_markdown())
