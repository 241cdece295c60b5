"""The assessors' queues in MTC order, on SQLite and PostgreSQL.

The order served is checked against :func:`cranfield.pooling.mtc.minimal_judging` (two
runs) and :func:`cranfield.pooling.mtc.rank_runs` (all runs) called here, per topic, on
rankings read from the run files written by this test and on the labels of the
campaign's exports (the judgment log gives the order the assessors judged in): an
independent path through the stored data."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from cranfield import Run
from cranfield.errors import InputError, ParameterError
from cranfield.pooling.mtc_order import judging_order
from cranfield.service import campaigns, exports, judging, mtc_order, pooling, sampling, submissions
from cranfield.service.models import Campaign
from cranfield.service.problems import Conflict
from service.helpers import make_campaign, user, write

TOPICS = ("t1", "t2", "t3")
RUNS = ("r1", "r2", "s1")
DEPTH = 10


def docs_of(n: int = 30) -> list[str]:
    return [f"D{i:03d}" for i in range(n)]


def rankings(seed: int = 3) -> dict[str, dict[str, list[str]]]:
    """Per run, per topic: ``DEPTH`` documents of 14 a topic (so the runs overlap)."""
    rng = random.Random(seed)
    out: dict[str, dict[str, list[str]]] = {}
    for run in RUNS:
        out[run] = {}
        for i, q in enumerate(TOPICS):
            candidates = docs_of()[i * 8 : i * 8 + 14]
            out[run][q] = rng.sample(candidates, DEPTH)
    return out


def truth(topic: str, doc: str) -> int:
    return random.Random(f"{topic}/{doc}").choice((0, 0, 1, 2))


def run_file(tmp, name: str, ranked: dict[str, list[str]]):
    lines = [
        f"{q} Q0 {d} {r + 1} {100 - r}.5 {name}" for q in TOPICS for r, d in enumerate(ranked[q])
    ]
    return write(tmp, f"{name}.upload", "\n".join(lines) + "\n")


def mtc_campaign(db, tmp, *, measure="AP", runs=None, assessors=("a1", "a2"), depth=DEPTH):
    """Campaign ``c``: three runs, pooled at ``depth``, judged in MTC order by
    ``assessors`` (one per topic)."""
    make_campaign(db, per_topic=1)
    ids = {"boss": user(db, "boss", "coordinator"), "p1": user(db, "p1", "participant")}
    for a in assessors:
        ids[a] = user(db, a, "assessor")
    for name, ranked in rankings().items():
        submissions.submit(db, "c", ids["p1"], run_file(tmp, name, ranked))
    pooling.build(db, "c", depth=depth)
    info = None if measure is None else mtc_order.choose(db, "c", measure, runs=runs)
    pooling.assign(db, "c")
    return ids, info


def judge(db, ids, assessors=("a1", "a2"), *, stop_when_decided=True):
    """Judge every queue with the true labels; returns each assessor's views' (topic,
    document, decided) in the order served."""
    served = {}
    for a in assessors:
        served[a] = []
        while True:
            view = judging.next_pair(db, "c", ids[a])
            if view is None or (stop_when_decided and view["decided"]):
                break
            served[a].append((view["topic"]["id"], view["document"]["id"], view["decided"]))
            judging.save(
                db, "c", ids[a], view["pair"], truth(view["topic"]["id"], view["document"]["id"])
            )
    return served


def exported(db):
    """The judgment log (order judged, per assessor) and the exported qrels' labels."""
    log: dict[str, list[tuple[str, str]]] = {}
    for line in exports.log_tsv(db, "c").splitlines()[1:]:
        topic, doc, assessor, *_ = line.split("\t")
        log.setdefault(assessor, []).append((topic, doc))
    labels = {}
    for line in exports.qrels_text(db, "c").splitlines():
        q, _, d, rel = line.split()
        labels[(q, d)] = int(rel)
    return log, labels


