"""Property tests: what is written in any supported format reads back the same."""

from __future__ import annotations

import csv
import html
import io
import json

import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield.collection import Document, Topic, read_documents, read_topics

ids = st.text(
    st.characters(codec="utf-8", categories=("L", "N", "P", "S")), min_size=1, max_size=12
)
# free text without NUL, surrogates or line-breaking controls other than \n and \t
texts = st.text(
    st.characters(codec="utf-8", blacklist_categories=("Cc", "Cs", "Zl", "Zp"))
    | st.sampled_from("\n\t"),
    max_size=60,
)
words = st.lists(
    st.text(st.characters(codec="utf-8", categories=("L", "N")), min_size=1, max_size=8),
    min_size=1,
    max_size=6,
).map(" ".join)  # squeezed, non-empty, no markup


def unique_by_id(items):
    seen = set()
    return [x for x in items if not (x[0] in seen or seen.add(x[0]))]


@settings(max_examples=25)
@given(st.lists(st.tuples(ids, texts, texts), min_size=1, max_size=8).map(unique_by_id))
def test_jsonl_documents_roundtrip(tmp_path_factory, rows):
    path = tmp_path_factory.mktemp("p") / "d.jsonl"
    path.write_text(
        "".join(json.dumps({"id": i, "title": t, "text": x}) + "\n" for i, t, x in rows)
    )
    assert list(read_documents(path)) == [Document(*row) for row in rows]


@settings(max_examples=25)
@given(st.lists(st.tuples(ids, texts, texts), min_size=1, max_size=8).map(unique_by_id))
def test_parquet_documents_roundtrip(tmp_path_factory, rows):
    path = tmp_path_factory.mktemp("p") / "d.parquet"
    columns = list(zip(*rows, strict=True))
    pq.write_table(pa.table({"id": columns[0], "title": columns[1], "text": columns[2]}), path)
    assert list(read_documents(path)) == [Document(*row) for row in rows]


@settings(max_examples=25)
@given(st.lists(st.tuples(ids, words, words), min_size=1, max_size=8).map(unique_by_id))
def test_trec_documents_roundtrip(tmp_path_factory, rows):
    path = tmp_path_factory.mktemp("p") / "d.sgml"
    path.write_text(
        "".join(
            f"<DOC>\n<DOCNO> {html.escape(i)} </DOCNO>\n<HEADLINE>\n{t}\n</HEADLINE>\n<TEXT>\n{x}\n</TEXT>\n</DOC>\n"
            for i, t, x in rows
        )
    )
    assert list(read_documents(path)) == [Document(*row) for row in rows]


topic_ids = ids.filter(lambda i: "<" not in i)  # TREC topic files know no escapes
topic_rows = st.lists(st.tuples(topic_ids, words, words, words), min_size=1, max_size=8).map(
    unique_by_id
)


@settings(max_examples=25)
@given(topic_rows)
def test_topics_roundtrip_in_every_format(tmp_path_factory, rows):
    d = tmp_path_factory.mktemp("p")
    expected = [Topic(*row) for row in rows]
    (d / "t.trec").write_text(
        "".join(
            f"<top>\n<num> Number: {i}\n<title> {t}\n\n<desc> Description:\n{x}\n\n"
            f"<narr> Narrative:\n{n}\n</top>\n\n"
            for i, t, x, n in rows
        )
    )
    (d / "t.jsonl").write_text(
        "".join(
            json.dumps({"id": i, "title": t, "description": x, "narrative": n}) + "\n"
            for i, t, x, n in rows
        )
    )
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["id", "title", "description", "narrative"])
    writer.writerows(rows)
    (d / "t.csv").write_text(out.getvalue())
    for name in ("t.trec", "t.jsonl", "t.csv"):
        assert read_topics(d / name) == expected, name
