"""Which pooled pairs people judge: a uniform or rank-stratified sample of pairs, or a
simple random sample of topics judged over their whole pool, with known inclusion
probabilities, for the prediction-powered estimates of
:func:`cranfield.judgments.ppi.ppi_evaluate_pairs` and
:func:`cranfield.judgments.ppi.ppi_evaluate` (weights :math:`1/\\pi_i`: Horvitz &
Thompson 1952)."""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError


def sample_pairs(ranks, fraction: float, *, bounds=(), seed: int = 0):
    r"""A stratified simple random sample of pooled pairs.

    Parameters
    ----------
    ranks
        Each pooled pair's best rank over the runs (1 = top).
    fraction
        The share of each stratum people judge, in (0, 1].
    bounds
        Increasing rank bounds: stratum :math:`h` holds ranks in
        :math:`(b_{h-1}, b_h]`; none: one stratum (a uniform sample).

    Returns
    -------
    (rows, pi): the indices of the chosen pairs (ascending) and each one's inclusion
    probability :math:`\pi = n_h / N_h`, with :math:`n_h = \max(1, \mathrm{round}(f N_h))`
    in every non-empty stratum (``numpy.random.default_rng(seed)``).
    """
    if not 0 < fraction <= 1:
        raise ParameterError("fraction", "a number in (0, 1]", fraction)
    ranks = np.asarray(ranks, np.int64)
    edges = np.asarray(bounds, np.int64)
    if edges.size and (np.diff(edges) <= 0).any():
        raise ParameterError("strata bounds", "increasing ranks", list(bounds))
    stratum = np.searchsorted(edges, ranks, side="left")
    rng = np.random.default_rng(seed)
    key = rng.random(ranks.size)
    order = np.lexsort((key, stratum))  # random order within each stratum
    labels, start, size = np.unique(stratum[order], return_index=True, return_counts=True)
    take = np.maximum(1, np.rint(fraction * size)).astype(np.int64)
    position = np.arange(ranks.size) - np.repeat(start, size)
    chosen = order[position < np.repeat(take, size)]
    rows = np.sort(chosen)
    return rows, (take / size)[np.searchsorted(labels, stratum[rows])]


# -- a campaign's human sample ---------------------------------------------------------

#: the measure of the estimates when the coordinator names none
DEFAULT_MEASURE = "P@10"

#: the units of a human sample: pooled pairs (any share of each rank stratum; the
#: measure must be linear in the labels) or topics (each judged over its whole pool;
#: any measure)
UNITS = ("pairs", "topics")


def check_design(units: str, bounds, measure: str) -> None:
    """A :class:`ParameterError` unless ``units`` is one of :data:`UNITS`, rank strata are
    asked for only with pairs, and ``measure`` is one the units can estimate."""
    if units not in UNITS:
        raise ParameterError("units", " or ".join(UNITS), units)
    if units == "pairs":
        from ..judgments.ppi import linear_measure

        linear_measure(measure)
        return
    if bounds:
        raise ParameterError("strata", "none when the units are topics", list(bounds))
    from ..core.measures.names import parse
    from ..errors import MeasureError

    try:
        parse(str(measure))
    except MeasureError as exc:
        raise ParameterError("measure", f"a measure name ({exc})", measure) from None


def parse_bounds(text: str, what: str = "strata") -> list[int]:
    """Rank bounds written ``10,30`` (empty: none, a uniform sample)."""
    text = (text or "").replace(" ", "")
    try:
        return [int(b) for b in text.split(",")] if text else []
    except ValueError:
        raise ParameterError(what, "increasing ranks, e.g. 10,30", text) from None