def library(tmp, labels, runs, measure):
    """:func:`cranfield.pooling.mtc_order.judging_order` on the run files written by this
    test (read back from disk) and the exported qrels: every unjudged pooled pair, best
    first, and the decisions."""
    from cranfield import Qrels

    objs = [Run.read(run_file(tmp, r, rankings()[r])) for r in runs]  # submit took them
    qrels = None
    if labels:
        path = write(
            tmp, "so-far.qrels", "".join(f"{q} 0 {d} {v}\n" for (q, d), v in labels.items())
        )
        qrels = Qrels.read(path)
    return judging_order(objs, qrels, measure=measure, depth=DEPTH, batch=10**6)


def queue_topics(db, uid):
    from sqlalchemy import select

    from cranfield.service.models import Pair, Task

    with db.read() as s:
        return set(
            s.scalars(
                select(Pair.topic_id).join(Task, Task.pair_id == Pair.id).where(Task.user_id == uid)
            )
        )


CASES = [("AP", ["r1", "s1"]), ("P@5", ["s1", "r2"]), ("DCG@5", None), ("AP", None)]


@pytest.mark.parametrize(("measure", "runs"), CASES)
def test_the_order_served_is_the_librarys(db, tmp_path, measure, runs):
    """Two assessors, a topic each, take turns; every pair served is the first pair of
    the library's order (recomputed from the run files and the exported qrels) that lies
    in the assessor's topics, and the decisions shown are the library's."""
    ids, info = mtc_campaign(db, tmp_path, measure=measure, runs=runs)
    assert info["topics"] == 3 and info["pairs"] == (1 if runs else 3)
    names = runs or sorted(RUNS)
    mine = {a: queue_topics(db, ids[a]) for a in ("a1", "a2")}
    assert mine["a1"] and mine["a2"] and not mine["a1"] & mine["a2"]
    served = 0
    for _ in range(200):
        _, labels = exported(db)
        order = library(tmp_path, labels, names, measure)
        status = mtc_order.status(db, "c")
        assert [p["runs"] for p in status["pairs"]] == [list(p) for p in order.pairs]
        np.testing.assert_allclose(
            [p["difference"] for p in status["pairs"]], order.difference, rtol=1e-12, atol=1e-15
        )
        np.testing.assert_allclose(
            [p["p_change"] for p in status["pairs"]], order.risk, rtol=1e-9, atol=1e-300
        )
        assert [p["decided"] for p in status["pairs"]] == order.decided.tolist()
        assert status["decided"] is bool(order.decided.all())
        assert status["judged"] == len(labels)
        if status["decided"]:
            break
        a = ("a1", "a2")[served % 2]
        view = judging.next_pair(db, "c", ids[a])
        first = [
            (q, d)
            for q, d in zip(
                order.table["query_id"].to_pylist(), order.table["doc_id"].to_pylist(), strict=True
            )
            if q in mine[a]
        ]
        if not first:  # this assessor's topics weigh nothing: the other goes on
            served += 1
            continue
        assert view["decided"] is False
        assert (view["topic"]["id"], view["document"]["id"]) == first[0]
        judging.save(db, "c", ids[a], view["pair"], truth(*first[0]))
        served += 1
    assert status["decided"]
    # MTC judged fewer pairs than the pool holds, and the next view says it is decided
    assert len(labels) < len(exports.pool_text(db, "c").splitlines())
    view = judging.next_pair(db, "c", ids["a1"])
    assert view is not None and view["decided"] is True


def test_after_the_decision_the_rest_comes_in_the_blind_order(sqlite_db, tmp_path):
    db = sqlite_db
    ids, _ = mtc_campaign(db, tmp_path, measure="P@5", runs=["r1", "r2"], assessors=("a1",))
    decided_part = judge(db, ids, ("a1",))["a1"]
    rest = judge(db, ids, ("a1",), stop_when_decided=False)["a1"]
    assert rest and all(decided for *_, decided in rest)
    with db.read() as s:
        from sqlalchemy import select

        from cranfield.service.models import Pair, Task

        queue = s.execute(
            select(Pair.topic_id, Pair.doc_id)
            .join(Task, Task.pair_id == Pair.id)
            .order_by(Task.position)
        ).all()
    first = {(q, d) for q, d, _ in decided_part}
    assert [(q, d) for q, d, _ in rest] == [tuple(p) for p in queue if tuple(p) not in first]
    assert judging.next_pair(db, "c", ids["a1"]) is None


