"""A campaign's prediction-powered estimates as the dashboard shows them.

Each run's mean measure is estimated from a machine assessor's labels on the whole pool
and people's labels on a sample of its pairs, by
:func:`cranfield.judgments.ppi.ppi_evaluate_pairs` with the power-tuned estimator
(``ppi++``; with topics as units, whose samples are small, ``ppi``)
(prediction-powered inference: Angelopoulos, Bates, Fannjiang, Jordan & Zrnic 2023,
*Science* 382; PPI++: Angelopoulos, Duchi & Zrnic 2023, arXiv:2311.01453). This module
only gathers the campaign's labels, orders the runs and says where the intervals of
adjacent runs separate; it holds no second copy of the estimator.

The sample's units are the design's (:func:`cranfield.service.sampling.choose`).
**Pairs**: people judge the pairs the design chose (uniform, or stratified by rank so
that the top ranks, where the measures weigh most, are judged more), and the measure
must be linear in the labels (``P@k``, ``DCG@k``), for which a run's mean over topics is
a sum over pooled pairs (:func:`~cranfield.judgments.ppi.ppi_evaluate_pairs`).
**Topics**: people judge every pooled pair of a simple random sample of topics, and
any measure can be estimated (AP, nDCG@k...: :func:`~cranfield.judgments.ppi.ppi_evaluate`,
topics as units); the price is that a rank-stratified design has no meaning there.

While judging is under way, part of the sample has a label. With pairs, the estimate
uses the judged pairs with the inclusion probability of their stratum's judged share,
:math:`\\pi_h = j_h / N_h` (post-stratification; it equals the design's :math:`n_h / N_h`
once the sample is judged); with topics, the topics judged over their whole pool, with
:math:`\\pi = j / T`. Both are valid when the order of judging is unrelated to the
labels (the queues' blind order); the checks say how much of the sample is judged.
"""

from __future__ import annotations

import json

from ..errors import ParameterError
from ..judgments.ppi import ppi_evaluate, ppi_evaluate_pairs


def campaign_estimates(
    machine,
    human,
    runs,
    measure: str = "P@10",
    *,
    inclusion: dict | float | None = None,
    confidence: float = 0.95,
    rel_level: int = 1,
    units: str = "pairs",
) -> dict:
    """Each run's PPI++ estimate of the mean ``measure``, best first.

    Parameters
    ----------
    machine, human, runs, measure, inclusion, confidence, rel_level
        As :func:`cranfield.judgments.ppi.ppi_evaluate_pairs` takes them (``units="pairs"``:
        the machine's qrels of every pooled pair, people's qrels of the sampled pairs and
        each one's inclusion probability, keyed by ``(topic, document)``) or
        :func:`cranfield.judgments.ppi.ppi_evaluate` (``units="topics"``: people's qrels
        of the sampled topics, each judged over its whole pool; the inclusion
        probability per topic or one for all).

    Returns
    -------
    dict with ``measure``, ``confidence``, ``judged_fraction`` (pairs judged by people /
    pooled pairs), ``runs`` (a list, by decreasing estimate: ``run``, ``estimate``,
    ``low``, ``high``, ``machine_only``, ``separated_from_next``: the run's interval and
    the next run's do not overlap, ``low > next.high``) and ``checks``.
    """
    if units == "pairs" and str(measure).replace(" ", "") == "AP":
        # AP's pair-level intervals held in simulation with a kappa-0.5 machine but not with
        # a sharper one (docs/machine-assessors.md): the dashboard's separation claims need
        # ones that hold whatever the machine
        raise ParameterError(
            "measure with judged pairs as units", "P@k or DCG@k (linear in the labels)", measure
        )
    estimate = ppi_evaluate if units == "topics" else ppi_evaluate_pairs
    out = estimate(
        machine,
        human,
        runs,
        measure,
        # topics are few: a weight tuned on them makes intervals that do not hold
        # (docs/machine-assessors.md); pairs are many
        estimator="ppi++" if units == "pairs" else "ppi",
        inclusion=inclusion,
        confidence=confidence,
        rel_level=rel_level,
    )
    rows = sorted(
        (
            {
                "run": name,
                **{k: float(v[k]) for k in ("estimate", "low", "high", "machine_only")},
            }
            for name, v in out["runs"].items()
        ),
        key=lambda r: (-r["estimate"], r["run"]),
    )
    for this, after in zip(rows, rows[1:] + [None], strict=True):
        this["separated_from_next"] = after is not None and this["low"] > after["high"]
    judged = out["sampled"] / out["pairs"] if units == "pairs" else _rows(human) / _rows(machine)
    return {
        "measure": measure,
        "confidence": out["confidence"],
        "judged_fraction": judged,
        "runs": rows,
        "checks": out["checks"],
    }


