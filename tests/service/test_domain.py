"""The domain layer on SQLite and PostgreSQL: campaigns, uploads, pool, queues, blind
order, idempotent judgments with history, exports, results."""

from __future__ import annotations

import pytest

from cranfield.errors import InputError, ParameterError
from cranfield.service import (
    accounts,
    campaigns,
    exports,
    judging,
    pooling,
    quality,
    results,
    submissions,
)
from cranfield.service.problems import Conflict, Forbidden, Invalid, NotFound
from service.helpers import (
    doc_ids,
    document,
    judging_campaign,
    make_campaign,
    run_text,
    submit,
    topic,
    user,
    write,
)


def count(db, model) -> int:
    from sqlalchemy import func, select

    with db.read() as s:
        return s.scalar(select(func.count()).select_from(model))


# -- campaigns and users ---------------------------------------------------------------


def test_a_failed_creation_writes_nothing(db):
    from cranfield.service.models import Campaign, Document, Topic

    docs = [document(d) for d in doc_ids(5)] + [document("D001")]  # a duplicate, last
    with pytest.raises(InputError, match="D001"):
        make_campaign(db, documents=docs)
    assert (count(db, Campaign), count(db, Topic), count(db, Document)) == (0, 0, 0)
    make_campaign(db)
    with pytest.raises(Conflict):
        make_campaign(db)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("scale", "0,x"),
        ("max_runs", 0),
        ("per_topic", 0),
        ("aggregation", "vote"),
        ("measures", "nDCG@@"),
    ],
)
def test_bad_settings_are_refused(db, field, value):
    from cranfield.errors import CranfieldError

    with pytest.raises(CranfieldError):
        make_campaign(db, **{field: value})


def test_users_roles_and_login(db):
    make_campaign(db)
    uid = user(db, "ann", "assessor")
    accounts.grant(db, "ann", "c", "participant")
    with db.read() as s:
        c = campaigns.get(s, "c")
        assert accounts.roles(s, uid, c.id) == {"assessor", "participant"}
    assert accounts.login(db, "ann", "wrong password") is None
    token, csrf, got = accounts.login(db, "ann", "correct horse battery")
    assert got == uid and token != csrf
    found = accounts.session_user(db, token)
    assert found == (uid, "ann", False, csrf)
    accounts.logout(db, token)
    assert accounts.session_user(db, token) is None
    with pytest.raises(ParameterError):
        accounts.add_user(db, "<script>", "long enough password")
    with pytest.raises(InputError):
        accounts.add_user(db, "bob", "short")
    with pytest.raises(NotFound):
        accounts.grant(db, "ann", "nope", "assessor")


def test_passwords_are_stored_as_argon2_hashes(db):
    from sqlalchemy import select

    from cranfield.service.models import Session, User

    make_campaign(db)
    user(db, "ann", "assessor")
    token = accounts.login(db, "ann", "correct horse battery")[0]
    with db.read() as s:
        stored = s.scalar(select(User.password_hash))
        sessions = list(s.scalars(select(Session.token_hash)))
    assert stored.startswith("$argon2id$") and "correct" not in stored
    assert token not in sessions and len(sessions) == 1


# -- uploads ---------------------------------------------------------------------------


