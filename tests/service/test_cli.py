"""``cranfield campaign`` end to end on SQLite: the sample campaign, users, assignment,
judgments, export."""

from __future__ import annotations

import json


def test_sample_campaign_through_the_command_line(cli, tmp_path):
    from cranfield import sample
    from cranfield.service import exports, judging
    from cranfield.service.db import open_database

    db_path = tmp_path / "campaign.db"
    status, out, err = cli(
        "campaign", "init", db_path, "--name", "trec", "--sample", "--per-topic", "2"
    )
    assert (status, err) == (0, ""), err
    assert out.startswith("campaign trec: 40 topics, ") and "4 runs" in out and "depth(k=10)" in out
    pw = tmp_path / "pw"
    pw.write_text("a long enough password\n")
    for name in ("ann", "bob"):
        status, out, err = cli(
            "campaign",
            "add-user",
            db_path,
            name,
            "--role",
            "assessor",
            "--password-file",
            pw,
            "--campaign",
            "trec",
        )
        assert status == 0, err
    status, out, err = cli("campaign", "assign", db_path, "trec")
    assert (status, out) == (0, "40 topics assigned to 2 assessors\n"), err
    db = open_database(str(db_path))
    _, _, ann = __import__("cranfield.service.accounts", fromlist=["login"]).login(
        db, "ann", "a long enough password"
    )
    qrels, _ = sample.load()
    truth = {
        (q, d): g
        for q, d, g in zip(
            *(qrels.table[c].to_pylist() for c in ("query_id", "doc_id", "relevance")), strict=True
        )
    }
    saved = {}
    for _ in range(25):
        view = judging.next_pair(db, "trec", ann)
        label = min(truth.get((view["topic"]["id"], view["document"]["id"]), 0), 2)
        judging.save(db, "trec", ann, view["pair"], label)
        saved[(view["topic"]["id"], view["document"]["id"])] = label
    status, out, err = cli("campaign", "export", db_path, "trec", "-o", tmp_path / "q.txt")
    assert status == 0, err
    text = (tmp_path / "q.txt").read_text()
    assert text == exports.qrels_text(db, "trec")
    got = {(line.split()[0], line.split()[2]): int(line.split()[3]) for line in text.splitlines()}
    assert got == saved
    status, out, err = cli("campaign", "export", db_path, "trec", "--what", "log")
    assert status == 0 and len(out.splitlines()) == 26
    db.close()


def test_init_from_topic_and_document_files(cli, tmp_path):
    (tmp_path / "topics.jsonl").write_text(
        "\n".join(json.dumps({"id": t, "title": f"title {t}"}) for t in ("1", "2")) + "\n"
    )
    (tmp_path / "docs.jsonl").write_text(
        "\n".join(json.dumps({"id": f"d{i}", "title": "", "text": f"text {i}"}) for i in range(5))
        + "\n"
    )
    db_path = tmp_path / "c.db"
    status, out, err = cli(
        "campaign",
        "init",
        db_path,
        "--name",
        "small",
        "--topics",
        tmp_path / "topics.jsonl",
        "--documents",
        tmp_path / "docs.jsonl",
        "--scale",
        "0=no,1=yes",
    )
    assert (status, out, err) == (0, "campaign small: 2 topics\n", "")
    from cranfield.service import campaigns
    from cranfield.service.db import open_database

    db = open_database(str(db_path))
    with db.read() as s:
        summary = campaigns.summary(s, campaigns.get(s, "small"))
    assert (summary["topics"], summary["documents"]) == (2, 5)
    assert [x["name"] for x in summary["scale"]] == ["no", "yes"]
    db.close()
    status, out, err = cli("campaign", "init", db_path, "--name", "small", "--sample")
    assert status == 2 and "exists already" in err