def _rows(qrels) -> int:
    return qrels.table.num_rows


def estimates(db, campaign: str, *, confidence: float = 0.95) -> dict:
    """The campaign's estimates: :func:`campaign_estimates` on the latest machine
    assessor's labels (a pooled pair it did not label counts as its label 0: the
    estimate stays unbiased whatever the predictions, only wider), people's labels of
    the sampled pairs (the exported qrels: the campaign's aggregation and
    adjudications) and the sample's inclusion probabilities.

    Returns ``{"available": False, "reason"}`` when there is nothing to estimate yet,
    else ``{"available": True, "assessor", "design", "pairs", "sampled", "judged",
    "machine_labelled", ...}`` with :func:`campaign_estimates`' fields.
    """
    import numpy as np
    from sqlalchemy import select

    from . import campaigns, exports, machine_labels, submissions
    from .models import Pair

    with db.read() as s:
        c = campaigns.get(s, campaign)
        design = json.loads(c.sample_design) if c.sample_design else None
        assessor, labels = machine_labels.latest(s, c.id)
        pool = s.execute(
            select(Pair.id, Pair.topic_id, Pair.doc_id, Pair.stratum, Pair.inclusion)
            .where(Pair.campaign_id == c.id)
            .order_by(Pair.id)
        ).all()
        rows = submissions.runs_of(s, c.id)
    if design is None:
        return {"available": False, "reason": "no human sample chosen: people judge the pool"}
    human = exports.qrels_labels(db, campaign)
    topics = [p[1] for p in pool]
    documents = [p[2] for p in pool]
    stratum = np.array([p[3] for p in pool], np.int64)
    pi = np.array([np.nan if p[4] is None else p[4] for p in pool], np.float64)
    sampled = ~np.isnan(pi)
    judged = sampled & np.array([(t, d) in human for t, d in zip(topics, documents, strict=True)])
    base = {
        "assessor": assessor,
        "design": design,
        "pairs": len(pool),
        "sampled": int(sampled.sum()),
        "judged": int(judged.sum()),
        "machine_labelled": len(labels),
    }
    if assessor is None:
        return {**base, "available": False, "reason": "no machine labels imported yet"}
    if design.get("units") == "topics":
        return _topic_estimates(
            submissions.load_runs(db, rows),
            campaign,
            base,
            machine_qrels(assessor, topics, documents, labels, pool),
            topics,
            documents,
            sampled,
            judged,
            human,
            confidence,
        )
    if judged.sum() < 2:
        return {
            **base,
            "available": False,
            "reason": f"{int(judged.sum())} of the {int(sampled.sum())} sampled pairs judged "
            "so far: the estimates need 2 or more",
        }
    # post-stratified: a stratum's judged pairs stand for its N_h pairs
    n_strata = int(stratum.max()) + 1
    size = np.bincount(stratum, minlength=n_strata)
    done = np.bincount(stratum[judged], minlength=n_strata)
    left = np.bincount(stratum[sampled], minlength=n_strata)
    effective = done[stratum] / size[stratum]
    machine = machine_qrels(assessor, topics, documents, labels, pool)
    keep = np.flatnonzero(judged)
    keys = [(topics[i], documents[i]) for i in keep.tolist()]
    people = people_qrels(keys, human, campaign)
    inclusion = dict(zip(keys, effective[keep].tolist(), strict=True))
    out = campaign_estimates(
        machine,
        people,
        submissions.load_runs(db, rows),
        design["measure"],
        inclusion=inclusion,
        confidence=confidence,
    )
    unjudged = [h for h in range(n_strata) if left[h] and not done[h]]
    out["checks"] += [
        {
            "check": "the sample is judged",
            "ok": bool(judged.sum() == sampled.sum()),
            "detail": f"{int(judged.sum())} of {int(sampled.sum())} sampled pairs judged",
        },
        {
            "check": "every stratum has judged pairs",
            "ok": not unjudged,
            "detail": "yes"
            if not unjudged
            else f"{len(unjudged)} stratum(s) with no judged pair yet: the estimate leaves them out",
        },
        {
            "check": "machine labels cover the pool",
            "ok": len(labels) == len(pool),
            "detail": f"{len(labels)} of {len(pool)} pooled pairs labelled by {assessor}"
            + ("" if len(labels) == len(pool) else " (the rest count as label 0)"),
        },
    ]
    return {**base, "available": True, **out}