def first_of(order, topics=None):
    pairs = zip(order.table["query_id"].to_pylist(), order.table["doc_id"].to_pylist(), strict=True)
    return next((q, d) for q, d in pairs if topics is None or q in topics)


def test_a_relabel_changes_the_next_choice(sqlite_db, tmp_path):
    """The cached state is keyed by the judgments: relabelling a relevant document as not
    relevant (the state is rebuilt, not updated in place) changes the weights of AP, and
    the next pair served is still the library's."""
    db = sqlite_db
    ids, _ = mtc_campaign(db, tmp_path, measure="AP", runs=["r1", "r2"], assessors=("a1",))
    views = []
    for _ in range(3):
        view = judging.next_pair(db, "c", ids["a1"])
        views.append(view)
        judging.save(db, "c", ids["a1"], view["pair"], 2)  # everything relevant so far
    before = judging.next_pair(db, "c", ids["a1"])
    _, labels = exported(db)
    assert (before["topic"]["id"], before["document"]["id"]) == first_of(
        library(tmp_path, labels, ["r1", "r2"], "AP")
    )
    for v in views:
        judging.save(db, "c", ids["a1"], v["pair"], 0)
    after = judging.next_pair(db, "c", ids["a1"])
    _, labels = exported(db)
    assert set(labels.values()) == {0}
    expected = first_of(library(tmp_path, labels, ["r1", "r2"], "AP"))
    assert (after["topic"]["id"], after["document"]["id"]) == expected
    assert after["pair"] != before["pair"]


def test_one_assessor_per_topic_never_shares_a_pair(db, tmp_path):
    ids, _ = mtc_campaign(db, tmp_path, measure="AP")
    first = {a: judging.next_pair(db, "c", ids[a]) for a in ("a1", "a2")}
    assert first["a1"]["pair"] != first["a2"]["pair"]
    assert first["a1"]["topic"]["id"] != first["a2"]["topic"]["id"]


def test_views_are_blind(sqlite_db, tmp_path):
    ids, _ = mtc_campaign(sqlite_db, tmp_path, measure="AP", runs=["r1", "r2"])
    view = judging.next_pair(sqlite_db, "c", ids["a1"])
    text = json.dumps(view).lower()
    for secret in ("r1", "r2", "s1", "rank", "score", "p_change", "measure", "weight"):
        assert secret not in text, secret
    assert view["decided"] is False


def _design(db):
    from sqlalchemy import select

    with db.read() as s:
        return s.scalar(select(Campaign.mtc_design))


@pytest.mark.parametrize(
    ("kwargs", "error", "mention"),
    [
        ({"measure": "nDCG@10"}, ParameterError, "AP, P@k or DCG@k"),
        ({"measure": "P@0"}, ParameterError, "AP, P@k or DCG@k"),
        ({"measure": "AP", "threshold": 0.5}, ParameterError, "threshold"),
        ({"measure": "AP", "threshold": float("nan")}, ParameterError, "threshold"),
        ({"measure": "AP", "threshold": True}, ParameterError, "threshold"),
        ({"measure": "AP", "runs": ["r1"]}, ParameterError, "two different run names"),
        ({"measure": "AP", "runs": ["r1", "r1"]}, ParameterError, "two different run names"),
        ({"measure": "AP", "runs": ["r1", "zz"]}, InputError, "no run named 'zz'"),
    ],
)
def test_bad_questions_store_nothing(sqlite_db, tmp_path, kwargs, error, mention):
    db = sqlite_db
    make_campaign(db, per_topic=1)
    uid = user(db, "p1", "participant")
    for name, ranked in rankings().items():
        submissions.submit(db, "c", uid, run_file(tmp_path, name, ranked))
    pooling.build(db, "c", depth=DEPTH)
    with pytest.raises(error, match=mention.replace("(", r"\(")):
        mtc_order.choose(db, "c", **kwargs)
    assert _design(db) is None


