"""Read an HTML report back: tables by id, images, external references (stdlib only)."""

from __future__ import annotations

from html.parser import HTMLParser

# the report built once for all report tests (conftest.py)
MEASURES = ["AP", "nDCG@10", "P@10"]
RUNS = ["bm25", "dense", "hybrid"]


class ReportParser(HTMLParser):
    """Collects ``tables[id] = [[(text, data-value or None), ...], ...]`` (header row
    first), every ``<img>``'s attributes, and tags that could load something."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables: dict[str, list[list[tuple[str, str | None]]]] = {}
        self.images: list[dict] = []
        self.external: list[str] = []
        self.scripts = 0
        self.ids: dict[str, str] = {}  # element id -> its text (for <pre>, <p>)
        self._table: str | None = None
        self._row: list | None = None
        self._cell: list | None = None
        self._value: str | None = None
        self._open_id: list[tuple[str, str]] = []
        self._text: dict[str, list[str]] = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script":
            self.scripts += 1
        if tag in ("link", "iframe", "object", "embed"):
            self.external.append(f"<{tag}>")
        for key in ("src", "href"):
            if key in a and not str(a[key]).startswith(("data:", "#")):
                self.external.append(a[key])
        if tag == "img":
            self.images.append(a)
        if "id" in a and tag in ("pre", "p"):
            self._open_id.append((tag, a["id"]))
            self._text[a["id"]] = []
        if tag == "table" and "id" in a:
            self._table = a["id"]
            self.tables[self._table] = []
        elif tag == "tr" and self._table:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
            self._value = a.get("data-value")

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append(("".join(self._cell).strip(), self._value))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None
        if self._open_id and self._open_id[-1][0] == tag:
            _, ident = self._open_id.pop()
            self.ids[ident] = "".join(self._text[ident])

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
        for _, ident in self._open_id:
            self._text[ident].append(data)


def parse(text: str) -> ReportParser:
    p = ReportParser()
    p.feed(text)
    p.close()
    return p


def table_dict(rows) -> dict[str, dict[str, tuple[str, str | None]]]:
    """``{row label: {column header: (text, data-value)}}`` of a parsed table."""
    header = [h for h, _ in rows[0]]
    return {row[0][0]: dict(zip(header[1:], row[1:], strict=True)) for row in rows[1:]}


def write_collection(directory, n_runs: int, n_topics: int = 25, depth: int = 40, odd=False):
    """A synthetic shared task written as TREC files: qrels and ``n_runs`` runs of
    different quality (run ``i`` ranks relevant documents higher for larger ``i``).

    ``odd`` gives run names, topic ids and nothing else unusual: ``<``, ``&``, quotes
    and a very long name (no whitespace: TREC files split on it). Returns (qrels path,
    run paths, run names, topic ids).
    """
    import numpy as np

    rng = np.random.default_rng(n_runs * 1000 + n_topics)
    topics = [str(400 + t) for t in range(n_topics)]
    names = [f"team{i:02d}" for i in range(n_runs)]
    if odd:
        topics[0], topics[1] = "<b>t&amp;1</b>", "q\"'2"
        names[0] = "<script>alert(1)</script>&amp;"
        names[-1] = "a-very-long-run-name-" + "x" * 180
    docs = np.array([f"D{d:05d}" for d in range(depth * 3)])
    grades = rng.choice([0, 0, 0, 1, 2], size=(n_topics, len(docs)))
    qrels = directory / "qrels.txt"
    qrels.write_text(
        "".join(
            f"{t} 0 {docs[d]} {grades[i, d]}\n"
            for i, t in enumerate(topics)
            for d in range(0, len(docs), 2)  # half the documents judged
        ),
        encoding="utf-8",
    )
    paths = []
    for r, name in enumerate(names):
        skill = 0.3 + 1.5 * r / max(n_runs - 1, 1)
        lines = []
        for i, t in enumerate(topics):
            score = skill * grades[i] + rng.normal(0, 1, len(docs))
            order = np.argsort(-score, kind="stable")[:depth]
            lines += [
                f"{t} Q0 {docs[d]} {k + 1} {-k} {name}\n" for k, d in enumerate(order.tolist())
            ]
        path = directory / f"run{r:03d}.txt"
        path.write_text("".join(lines), encoding="utf-8")
        paths.append(path)
    return qrels, paths, names, topics
