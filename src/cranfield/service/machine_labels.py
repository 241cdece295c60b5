"""A machine assessor's labels of a campaign's pool, kept apart from people's judgments.

The model itself runs outside the service (``cranfield judge``: it may take hours and
costs money; a web request must never wait on it); the coordinator imports its labels,
a qrels file, under the assessor's name (``MODEL@HASH``: the model and its prompt,
:func:`cranfield.judgments.machine.assessor_name`). They are stored in their own table,
never among the judgments, never in an assessor's queue or pair view (blindness: an
assessor who saw a model's label would anchor on it), and never in the exported
qrels; they serve the prediction-powered estimates (:mod:`cranfield.service.estimates`).

Importing again under the same name replaces that assessor's labels; the estimates use
the assessor imported last.
"""

from __future__ import annotations

import io

from sqlalchemy import delete, insert, select

from ..errors import InputError
from . import campaigns
from .db import Database
from .models import MachineLabel, Pair

#: the longest assessor name (the column's width)
MAX_ASSESSOR = 200


def check_assessor(name: str) -> str:
    """The assessor's name, stripped; one line (1 to 200 printable characters) or an
    :class:`InputError`."""
    name = (name or "").strip()
    if not name or len(name) > MAX_ASSESSOR or not name.isprintable():
        raise InputError(
            f"the machine assessor's name must be 1 to {MAX_ASSESSOR} printable characters "
            "(the model and its prompt, e.g. MODEL@HASH as 'cranfield judge' names it)"
        )
    return name


def read(path, source: str | None = None):
    """A label file (TREC qrels, or CSV/TSV/Parquet by its extension) as
    :class:`cranfield.Qrels`; a pair given twice is an error."""
    from ..core.qrels import Qrels

    q = Qrels.read(path)
    if source:
        q = Qrels(q.table, source=source)
    return q


def import_labels(db: Database, campaign: str, qrels, assessor: str) -> dict:
    """Store ``qrels`` as the labels of the machine ``assessor`` (replacing its earlier
    ones). Every pair must be in the pool and every label on the campaign's scale;
    otherwise nothing is stored. Returns ``{"assessor", "labels", "pool", "missing"}``
    (``missing``: pooled pairs the file does not label)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    assessor = check_assessor(assessor)
    t = qrels.table
    if t.num_rows == 0:
        raise InputError("the label file has no labels", qrels.source)
    with db.read() as s:
        c = campaigns.get(s, campaign)
        cid, scale = c.id, campaigns.scale_of(c)
        pool = s.execute(
            select(Pair.id, Pair.topic_id, Pair.doc_id).where(Pair.campaign_id == cid)
        ).all()
    if not pool:
        raise InputError(f"campaign {campaign!r} has no pool yet: build it first")
    ids = np.array([p[0] for p in pool], np.int64)
    pool_keys = _keys(pa.array([p[1] for p in pool]), pa.array([p[2] for p in pool]))
    at = pc.index_in(_keys(t["query_id"], t["doc_id"]), value_set=pool_keys)
    outside = np.flatnonzero(~np.asarray(pc.is_valid(at)))
    if outside.size:
        i = int(outside[0])
        raise InputError(
            f"{outside.size} labelled pair(s) are not in the pool of campaign {campaign!r}, "
            f"e.g. topic {t['query_id'][i].as_py()}, document {t['doc_id'][i].as_py()}: "
            "label the campaign's pool (its pairs: the dashboard's export)",
            qrels.source,
        )
    labels = np.asarray(t["relevance"].to_numpy(), np.float64)
    off = ~np.isin(labels, np.asarray(scale.values, np.float64))
    if off.any():
        raise InputError(
            f"{int(off.sum())} label(s) are not on the campaign's scale {scale.describe()}, "
            f"e.g. {labels[off][0]:g}",
            qrels.source,
        )
    pair_ids = ids[np.asarray(at.fill_null(0))]
    rows = [
        {"campaign_id": cid, "pair_id": p, "assessor": assessor, "label": int(v)}
        for p, v in zip(pair_ids.tolist(), labels.tolist(), strict=True)
    ]
    with db.write() as s:
        s.execute(
            delete(MachineLabel).where(
                MachineLabel.campaign_id == cid, MachineLabel.assessor == assessor
            )
        )
        for i in range(0, len(rows), 5000):
            s.execute(insert(MachineLabel), rows[i : i + 5000])
    return {
        "assessor": assessor,
        "labels": len(rows),
        "pool": len(pool),
        "missing": len(pool) - len(rows),
    }


def _keys(topics, documents):
    import pyarrow.compute as pc

    return pc.binary_join_element_wise(topics, documents, "\x00")


def latest(s, cid: int) -> tuple[str | None, dict[int, int]]:
    """The machine assessor imported last and its labels ``{pair id: label}``."""
    name = s.scalar(
        select(MachineLabel.assessor)
        .where(MachineLabel.campaign_id == cid)
        .order_by(MachineLabel.id.desc())
        .limit(1)
    )
    if name is None:
        return None, {}
    found = s.execute(
        select(MachineLabel.pair_id, MachineLabel.label).where(
            MachineLabel.campaign_id == cid, MachineLabel.assessor == name
        )
    ).all()
    return name, dict(found)


def labels_text(db: Database, campaign: str) -> str:
    """The latest machine assessor's labels as TREC qrels (``topic 0 document label``,
    topic then document order); empty when there are none."""
    with db.read() as s:
        c = campaigns.get(s, campaign)
        name, labels = latest(s, c.id)
        pairs = s.execute(
            select(Pair.id, Pair.topic_id, Pair.doc_id)
            .where(Pair.campaign_id == c.id)
            .order_by(Pair.topic_id, Pair.doc_id)
        ).all()
    out = io.StringIO()
    for pid, topic, doc in pairs:
        if pid in labels:
            out.write(f"{topic} 0 {doc} {labels[pid]}\n")
    return out.getvalue()