def test_refusals(sqlite_db, tmp_path, monkeypatch):
    db = sqlite_db
    make_campaign(db, per_topic=1)
    with pytest.raises(ParameterError, match="build it first"):
        mtc_order.choose(db, "c", "AP")
    uid = user(db, "p1", "participant")
    user(db, "a1", "assessor")
    submissions.submit(db, "c", uid, run_file(tmp_path, "r1", rankings()["r1"]))
    pooling.build(db, "c", depth=DEPTH)
    with pytest.raises(InputError, match="fewer than two runs"):
        mtc_order.choose(db, "c", "AP")
    campaigns.reopen(db, "c")
    submissions.submit(db, "c", uid, run_file(tmp_path, "r2", rankings()["r2"]))
    pooling.extend(db, "c")
    monkeypatch.setattr(mtc_order, "MAX_CELLS", 100)
    with pytest.raises(InputError, match="name two runs or pool less deeply"):
        mtc_order.choose(db, "c", "AP")
    monkeypatch.undo()
    assert _design(db) is None
    sampling.choose(db, "c", 0.5)
    with pytest.raises(Conflict, match="human sample"):
        mtc_order.choose(db, "c", "AP")
    assert _design(db) is None


def test_no_sample_after_an_mtc_order(sqlite_db, tmp_path):
    mtc_campaign(sqlite_db, tmp_path, measure="AP", assessors=("a1",))
    with pytest.raises(Conflict, match="MTC order"):
        sampling.choose(sqlite_db, "c", 0.5)


def test_status_without_an_mtc_order(sqlite_db):
    make_campaign(sqlite_db)
    assert mtc_order.status(sqlite_db, "c") == {"enabled": False}


@pytest.mark.parametrize(
    ("text", "parsed"),
    [("AP", ("ap", 0)), ("map", ("ap", 0)), ("P@10", ("p", 10)), ("dcg@3", ("dcg", 3))],
)
def test_measure_names(text, parsed):
    assert mtc_order.parse_measure(text) == parsed


def test_a_shallow_pool_truncates_each_run_at_its_pooled_prefix(tmp_path):
    """Pooled at depth 4: each run keeps its top 4 (the documents people can judge)."""
    from cranfield.core.run import Run

    ranked = rankings()
    runs = [Run.read(str(run_file(tmp_path, n, ranked[n])), name=n) for n in ("r1", "r2")]
    pooled = {(q, d) for n in ("r1", "r2") for q in TOPICS for d in ranked[n][q][:4]}
    pooled.add(("t1", ranked["s1"]["t1"][0]))  # pooled by another run: not in these prefixes
    topics = mtc_order.topic_runs(runs, pooled)
    for q in TOPICS:
        prefixes = {}
        for n in ("r1", "r2"):
            prefixes[n] = []
            for d in ranked[n][q]:  # read here one by one: the first unpooled ends it
                if (q, d) not in pooled:
                    break
                prefixes[n].append(d)
            assert len(prefixes[n]) >= 4
        t = topics[q]
        assert list(t.docs) == sorted({d for p in prefixes.values() for d in p})
        for i, n in enumerate(("r1", "r2")):
            assert [t.docs[j] for j in t.runs[i]] == prefixes[n]


# -- over HTTP and the command line (the web layer is the same on both databases) -------


def _site(tmp_path):
    from cranfield.service import accounts
    from cranfield.service.app import create_app
    from cranfield.service.db import open_database
    from service.helpers import PASSWORD
    from service.web_fixtures import Site

    db = open_database(str(tmp_path / "site.db"))
    ids, _ = mtc_campaign(db, tmp_path, measure=None)
    site = Site(create_app(db), db, 0, 0)
    for name in ("boss", "a1", "p1"):
        token, csrf, _ = accounts.login(db, name, PASSWORD)
        site.tokens[name], site.csrf[name] = token, csrf
    return site, ids