def test_a_valid_run_is_accepted_and_kept_in_the_data_directory(db, tmp_path):
    make_campaign(db)
    uid = user(db, "p", "participant")
    out = submit(db, tmp_path, uid, "alpha", description="<b>bold</b>", priority=2)
    assert out["name"] == "alpha" and out["rows"] == 24
    with db.read() as s:
        (row,) = submissions.runs_of(s, campaigns.get(s, "c").id)
    stored = db.data_dir / row.path
    assert stored.is_file() and stored.resolve().is_relative_to(db.data_dir)
    assert stored.read_text() == run_text("alpha")
    assert not (tmp_path / "alpha.upload").exists()  # consumed


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("t1 Q0 D001 1 2.0 x\nt1 Q0 D002 two\n", [(2, "expected 6 fields")]),
        ("t1 Q0 D001 1 2.0 x\nt1 Q0 D001 2 1.0 x\n", [(2, "appears twice")]),
        ("t1 Q0 D001 1 abc x\n", [(1, "not a number")]),
        (
            "t1 Q0 D001 1 2.0 x\nt9 Q0 D002 2 1.0 x\nt1 Q0 NOPE 3 0.5 x\n",
            [(2, "topic 't9'"), (3, "document 'NOPE'")],
        ),
        (
            "t1 Q0 D001 1 inf x\nt1 Q0 D002 -2 1.0 x\nt1 Q0 D003 3 -Infinity x\n"
            "t1 Q0 D005 0 1e308 x\n",
            [(1, "score inf is not"), (2, "rank -2 is negative"), (3, "score -Infinity")],
        ),
    ],
)
def test_invalid_runs_are_refused_with_line_numbers(db, tmp_path, text, expected):
    from cranfield.service.models import Run

    make_campaign(db)
    uid = user(db, "p", "participant")
    path = write(tmp_path, "bad.run", text)
    with pytest.raises(Invalid) as info:
        submissions.submit(db, "c", uid, path)
    got = [(p["line"], p["message"]) for p in info.value.problems]
    assert len(got) == len(expected)
    for (line, message), (want_line, want) in zip(got, expected, strict=True):
        assert line == want_line and want in message
    assert count(db, Run) == 0 and not path.exists()
    assert (
        not list((db.data_dir / "runs").rglob("*.run")) if (db.data_dir / "runs").exists() else True
    )


def test_run_limits_deadline_and_names(db, tmp_path):
    import datetime as dt

    make_campaign(db, max_runs=2)
    uid = user(db, "p", "participant")
    submit(db, tmp_path, uid, "a")
    with pytest.raises(Conflict, match="exists already"):
        submit(db, tmp_path, uid, "a")
    submit(db, tmp_path, uid, "b")
    with pytest.raises(Forbidden, match="at most 2"):
        submit(db, tmp_path, uid, "c3")
    with pytest.raises(ParameterError):
        submissions.submit(db, "c", uid, write(tmp_path, "x.run", run_text("x")), name="<script>")
    make_campaign(db, "late", deadline=dt.datetime(2000, 1, 1))
    accounts.grant(db, "p", "late", "participant")
    with pytest.raises(Conflict, match="deadline"):
        submit(db, tmp_path, uid, "z", campaign="late")


# -- pool, assignment, blind order --------------------------------------------------------


def test_pool_and_assignment(db, tmp_path):
    ids = judging_campaign(
        db, tmp_path, assessors=("a1", "a2", "a3"), per_topic=2, gold=[("t1", "D029", 1)]
    )
    from sqlalchemy import select

    from cranfield.service.models import Pair, Task

    with db.read() as s:
        pairs = s.execute(
            select(Pair.id, Pair.topic_id, Pair.doc_id, Pair.gold_label).order_by(Pair.id)
        ).all()
        tasks = s.execute(select(Task.user_id, Task.pair_id, Task.position)).all()
        status = campaigns.get(s, "c").status
    assert status == "judging"
    # pair ids follow (topic, document id): they reveal no rank
    assert [(p[1], p[2]) for p in pairs] == sorted((p[1], p[2]) for p in pairs)
    assert ("t1", "D029", 1) in [(p[1], p[2], p[3]) for p in pairs]
    # every pair has exactly 2 distinct assessors
    per_pair: dict[int, set[int]] = {}
    for uid, pid, _ in tasks:
        per_pair.setdefault(pid, set()).add(uid)
    assert set(per_pair) == {p[0] for p in pairs}
    assert all(len(v) == 2 for v in per_pair.values())
    # positions are 0..n-1 per assessor
    for a in ("a1", "a2", "a3"):
        pos = sorted(p for u, _, p in tasks if u == ids[a])
        assert pos == list(range(len(pos)))
    with pytest.raises(Conflict):
        pooling.build(db, "c", depth=5)
    with pytest.raises(Conflict):
        pooling.assign(db, "c")


