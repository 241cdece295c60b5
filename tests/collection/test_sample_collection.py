"""sample.topics() and sample.documents(): the texts behind the sample qrels and runs."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield import sample
from cranfield.collection import Document, Topic, highlight, query_terms


@pytest.fixture(scope="module")
def collection():
    qrels, runs = sample.load()
    return qrels, runs, sample.topics(), sample.documents()


def test_forty_readable_topics(collection):
    qrels, _runs, topics, _docs = collection
    assert [t.id for t in topics] == sample.QUERY_IDS == sorted(qrels.query_ids())
    assert all(isinstance(t, Topic) for t in topics)
    assert len({t.title for t in topics}) == 40
    for t in topics:
        assert t.title and t.description.endswith((".", "?")) and "relevant" in t.narrative
        assert len(query_terms(t)) >= 2
        assert "{" not in t.title + t.description + t.narrative


def test_every_judged_or_retrieved_document_has_a_text(collection):
    qrels, runs, _topics, docs = collection
    ids = [d.id for d in docs]
    assert ids == sorted(set(ids))  # unique, sorted
    wanted = set(qrels.table["doc_id"].to_pylist())
    for run in runs.values():
        wanted |= set(run.table["doc_id"].to_pylist())
    assert set(ids) == wanted
    assert all(isinstance(d, Document) and d.title and len(d.text) > 80 for d in docs)
    assert not any("{" in d.text or "{" in d.title for d in docs)


def test_more_relevant_documents_carry_more_query_terms(collection):
    qrels, _runs, topics, docs = collection
    text = {d.id: d for d in docs}
    terms = {t.id: query_terms(t) for t in topics}
    counts: dict[int, list[int]] = {0: [], 1: [], 2: [], 3: []}
    columns = (qrels.table[c].to_pylist() for c in ("query_id", "doc_id", "relevance"))
    for qid, doc, grade in zip(*columns, strict=True):
        counts[grade].append(len(highlight(text[doc].text, terms[qid])))
    means = [np.mean(counts[g]) for g in range(4)]
    assert means[0] < 1 <= means[1] < means[2] < means[3]
    # every relevant document names its topic's title in full
    by_topic = {t.id: t.title.lower() for t in topics}
    columns = (qrels.table[c].to_pylist() for c in ("query_id", "doc_id", "relevance"))
    for qid, doc, grade in zip(*columns, strict=True):
        if grade > 0:
            assert by_topic[qid] in text[doc].text.lower()
            assert text[doc].title.lower().startswith(by_topic[qid])


def test_deterministic(collection):
    _qrels, _runs, topics, docs = collection
    assert sample.topics() == topics
    assert sample.documents() == docs
