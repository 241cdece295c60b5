"""Run submissions: an upload is validated at once and accepted only when valid.

The file is read with cranfield's own reader (:meth:`cranfield.Run.read`: malformed
lines and duplicate documents are reported with their line numbers), then every line
is checked against the campaign: topics it does not have and documents not in its
collection are listed with their lines (the first :data:`MAX_PROBLEMS`, and how many
more). An accepted run is kept in the data directory, never anywhere else.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from sqlalchemy import func, insert, select

from ..errors import InputError, ParameterError
from . import campaigns
from .db import Database
from .models import Document, Run, Topic, User, now
from .problems import Conflict, Forbidden, Invalid, NotFound

RUN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
MAX_PROBLEMS = 20


def check_run_name(name: str) -> str:
    if not isinstance(name, str) or not RUN_NAME.match(name):
        raise ParameterError(
            "run name", "1 to 100 letters, digits and . _ - (starting with a letter or digit)", name
        )
    return name


def run_dir(db: Database, campaign_id: int) -> Path:
    d = db.data_dir / "runs" / str(int(campaign_id))
    d.mkdir(parents=True, exist_ok=True)
    return d


def upload_dir(db: Database) -> Path:
    d = db.data_dir / "uploads"
    d.mkdir(parents=True, exist_ok=True)
    return d


def _looked_up(source: str, path: Path, stored: set[str]) -> dict:
    """The documents of collection ``source`` that the run at ``path`` names and the
    campaign has not stored yet: ``{doc_id: (doc_id, title, text)}`` (ids it lacks are
    left out, so validation reports them)."""
    from ..core.io.collections import Collection, collection_id

    wanted = set()
    with open(path, "rb") as f:
        for raw in f:
            fields = raw.split()
            if len(fields) >= 6 and not fields[0].startswith(b"#"):
                wanted.add(fields[2].decode("utf-8", "replace"))
    wanted -= stored
    if not wanted:
        return {}
    return Collection.load(collection_id(source)).documents_by_id(sorted(wanted))


def validate(
    path: Path, topic_ids: set[str], doc_ids: set[str], name: str | None
) -> tuple[object, list[dict]]:
    """``(run, problems)``: the run read from ``path`` and what is wrong with it."""
    from ..core.run import Run as RunData

    try:
        run = RunData.read(str(path), name=name)
    except InputError as exc:
        return None, [{"line": exc.line, "message": exc.message}]
    problems: list[dict] = []
    more = 0
    bad_topics: set[str] = set()
    with open(path, "rb") as f:
        for number, raw in enumerate(f, 1):
            fields = raw.split()
            if len(fields) < 6 or fields[0].startswith(b"#"):
                continue
            qid = fields[0].decode("utf-8", "replace")
            did = fields[2].decode("utf-8", "replace")
            found = []
            if qid not in topic_ids and qid not in bad_topics:
                bad_topics.add(qid)
                found.append(f"topic {qid!r} is not a topic of the campaign")
            if did not in doc_ids:
                found.append(f"document {did!r} is not in the collection")
            found.extend(_rank_and_score(fields[3], fields[4]))
            for message in found:
                if len(problems) < MAX_PROBLEMS:
                    problems.append({"line": number, "message": message})
                else:
                    more += 1
    if more:
        problems.append({"line": None, "message": f"and {more} more problems of these kinds"})
    if not problems and len(run) == 0:
        problems.append({"line": None, "message": "the run has no lines"})
    return run, problems


def _rank_and_score(rank: bytes, score: bytes) -> list[str]:
    """What a submitted line's rank and score may not be (the reader already checked
    they are numbers): a negative rank, a score that is not finite (``inf``
    orders nothing: trec_eval sorts by score; the reader refuses nan)."""
    import math

    found = []
    try:
        if int(rank) < 0:
            found.append(f"rank {rank.decode('utf-8', 'replace')} is negative")
    except ValueError:
        pass
    try:
        if not math.isfinite(float(score)):
            found.append(f"score {score.decode('utf-8', 'replace')} is not a finite number")
    except ValueError:
        pass
    return found


def submit(
    db: Database,
    campaign: str,
    user_id: int,
    path: str | os.PathLike,
    *,
    name: str | None = None,
    description: str = "",
    priority: int = 1,
    check_deadline: bool = True,
) -> dict:
    """Validate the run file at ``path`` (which this call consumes: moved into the data
    directory when accepted, removed otherwise) and accept it as a run of ``user_id``.

    :class:`Invalid` lists every problem found (``{"line", "message"}``); nothing is
    stored then.
    """
    path = Path(path)
    try:
        if name:
            check_run_name(name)
        if not isinstance(priority, int) or not 1 <= priority <= 1000:
            raise ParameterError("priority", "an integer from 1 to 1000", priority)
        if len(description) > 2000:
            raise ParameterError("description", "at most 2000 characters", len(description))
        with db.read() as s:
            c = campaigns.get(s, campaign)
            if c.status != "submission":
                raise Conflict("the campaign does not accept runs any more")
            if check_deadline and c.deadline is not None and now() > c.deadline:
                raise Conflict(f"the submission deadline ({c.deadline.isoformat()}Z) has passed")
            topic_ids = set(s.scalars(select(Topic.topic_id).where(Topic.campaign_id == c.id)))
            doc_ids = set(s.scalars(select(Document.doc_id).where(Document.campaign_id == c.id)))
            cid, max_runs, source = c.id, c.max_runs, c.documents_source
        looked_up = _looked_up(source, path, doc_ids) if source else {}
        doc_ids |= set(looked_up)
        run, problems = validate(path, topic_ids, doc_ids, name)
        if problems:
            raise Invalid("the run is not accepted", problems)
        run_name = check_run_name(run.name)
        with db.write() as s:
            if s.scalar(select(User.id).where(User.id == user_id)) is None:
                raise NotFound("no such user")
            n = s.scalar(
                select(func.count())
                .select_from(Run)
                .where(Run.campaign_id == cid, Run.user_id == user_id)
            )
            if n >= max_runs:
                raise Forbidden(f"the campaign accepts at most {max_runs} runs per participant")
            if s.scalar(select(Run.id).where(Run.campaign_id == cid, Run.name == run_name)):
                raise Conflict(f"a run named {run_name!r} exists already; choose another name")
            row = Run(
                campaign_id=cid,
                user_id=user_id,
                name=run_name,
                description=description,
                priority=priority,
                path="",
                rows=len(run),
            )
            s.add(row)
            s.flush()
            if looked_up:  # the collection's documents this run names, stored once
                stored = set(
                    s.scalars(
                        select(Document.doc_id).where(
                            Document.campaign_id == cid, Document.doc_id.in_(list(looked_up))
                        )
                    )
                )
                new = [d for k, d in looked_up.items() if k not in stored]
                for start in range(0, len(new), 2000):
                    s.execute(
                        insert(Document), campaigns.document_rows(cid, new[start : start + 2000])
                    )
            target = run_dir(db, cid) / f"{row.id}.run"
            row.path = str(target.relative_to(db.data_dir))
            os.replace(path, target)
            return {"id": row.id, "name": run_name, "rows": len(run)}
    finally:
        if path.exists():
            path.unlink()


def runs_query(campaign_id: int, user_id: int | None = None):
    """The campaign's runs (of ``user_id`` only, if given), unordered."""
    q = select(Run).where(Run.campaign_id == campaign_id)
    if user_id is not None:
        q = q.where(Run.user_id == user_id)
    return q


def runs_of(s, campaign_id: int, user_id: int | None = None) -> list[Run]:
    return list(s.scalars(runs_query(campaign_id, user_id).order_by(Run.name)))


def load_runs(db: Database, rows: list[Run]) -> list:
    """The stored runs as :class:`cranfield.Run` objects, named as submitted."""
    from ..core.run import Run as RunData

    return [RunData.read(str(db.data_dir / r.path), name=r.name) for r in rows]