def _queue(db, uid):
    order = []
    view = judging.next_pair(db, "c", uid)
    while view is not None:
        order.append((view["topic"]["id"], view["document"]["id"]))
        view = judging.pair_view(db, "c", uid, view["next"]) if view["next"] else None
    return order


def test_blind_order_is_deterministic_per_assessor_and_not_the_ranking(db, tmp_path):
    from cranfield.service.db import open_database

    ids = judging_campaign(db, tmp_path)
    first, second = _queue(db, ids["a1"]), _queue(db, ids["a2"])
    assert first == _queue(db, ids["a1"])  # deterministic
    assert sorted(first) == sorted(second) and first != second  # same pairs, other order
    for q in ("t1", "t2", "t3"):
        mine = [d for t, d in first if t == q]
        assert mine != sorted(mine)
        idx = [i for i, (t, _) in enumerate(first) if t == q]
        assert idx == list(range(idx[0], idx[0] + len(idx)))  # a topic at a time
    # the same pool from runs ranking the documents in the opposite order: same queue
    other = open_database(str(tmp_path / "reversed.db"))
    make_campaign(other, per_topic=2)
    p = user(other, "p1", "participant")
    for a in ("a1", "a2"):
        user(other, a, "assessor")
    for name, off in (("r1", 0), ("r2", 1), ("s1", 2)):
        lines = run_text(name, off).splitlines()
        flipped = [
            " ".join([*x.split()[:4], str(-float(x.split()[4])), x.split()[5]]) for x in lines
        ]
        path = write(tmp_path, f"{name}.rev", "\n".join(flipped) + "\n")
        submissions.submit(other, "c", p, path)
    pooling.build(other, "c", depth=8)
    pooling.assign(other, "c")
    with other.read() as s:
        from sqlalchemy import select

        from cranfield.service.models import User

        a1 = s.scalar(select(User.id).where(User.username == "a1"))
    flipped_queue = _queue(other, a1)
    common = set(first) & set(flipped_queue)
    assert len(common) > len(first) // 2
    assert [x for x in flipped_queue if x in common] == [x for x in first if x in common]
    other.close()


def test_view_reveals_nothing_about_runs_or_other_assessors(db, tmp_path):
    ids = judging_campaign(db, tmp_path, gold=[("t1", "D000", 2)])
    view = judging.next_pair(db, "c", ids["a2"])
    judging.save(db, "c", ids["a2"], view["pair"], 2)
    other = judging.pair_view(db, "c", ids["a1"], view["pair"])
    assert other["label"] is None  # a1 does not see a2's label
    text = repr(other)
    for secret in ("r1", "r2", "s1", "p1", "p2", "a2", "100.5", "gold", "rank", "score"):
        assert secret not in text
    assert set(other) == {
        "comment",
        "flags",
        "skipped",
        "pair",
        "topic",
        "document",
        "label",
        "position",
        "previous",
        "next",
        "progress",
        "scale",
    }


# -- judgments ---------------------------------------------------------------------------


def test_saving_is_idempotent_and_keeps_the_history(db, tmp_path):
    from cranfield.service.models import Judgment, JudgmentEvent

    ids = judging_campaign(db, tmp_path)
    a = ids["a1"]
    pid = judging.next_pair(db, "c", a)["pair"]
    assert judging.save(db, "c", a, pid, 1, key="k1") == (201, {"pair": pid, "label": 1})
    assert judging.save(db, "c", a, pid, 1, key="k1") == (201, {"pair": pid, "label": 1})  # replay
    assert (count(db, Judgment), count(db, JudgmentEvent)) == (1, 1)
    with pytest.raises(Conflict, match="different"):
        judging.save(db, "c", a, pid, 2, key="k1")
    assert judging.save(db, "c", a, pid, 1) == (200, {"pair": pid, "label": 1})  # same label
    assert count(db, JudgmentEvent) == 2  # every acknowledged save is in the log
    assert judging.save(db, "c", a, pid, 0, key="k2")[0] == 200  # changed
    assert judging.save(db, "c", a, pid, 0, key="k2")[0] == 200  # a replay: not a save
    assert [h["label"] for h in judging.history(db, "c", a, pid)] == [1, 1, 0]
    assert judging.pair_view(db, "c", a, pid)["label"] == 0
    assert judging.next_pair(db, "c", a)["pair"] != pid  # resume after the judged pair


