"""Machine labels, the human sample and the estimates on SQLite and PostgreSQL.

The sample's strata and inclusion probabilities are checked against ranks read here
from the run files; the estimates against :func:`ppi_evaluate_pairs` called directly
on the campaign's exports (the qrels, the machine labels, the sample), an independent
path through the stored data."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cranfield.core.qrels import Qrels
from cranfield.core.run import Run
from cranfield.errors import InputError, ParameterError
from cranfield.judgments.ppi import ppi_evaluate, ppi_evaluate_pairs
from cranfield.service import (
    estimates,
    exports,
    judging,
    machine_labels,
    pooling,
    sampling,
)
from cranfield.service.models import MachineLabel, Pair, Task, User
from cranfield.service.problems import Conflict
from service.helpers import make_campaign, run_text, submit, user, write

RUNS = {"r1": 0, "r2": 1, "s1": 2}


def truth(doc: str) -> int:
    return int(doc[1:]) % 3


def machine_guess(doc: str) -> int:
    return (int(doc[1:]) * 7) % 3  # agrees with the truth on a third of the documents


def sampled_campaign(
    db, tmp, *, fraction=0.4, bounds=(2,), measure="P@5", assign=True, units="pairs"
):
    """Campaign ``c`` (3 topics, runs r1 r2 s1 of depth 8), pooled at depth 5, with a
    human sample (``fraction``: none, no sample yet); assessors a1 and a2."""
    make_campaign(db, per_topic=1)
    ids = {"boss": user(db, "boss", "coordinator"), "p1": user(db, "p1", "participant")}
    for a in ("a1", "a2"):
        ids[a] = user(db, a, "assessor")
    for name, offset in RUNS.items():
        submit(db, tmp, ids["p1"], name, offset)
    pooling.build(db, "c", depth=5)
    info = None  # no fraction: no sample chosen yet
    if fraction is not None:
        info = sampling.choose(
            db, "c", fraction, bounds=bounds, seed=5, measure=measure, units=units
        )
    if assign:
        pooling.assign(db, "c")
    return ids, info


def best_ranks_from_the_run_files() -> dict[tuple[str, str], int]:
    best: dict[tuple[str, str], int] = {}
    for name, offset in RUNS.items():
        for line in run_text(name, offset).splitlines():
            q, _, d, rank, _, _ = line.split()
            best[(q, d)] = min(best.get((q, d), 10**9), int(rank))
    return best


def pool_rows(db):
    from sqlalchemy import select

    with db.read() as s:
        return s.execute(
            select(Pair.id, Pair.topic_id, Pair.doc_id, Pair.stratum, Pair.inclusion)
        ).all()


def label_file(tmp, db, name="machine.txt", guess=machine_guess) -> str:
    lines = [f"{q} 0 {d} {guess(d)}" for _, q, d, _, _ in pool_rows(db)]
    return str(write(tmp, name, "\n".join(lines) + "\n"))


def judge_queues(db, ids, limit=None) -> int:
    n = 0
    for a in ("a1", "a2"):
        while limit is None or n < limit:
            view = judging.next_pair(db, "c", ids[a])
            if view is None:
                break
            judging.save(db, "c", ids[a], view["pair"], truth(view["document"]["id"]))
            n += 1
    return n


def count(db, model) -> int:
    from sqlalchemy import func, select

    with db.read() as s:
        return s.scalar(select(func.count()).select_from(model))


# -- the sample and the queues -------------------------------------------------------


@pytest.mark.parametrize(("fraction", "bounds"), [(0.5, (1, 3))])
def test_queues_hold_only_the_sampled_pairs_with_their_probabilities(
    db, tmp_path, fraction, bounds
):
    from sqlalchemy import select

    _, info = sampled_campaign(db, tmp_path, fraction=fraction, bounds=bounds)
    best = best_ranks_from_the_run_files()
    rows = pool_rows(db)
    stratum = {(q, d): int(np.searchsorted(bounds, best[(q, d)])) for _, q, d, _, _ in rows}
    for h in set(stratum.values()):
        members = [r for r in rows if stratum[(r[1], r[2])] == h]
        n_h = max(1, round(fraction * len(members)))
        chosen = [r for r in members if r[4] is not None]
        assert len(chosen) == n_h
        assert all(r[3] == h for r in members)
        assert all(r[4] == n_h / len(members) for r in chosen)
    sampled = {r[0] for r in rows if r[4] is not None}
    with db.read() as s:
        queued = set(s.scalars(select(Task.pair_id)))
    assert queued == sampled and 0 < len(sampled) < len(rows)
    assert info["sampled"] == len(sampled) and info["pairs"] == len(rows)
    exported = sampling.sample_tsv(db, "c").splitlines()
    assert exported[0] == "topic\tdocument\tstratum\tinclusion"
    back = {tuple(x.split("\t")[:2]): float(x.split("\t")[3]) for x in exported[1:]}
    assert back == {(r[1], r[2]): r[4] for r in rows if r[4] is not None}


def test_a_topic_given_late_brings_only_its_sampled_pairs(sqlite_db, tmp_path):
    db = sqlite_db  # SQLite only: the logic is the same on both
    from sqlalchemy import select

    _, _ = sampled_campaign(db, tmp_path, fraction=0.3, bounds=())
    user(db, "a3", "assessor")
    pooling.give_topic(db, "c", "t1", "a3")
    rows = pool_rows(db)
    t1_sampled = {r[0] for r in rows if r[1] == "t1" and r[4] is not None}
    with db.read() as s:
        uid = s.scalar(select(User.id).where(User.username == "a3"))
        mine = set(s.scalars(select(Task.pair_id).where(Task.user_id == uid)))
    assert mine == t1_sampled


def test_sample_refusals(sqlite_db, tmp_path):
    db = sqlite_db  # SQLite only: the logic is the same on both
    ids, _ = sampled_campaign(db, tmp_path, assign=True)
    with pytest.raises(Conflict, match="assignments already"):
        sampling.choose(db, "c", 0.5)
    with pytest.raises(Conflict, match="human sample"):
        pooling.extend(db, "c")


BAD_DESIGNS = [
    ({"fraction": 0.0}, "fraction"),
    ({"fraction": float("nan")}, "fraction"),
    ({"fraction": 0.5, "bounds": (5, 2)}, "increasing"),
    ({"fraction": 0.5, "bounds": (0,)}, "ranks of 1 or more"),
    ({"fraction": 0.5, "measure": "AP"}, "P@k or DCG@k"),
    ({"fraction": 0.5, "units": "documents"}, "units"),
    ({"fraction": 0.5, "units": "topics", "bounds": (3,)}, "none when the units are topics"),
    ({"fraction": 0.5, "units": "topics", "measure": "nosuch@5"}, "unknown measure"),
    ({"fraction": 1.5, "units": "topics", "measure": "AP"}, "fraction"),
]


def test_bad_designs_are_refused_and_nothing_is_stored(sqlite_db, tmp_path):
    db = sqlite_db  # SQLite only: the logic is the same on both
    sampled_campaign(db, tmp_path, assign=False)
    before = pool_rows(db)
    for kwargs, match in BAD_DESIGNS:
        with pytest.raises(ParameterError, match=match):
            sampling.choose(db, "c", **kwargs)
        assert pool_rows(db) == before


def test_no_pool_no_sample(sqlite_db):
    db = sqlite_db  # SQLite only: the logic is the same on both
    make_campaign(db)
    with pytest.raises(ParameterError, match="build it first"):
        sampling.choose(db, "c", 0.5)


# -- machine labels --------------------------------------------------------------------


def test_machine_labels_are_kept_apart_and_the_last_import_counts(db, tmp_path):
    ids, _ = sampled_campaign(db, tmp_path)
    judge_queues(db, ids, limit=3)
    qrels_before = exports.qrels_text(db, "c")
    first = machine_labels.read(label_file(tmp_path, db))
    info = machine_labels.import_labels(db, "c", first, "model-a@1234")
    assert info == {
        "assessor": "model-a@1234",
        "labels": info["pool"],
        "pool": info["pool"],
        "missing": 0,
    }
    # a second assessor labelling part of the pool
    rows = pool_rows(db)[:5]
    part = write(tmp_path, "part.txt", "".join(f"{q} 0 {d} 2\n" for _, q, d, _, _ in rows))
    info = machine_labels.import_labels(db, "c", machine_labels.read(part), "model-b@99")
    assert info["labels"] == 5 and info["missing"] == info["pool"] - 5
    with db.read() as s:
        assert machine_labels.latest(s, 1)[0] == "model-b@99"
    # again under the first name: its labels replaced, and it is the latest
    machine_labels.import_labels(db, "c", machine_labels.read(part), "model-a@1234")
    with db.read() as s:
        name, labels = machine_labels.latest(s, 1)
    assert name == "model-a@1234" and set(labels.values()) == {2} and len(labels) == 5
    assert count(db, MachineLabel) == 10
    # never among people's judgments or in the qrels
    assert exports.qrels_text(db, "c") == qrels_before
    assert "model-" not in exports.judgments_tsv(db, "c") + exports.log_tsv(db, "c")


BAD_FILES = {
    "not pooled": ("t1 0 D999 1\n", "not in the pool"),
    "off the scale": ("{pair} 7\n", "not on the campaign's scale"),
    "a pair twice": ("{pair} 1\n{pair} 0\n", "duplicate|twice|more than once"),
    "empty": ("", "no labels|empty"),
    "three fields": ("t1 0 D001\n", "4 fields|four fields|fields"),
    "not a number": ("{pair} high\n", "integer|number|relevance"),
}


def test_a_bad_label_file_is_one_error_and_stores_nothing(db, tmp_path):
    sampled_campaign(db, tmp_path, assign=False)
    machine_labels.import_labels(db, "c", machine_labels.read(label_file(tmp_path, db)), "kept@1")
    before = count(db, MachineLabel)
    _, q, d, _, _ = pool_rows(db)[0]
    for case, (text, match) in BAD_FILES.items():
        path = write(tmp_path, "bad.txt", text.format(pair=f"{q} 0 {d}"))
        with pytest.raises(InputError, match=match) as exc:
            machine_labels.import_labels(db, "c", machine_labels.read(path), "new@1")
        assert "\n" not in str(exc.value), case
        assert count(db, MachineLabel) == before, case
        with db.read() as s:
            assert machine_labels.latest(s, 1)[0] == "kept@1", case


@pytest.mark.parametrize("name", ["", "   ", "x" * 201, "a\nb"])
def test_a_bad_assessor_name_is_refused(name):
    with pytest.raises(InputError, match="printable"):
        machine_labels.check_assessor(name)


# -- the estimates -------------------------------------------------------------------


def _direct(db, tmp_path, measure, inclusion=None):
    """ppi_evaluate_pairs on the campaign's exports: the qrels restricted to the exported
    sample, the machine labels, the runs as submitted."""
    sample = [x.split("\t") for x in sampling.sample_tsv(db, "c").splitlines()[1:]]
    chosen = {(t, d) for t, d, _, _ in sample}
    human = Qrels.read(write(tmp_path, "h.qrels", exports.qrels_text(db, "c")))
    keep = [
        (q, d) in chosen
        for q, d in zip(
            human.table["query_id"].to_pylist(), human.table["doc_id"].to_pylist(), strict=True
        )
    ]
    import pyarrow as pa

    human = Qrels(human.table.filter(pa.array(keep)))
    machine = Qrels.read(write(tmp_path, "m.qrels", machine_labels.labels_text(db, "c")))
    runs = [Run.read(write(tmp_path, n, run_text(n, o)), name=n) for n, o in RUNS.items()]
    if inclusion is None:
        inclusion = {(t, d): float(p) for t, d, _, p in sample}
    return (
        ppi_evaluate_pairs(machine, human, runs, measure, estimator="ppi++", inclusion=inclusion),
        machine,
        runs,
    )


@pytest.mark.parametrize(("measure", "bounds"), [("P@5", (2,)), ("DCG@3", ())])
def test_estimates_equal_ppi_on_the_exported_labels(db, tmp_path, measure, bounds):
    from cranfield import evaluate

    ids, _ = sampled_campaign(db, tmp_path, fraction=0.5, bounds=bounds, measure=measure)
    assert estimates.estimates(db, "c")["reason"] == "no machine labels imported yet"
    machine_labels.import_labels(db, "c", machine_labels.read(label_file(tmp_path, db)), "m@1")
    judged = judge_queues(db, ids)
    got = estimates.estimates(db, "c")
    assert got["available"] and got["judged"] == got["sampled"] == judged
    direct, machine, runs = _direct(tmp_path=tmp_path, db=db, measure=measure)
    assert got["judged_fraction"] == judged / got["pairs"]
    for row in got["runs"]:
        want = direct["runs"][row["run"]]
        for field in ("estimate", "low", "high", "machine_only"):
            assert row[field] == pytest.approx(want[field], rel=1e-12, abs=1e-15), field
    full = evaluate(machine, runs, [measure])
    for row in got["runs"]:
        per_topic = full.per_query(row["run"], measure)
        assert row["machine_only"] == pytest.approx(np.mean(list(per_topic.values())), rel=1e-12)
    assert [
        c["ok"] for c in got["checks"] if c["check"] != "enough sampled pairs for a normal interval"
    ] == [True] * 3
    assert json.loads(estimates.estimates_json(db, "c")) == json.loads(json.dumps(got))


def _direct_topics(db, tmp_path, measure, topics):
    """ppi_evaluate on the campaign's exports: the qrels of the sampled topics, the
    machine labels, the runs as submitted, topics as the units."""
    import pyarrow as pa

    human = Qrels.read(write(tmp_path, "h.qrels", exports.qrels_text(db, "c")))
    keep = [q in topics for q in human.table["query_id"].to_pylist()]
    human = Qrels(human.table.filter(pa.array(keep)))
    machine = Qrels.read(write(tmp_path, "m.qrels", machine_labels.labels_text(db, "c")))
    runs = [Run.read(write(tmp_path, n, run_text(n, o)), name=n) for n, o in RUNS.items()]
    direct = ppi_evaluate(machine, human, runs, measure, estimator="ppi")
    return direct, human, machine


@pytest.mark.parametrize("measure", ["AP", "nDCG@5"])
def test_a_sample_of_whole_topics_estimates_any_measure(db, tmp_path, measure):
    ids, info = sampled_campaign(
        db, tmp_path, fraction=0.67, bounds=(), measure=measure, units="topics"
    )
    rows = pool_rows(db)
    topics = sorted({r[1] for r in rows})
    sampled_topics = sorted({r[1] for r in rows if r[4] is not None})
    # every pair of two of the three topics, none of the third, pi = 2/3, one stratum
    assert info["units"] == "topics" and (info["topics"], info["sampled_topics"]) == (3, 2)
    assert len(sampled_topics) == 2 and len(topics) == 3
    for _, q, _, h, pi in rows:
        assert h == 0 and (pi == pytest.approx(2 / 3) if q in sampled_topics else pi is None)
    machine_labels.import_labels(db, "c", machine_labels.read(label_file(tmp_path, db)), "m@1")
    judged = judge_queues(db, ids)
    assert judged == sum(1 for r in rows if r[1] in sampled_topics)
    got = estimates.estimates(db, "c")
    assert got["available"], got.get("reason")
    assert (got["topics"], got["sampled_topics"], got["judged_topics"]) == (3, 2, 2)
    direct, human, machine = _direct_topics(db, tmp_path, measure, set(sampled_topics))
    assert direct["sampled"] == 2 and direct["topics"] == 3
    for row in got["runs"]:
        want = direct["runs"][row["run"]]
        for field in ("estimate", "low", "high", "machine_only"):
            assert row[field] == pytest.approx(want[field], rel=1e-12, abs=1e-15), field
    assert got["judged_fraction"] == human.table.num_rows / machine.table.num_rows
    assert next(c for c in got["checks"] if c["check"] == "the sample is judged")["ok"]


def test_a_topic_sample_counts_only_topics_judged_whole(sqlite_db, tmp_path):
    db = sqlite_db  # SQLite only: the logic is the same on both
    ids, _ = sampled_campaign(db, tmp_path, fraction=0.67, bounds=(), measure="AP", units="topics")
    machine_labels.import_labels(db, "c", machine_labels.read(label_file(tmp_path, db)), "m@1")
    judge_queues(db, ids, limit=2)
    got = estimates.estimates(db, "c")
    assert not got["available"] and got["judged_topics"] < 2
    assert "sampled topics judged over their whole pool" in got["reason"]


def test_partly_judged_sample_is_post_stratified(sqlite_db, tmp_path):
    db = sqlite_db  # SQLite only: the logic is the same on both
    ids, _ = sampled_campaign(db, tmp_path, fraction=0.6, bounds=(2,))
    machine_labels.import_labels(db, "c", machine_labels.read(label_file(tmp_path, db)), "m@1")
    judge_queues(db, ids, limit=9)
    got = estimates.estimates(db, "c")
    assert got["available"] and got["judged"] == 9 < got["sampled"]
    assert not next(c for c in got["checks"] if c["check"] == "the sample is judged")["ok"]
    # each judged pair stands for its stratum: pi = judged in the stratum / pairs in it
    rows = pool_rows(db)
    human = exports.qrels_labels(db, "c")
    size = np.bincount([r[3] for r in rows])
    done = np.bincount([r[3] for r in rows if (r[1], r[2]) in human], minlength=len(size))
    inclusion = {(r[1], r[2]): done[r[3]] / size[r[3]] for r in rows if (r[1], r[2]) in human}
    direct, _, _ = _direct(db, tmp_path, "P@5", inclusion)
    for row in got["runs"]:
        assert row["estimate"] == pytest.approx(direct["runs"][row["run"]]["estimate"], rel=1e-12)


def test_no_sample_no_estimates(sqlite_db, tmp_path):
    db = sqlite_db  # SQLite only: the logic is the same on both
    make_campaign(db)
    assert estimates.estimates(db, "c") == {
        "available": False,
        "reason": "no human sample chosen: people judge the pool",
    }


# -- over HTTP (the web layer is the same on both databases: SQLite only) ---------------

SECRET = "secret-model@feedbeef"


def _site(tmp_path, config=None, *, assign=True):
    from cranfield.service import accounts
    from cranfield.service.app import create_app
    from cranfield.service.db import open_database
    from service.helpers import PASSWORD
    from service.web_fixtures import Site

    db = open_database(str(tmp_path / "site.db"))
    ids, _ = sampled_campaign(db, tmp_path, assign=assign)
    site = Site(create_app(db, config), db, 0, 0)
    for name in ("boss", "a1", "p1"):
        token, csrf, _ = accounts.login(db, name, PASSWORD)
        site.tokens[name], site.csrf[name] = token, csrf
    return site, ids


def test_assessors_never_see_machine_labels_or_the_sample_design(tmp_path):
    site, ids = _site(tmp_path)
    machine_labels.import_labels(
        site.db, "c", machine_labels.read(label_file(tmp_path, site.db)), SECRET
    )
    judge_queues(site.db, ids, limit=2)
    a1 = site.client("a1")
    pair = judging.next_pair(site.db, "c", ids["a1"])["pair"]
    pages = [
        a1.get("/api/campaigns/c"),
        a1.get("/api/campaigns/c/next"),
        a1.get(f"/api/campaigns/c/pairs/{pair}"),
        a1.get(f"/api/campaigns/c/judgments/{pair}/history"),
        a1.get("/c/c/judge"),
        a1.get(f"/c/c/judge/{pair}"),
    ]
    for r in pages:
        assert r.status_code == 200, (r.url, r.text)
        text = r.text.lower()
        for secret in ("secret-model", "feedbeef", "inclusion", "stratum", "machine"):
            assert secret not in text, (r.url, secret)
    for url in ("/api/campaigns/c/estimates", "/c/c/dashboard"):
        assert a1.get(url, follow_redirects=False).status_code == 403
    assert SECRET in site.client("boss").get("/c/c/dashboard").text


def test_labels_uploaded_estimates_on_the_dashboard_and_in_the_api(tmp_path):
    from cranfield.service.app import Config
    from cranfield.service.web import _num

    site, ids = _site(tmp_path, Config(max_upload=4000))
    boss = site.client("boss")
    good = open(label_file(tmp_path, site.db)).read()
    uploads = site.db.data_dir / "uploads"
    # too large: refused before it is read; nothing kept
    r = boss.post(
        "/api/campaigns/c/machine-labels",
        files={"file": ("m.txt", (good * 20).encode())},
        data={"assessor": "m@1"},
    )
    assert r.status_code == 413 and "limit" in r.json()["error"]
    assert not uploads.exists() or not list(uploads.rglob("*"))
    # not on the scale: one line, nothing stored
    r = boss.post(
        "/api/campaigns/c/machine-labels",
        files={"file": ("m.txt", good.replace(" 1\n", " 9\n").encode())},
        data={"assessor": "m@1"},
    )
    assert r.status_code == 422 and "not on the campaign's scale" in r.json()["error"]
    assert "\n" not in r.json()["error"] and count(site.db, MachineLabel) == 0
    assert not list(uploads.rglob("*"))
    r = boss.post(
        "/api/campaigns/c/machine-labels",
        files={"file": ("m.txt", good.encode())},
        data={"assessor": "m@1"},
    )
    assert r.status_code == 201 and r.json()["missing"] == 0, r.text
    # the browser's form (CSRF in the query string, as every upload form)
    c = site.client("boss", cookie=True)
    r = c.post(
        f"/c/c/machine-labels?csrf={c.csrf}",
        files={"file": ("m.txt", good.encode())},
        data={"assessor": "m@2"},
        follow_redirects=False,
    )
    assert r.status_code == 303 and "machine%20labels%20from%20m%402" in r.headers["location"]
    assert boss.get("/api/campaigns/c/estimates").json()["reason"].startswith("0 of ")
    judge_queues(site.db, ids)
    api = boss.get("/api/campaigns/c/estimates").json()
    assert api == json.loads(json.dumps(estimates.estimates(site.db, "c")))
    assert api["available"] and api["assessor"] == "m@2"
    html = boss.get("/c/c/dashboard").text
    assert 'id="estimates-table"' in html and 'id="separation"' in html
    for row in api["runs"]:
        assert f'data-run="{row["run"]}">{_num(row["estimate"])}<' in html
    assert f"People judged {api['judged']} of {api['sampled']} sampled pairs" in html


def test_the_sample_chosen_over_http(tmp_path):
    site, _ = _site(tmp_path, assign=False)
    boss = site.client("boss")
    r = boss.post("/api/campaigns/c/sample", json={"fraction": 0.3, "strata": [2]})
    assert r.status_code == 200 and r.json()["measure"] == "P@10", r.text
    r = boss.post("/api/campaigns/c/sample", json={"fraction": 0.3, "measure": "MAP"})
    assert r.status_code == 422 and "P@k or DCG@k" in r.json()["error"]
    c = site.client("boss", cookie=True)
    r = c.post(
        "/c/c/sample",
        data={"csrf": c.csrf, "fraction": "0.5", "strata": "", "measure": "DCG@5"},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    r = c.post("/c/c/sample", data={"csrf": c.csrf, "fraction": "half"}, follow_redirects=False)
    assert r.status_code == 422 and "fraction" in r.text
    assert json.loads(_design(site.db))["measure"] == "DCG@5"
    r = c.post(
        "/c/c/sample",
        data={"csrf": c.csrf, "fraction": "0.5", "units": "topics", "measure": "AP"},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    assert json.loads(_design(site.db))["units"] == "topics"
    r = boss.post(
        "/api/campaigns/c/sample", json={"fraction": 0.7, "units": "topics", "measure": "AP"}
    )
    assert r.status_code == 200 and r.json()["sampled_topics"] == 2, r.text
    r = boss.post("/api/campaigns/c/sample", json={"fraction": 0.7, "units": "queries"})
    assert r.status_code == 422 and "units" in r.json()["error"]
    pooling.assign(site.db, "c")
    r = boss.post("/api/campaigns/c/sample", json={"fraction": 0.3})
    assert r.status_code == 409


def _design(db) -> str:
    from sqlalchemy import select

    from cranfield.service.models import Campaign

    with db.read() as s:
        return s.scalar(select(Campaign.sample_design))


def test_the_command_line(cli, tmp_path):
    from cranfield.service.db import open_database

    path = tmp_path / "c.db"
    db = open_database(str(path))
    sampled_campaign(db, tmp_path, assign=False)
    status, out, err = cli(
        "campaign", "sample", path, "c", "--fraction", "0.4", "--strata", "2,5", "--measure", "P@3"
    )
    assert status == 0 and out.startswith(f"{sampled_count(db)} of "), err
    status, out, err = cli("campaign", "export", path, "c", "--what", "pool")
    assert status == 0 and len(out.splitlines()) == len(pool_rows(db))
    status, out, err = cli(
        "campaign", "sample", path, "c", "--fraction", "0.5", "--units", "topics", "--measure", "AP"
    )
    assert status == 0 and "topics, each whole" in out, err
    assert json.loads(_design(db))["units"] == "topics"
    status, out, err = cli(
        "campaign", "sample", path, "c", "--fraction", "0.4", "--strata", "2,5", "--measure", "P@3"
    )
    assert status == 0 and out.startswith(f"{sampled_count(db)} of "), err
    bad = write(tmp_path, "bad.txt", "t1 0 D999 1\n")
    status, out, err = cli("campaign", "machine-labels", path, "c", bad, "--assessor", "m@1")
    assert status == 2 and err.count("\n") == 1 and "not in the pool" in err, err
    labels = label_file(tmp_path, db)
    status, out, err = cli("campaign", "machine-labels", path, "c", labels, "--assessor", "m@1")
    assert (status, err) == (0, "") and out.startswith(f"{len(pool_rows(db))} labels"), err
    status, out, err = cli("campaign", "export", path, "c", "--what", "machine")
    assert status == 0 and out == open(labels).read()
    status, out, err = cli("campaign", "export", path, "c", "--what", "estimates")
    assert status == 0 and json.loads(out) == json.loads(json.dumps(estimates.estimates(db, "c")))
    db.close()


def sampled_count(db) -> int:
    return sum(1 for r in pool_rows(db) if r[4] is not None)