@pytest.mark.parametrize(
    ("body", "mention"),
    [
        ({}, "measure"),
        ({"measure": "RBP"}, "AP, P@k or DCG@k"),
        ({"measure": "DCG@0"}, "AP, P@k or DCG@k"),
        ({"measure": "AP", "threshold": 0}, "threshold"),
        ({"measure": "AP", "threshold": "x"}, "threshold"),
        ({"measure": "AP", "runs": ["r1"]}, "two different run names"),
        ({"measure": "AP", "runs": ["r1", "r2", "s1"]}, "runs"),
        ({"measure": "AP", "runs": ["r1", "nobody"]}, "no run named 'nobody'"),
        ({"measure": "P@" + "9" * 200}, "measure"),
    ],
)
def test_bad_questions_over_http_store_nothing(tmp_path, body, mention):
    site, _ = _site(tmp_path)
    r = site.client("boss").post("/api/campaigns/c/mtc", json=body)
    assert r.status_code == 422 and mention in r.text, r.text
    assert _design(site.db) is None
    assert site.client("boss").get("/api/campaigns/c/mtc").json() == {"enabled": False}


def test_the_question_over_http_the_dashboard_and_the_judging_page(tmp_path):
    site, ids = _site(tmp_path)
    boss = site.client("boss")
    assert 'id="choose-mtc"' in boss.get("/c/c/dashboard").text
    r = boss.post("/api/campaigns/c/mtc", json={"measure": "p@5", "runs": ["r2", "r1"]})
    assert r.status_code == 200, r.text
    assert r.json() == {
        "measure": "P@5",
        "runs": ["r2", "r1"],
        "threshold": 0.05,
        "topics": 3,
        "documents": r.json()["documents"],
        "pairs": 1,
    }
    form = site.client("boss", cookie=True)
    r = form.post(
        "/c/c/mtc",
        data={"csrf": form.csrf, "measure": "AP", "run1": "", "run2": "", "threshold": "0.1"},
        follow_redirects=False,
    )
    assert r.status_code == 303 and "MTC%20order" in r.headers["location"], r.text
    r = form.post("/c/c/mtc", data={"csrf": form.csrf, "threshold": "low"}, follow_redirects=False)
    assert r.status_code == 422 and "threshold" in r.text
    assert json.loads(_design(site.db)) == {"measure": "AP", "runs": None, "threshold": 0.1}
    a1 = site.client("a1")
    assert a1.get("/api/campaigns/c/mtc").status_code == 403
    assert a1.get("/c/c/dashboard", follow_redirects=False).status_code == 403
    first = a1.get("/api/campaigns/c/next").json()
    assert first["decided"] is False
    assert 'id="decided"' not in a1.get("/c/c/judge").text
    judging.save(site.db, "c", ids["a1"], first["pair"], 1)
    halfway = boss.get("/api/campaigns/c/mtc").json()
    assert not halfway["decided"] and halfway["judged"] == 1
    html = boss.get("/c/c/dashboard").text
    assert f"{halfway['pairs_decided']} of 3 pairs of runs decided" in html
    for step in range(200):  # the two assessors take turns until the question is decided
        a = ("a2", "a1")[step % 2]
        view = judging.next_pair(site.db, "c", ids[a])
        if view is None:  # this queue is done: the other goes on
            continue
        if view["decided"]:
            break
        judging.save(
            site.db, "c", ids[a], view["pair"], truth(view["topic"]["id"], view["document"]["id"])
        )
    status = boss.get("/api/campaigns/c/mtc").json()
    assert status["decided"] and a1.get("/api/campaigns/c/next").json()["decided"] is True
    assert 'id="decided"' in a1.get("/c/c/judge").text
    assert status == json.loads(json.dumps(mtc_order.status(site.db, "c")))
    assert status["enabled"] and status["decided"] and len(status["pairs"]) == 3
    html = boss.get("/c/c/dashboard").text
    assert 'id="mtc-table"' in html and "Decided: every decision is taken" in html
    assert f"{status['judged']} of {status['documents']} pooled documents" in html
    from cranfield.service.web import _num

    for p in status["pairs"]:
        assert f'data-runs="{" ".join(p["runs"])}">{_num(p["p_change"])}<' in html
        assert p["p_change"] < 0.1 and p["decided"]