def test_saving_checks_queue_and_label(db, tmp_path):
    ids = judging_campaign(db, tmp_path, assessors=("a1", "a2", "a3"), per_topic=1)
    mine = judging.next_pair(db, "c", ids["a1"])["pair"]
    others = {judging.next_pair(db, "c", ids[a])["pair"] for a in ("a2", "a3")} - {mine}
    with pytest.raises(Forbidden):
        judging.save(db, "c", ids["a1"], others.pop(), 1)
    with pytest.raises(Forbidden):
        judging.save(db, "c", ids["p1"], mine, 1)  # a participant has no queue
    for bad in (7, -1, True, "1", 1.0):
        with pytest.raises(ParameterError):
            judging.save(db, "c", ids["a1"], mine, bad)
    foreign = min(_pairs_of(db, ids["a1"]) - _pairs_of(db, ids["a2"]))
    with pytest.raises(NotFound):
        judging.pair_view(db, "c", ids["a2"], foreign)


def _pairs_of(db, uid):
    from sqlalchemy import select

    from cranfield.service.models import Task

    with db.read() as s:
        return set(s.scalars(select(Task.pair_id).where(Task.user_id == uid)))


def test_queue_ends_with_none(db, tmp_path):
    ids = judging_campaign(db, tmp_path)
    a = ids["a1"]
    n = 0
    while (view := judging.next_pair(db, "c", a)) is not None:
        judging.save(db, "c", a, view["pair"], n % 3)
        n += 1
    assert n == len(_pairs_of(db, a))
    with db.read() as s:
        assert judging.progress(s, campaigns.get(s, "c").id, a) == {"judged": n, "total": n}


# -- dashboard, export, results ------------------------------------------------------------


def _judge_all(db, ids, rule):
    """Both assessors judge their whole queue; ``rule(assessor, topic, doc) -> label``."""
    for a in ("a1", "a2"):
        while (view := judging.next_pair(db, "c", ids[a])) is not None:
            judging.save(
                db, "c", ids[a], view["pair"], rule(a, view["topic"]["id"], view["document"]["id"])
            )


def test_export_aggregates_labels_and_applies_adjudications(db, tmp_path):
    ids = judging_campaign(db, tmp_path)

    def rule(a, q, d):
        return 0 if (a == "a2" and d.endswith("3")) else (2 if int(d[1:]) % 2 else 1)

    _judge_all(db, ids, rule)
    dash = quality.dashboard(db, "c")
    assert dash["agreement"] is not None and dash["judgments"] == 2 * dash["pool"]["pairs"]
    conflicts = dash["conflicts"]
    assert conflicts and all(c["document"].endswith("3") for c in conflicts)
    assert {a["assessor"] for a in dash["progress"]["assessors"]} == {"a1", "a2"}
    labels = exports.qrels_labels(db, "c")
    assert len(labels) == dash["pool"]["pairs"]
    for (_q, d), label in labels.items():
        if not d.endswith("3"):
            assert label == (2 if int(d[1:]) % 2 else 1)
    c0 = conflicts[0]
    quality.adjudicate(db, "c", ids["boss"], c0["pair"], 2)
    assert exports.qrels_labels(db, "c")[(c0["topic"], c0["document"])] == 2
    text = exports.qrels_text(db, "c")
    assert f"{c0['topic']} 0 {c0['document']} 2\n" in text
    assert len(text.splitlines()) == len(labels)
    log = exports.log_tsv(db, "c").splitlines()
    assert len(log) == 1 + dash["judgments"]
    current = exports.judgments_tsv(db, "c").splitlines()
    assert len(current) == 1 + dash["judgments"]


