"""The data each figure of a report draws, as NumPy arrays (no matplotlib).

Every plot function of :mod:`cranfield.report.plots` draws exactly what the
companion function here returns, so tests check curve points rather than pixels.

* :func:`pr_data` — precision-recall curves of one query or averaged over queries:
  the raw "sawtooth" (precision and recall at every rank; Manning, Raghavan &
  Schütze 2008, sec. 8.4) and the interpolated step curve
  ``P_interp(r) = max {p_k : r_k >= r}``.
* :func:`averages_data` — the two ways to average curves over queries: mean
  precision and mean recall at ranks 5, 10, 15, ..., and mean interpolated precision
  at the 11 standard recall levels.
* :func:`delta_data` — per-topic differences against a baseline, sorted.
* :func:`distribution_data` — the per-query values of each run.
* :func:`depth_data` — mean ``M@k`` for ``k = 1..K`` (e.g. P@k, nDCG@k).
* :func:`coverage_data` — mean Judged@k at several depths: how much of each run's
  top k has a judgment (Buckley & Voorhees 2004: sparse assessments leave relevant
  documents unjudged, which penalises runs that find them).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import ParameterError
from . import curves

DEFAULT_DEPTHS = (1, 5, 10, 20, 50, 100)

__all__ = [
    "DEFAULT_DEPTHS",
    "averages_data",
    "coverage_data",
    "delta_data",
    "depth_cutoffs",
    "depth_data",
    "distribution_data",
    "pr_data",
]


def _inputs(qrels, runs):
    from ..core.evaluation import as_runs
    from ..core.qrels import Qrels

    qrels = qrels if isinstance(qrels, Qrels) else Qrels.coerce(qrels)
    run_list = as_runs(runs)
    names = [r.name for r in run_list]
    if len(set(names)) != len(names):
        from ..errors import InputError

        dup = next(n for n in names if names.count(n) > 1)
        raise InputError(f"two runs are named {dup!r}; give each run a distinct name")
    return qrels, run_list


def step_curve(recall: np.ndarray, precision: np.ndarray, relevant: np.ndarray):
    """Vertices of the interpolated step curve of one query.

    With ``v_i = max {p_k : k >= rank of the i-th relevant document}`` and ``r_i`` its
    recall, ``P_interp(r) = v_i`` on ``(r_{i-1}, r_i]`` and 0 beyond the last recall
    reached. Returned as ``x = [0, r_1, ..., r_m(, 1)]``, ``y = [v_1, v_1, ..., v_m(,
    0)]``, to be drawn with ``drawstyle="steps-pre"`` (``y[j]`` holds on
    ``(x[j-1], x[j]]``).
    """
    if not len(precision):
        return np.zeros(0), np.zeros(0)
    best_after = np.maximum.accumulate(precision[::-1])[::-1]
    x = np.concatenate(([0.0], recall[relevant]))
    y = best_after[relevant]
    y = np.concatenate((y[:1], y)) if len(y) else np.zeros(1)
    if x[-1] < 1.0:
        x = np.append(x, 1.0)
        y = np.append(y, 0.0)
    return x, y


def _longest_ranking(run) -> int:
    import pyarrow.compute as pc

    if not len(run.table):
        return 1
    counts = pc.value_counts(run.table.column("query_id")).field("counts")
    return int(pc.max(counts).as_py())


def pr_data(
    qrels,
    runs,
    *,
    query: str | None = None,
    recall: Sequence[float] = curves.ELEVEN_POINTS,
    rel_level: int = 1,
    skip_no_relevant: bool = False,
    convention: str = "textbook",
) -> dict[str, dict[str, np.ndarray]]:
    """Precision-recall curves of each run: raw and interpolated.

    Parameters
    ----------
    qrels, runs
        As in :func:`cranfield.evaluate`.
    query
        One query: its sawtooth (``p_k = relret_k / k``, ``r_k = relret_k / R`` at
        every rank k) and its step curve (:func:`step_curve`). ``None``: the averages
        over queries — mean precision and mean recall at every rank 1..n (the raw
        curve, the first averaging) and mean interpolated precision at the
        ``recall`` levels (the second averaging).
    recall
        Recall levels of the averaged interpolated curve (11 points by default).
    rel_level, skip_no_relevant
        As in :func:`cranfield.evaluate` (queries without relevant documents count
        as zero precision and recall in the averages unless skipped).
    convention
        Interpolation of the averaged curve (:func:`cranfield.report.curves.average_interpolated`):
        ``"textbook"`` (exact recall levels) or ``"trec_eval"`` (``iprec_at_recall``).
        The step curve of one query is always the textbook one.

    Returns
    -------
    ``{run: {"raw_recall", "raw_precision", "interp_recall", "interp_precision"}}``.
    """
    convention = curves.check_convention(convention)
    qrels, run_list = _inputs(qrels, runs)
    out = {}
    for run in run_list:
        if query is not None:
            pts = curves.pr_points(qrels, run, query=query, rel_level=rel_level)
            x, y = step_curve(pts["recall"], pts["precision"], pts["relevant"])
            out[run.name] = {
                "raw_recall": pts["recall"],
                "raw_precision": pts["precision"],
                "interp_recall": x,
                "interp_precision": y,
            }
            continue
        depth = _longest_ranking(run)
        ranks = curves.average_at_ranks(
            qrels,
            run,
            range(1, max(depth, 1) + 1),
            rel_level=rel_level,
            skip_no_relevant=skip_no_relevant,
        )
        interp = curves.average_interpolated(
            qrels,
            run,
            recall,
            rel_level=rel_level,
            skip_no_relevant=skip_no_relevant,
            convention=convention,
        )
        out[run.name] = {
            "raw_recall": ranks["recall"],
            "raw_precision": ranks["precision"],
            "interp_recall": interp["recall"],
            "interp_precision": interp["precision"],
        }
    return out


def averages_data(
    qrels,
    runs,
    *,
    ranks: Sequence[int] = curves.DEFAULT_RANKS,
    recall: Sequence[float] = curves.ELEVEN_POINTS,
    rel_level: int = 1,
    skip_no_relevant: bool = False,
    convention: str = "textbook",
) -> dict[str, dict[str, np.ndarray]]:
    """The two averages of the curves over queries, for each run.

    Returns
    -------
    ``{run: {"rank", "rank_recall", "rank_precision", "recall", "precision"}}``: mean
    recall and precision at the ``ranks`` (5, 10, 15, ... by default; "simple but
    sensitive to outliers") and mean interpolated precision at the ``recall`` levels
    (the vertical average; "more robust to outliers"), interpolated in the
    ``convention`` of :func:`cranfield.report.curves.average_interpolated`.
    """
    convention = curves.check_convention(convention)
    qrels, run_list = _inputs(qrels, runs)
    common = dict(rel_level=rel_level, skip_no_relevant=skip_no_relevant)
    out = {}
    for run in run_list:
        at_ranks = curves.average_at_ranks(qrels, run, ranks, **common)
        interp = curves.average_interpolated(qrels, run, recall, convention=convention, **common)
        out[run.name] = {
            "rank": at_ranks["rank"],
            "rank_recall": at_ranks["recall"],
            "rank_precision": at_ranks["precision"],
            "recall": interp["recall"],
            "precision": interp["precision"],
        }
    return out


def delta_data(
    scores: dict[str, dict[str, float]], baseline: str | None = None
) -> dict[str, dict[str, np.ndarray]]:
    """Per-topic differences ``run - baseline`` of one measure, sorted descending.

    Parameters
    ----------
    scores
        ``{run: {qid: value}}`` (one measure of :meth:`Results.per_query_table`).
    baseline
        The run subtracted; the first run by default.

    Returns
    -------
    ``{run: {"query_id", "delta"}}`` for every run but the baseline, over the queries
    both runs have (sorted by difference, largest first; ties by query id).
    """
    names = list(scores)
    if not names:
        raise ParameterError("scores", "at least one run", scores)
    baseline = names[0] if baseline is None else str(baseline)
    if baseline not in scores:
        raise ParameterError("baseline", "one of the runs " + ", ".join(names), baseline)
    base = scores[baseline]
    out = {}
    for name in names:
        if name == baseline:
            continue
        common = np.array(sorted(set(base) & set(scores[name])), dtype=object)
        delta = np.array([scores[name][q] - base[q] for q in common], dtype=np.float64)
        order = np.lexsort((common.astype(str), -delta)) if len(common) else np.zeros(0, int)
        out[name] = {"query_id": common[order].astype(str), "delta": delta[order]}
    return out


def distribution_data(scores: dict[str, dict[str, float]]) -> dict[str, np.ndarray]:
    """Per-query values of each run (``{run: values in query-id order}``)."""
    return {
        name: np.array([values[q] for q in sorted(values)], dtype=np.float64)
        for name, values in scores.items()
    }


def _base_name(measure: str) -> str:
    name = str(measure).strip()
    if not name or "@" in name:
        raise ParameterError(
            "measures", "measure names without a cutoff, e.g. 'P' or 'nDCG'", measure
        )
    return name


def depth_data(
    qrels,
    runs,
    measures: Sequence[str] = ("P", "nDCG"),
    max_depth: int = 20,
    ks: Sequence[int] | None = None,
    **options,
) -> dict[str, dict[str, np.ndarray]]:
    """Mean ``M@k`` of each run for ``k = 1..max_depth`` (or for the cutoffs ``ks``).

    Parameters
    ----------
    measures
        Measure names without cutoff (``"P"``, ``"nDCG"``, ``"Judged"``, ...); each
        is evaluated as ``M@1`` ... ``M@K`` by :func:`cranfield.evaluate`.
    ks
        Increasing positive cutoffs to evaluate instead of every ``k`` up to
        ``max_depth`` (see :func:`depth_cutoffs`).
    options
        Passed to :func:`cranfield.evaluate` (``rel_level``, ``complete``, ...).

    Returns
    -------
    ``{measure: {"k": cutoffs, run: mean values}}``.
    """
    from ..core.evaluation import evaluate

    if isinstance(measures, str):
        measures = [measures]
    if not isinstance(max_depth, (int, np.integer)) or max_depth < 1:
        raise ParameterError("max_depth", "a positive integer", max_depth)
    bases = [_base_name(m) for m in measures]
    qrels, run_list = _inputs(qrels, runs)
    if ks is None:
        ks = np.arange(1, int(max_depth) + 1)
    else:
        ks = np.asarray(list(ks), dtype=np.int64)
        if ks.ndim != 1 or not len(ks) or ks[0] < 1 or np.any(np.diff(ks) <= 0):
            raise ParameterError("ks", "increasing positive integer cutoffs", ks)
    names = [f"{b}@{k}" for b in bases for k in ks]
    results = evaluate(qrels, run_list, names, **options)
    out = {}
    for b in bases:
        entry: dict[str, np.ndarray] = {"k": ks}
        for r in results.runs:
            entry[r.name] = np.array(
                [results.aggregate(r.name, f"{b}@{k}") for k in ks], dtype=np.float64
            )
        out[b] = entry
    return out


def depth_cutoffs(max_depth: int) -> np.ndarray:
    """The cutoffs a depth figure draws: every ``k`` up to 10, then every 5th up to 50,
    every 10th up to 100, and 30 evenly spread ones beyond (always ``max_depth``)."""
    k = np.concatenate((np.arange(1, 11), np.arange(15, 51, 5), np.arange(60, 101, 10)))
    k = k[k <= max_depth]
    if max_depth > 100:
        k = np.concatenate((k, np.linspace(100, max_depth, 31).round()[1:]))
    from .chart import distinct

    return distinct(np.append(k, max_depth).astype(np.int64))


def coverage_data(
    qrels, runs, depths: Sequence[int] = DEFAULT_DEPTHS, **options
) -> dict[str, dict[str, np.ndarray]]:
    """How much of each run's top k is judged, at several depths.

    ``Judged@k = |top min(k, n) documents present in the qrels| / min(k, n)``, averaged
    over queries (the Judged measure), and the fraction of queries whose top k is
    completely judged.

    Returns
    -------
    ``{run: {"depth", "judged", "complete"}}``.
    """
    from ..core.evaluation import evaluate

    ks = np.asarray(list(depths))
    if ks.ndim != 1 or not len(ks) or not np.all(ks >= 1):
        raise ParameterError("depths", "positive integer depths", depths)
    qrels, run_list = _inputs(qrels, runs)
    names = [f"Judged@{int(k)}" for k in ks]
    results = evaluate(qrels, run_list, names, **options)
    out = {}
    for r in results.runs:
        per_query = np.array([r.values[m] for m in results.measures], dtype=np.float64)
        out[r.name] = {
            "depth": ks.astype(np.int64),
            "judged": np.array([r.aggregates[m] for m in results.measures], dtype=np.float64),
            "complete": (per_query == 1.0).mean(axis=1)
            if per_query.shape[1]
            else np.zeros(len(ks)),
        }
    return out
