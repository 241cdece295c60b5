"""The sample campaign (``cranfield campaign init --sample``) and the demonstration
service (``cranfield serve --demo``), built from the bundled sample collection
(:mod:`cranfield.sample`: forty TREC-style topics, their documents and four runs)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from . import accounts, campaigns, pooling, security, submissions
from .db import Database

SAMPLE_DEPTH = 10
GOLD_PER_TOPIC = 2  # one relevant and one non-relevant pair per topic, where there are


def _owner(db: Database, username: str, campaign: str) -> int:
    """A participant that cannot log in (no password) owning sample runs."""
    from sqlalchemy import select

    from .models import User

    with db.write() as s:
        user = s.scalar(select(User).where(User.username == username))
        if user is None:
            user = User(username=username, password_hash="!")  # no password matches "!"
            s.add(user)
            s.flush()
        uid = user.id
    accounts.grant(db, username, campaign, "participant")
    return uid


def gold_pairs(qrels, pool_pairs: list[tuple[str, str]]) -> list[tuple[str, str, int]]:
    """Per topic, the first pooled pair (document id order) judged relevant and the
    first judged non-relevant in the sample qrels: the gold pairs."""
    t = qrels.table
    grade = {
        (q, d): g
        for q, d, g in zip(
            t["query_id"].to_pylist(),
            t["doc_id"].to_pylist(),
            t["relevance"].to_pylist(),
            strict=True,
        )
    }
    chosen: dict[tuple[str, bool], tuple[str, str, int]] = {}
    for q, d in sorted(pool_pairs):
        g = grade.get((q, d))
        if g is not None and (q, g > 0) not in chosen:
            chosen[(q, g > 0)] = (q, d, min(int(g), 2))
    return sorted(chosen.values())


def sample_campaign(
    db: Database,
    name: str,
    settings: campaigns.Settings | None = None,
    owners: dict[str, str] | None = None,
    *,
    with_runs: bool = True,
    progress: bool = False,
) -> dict:
    """Create campaign ``name`` from the sample collection. With ``with_runs`` (the
    default), also submit its four runs (owned by ``owners[run]``, default a
    password-less participant ``sample``) and pool them at depth 10 with gold pairs from
    the sample qrels; without, the campaign waits for the participants' runs. With
    ``progress``, a bar on standard error when it is a terminal
    (:class:`cranfield.progress.Progress`; nothing otherwise)."""
    from .. import sample
    from ..progress import Progress

    with Progress(3 if with_runs else 1, "cranfield campaign init", _stderr(progress)) as bar:
        campaigns.create_campaign(db, name, sample.topics(), sample.documents(), settings)
        bar.step("reading the runs")
        with db.read() as s:
            summary = campaigns.summary(s, campaigns.get(s, name))
        if not with_runs:
            return {"topics": summary["topics"], "documents": summary["documents"], "runs": 0}
        return _sample_runs(db, name, owners, summary, bar)


def _stderr(enabled: bool):
    """Standard error for a progress bar, or a stream that is never a terminal."""
    import io
    import sys

    return sys.stderr if enabled else io.StringIO()


def _sample_runs(db: Database, name: str, owners, summary: dict, bar) -> dict:
    from .. import sample
    from ..pooling import build_pool

    qrels, runs = sample.load()
    bar.total = 3 + len(runs)  # the collection, reading the runs, each run, the pool
    bar.step("submitting the runs")
    owners = owners or {}
    ids: dict[str, int] = {}
    for user in sorted(set(owners.get(r, "sample") for r in runs)):
        if user == "sample":
            ids[user] = _owner(db, user, name)
        else:
            from sqlalchemy import select

            from .models import User

            with db.read() as s:
                ids[user] = s.scalar(select(User.id).where(User.username == user))
    upload = submissions.upload_dir(db)
    for run_name, run in runs.items():
        path = Path(tempfile.mkstemp(dir=upload, suffix=".run")[1])
        run.to_trec(path)
        submissions.submit(
            db, name, ids[owners.get(run_name, "sample")], path, name=run_name, check_deadline=False
        )
        bar.step(f"run {run_name}")
    pool = build_pool(list(runs.values()), "depth", k=SAMPLE_DEPTH)
    info = pooling.build(db, name, depth=SAMPLE_DEPTH, gold=gold_pairs(qrels, pool.pairs()))
    bar.step("pool")
    return {
        "topics": summary["topics"],
        "documents": summary["documents"],
        "runs": len(runs),
        "pairs": info["pairs"],
        "strategy": info["strategy"],
    }


def demo(db: Database, name: str = "demo") -> dict[str, str]:
    """A ready campaign: a coordinator, an assessor (assigned every topic) and a
    participant (owning two of the sample runs); returns ``{user: one-time password}``."""
    passwords = {}
    users = {"coordinator": "coordinator", "assessor": "assessor", "participant": "participant"}
    with db.read() as s:
        from sqlalchemy import select

        from .models import Campaign

        exists = s.scalar(select(Campaign.id).where(Campaign.name == name)) is not None
    for role, user in users.items():
        passwords[user] = security.new_password()
        site = "coordinator" if role == "coordinator" else None  # may create campaigns too
        accounts.add_user(db, user, passwords[user], role=site, exist_ok=True)
    if not exists:
        sample_campaign(
            db,
            name,
            campaigns.Settings(title="Demonstration campaign (sample collection)"),
            owners={"bm25": "participant", "dense": "participant"},
        )
        for role, user in users.items():
            accounts.grant(db, user, name, role)
        pooling.assign(db, name, per_topic=1)
    return passwords