def test_results_equal_evaluate_on_the_export_and_participants_see_only_their_runs(db, tmp_path):
    from cranfield import Qrels, Run, evaluate

    ids = judging_campaign(db, tmp_path)
    _judge_all(db, ids, lambda a, q, d: int(d[1:]) % 3)
    with pytest.raises(Forbidden):
        results.for_participant(db, "c", ids["p1"])
    data = results.compute(db, "c", ["r1"])
    qrels_path = write(tmp_path, "q.txt", exports.qrels_text(db, "c"))
    runs = [
        Run.read(str(write(tmp_path, f"{n}.txt", run_text(n, o))), name=n)
        for n, o in (("r1", 0), ("r2", 1), ("s1", 2))
    ]
    expected = evaluate(Qrels.read(str(qrels_path)), runs, ["AP", "nDCG@10", "P@10"])
    for r in runs:
        for m in ("AP", "nDCG@10", "P@10"):
            assert data["runs"][r.name]["aggregate"][m] == pytest.approx(expected[r.name][m], abs=0)
    assert data["comparisons"] and data["comparisons"][0]["baseline"] == "r1"
    results.publish(db, "c")
    mine = results.for_participant(db, "c", ids["p1"])
    assert set(mine["runs"]) == {"r1", "r2"}
    theirs = results.for_participant(db, "c", ids["p2"])
    assert set(theirs["runs"]) == {"s1"} and "r1" not in repr(theirs)
    for q, st in mine["per_topic_stats"]["AP"].items():
        vals = [data["runs"][n]["per_topic"]["AP"][q] for n in ("r1", "r2", "s1")]
        assert (st["best"], st["worst"]) == (max(vals), min(vals))
        assert st["median"] == sorted(vals)[1]
    assert results.report_path(db, "c").read_text().startswith("<!DOCTYPE html>")


def test_results_need_judgments(db, tmp_path):
    judging_campaign(db, tmp_path)
    with pytest.raises(InputError, match="no judgments"):
        results.compute(db, "c")
    with pytest.raises(Conflict):
        results.publish(db, "c")


def test_topics_with_script_are_stored_verbatim(db):
    make_campaign(db, topics=[topic("t1", "<script>alert(1)</script>")])
    with db.read() as s:
        (t,) = campaigns.topics(s, campaigns.get(s, "c").id)
    assert t.title == "<script>alert(1)</script>"


def test_next_pair_and_progress_agree_with_the_tables_when_judged_out_of_order(db, tmp_path):
    """The next pair is the first unjudged one in queue order and the progress counts are
    those of the tables, whichever pairs were judged first (the index-only queries)."""
    from sqlalchemy import select

    from cranfield.service.models import Judgment, Pair, Task

    ids = judging_campaign(db, tmp_path)
    a, b = ids["a1"], ids["a2"]
    with db.read() as s:
        queue = s.execute(
            select(Task.pair_id, Pair.topic_id)
            .join(Pair, Pair.id == Task.pair_id)
            .where(Task.user_id == a)
            .order_by(Task.position)
        ).all()
    judged: set[int] = set()
    for i in [1, 2, 4, 0, 7, 3, 5, 6, 9]:  # out of queue order, the first pair late
        pid = queue[i][0]
        judging.save(db, "c", a, pid, 1, seconds=3.0)
        if pid in _pairs_of(db, b):
            judging.save(db, "c", b, pid, 2)
        judged.add(pid)
        view = judging.next_pair(db, "c", a)
        first = next(p for p, _ in queue if p not in judged)
        assert view["pair"] == first
        topic = view["topic"]["id"]
        in_topic = [p for p, t in queue if t == topic]
        assert view["progress"] == {
            "judged": len(judged),
            "total": len(queue),
            "topic_judged": len(judged & set(in_topic)),
            "topic_total": len(in_topic),
        }
    # changing a label without a time keeps the time saved before
    assert judging.save(db, "c", a, queue[0][0], 0) == (200, {"pair": queue[0][0], "label": 0})
    with db.read() as s:
        row = s.execute(
            select(Judgment.label, Judgment.seconds).where(
                Judgment.user_id == a, Judgment.pair_id == queue[0][0]
            )
        ).one()
    assert tuple(row) == (0, 3.0)