def machine_qrels(assessor, topics, documents, labels, pool):
    """The machine assessor's qrels of every pooled pair (one it did not label: 0)."""
    import pyarrow as pa

    from ..core.qrels import Qrels

    return Qrels(
        pa.table(
            {
                "query_id": pa.array(topics, pa.string()),
                "doc_id": pa.array(documents, pa.string()),
                "relevance": pa.array([labels.get(p[0], 0) for p in pool], pa.int64()),
            }
        ),
        source=f"machine assessor {assessor}",
    )


def people_qrels(keys, human, campaign):
    """People's qrels of the pairs ``keys`` (their labels in ``human``)."""
    import pyarrow as pa

    from ..core.qrels import Qrels

    return Qrels(
        pa.table(
            {
                "query_id": pa.array([k[0] for k in keys], pa.string()),
                "doc_id": pa.array([k[1] for k in keys], pa.string()),
                "relevance": pa.array([human[k] for k in keys], pa.int64()),
            }
        ),
        source=f"campaign {campaign}",
    )


def _topic_estimates(
    runs, campaign, base, machine, topics, documents, sampled, judged, human, confidence
) -> dict:
    """:func:`estimates` of a sample of topics: the topics judged over their whole pool
    stand for the pool's topics (``pi = j / T``, a simple random sample of them)."""
    import numpy as np

    names, topic_of = np.unique(np.array(topics, dtype=object), return_inverse=True)
    in_sample = np.bincount(topic_of[sampled], minlength=len(names)) > 0
    unjudged = np.bincount(topic_of[sampled & ~judged], minlength=len(names))
    done = in_sample & (unjudged == 0)
    counts = {
        "topics": len(names),
        "sampled_topics": int(in_sample.sum()),
        "judged_topics": int(done.sum()),
    }
    if done.sum() < 2:
        return {
            **base,
            **counts,
            "available": False,
            "reason": f"{int(done.sum())} of the {int(in_sample.sum())} sampled topics judged "
            "over their whole pool so far: the estimates need 2 or more",
        }
    keep = np.flatnonzero(done[topic_of] & judged)
    keys = [(topics[i], documents[i]) for i in keep.tolist()]
    people = people_qrels(keys, human, campaign)
    out = campaign_estimates(
        machine,
        people,
        runs,
        base["design"]["measure"],
        inclusion=float(done.sum()) / len(names),
        confidence=confidence,
        units="topics",
    )
    out["checks"] += [
        {
            "check": "the sample is judged",
            "ok": bool(done.sum() == in_sample.sum()),
            "detail": f"{int(done.sum())} of {int(in_sample.sum())} sampled topics judged "
            "over their whole pool",
        },
        {
            "check": "machine labels cover the pool",
            "ok": base["machine_labelled"] == base["pairs"],
            "detail": f"{base['machine_labelled']} of {base['pairs']} pooled pairs labelled by "
            f"{base['assessor']}"
            + ("" if base["machine_labelled"] == base["pairs"] else " (the rest count as label 0)"),
        },
    ]
    return {**base, **counts, "available": True, **out}


def estimates_json(db, campaign: str) -> str:
    """:func:`estimates` as JSON text (``campaign export --what estimates``)."""
    return json.dumps(estimates(db, campaign), indent=2) + "\n"
