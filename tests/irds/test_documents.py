"""Documents by ir_datasets id (``irds:ID``) for the machine assessors (``cranfield
judge``) and the campaign service: a locally registered collection (files the test
writes, ir_datasets' ``LocalDownload``, no network), ir_datasets itself the oracle of
what each document holds."""

from __future__ import annotations

import ir_datasets
import pytest
from ir_datasets.datasets.base import Dataset
from ir_datasets.formats import TrecDocs, TrecQrels
from ir_datasets.util import LocalDownload

from cranfield.collection import read_documents
from cranfield.collection.documents import documents_by_id

GRADES = {0: "no", 1: "yes"}
N = 12


@pytest.fixture(scope="module")
def docs_collection(tmp_path_factory):
    """``cranfield-test/docs``: TREC documents whose text names a grade (``truth=G``, for
    the test chat server); ``cranfield-test/nodocs``: qrels only."""
    d = tmp_path_factory.mktemp("irds-docs")
    (d / "docs").write_text(
        "".join(
            f"<DOC>\n<DOCNO>d{i}</DOCNO>\n<TEXT>\nabout {i} truth={i % 4}\n</TEXT>\n</DOC>\n"
            for i in range(N)
        )
    )
    (d / "qrels").write_text("1 0 d0 1\n")
    for name, ds in {
        "cranfield-test/docs": Dataset(TrecDocs(LocalDownload(d / "docs"))),
        "cranfield-test/nodocs": Dataset(TrecQrels(LocalDownload(d / "qrels"), GRADES)),
    }.items():
        if name not in ir_datasets.registry:
            ir_datasets.registry.register(name, ds)
    return d


def test_documents_stream_as_ir_datasets_yields_them(docs_collection):
    ours = [(x.id, x.title, x.text) for x in read_documents("irds:cranfield-test/docs")]
    theirs = [
        (x.doc_id, "", x.text.strip()) for x in ir_datasets.load("cranfield-test/docs").docs_iter()
    ]
    assert ours == theirs and len(ours) == N


def test_documents_by_id_come_from_the_document_store(docs_collection):
    wanted = ["d3", "d0", "d11", "missing"]
    found = documents_by_id("irds:cranfield-test/docs", wanted)
    store = ir_datasets.load("cranfield-test/docs").docs_store()
    assert set(found) == {"d3", "d0", "d11"}
    for k, doc in found.items():
        assert doc.id == k and doc.text == store.get(k).text.strip()


def test_a_collection_without_documents_is_one_line(docs_collection, cli):
    pool = docs_collection / "pool.txt"
    pool.write_text("1 d0\n")
    topics = docs_collection / "topics.jsonl"
    topics.write_text('{"id": "1", "title": "t"}\n')
    status, out, err = cli("judge", pool, topics, "irds:cranfield-test/nodocs", "--command", "true")
    assert status != 0 and out == "" and err.count("\n") == 1
    assert "has no docs" in err, err


def test_judge_reads_documents_by_id_as_from_a_file(docs_collection, tmp_path, cli):
    """The labels of ``judge POOL TOPICS irds:ID`` equal those of the same documents in
    a JSON Lines file: the prompts hold the same texts."""
    import json

    from judgments.chat_server import ChatServer

    pool = tmp_path / "pool.txt"
    pool.write_text("".join(f"t{i % 2} d{i}\n" for i in range(N)))
    topics = tmp_path / "topics.jsonl"
    topics.write_text("".join(json.dumps({"id": f"t{t}", "title": f"q{t}"}) + "\n" for t in (0, 1)))
    jsonl = tmp_path / "docs.jsonl"
    jsonl.write_text(
        "".join(
            json.dumps({"id": f"d{i}", "title": "", "text": f"about {i} truth={i % 4}"}) + "\n"
            for i in range(N)
        )
    )
    outs = []
    with ChatServer(accuracy=0.7) as server:
        for source in ("irds:cranfield-test/docs", jsonl):
            status, out, err = cli(
                "judge", pool, topics, source, "--base-url", server.url, "--model", "m",
                "--no-cache",
            )  # fmt: skip
            assert status == 0, err
            outs.append(out)
        assert server.requests == 2 * N
    assert outs[0] == outs[1] and len(outs[0].splitlines()) == N


def test_campaign_init_takes_documents_by_id(docs_collection, tmp_path, cli):
    topics = tmp_path / "topics.jsonl"
    topics.write_text('{"id": "1", "title": "t"}\n')
    db_path = tmp_path / "c.db"
    status, out, err = cli(
        "campaign", "init", db_path, "--name", "irds", "--topics", topics,
        "--documents", "irds:cranfield-test/docs", "--scale", "0=no,1=yes",
    )  # fmt: skip
    assert status == 0, err
    from cranfield.service import campaigns
    from cranfield.service.db import open_database

    db = open_database(str(db_path))
    try:
        with db.read() as s:
            summary = campaigns.summary(s, campaigns.get(s, "irds"))
    finally:
        db.close()
    assert summary["documents"] == N