def test_a_document_id_with_quotes_and_commas_is_exported_as_it_is(db, tmp_path):
    """TREC files separate fields by whitespace only: ``D"001`` and ``D,002`` are ids
    the readers accept, so the qrels, the judgments and the log carry them (the qrels
    export answered 500 on a ``"``)."""
    from cranfield import Qrels

    def odd(did: str) -> str:
        return did.replace("D00", "D,0").replace("D0", 'D"0')

    make_campaign(db, documents=[document(odd(d)) for d in doc_ids(30)])
    ids = {a: user(db, a, "assessor") for a in ("a1", "a2")}
    p1 = user(db, "p1", "participant")
    submissions.submit(db, "c", p1, write(tmp_path, "r1.txt", odd(run_text("r1"))))
    pooling.build(db, "c", depth=5)
    pooling.assign(db, "c")
    _judge_all(db, ids, lambda a, q, d: 1 if '"' in d else 0)
    text = exports.qrels_text(db, "c")
    assert 't1 0 D"011 1\n' in text and "t1 0 D,02 0\n" in text
    back = Qrels.read(str(write(tmp_path, "q.txt", text))).to_dict()
    assert back == {
        q: {d: label for (q2, d), label in exports.qrels_labels(db, "c").items() if q2 == q}
        for q in back
    }
    assert 'D"011' in exports.judgments_tsv(db, "c") and 'D"011' in exports.log_tsv(db, "c")
    data = results.compute(db, "c", [])
    assert data["runs"]["r1"]["aggregate"]["P@10"] > 0


def test_results_say_how_much_is_judged_and_become_stale_when_judgments_change(db, tmp_path):
    from cranfield.service.models import Pair

    ids = judging_campaign(db, tmp_path)
    view = judging.next_pair(db, "c", ids["a1"])
    judging.save(db, "c", ids["a1"], view["pair"], 1)
    data = results.compute(db, "c", [])
    cov = data["coverage"]
    assert cov["labelled"] == 1 and cov["pool"] == count(db, Pair) > 1
    assert cov["fraction"] == 1 / cov["pool"]
    assert f"only 1 of the pool's {cov['pool']} pairs" in cov["warning"]
    assert sorted(cov["per_topic"].values())[-1] > 0 and sorted(cov["per_topic"].values())[0] == 0
    results.publish(db, "c")
    assert results.stored(db, "c")["stale"] is False
    assert results.for_participant(db, "c", ids["p1"])["stale"] is False
    judging.save(db, "c", ids["a1"], view["pair"], 1)  # the same label: the qrels are the same
    assert results.stored(db, "c")["stale"] is False
    judging.save(db, "c", ids["a1"], view["pair"], 0)  # changed after publication
    assert results.stored(db, "c")["stale"] is True
    mine = results.for_participant(db, "c", ids["p1"])
    assert mine["stale"] is True and mine["coverage"]["labelled"] == 1
    _judge_all(db, ids, lambda a, q, d: 1)
    again = results.compute(db, "c", [])
    assert again["coverage"]["warning"] is None and again["coverage"]["fraction"] == 1.0
    assert results.stored(db, "c")["stale"] is False