def best_ranks(runs, topics, documents) -> np.ndarray:
    """Each pair's best (smallest) rank over ``runs``; a pair no run retrieved (a gold
    pair) ranks after every retrieved one (the largest rank + 1)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    parts = [r.ranked().select(["query_id", "doc_id", "rank"]) for r in runs]
    keys = pc.binary_join_element_wise(
        pa.array(list(topics), pa.string()), pa.array(list(documents), pa.string()), "\x00"
    )
    if not parts:
        return np.ones(len(keys), np.int64)
    ranked = pa.concat_tables(parts).group_by(["query_id", "doc_id"]).aggregate([("rank", "min")])
    at = pc.index_in(
        keys,
        value_set=pc.binary_join_element_wise(ranked["query_id"], ranked["doc_id"], "\x00"),
    )
    best = ranked["rank_min"].to_numpy()
    found = np.asarray(pc.is_valid(at))
    beyond = int(best.max()) + 1 if best.size else 1
    return np.where(found, best[np.asarray(at.fill_null(0))], beyond).astype(np.int64)


def choose(
    db,
    campaign: str,
    fraction: float,
    *,
    bounds=(),
    seed: int = 0,
    measure: str = DEFAULT_MEASURE,
    units: str = "pairs",
) -> dict:
    """Choose the pooled pairs people judge. With ``units="pairs"``: :func:`sample_pairs`
    over the pool, strata by each pair's best rank over the campaign's runs
    (:func:`best_ranks`); ``measure``, the measure of the prediction-powered estimates,
    must be linear in the labels (``P@k`` or ``DCG@k``:
    :func:`cranfield.judgments.ppi.ppi_evaluate_pairs`). With ``units="topics"``: a
    simple random sample of ``fraction`` of the pool's topics (at least one), every
    pooled pair of each judged, inclusion probability ``n / T``; any measure
    (:func:`cranfield.judgments.ppi.ppi_evaluate`: AP, nDCG@k...), no strata. Each
    pair's stratum is stored, and each sampled pair's inclusion probability; assessors'
    queues (:func:`cranfield.service.pooling.assign`) then hold only the sampled pairs.
    Must come after the pool and before the assignment.

    Returns ``{"fraction", "bounds", "seed", "measure", "units", "pairs", "sampled",
    "strata"}`` (``strata``: per stratum ``{"ranks", "pairs", "sampled", "inclusion"}``;
    with topics also ``"topics"`` and ``"sampled_topics"``).
    """
    import json

    from sqlalchemy import func, select, update

    from . import campaigns, submissions
    from .models import Pair, Task
    from .problems import Conflict

    check_design(units, bounds, measure)
    bounds = tuple(int(b) for b in bounds)
    if any(b < 1 for b in bounds):
        raise ParameterError("strata bounds", "ranks of 1 or more", list(bounds))
    with db.read() as s:
        c = campaigns.get(s, campaign)
        cid = c.id
        if c.mtc_design is not None:
            raise Conflict(
                f"campaign {campaign!r} is judged in MTC order: its pairs are chosen, a "
                "sample's are drawn at random"
            )
        if s.scalar(select(func.count()).select_from(Task).where(Task.campaign_id == cid)):
            raise Conflict(
                f"campaign {campaign!r} has assignments already: choose the sample before "
                "assigning topics"
            )
        pool = s.execute(
            select(Pair.id, Pair.topic_id, Pair.doc_id)
            .where(Pair.campaign_id == cid)
            .order_by(Pair.id)
        ).all()
        rows = submissions.runs_of(s, cid)
    if not pool:
        raise ParameterError("sample", "a campaign with a pool (build it first)", campaign)
    ids = np.array([p[0] for p in pool], np.int64)
    extra = {}
    if units == "topics":
        names, topic_of = np.unique(
            np.array([p[1] for p in pool], dtype=object), return_inverse=True
        )
        taken, pi = sample_pairs(np.ones(len(names), np.int64), fraction, seed=seed)
        chosen = np.flatnonzero(np.isin(topic_of, taken))
        pi = np.full(len(chosen), pi[0] if len(pi) else np.nan)
        stratum = np.zeros(len(ids), np.int64)
        extra = {"topics": len(names), "sampled_topics": len(taken)}
    else:
        runs = submissions.load_runs(db, rows)
        ranks = best_ranks(runs, [p[1] for p in pool], [p[2] for p in pool])
        chosen, pi = sample_pairs(ranks, fraction, bounds=bounds, seed=seed)
        stratum = np.searchsorted(np.asarray(bounds, np.int64), ranks, side="left")
    inclusion = np.full(len(ids), np.nan)
    inclusion[chosen] = pi
    design = {
        "fraction": fraction,
        "bounds": list(bounds),
        "seed": seed,
        "measure": measure,
        "units": units,
    }
    with db.write() as s:
        c = campaigns.get(s, campaign)
        if s.scalar(select(func.count()).select_from(Task).where(Task.campaign_id == cid)):
            raise Conflict(f"campaign {campaign!r} has assignments already")
        values = [
            {"pid": i, "h": h, "pi": None if np.isnan(p) else p}
            for i, h, p in zip(ids.tolist(), stratum.tolist(), inclusion.tolist(), strict=True)
        ]
        from sqlalchemy import bindparam

        s.connection().execute(
            update(Pair.__table__)
            .where(Pair.__table__.c.id == bindparam("pid"))
            .values(stratum=bindparam("h"), inclusion=bindparam("pi")),
            values,
        )
        c.sample_design = json.dumps(design)
    return {
        **design,
        "pairs": len(ids),
        "sampled": len(chosen),
        "strata": strata(stratum, inclusion, bounds),
        **extra,
    }


def strata(stratum: np.ndarray, inclusion: np.ndarray, bounds) -> list[dict]:
    """Per stratum: its ranks (``"1-10"``, ``"> 30"``), pairs, sampled pairs and
    inclusion probability."""
    edges = [0, *bounds]
    out = []
    for h in range(len(bounds) + 1):
        here = stratum == h
        if not here.any():
            continue
        taken = ~np.isnan(inclusion[here])
        ranks = f"{edges[h] + 1}-{edges[h + 1]}" if h < len(bounds) else f"> {edges[h]}"
        out.append(
            {
                "ranks": ranks if h < len(bounds) or bounds else "all",
                "pairs": int(here.sum()),
                "sampled": int(taken.sum()),
                "inclusion": float(inclusion[here][taken][0]) if taken.any() else 0.0,
            }
        )
    return out


def sample_tsv(db, campaign: str) -> str:
    """The sampled pairs (``topic document stratum inclusion``, a header line, topic then
    document order; the inclusion probability written to read back exactly)."""
    from sqlalchemy import select

    from . import campaigns
    from .models import Pair

    with db.read() as s:
        c = campaigns.get(s, campaign)
        rows = s.execute(
            select(Pair.topic_id, Pair.doc_id, Pair.stratum, Pair.inclusion)
            .where(Pair.campaign_id == c.id, Pair.inclusion.is_not(None))
            .order_by(Pair.topic_id, Pair.doc_id)
        ).all()
    lines = ["topic\tdocument\tstratum\tinclusion"]
    lines += [f"{t}\t{d}\t{h}\t{p!r}" for t, d, h, p in rows]
    return "\n".join(lines) + "\n"
