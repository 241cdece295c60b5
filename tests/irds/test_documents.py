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
    """``--documents irds:ID`` stores no document at creation; each accepted run stores
    the documents it names (as the document store gives them), once; a run naming a
    document the collection lacks is refused with its line."""
    topics = tmp_path / "topics.jsonl"
    topics.write_text('{"id": "1", "title": "t"}\n')
    db_path = tmp_path / "c.db"
    status, out, err = cli(
        "campaign", "init", db_path, "--name", "irds", "--topics", topics,
        "--documents", "irds:cranfield-test/docs", "--scale", "0=no,1=yes",
    )  # fmt: skip
    assert status == 0, err
    assert "documents from irds:cranfield-test/docs as runs name them" in out
    from sqlalchemy import select

    from cranfield.service import accounts, campaigns, submissions
    from cranfield.service.db import open_database
    from cranfield.service.models import Document
    from cranfield.service.problems import Invalid

    def stored(db) -> dict:
        with db.read() as s:
            rows = s.execute(select(Document.doc_id, Document.title, Document.text)).all()
        return {d: (d, title, text) for d, title, text in rows}

    db = open_database(str(db_path))
    try:
        with db.read() as s:
            assert campaigns.summary(s, campaigns.get(s, "irds"))["documents"] == 0
        uid = accounts.add_user(
            db, "p", "correct horse battery", role="participant", campaign="irds"
        )
        truth = documents_by_id("irds:cranfield-test/docs", [f"d{i}" for i in range(N)])
        for k, docs in enumerate((["d1", "d3", "d5"], ["d3", "d7"])):
            run = tmp_path / f"r{k}.txt"
            run.write_text("".join(f"1 Q0 {d} {r + 1} {9 - r} r{k}\n" for r, d in enumerate(docs)))
            submissions.submit(db, "irds", uid, run)
        got = stored(db)
        assert sorted(got) == ["d1", "d3", "d5", "d7"]
        assert all(got[d] == (truth[d].id, truth[d].title, truth[d].text) for d in got)
        bad = tmp_path / "bad.txt"
        bad.write_text("1 Q0 d2 1 9 bad\n1 Q0 nowhere 2 8 bad\n")
        with pytest.raises(Invalid) as refused:
            submissions.submit(db, "irds", uid, bad)
        assert refused.value.problems == [
            {"line": 2, "message": "document 'nowhere' is not in the collection"}
        ]
        assert sorted(stored(db)) == ["d1", "d3", "d5", "d7"]  # nothing of a refused run
    finally:
        db.close()


def test_the_campaign_form_takes_a_collection_id(docs_collection, tmp_path):
    from fastapi.testclient import TestClient

    from cranfield.service import accounts
    from cranfield.service.app import Config, create_app
    from cranfield.service.db import open_database

    db = open_database(str(tmp_path / "c.db"))
    try:
        accounts.add_user(db, "boss", "correct horse battery", role="coordinator")
        c = TestClient(create_app(db, Config()))
        r = c.post("/api/session", json={"username": "boss", "password": "correct horse battery"})
        headers = {"X-CSRF-Token": r.json()["csrf"]}
        topics = ("topics.jsonl", b'{"id": "1", "title": "t"}\n')
        form = {"name": "byid", "documents_id": "irds:cranfield-test/docs", "scale": "0=no,1=yes"}
        r = c.post("/api/campaigns", data=form, files={"topics": topics}, headers=headers)
        assert r.status_code == 201, r.text
        form |= {"name": "nodocs", "documents_id": "irds:cranfield-test/nodocs"}
        r = c.post("/api/campaigns", data=form, files={"topics": topics}, headers=headers)
        assert r.status_code == 422 and "has no docs" in r.text
        form |= {"name": "both", "documents_id": "irds:cranfield-test/docs"}
        files = {"topics": topics, "documents": ("d.jsonl", b'{"id": "x", "text": "y"}\n')}
        r = c.post("/api/campaigns", data=form, files=files, headers=headers)
        assert r.status_code == 422 and "not both" in r.text
    finally:
        db.close()