@pytest.mark.parametrize("method", ["majority", "mean", "dawid-skene"])
def test_agreement_with_aggregate_is_agreement_with_the_exported_qrels(db, tmp_path, method):
    """The dashboard's column is computed against the labels the qrels export writes
    (ties, gold and adjudications the same), checked by recounting from the export."""
    ids = judging_campaign(db, tmp_path, assessors=("a1", "a2"), per_topic=2)
    with db.write() as s:
        from sqlalchemy import update

        from cranfield.service.models import Campaign

        s.execute(update(Campaign).values(aggregation=method))
    _judge_all(db, ids, lambda a, q, d: (int(d[1:]) + (a == "a2")) % 2)  # ties everywhere
    dash = quality.dashboard(db, "c")
    quality.adjudicate(db, "c", ids["boss"], dash["conflicts"][0]["pair"], 1)
    dash = quality.dashboard(db, "c")
    exported = exports.qrels_labels(db, "c")
    current = [line.split("\t") for line in exports.judgments_tsv(db, "c").splitlines()[1:]]
    for row in dash["quality"]:
        mine = [(q, d, int(lab)) for q, d, a, lab, *_ in current if a == row["assessor"]]
        expected = sum(exported[(q, d)] == lab for q, d, lab in mine) / len(mine)
        assert row["agreement_with_aggregate"] == pytest.approx(expected, abs=1e-15)
    assert "adjudications applied" in dash["aggregate_rule"]
    if method == "majority":
        assert "seed 0" in dash["aggregate_rule"]


def test_skipped_pairs_come_back_after_the_rest_in_the_order_they_were_set_aside(db, tmp_path):
    ids = judging_campaign(db, tmp_path, assessors=("a1",), per_topic=1)
    a = ids["a1"]
    first = judging.next_pair(db, "c", a)["pair"]
    second = judging.skip(db, "c", a, first)["pair"]
    assert second != first and judging.pair_view(db, "c", a, first)["skipped"] is True
    third = judging.skip(db, "c", a, second)["pair"]
    left = []
    while (view := judging.next_pair(db, "c", a)) is not None and not view["skipped"]:
        judging.save(db, "c", a, view["pair"], 1)
        left.append(view["pair"])
    assert third in left and first not in left and second not in left
    assert view["pair"] == first  # set aside first, back first
    assert judging.skip(db, "c", a, first)["pair"] == second  # skipped again: to the end
    judging.save(db, "c", a, second, 0)
    assert judging.next_pair(db, "c", a)["pair"] == first
    judging.save(db, "c", a, first, 2)
    assert judging.next_pair(db, "c", a) is None
    with pytest.raises(Conflict, match="judged already"):
        judging.skip(db, "c", a, first)


def test_a_judgment_keeps_its_comment_and_flags(db, tmp_path):
    ids = judging_campaign(db, tmp_path, assessors=("a1",), per_topic=1)
    a = ids["a1"]
    pid = judging.next_pair(db, "c", a)["pair"]
    judging.save(db, "c", a, pid, 0, comment="  empty page \n", flags=["broken", "unsure"])
    view = judging.pair_view(db, "c", a, pid)
    assert view["comment"] == "empty page" and view["flags"] == ["broken", "unsure"]
    judging.save(db, "c", a, pid, 1)  # a new save sets the notes anew
    view = judging.pair_view(db, "c", a, pid)
    assert view["comment"] == "" and view["flags"] == []
    with pytest.raises(ParameterError, match="flag"):
        judging.save(db, "c", a, pid, 1, flags=["spam"])
    with pytest.raises(ParameterError, match="2000"):
        judging.save(db, "c", a, pid, 1, comment="x" * 2001)
    with pytest.raises(ParameterError, match="control"):
        judging.save(db, "c", a, pid, 1, comment="a\x00b")
    judging.save(db, "c", a, pid, 1, comment="tab\there", flags=["broken"])
    exported = exports.judgments_tsv(db, "c").splitlines()
    assert exported[0].split("\t")[-2:] == ["flags", "comment"]
    row = next(line for line in exported[1:] if "broken" in line)
    assert row.split("\t")[-2:] == ["broken", "tab here"]