def test_the_command_line(cli, tmp_path):
    from cranfield.service.db import open_database

    path = tmp_path / "c.db"
    db = open_database(str(path))
    ids, _ = mtc_campaign(db, tmp_path, measure=None, assessors=("a1",))
    status, out, err = cli("campaign", "mtc", path, "c", "--measure", "DCG@5", "--runs", "s1,r1")
    assert status == 0 and "DCG@5 for s1 and r1" in out, err
    status, out, err = cli("campaign", "mtc", path, "c", "--runs", "s1,zz")
    assert status == 2 and err.count("\n") == 1 and "no run named 'zz'" in err
    assert json.loads(_design(db))["measure"] == "DCG@5"
    judge(db, ids, ("a1",))
    status, out, err = cli("campaign", "export", path, "c", "--what", "mtc")
    assert status == 0 and json.loads(out) == json.loads(json.dumps(mtc_order.status(db, "c")))
    assert json.loads(out)["decided"] is True
    db.close()


def test_a_run_pooled_late_joins_the_question_of_all_runs(sqlite_db, tmp_path):
    """Asked about all runs, the question grows with a run pooled late (``extend``): the
    three pairs of runs are decided, the judgment made before kept."""
    db = sqlite_db
    make_campaign(db, per_topic=1)
    ids = {"p1": user(db, "p1", "participant"), "a1": user(db, "a1", "assessor")}
    ranked = rankings()
    for name in ("r1", "r2"):
        submissions.submit(db, "c", ids["p1"], run_file(tmp_path, name, ranked[name]))
    pooling.build(db, "c", depth=DEPTH)
    mtc_order.choose(db, "c", "P@5")
    pooling.assign(db, "c")
    view = judging.next_pair(db, "c", ids["a1"])
    judging.save(
        db, "c", ids["a1"], view["pair"], truth(view["topic"]["id"], view["document"]["id"])
    )
    campaigns.reopen(db, "c")
    submissions.submit(db, "c", ids["p1"], run_file(tmp_path, "s1", ranked["s1"]))
    assert pooling.extend(db, "c")["added"] > 0
    assert len(mtc_order.status(db, "c")["pairs"]) == 3
    judge(db, ids, ("a1",))
    assert mtc_order.status(db, "c")["decided"]


def test_a_tie_is_decided_once_everything_is_judged(sqlite_db, tmp_path):
    """Two runs with the same ranking: the difference is 0 whatever the labels, the
    library's probability stays 0.5 (``sign_change_probability`` of a zero mean) and every
    weight is 0, so the pairs come in (topic, document id) order — the library's — and
    the question is decided once every document is judged."""
    db = sqlite_db
    make_campaign(db, per_topic=1)
    ids = {"p1": user(db, "p1", "participant"), "a1": user(db, "a1", "assessor")}
    same = rankings()["r1"]
    for name in ("r1", "r2"):
        submissions.submit(db, "c", ids["p1"], run_file(tmp_path, name, same))
    pooling.build(db, "c", depth=DEPTH)
    mtc_order.choose(db, "c", "P@5", runs=["r1", "r2"])
    pooling.assign(db, "c")
    order = judging_order(
        [Run.read(run_file(tmp_path, n, same)) for n in ("r1", "r2")],
        measure="P@5",
        depth=DEPTH,
        batch=10**6,
    )
    assert order.difference.tolist() == [0.0] and order.risk.tolist() == [0.5]
    expected = list(
        zip(order.table["query_id"].to_pylist(), order.table["doc_id"].to_pylist(), strict=True)
    )
    assert expected == sorted((q, d) for q in TOPICS for d in same[q])
    served = judge(db, ids, ("a1",))["a1"]
    assert [(q, d) for q, d, _ in served] == expected
    status = mtc_order.status(db, "c")
    assert status["decided"] and status["judged"] == status["documents"] == len(expected)
    assert [(p["p_change"], p["difference"], p["decided"]) for p in status["pairs"]] == [
        (0.5, 0.0, True)
    ]


