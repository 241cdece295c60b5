"""Reusability of pooled judgments: leave-one-group-out.

Would the judgments still rank a system fairly had it not contributed to the pool?
Zobel (1998) and Buckley & Voorhees (2004) answer by simulation: for each group of runs
(a participant's runs, or a single run),

1. remove from the qrels the judgments of the documents that **only** that group's runs
   put in their top k (the documents the pool owes to that group alone);
2. evaluate that group's runs with the reduced qrels (the other runs keep their scores
   under the full qrels);
3. compare: each left-out run's score change (absolute and relative), its rank among
   the other runs before and after, and the Kendall tau and tau_AP between the system
   ranking under the full qrels and the ranking in which every run has its left-out
   score.

Measures that treat unjudged documents differently react differently: AP counts the
removed relevant documents as non-relevant, Bpref (Buckley & Voorhees 2004) and infAP
(Yilmaz & Aslam 2006) look at judged documents only or estimate, and condensed lists
(Sakai 2007; ``condensed=True`` evaluates each measure with unjudged documents dropped,
trec_eval ``-J``) remove the unjudged documents before measuring. Showing them side by
side tells which measure to trust on incomplete judgments.

Everything is computed with :func:`cranfield.evaluate` and the rank correlations of
:mod:`cranfield.compare` (:func:`~cranfield.compare.correlate_tables`, the code behind
``cranfield correlate``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from ..errors import ParameterError
from ..output import number_cell
from .candidates import collect, contributions, pair_keys
from .groups import resolve_groups
from .pool import as_runs, check_depth
from .stats import check_topics

CONDENSED = " (condensed)"


@dataclass
class RunChange:
    """One run's score under the full qrels and with its group left out."""

    name: str
    group: str
    full: float
    reduced: float
    rank_full: int
    rank_reduced: int

    @property
    def change(self) -> float:
        return self.reduced - self.full

    @property
    def relative_change(self) -> float:
        return self.change / self.full if self.full else math.nan


@dataclass
class MeasureReuse:
    """Leave-one-group-out figures of one measure."""

    measure: str
    runs: list[RunChange]
    kendall_tau: float
    tau_ap: float

    def full(self) -> dict[str, float]:
        return {r.name: r.full for r in self.runs}

    def reduced(self) -> dict[str, float]:
        return {r.name: r.reduced for r in self.runs}


@dataclass
class ReuseResult:
    """Leave-one-group-out (``depth``, ``groups``) or subsampling (``subsample``:
    fraction, stratified, seed) results; ``removed`` counts the judgments taken out
    (per group, or ``{"all": n}``)."""

    depth: int | None
    groups: dict[str, str]
    removed: dict[str, int]
    measures: list[MeasureReuse] = field(default_factory=list)
    subsample: dict | None = None

    def to_json(self) -> dict:
        def num(v: float):
            return None if isinstance(v, float) and math.isnan(v) else v

        head: dict = (
            {"depth": self.depth, "groups": dict(self.groups)}
            if self.subsample is None
            else dict(self.subsample)
        )
        return {
            **head,
            "removed": dict(self.removed),
            "measures": {
                m.measure: {
                    "kendall_tau": num(m.kendall_tau),
                    "tau_ap": num(m.tau_ap),
                    "runs": [
                        {
                            "name": r.name,
                            **({"group": r.group} if self.subsample is None else {}),
                            "full": r.full,
                            "reduced": r.reduced,
                            "change": r.change,
                            "relative_change": num(r.relative_change),
                            "rank_full": r.rank_full,
                            "rank_reduced": r.rank_reduced,
                        }
                        for r in m.runs
                    ],
                }
                for m in self.measures
            },
        }


PLACEHOLDER = "\x00cranfield:no-judgment-left"