def _positions(db, uid):
    from sqlalchemy import select

    from cranfield.service.models import Pair, Task

    with db.read() as s:
        return list(
            s.execute(
                select(Task.position, Pair.topic_id, Pair.id)
                .join(Pair, Pair.id == Task.pair_id)
                .where(Task.user_id == uid)
                .order_by(Task.position)
            )
        )


def test_a_topic_moves_between_assessors_and_judgments_stay(db, tmp_path):
    ids = judging_campaign(db, tmp_path, assessors=("a1", "a2"), per_topic=1)
    a1, a2 = ids["a1"], ids["a2"]
    first = judging.next_pair(db, "c", a1)
    topic = first["topic"]["id"]
    judging.save(db, "c", a1, first["pair"], 1)
    before_a2 = _positions(db, a2)
    assert topic not in {t for _, t, _ in before_a2}
    topic_size = sum(1 for _, t, _ in _positions(db, a1) if t == topic)
    out = pooling.reassign_topic(db, "c", topic, "a1", "a2")
    assert out["removed"] == topic_size - 1 and out["added"] == topic_size
    after_a1, after_a2 = _positions(db, a1), _positions(db, a2)
    assert [(t, p) for _, t, p in after_a1 if t == topic] == [(topic, first["pair"])]  # judged
    assert after_a2[: len(before_a2)] == before_a2  # appended at the end, in order
    assert [t for _, t, _ in after_a2[len(before_a2) :]] == [topic] * topic_size
    assert [pos for pos, _, _ in after_a2] == list(range(len(after_a2)))
    assert judging.pair_view(db, "c", a1, first["pair"])["label"] == 1
    assert pooling.give_topic(db, "c", topic, "a2") == 0  # nothing twice
    with pytest.raises(InputError, match="not an assessor"):
        pooling.give_topic(db, "c", topic, "p1")
    with pytest.raises(InputError, match="no pooled pairs"):
        pooling.give_topic(db, "c", "t9", "a1")


def test_a_late_run_is_pooled_into_the_queues_with_the_judgments_kept(db, tmp_path):
    from cranfield.service.models import Pair

    ids = judging_campaign(db, tmp_path, assessors=("a1", "a2"), per_topic=2)
    view = judging.next_pair(db, "c", ids["a1"])
    judging.save(db, "c", ids["a1"], view["pair"], 2)
    pool_before, queue_before = count(db, Pair), _positions(db, ids["a1"])
    with pytest.raises(Conflict):
        submit(db, tmp_path, ids["p2"], "late", offset=20)  # submissions closed
    campaigns.reopen(db, "c")
    submit(db, tmp_path, ids["p2"], "late", offset=20)  # other documents at the top
    out = pooling.extend(db, "c")
    assert out["added"] > 0 and out["unassigned"] == []
    assert count(db, Pair) == pool_before + out["added"]
    queue = _positions(db, ids["a1"])
    assert (
        queue[: len(queue_before)] == queue_before
        and len(queue) == len(queue_before) + out["added"]
    )
    assert judging.pair_view(db, "c", ids["a1"], view["pair"])["label"] == 2
    assert pooling.extend(db, "c")["added"] == 0  # nothing new: nothing added
    with db.read() as s:
        assert campaigns.get(s, "c").status == "judging"


def test_activity_per_assessor_counts_every_save_with_the_median_time(db, tmp_path):
    ids = judging_campaign(db, tmp_path, assessors=("a1", "a2"), per_topic=2)
    for secs in (4.0, 10.0, 7.0):
        view = judging.next_pair(db, "c", ids["a1"])
        judging.save(db, "c", ids["a1"], view["pair"], 1, seconds=secs)
    judging.save(db, "c", ids["a1"], view["pair"], 0)  # a revision: a fourth save
    (row,) = quality.activity(db, "c")
    assert row["assessor"] == "a1" and row["saves"] == 4 and row["last_hour"] == 4
    assert row["median_seconds"] == 7.0 and row["last_seen"].endswith("Z")
    assert quality.dashboard(db, "c")["activity"] == [row]