def test_with_two_assessors_a_topic_a_pair_one_judged_waits_for_the_decision(sqlite_db, tmp_path):
    """``per_topic=2``: both assessors have every topic. The question is the campaign's,
    so a pair one of them judged has its label and the other is served the library's
    next pair instead; the copies they share come, in the blind order, once the
    question is decided."""
    db = sqlite_db
    make_campaign(db, per_topic=2)
    ids = {"p1": user(db, "p1", "participant")}
    for a in ("a1", "a2"):
        ids[a] = user(db, a, "assessor")
    ranked = rankings()
    for name in ("r1", "r2"):
        submissions.submit(db, "c", ids["p1"], run_file(tmp_path, name, ranked[name]))
    pooling.build(db, "c", depth=DEPTH)
    mtc_order.choose(db, "c", "AP", runs=["r1", "r2"])
    pooling.assign(db, "c")
    served = []
    for step in range(200):
        a = ("a1", "a2")[step % 2]
        view = judging.next_pair(db, "c", ids[a])
        if view["decided"]:
            break
        _, labels = exported(db)
        q, d = view["topic"]["id"], view["document"]["id"]
        assert (q, d) == first_of(library(tmp_path, labels, ["r1", "r2"], "AP"))
        served.append((q, d))
        judging.save(db, "c", ids[a], view["pair"], truth(q, d))
    assert view["decided"] and mtc_order.status(db, "c")["decided"]
    assert len(served) == len(set(served)) > 2
    shared = judging.next_pair(db, "c", ids["a1"])  # the blind order: maybe a2's pair
    assert shared["decided"] is True


def test_previous_and_next_follow_the_order_judged(sqlite_db, tmp_path):
    """In MTC order the queue's blind positions are not the order served: the links go
    through the pairs in the order the assessor judged them (read back from the judgment
    log export), and from the pair being judged back to the last one judged."""
    db = sqlite_db
    ids, _ = mtc_campaign(db, tmp_path, measure="AP", assessors=("a1",))
    for _ in range(5):
        view = judging.next_pair(db, "c", ids["a1"])
        judging.save(
            db, "c", ids["a1"], view["pair"], truth(view["topic"]["id"], view["document"]["id"])
        )
    judging.save(db, "c", ids["a1"], view["pair"], 0)  # a relabel keeps the order
    log, _ = exported(db)
    judged = list(dict.fromkeys(log["a1"]))
    assert len(judged) == 5
    current = judging.next_pair(db, "c", ids["a1"])
    assert current["next"] is None and current["label"] is None
    seen, view = [], current
    while view["previous"] is not None:
        view = judging.pair_view(db, "c", ids["a1"], view["previous"])
        seen.append((view["topic"]["id"], view["document"]["id"]))
    assert seen == judged[::-1]
    forward = [(view["topic"]["id"], view["document"]["id"])]
    positions = [view["position"]]
    while view["next"] is not None:
        view = judging.pair_view(db, "c", ids["a1"], view["next"])
        forward.append((view["topic"]["id"], view["document"]["id"]))
        positions.append(view["position"])
    assert forward == judged
    # the blind positions would have led elsewhere (so the old links broke the order)
    assert positions != list(range(positions[0], positions[0] + 5))


def test_a_state_past_the_bound_is_one_clear_error(sqlite_db, tmp_path, monkeypatch):
    """Runs or pool grown past MapJudging's cells after the question was chosen: the
    status and the next pair say so in one InputError (the dashboard shows it), never a
    traceback."""
    from cranfield.pooling import mtc

    db = sqlite_db
    ids, _ = mtc_campaign(db, tmp_path, measure="AP", assessors=("a1",))
    db.cache.clear()
    monkeypatch.setattr(mtc, "MAX_CELLS", 10)
    with pytest.raises(InputError, match="MTC order of campaign 'c'.*cells"):
        mtc_order.status(db, "c")
    with pytest.raises(InputError, match="cells"):
        judging.next_pair(db, "c", ids["a1"])