def _reduced(qrels, drop: np.ndarray, source: str):
    """The qrels without the ``drop`` rows. A topic that loses every judgment keeps one
    placeholder row (a document no run can retrieve, grade -1: pooled, unjudged), so it
    is still evaluated — with no relevant document, as any judged topic without one —
    and means are taken over the same topics as with the full qrels."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from ..core.qrels import Qrels

    t = qrels.table
    kept = t.filter(pa.array(~drop))
    topics = pc.unique(t["query_id"])
    emptied = topics.filter(pc.invert(pc.is_in(topics, value_set=pc.unique(kept["query_id"]))))
    if len(emptied):
        n = len(emptied)
        extra = pa.table(
            {
                "query_id": emptied.cast(t.schema.field("query_id").type),
                "doc_id": pa.array([PLACEHOLDER] * n, t.schema.field("doc_id").type),
                "relevance": pa.array([-1] * n, t.schema.field("relevance").type),
            }
        )
        kept = pa.concat_tables([kept.select(["query_id", "doc_id", "relevance"]), extra])
    return Qrels(kept, source)


def _rank(score: float, others: np.ndarray) -> int:
    """1 + the number of other runs scoring strictly higher."""
    return 1 + int(np.count_nonzero(others > score))


def _inputs(qrels, runs, measures):
    """The qrels, runs and numeric measures of a reusability experiment, checked."""
    from ..core.evaluation import as_measures
    from ..core.qrels import Qrels

    qrels = qrels if isinstance(qrels, Qrels) else Qrels.coerce(qrels)
    run_list = as_runs(runs)
    measure_list = as_measures(measures)
    for m in measure_list:
        if m.definition.kind == "str":
            raise ParameterError("measure", "a measure with numeric values", str(m))
    check_topics(qrels, run_list)
    return qrels, run_list, measure_list


def leave_one_group_out(
    qrels,
    runs,
    depth: int,
    measures: str | Iterable[str] = ("AP", "Bpref", "infAP"),
    *,
    groups: Mapping[str, str] | str | None = None,
    condensed: bool = False,
    rel_level: int = 1,
    on_group: Callable[[str], None] | None = None,
) -> ReuseResult:
    """Leave-one-group-out test of the depth-``depth`` pool of ``runs``.

    Parameters
    ----------
    qrels
        The judgments of the pool (:class:`~cranfield.Qrels` or what ``Qrels.coerce``
        takes). Judgments of documents outside the depth-k pool are always kept.
    runs
        The runs that formed the pool (list of :class:`~cranfield.Run`, paths, or dict).
    depth
        Pool depth k.
    measures
        Measure names (see ``cranfield measures``); scalar measures only.
    groups
        ``None``: every run is its own group (leave-one-run-out); a separator string:
        the group is the run name up to it (``"uni-bm25"`` -> ``"uni"`` with ``"-"``);
        a ``{run: group}`` mapping naming every run.
    condensed
        Also evaluate every measure on condensed lists (unjudged documents dropped;
        trec_eval ``-J``), reported as ``"AP (condensed)"`` etc.
    rel_level
        Minimum relevant grade.
    on_group
        Called with each group's name once it is done (e.g. to draw progress).

    Returns
    -------
    ReuseResult
        Per measure: every run's full and reduced score, ranks, Kendall tau and tau_AP
        (full ranking as the reference) between the full and reduced system orderings.
    """
    from ..core.evaluation import evaluate

    k = check_depth(depth)
    qrels, run_list, measure_list = _inputs(qrels, runs, measures)
    names = [r.name for r in run_list]
    group_of = resolve_groups(names, groups)

    cands = collect(run_list, k)
    ukeys, matrix = contributions(cands)
    qkeys, known = pair_keys(cands, qrels.table["query_id"], qrels.table["doc_id"])
    # pool index of every qrels row (-1: not in the depth-k pool)
    pos = np.searchsorted(ukeys, qkeys)
    hit = pos < len(ukeys)
    hit[hit] = ukeys[pos[hit]] == qkeys[hit]
    pool_index = np.full(qrels.table.num_rows, -1, dtype=np.int64)
    pool_index[np.flatnonzero(known)[hit]] = pos[hit]

    variants = [(m, str(m), False) for m in measure_list]
    if condensed:
        variants += [(m, str(m) + CONDENSED, True) for m in measure_list]

    def scores(q, rs, judged_only: bool) -> dict[str, dict[str, float]]:
        res = evaluate(q, rs, measure_list, rel_level=rel_level, judged_only=judged_only)
        return {r.name: {str(m): float(res[r.name][str(m)]) for m in measure_list} for r in rs}

    full = {jo: scores(qrels, run_list, jo) for jo in {v[2] for v in variants}}
    reduced: dict[bool, dict[str, dict[str, float]]] = {jo: {} for jo in full}
    removed: dict[str, int] = {}
    group_names = list(dict.fromkeys(group_of[n] for n in names))
    in_pool = pool_index >= 0
    for g in group_names:  # one pass per group (groups are few)
        members = np.array([group_of[n] == g for n in names])
        only_g = ~matrix[:, ~members].any(axis=1)
        drop = np.zeros(qrels.table.num_rows, dtype=bool)
        drop[in_pool] = only_g[pool_index[in_pool]]
        removed[g] = int(np.count_nonzero(drop))
        kept = _reduced(qrels, drop, f"{qrels.source or 'qrels'} without group {g}")
        left_out = [r for r, m in zip(run_list, members, strict=True) if m]
        for jo in reduced:
            reduced[jo].update(scores(kept, left_out, jo))
        if on_group is not None:
            on_group(g)

    result = ReuseResult(k, group_of, removed)
    _figures(result, variants, names, group_of, full, reduced, against_full=True)
    return result


def _figures(result, variants, names, group_of, full, reduced, against_full: bool) -> None:
    """Per measure: every run's change and ranks, and the rank correlations.

    ``rank_reduced`` ranks a run's reduced score among the other runs' full scores
    (``against_full``: only its group was left out) or their reduced scores.
    """
    from ..compare import correlate_tables

    for m, label, jo in variants:
        f = {n: full[jo][n][str(m)] for n in names}
        r = {n: reduced[jo][n][str(m)] for n in names}
        base = f if against_full else r
        changes = []
        for n in names:
            others_full = np.array([f[o] for o in names if o != n])
            others = np.array([base[o] for o in names if o != n])
            changes.append(
                RunChange(n, group_of[n], f[n], r[n], _rank(f[n], others_full), _rank(r[n], others))
            )
        corr = (
            correlate_tables(f, r)
            if len(names) >= 2
            else {"kendall_tau": math.nan, "tau_ap": math.nan}
        )
        result.measures.append(MeasureReuse(label, changes, corr["kendall_tau"], corr["tau_ap"]))


def _check_subsample(fraction, seed) -> None:
    """The parameters of a subsample: a fraction in (0, 1] and a seed >= 0."""
    if (
        isinstance(fraction, bool)
        or not isinstance(fraction, (int, float))
        or not (0.0 < float(fraction) <= 1.0)
    ):
        raise ParameterError("fraction", "a number in (0, 1]", fraction)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ParameterError("seed", "an integer >= 0", seed)


def subsample_mask(qrels, fraction: float, *, stratified: bool = False, seed: int = 0):
    """Which qrels rows a subsample keeps (boolean array in qrels row order):
    ``round(fraction * N)`` rows drawn uniformly without replacement, or
    (``stratified``) ``round(fraction * n_t)`` rows of every topic t, by
    ``numpy.random.default_rng(seed)``."""
    _check_subsample(fraction, seed)
    n = qrels.table.num_rows
    draw = np.random.default_rng(int(seed)).random(n)
    if stratified:
        import pyarrow.compute as pc

        topic = np.asarray(
            pc.dictionary_encode(qrels.table["query_id"].combine_chunks()).indices.to_numpy(
                zero_copy_only=False
            ),
            dtype=np.int64,
        )
        order = np.lexsort((draw, topic))
        counts = np.bincount(topic)
        starts = np.cumsum(counts) - counts
        position = np.empty(n, dtype=np.int64)
        position[order] = np.arange(n) - starts[topic[order]]
        quota = np.rint(float(fraction) * counts).astype(np.int64)
        keep = position < quota[topic]
    else:
        keep = np.zeros(n, dtype=bool)
        keep[np.argsort(draw, kind="stable")[: int(np.rint(float(fraction) * n))]] = True
    return keep


def subsample_judgments(
    qrels,
    runs,
    fraction: float,
    measures: str | Iterable[str] = ("AP", "Bpref", "infAP"),
    *,
    stratified: bool = False,
    seed: int = 0,
    condensed: bool = False,
    rel_level: int = 1,
) -> ReuseResult:
    """Keep a fraction of the judgments and see how scores and rankings change.

    The sparse-judgment situation of MS MARCO-like collections, simulated as Buckley &
    Voorhees (2004) and Yilmaz & Aslam (2006) did: ``round(fraction * N)`` of the N
    judgments, drawn uniformly without replacement with
    ``numpy.random.default_rng(seed)``, or (``stratified``) ``round(fraction * n_t)`` of
    every topic's n_t judgments. All runs are evaluated on the kept judgments; each
    run's change, its rank among the others' reduced scores, and Kendall tau / tau_AP
    between the full and reduced orderings are reported as for
    :func:`leave_one_group_out`. A topic left without judgments is still evaluated.
    """
    from ..core.evaluation import evaluate

    _check_subsample(fraction, seed)
    qrels, run_list, measure_list = _inputs(qrels, runs, measures)
    names = [r.name for r in run_list]
    keep = subsample_mask(qrels, fraction, stratified=stratified, seed=seed)
    n = len(keep)
    kept = _reduced(qrels, ~keep, f"{qrels.source or 'qrels'} subsampled")
    variants = [(m, str(m), False) for m in measure_list]
    if condensed:
        variants += [(m, str(m) + CONDENSED, True) for m in measure_list]

    def scores(q, judged_only: bool) -> dict[str, dict[str, float]]:
        res = evaluate(q, run_list, measure_list, rel_level=rel_level, judged_only=judged_only)
        return {r: {str(m): float(res[r][str(m)]) for m in measure_list} for r in names}

    modes = {v[2] for v in variants}
    full = {jo: scores(qrels, jo) for jo in modes}
    reduced = {jo: scores(kept, jo) for jo in modes}
    info = {"fraction": float(fraction), "stratified": bool(stratified), "seed": int(seed)}
    result = ReuseResult(None, {}, {"all": int(n - keep.sum())}, subsample=info)
    _figures(result, variants, names, {r: "" for r in names}, full, reduced, against_full=False)
    return result


def render(result: ReuseResult, fmt: str = "text", digits: int = 4) -> str:
    """``text``, ``markdown`` or ``json`` (the schema of :meth:`ReuseResult.to_json`)."""

    from .stats import table

    if fmt == "json":
        from ..output import dumps_json

        return dumps_json(result.to_json()) + "\n"
    if fmt not in ("text", "markdown"):
        raise ParameterError("format", "one of text, json, markdown", fmt)

    def num(v: float) -> str:
        return number_cell(v, digits)

    parts = []
    if result.subsample is None:
        title = (
            f"leave-one-group-out at depth {result.depth}: {len(set(result.groups.values()))} "
            f"groups, {len(result.groups)} runs"
        )
    else:
        sub = result.subsample
        title = (
            f"{sub['fraction']:g} of the judgments kept ({'per topic' if sub['stratified'] else 'uniformly'}, "
            f"random seed {sub['seed']}): {result.removed['all']} removed"
        )
    summary_head = ["measure", "kendall_tau", "tau_ap", "mean_abs_change", "largest_drop"]
    summary = []
    for m in result.measures:
        ch = np.array([r.change for r in m.runs])
        summary.append(
            [
                m.measure,
                num(m.kendall_tau),
                num(m.tau_ap),
                num(float(np.mean(np.abs(ch)))),
                num(float(-min(0.0, ch.min()))),
            ]
        )
    mark = "**" if fmt == "markdown" else "# "
    end = "**\n\n" if fmt == "markdown" else "\n"
    parts.append(mark + title + end + table(summary_head, summary, fmt))
    head = ["run", "group", "full", "reduced", "change", "relative", "rank_full", "rank_reduced"]
    keep = [i for i in range(len(head)) if result.subsample is None or head[i] != "group"]
    for m in result.measures:
        body = [
            [
                r.name,
                r.group,
                num(r.full),
                num(r.reduced),
                num(r.change),
                num(r.relative_change),
                str(r.rank_full),
                str(r.rank_reduced),
            ]
            for r in m.runs
        ]
        body = [[row[i] for i in keep] for row in body]
        parts.append(mark + m.measure + end + table([head[i] for i in keep], body, fmt))
    return "\n".join(parts)
