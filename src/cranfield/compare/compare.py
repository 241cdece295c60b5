"""Compare runs on per-query scores: means, differences, tests, effect sizes, intervals.

:func:`compare` consumes per-query scores -- ``{measure: {run: {qid: value}}}``, the shape
of ``Results.per_query_table()`` -- or per-measure ``runs x queries`` matrices, and
returns a :class:`Comparison` with one :class:`ComparisonRow` per measure and pair of
runs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from .._lazy import lazy
from .._record import Record
from ..errors import InputError, ParameterError
from . import stats as st

np = lazy("numpy", __name__, "np")

__all__ = [
    "TESTS",
    "PAIR_TESTS",
    "tests_text",
    "ComparisonRow",
    "Comparison",
    "compare",
    "align_scores",
]

#: Names of the statistical tests, in the order of their declarations
#: (:data:`~cranfield.compare.stats.STAT_TESTS`, where their aliases are too).
TESTS = st.STAT_TESTS.names
#: The tests of one run against a baseline (all but those over all runs at once).
PAIR_TESTS = tuple(n for n in TESTS if st.STAT_TESTS[n].scope == "pair")


def tests_text(names: Sequence[str] = TESTS) -> str:
    """``t (default), wilcoxon, ... or tukey``: test names in words, for help texts."""
    first, *rest = names
    listed = [f"{first} (default)", *rest[:-1]]
    return f"{', '.join(listed)} or {rest[-1]}" if rest else listed[0]


_SHOWN_QUERIES = 10


class ComparisonRow(Record):
    """One measure, one run against one reference run (the baseline).

    ``diff = mean_run - mean_baseline``; ``rel_diff = diff / mean_baseline`` (``nan`` when
    the baseline mean is 0); ``pvalues`` and ``pvalues_adjusted`` map each test to its raw
    and corrected p-value; ``effect_size`` is Cohen's d for paired samples;
    ``ci_low``/``ci_high`` bound the mean difference; ``wins``/``ties``/``losses`` count
    queries where the run scores above/equal to/below the baseline; ``significant`` is
    ``pvalues_adjusted[first test] < alpha``.
    """

    __slots__ = (
        "measure",
        "run",
        "baseline",
        "n_queries",
        "mean_run",
        "mean_baseline",
        "diff",
        "rel_diff",
        "pvalues",
        "pvalues_adjusted",
        "effect_size",
        "ci_low",
        "ci_high",
        "wins",
        "ties",
        "losses",
        "significant",
    )
    measure: str
    run: str
    baseline: str
    n_queries: int
    mean_run: float
    mean_baseline: float
    diff: float
    rel_diff: float
    pvalues: dict[str, float]
    pvalues_adjusted: dict[str, float]
    effect_size: float
    ci_low: float
    ci_high: float
    wins: int
    ties: int
    losses: int
    significant: bool


class Comparison(Record):
    """The result of :func:`compare`.

    Attributes
    ----------
    rows
        One :class:`ComparisonRow` per measure and compared pair.
    means
        ``{measure: {run: mean}}`` for every run, the baseline included.
    runs, measures
        Names in input order.
    queries
        ``{measure: query ids}`` the comparison used (sorted as strings).
    baselines
        The baselines, in the order given (empty: all pairs were compared).
    baseline
        The first baseline (``None``: all pairs).
    tests, correction, alpha, confidence, ci
        The settings used.
    """

    __slots__ = (
        "rows",
        "means",
        "runs",
        "measures",
        "queries",
        "baselines",
        "tests",
        "correction",
        "alpha",
        "confidence",
        "ci",
        "settings",
    )
    rows: tuple[ComparisonRow, ...]
    means: dict[str, dict[str, float]]
    runs: tuple[str, ...]
    measures: tuple[str, ...]
    queries: dict[str, tuple[str, ...]]
    baselines: tuple[str, ...]
    tests: tuple[str, ...]
    correction: str
    alpha: float
    confidence: float
    ci: str
    settings: dict

    _defaults = {"settings": {}}

    @property
    def baseline(self) -> str | None:
        return self.baselines[0] if self.baselines else None

    def to_rows(self) -> list[dict]:
        """One flat dict per row; p-values become ``p_<test>`` and ``p_<test>_adj``."""
        out = []
        for r in self.rows:
            d = {
                "measure": r.measure,
                "run": r.run,
                "baseline": r.baseline,
                "n_queries": r.n_queries,
                "mean_run": r.mean_run,
                "mean_baseline": r.mean_baseline,
                "diff": r.diff,
                "rel_diff": r.rel_diff,
            }
            for t in self.tests:
                d[f"p_{t}"] = r.pvalues[t]
                d[f"p_{t}_adj"] = r.pvalues_adjusted[t]
            d.update(
                effect_size=r.effect_size,
                ci_low=r.ci_low,
                ci_high=r.ci_high,
                wins=r.wins,
                ties=r.ties,
                losses=r.losses,
                significant=r.significant,
            )
            out.append(d)
        return out

    def to_pandas(self):
        """The rows of :meth:`to_rows` as a pandas DataFrame (requires pandas)."""
        from ..errors import require

        pd = require("pandas", "pandas")
        return pd.DataFrame(self.to_rows())

    def beaten(self, measure: str, run: str) -> list[str]:
        """Runs that ``run`` is significantly better than on ``measure`` (higher mean)."""
        out = []
        for r in self.rows:
            if r.measure != measure or not r.significant:
                continue
            if r.run == run and r.diff > 0:
                out.append(r.baseline)
            elif r.baseline == run and r.diff < 0:
                out.append(r.run)
        return [x for x in self.runs if x in out]

    def render(
        self, fmt: str = "text", table: str | None = None, provenance: dict | None = None
    ) -> str:
        """Render as ``text``, ``markdown``, ``latex``, ``html``, ``csv`` or ``json``.

        See :func:`cranfield.compare.tables.render`.
        """
        from .tables import render

        return render(self, fmt, table, provenance)

    def __str__(self) -> str:
        return self.render("text")

    def _repr_html_(self) -> str:
        """The paper's summary table as HTML (Jupyter shows it for a bare comparison)."""
        return self.render("html", "summary")


def _canonical_tests(tests) -> tuple[str, ...]:
    if isinstance(tests, str):
        tests = (tests,)
    out = []
    for t in tests:
        declared = st.STAT_TESTS.find(str(t))
        if declared is None:
            raise ParameterError("tests", "names among " + ", ".join(TESTS), t)
        name = declared.name
        if name not in out:
            out.append(name)
    if not out:
        raise ParameterError("tests", "at least one of " + ", ".join(TESTS), tests)
    return tuple(out)


def _describe_missing(measure: str, runs, present: np.ndarray, queries) -> str:
    parts = []
    for name, row in zip(runs, present, strict=True):
        missing = [queries[i] for i in np.flatnonzero(~row)]
        if missing:
            shown = ", ".join(missing[:_SHOWN_QUERIES])
            more = (
                f" and {len(missing) - _SHOWN_QUERIES} more"
                if len(missing) > _SHOWN_QUERIES
                else ""
            )
            parts.append(f"run {name!r} lacks {len(missing)} queries ({shown}{more})")
    return (
        f"runs are not scored on the same queries for measure {measure!r}: "
        + "; ".join(parts)
        + " (pass complete=True / --complete to score missing queries as 0)"
    )


def align_scores(
    scores: Mapping,
    runs: Sequence[str] | None = None,
    queries: Sequence | None = None,
    complete: bool = False,
) -> dict[str, tuple[tuple[str, ...], tuple[str, ...], np.ndarray]]:
    """Turn per-query scores into ``{measure: (runs, queries, runs x queries matrix)}``.

    ``scores[measure]`` is either ``{run: {qid: value}}`` or a 2-D array (``runs`` names
    its rows, ``queries`` its columns; default ``"0", "1", ...``). Query ids are compared
    as strings and sorted, so the column order -- and with it the random draws of the
    randomised tests -- does not depend on dictionary order. Runs keep their input order
    and must be the same for every measure. When runs are not scored on the same queries,
    :class:`InputError` names the missing queries of each run unless ``complete`` is true,
    in which case missing scores are 0.
    """
    if not isinstance(scores, Mapping) or not scores:
        raise InputError("expected a non-empty mapping {measure: per-query scores}", "scores")
    out = {}
    run_names: tuple[str, ...] | None = None
    for measure, table in scores.items():
        measure = str(measure)
        if isinstance(table, Mapping):
            names = tuple(str(r) for r in table)
            per_run = [{str(q): float(v) for q, v in dict(table[r]).items()} for r in table]
            qids = sorted(set().union(*per_run))
            col = {q: i for i, q in enumerate(qids)}
            m = np.zeros((len(names), len(qids)))
            present = np.zeros(m.shape, dtype=bool)
            for i, d in enumerate(per_run):
                idx = np.fromiter((col[q] for q in d), dtype=np.int64, count=len(d))
                m[i, idx] = np.fromiter(d.values(), dtype=np.float64, count=len(d))
                present[i, idx] = True
            if not present.all() and not complete:
                raise InputError(_describe_missing(measure, names, present, qids), "scores")
        else:
            m = np.array(table, dtype=np.float64)
            if m.ndim != 2:
                raise InputError(f"measure {measure!r}: expected a runs x queries matrix", "scores")
            if runs is None:
                raise ParameterError("runs", "run names for matrix input", None)
            names = tuple(str(r) for r in runs)
            if len(names) != m.shape[0]:
                raise InputError(
                    f"measure {measure!r}: {m.shape[0]} rows but {len(names)} run names", "scores"
                )
            qs = [str(q) for q in (queries if queries is not None else range(m.shape[1]))]
            if len(qs) != m.shape[1]:
                raise InputError(
                    f"measure {measure!r}: {m.shape[1]} columns but {len(qs)} query ids", "scores"
                )
            if len(set(qs)) != len(qs):
                raise InputError("query ids contain duplicates", "queries")
            order = np.argsort(np.asarray(qs, dtype=object), kind="stable")
            m = m[:, order]
            qids = [qs[i] for i in order]
        if len(set(names)) != len(names):
            raise InputError(f"measure {measure!r}: duplicate run names", "scores")
        if len(names) < 2:
            raise InputError(f"measure {measure!r}: need at least two runs to compare", "scores")
        if not qids:
            raise InputError(f"measure {measure!r}: no queries", "scores")
        if not np.all(np.isfinite(m)):
            raise InputError(
                f"measure {measure!r}: scores contain NaN or infinite values", "scores"
            )
        if run_names is None:
            run_names = names
        elif set(names) != set(run_names):
            raise InputError(
                f"measure {measure!r} has runs {sorted(names)}, expected {sorted(run_names)}",
                "scores",
            )
        else:  # same runs, possibly in another order: use the first measure's order
            m = m[[names.index(r) for r in run_names]]
        # C order: NumPy's reductions sum in a layout-dependent order, and equal inputs
        # must give bit-identical means whatever shape they arrived in.
        out[measure] = (run_names, tuple(qids), np.ascontiguousarray(m))
    return out


def _baselines(baseline, run_names: tuple[str, ...]) -> tuple[str, ...]:
    """The baselines as a tuple of run names, each a run and given once."""
    given = (baseline,) if isinstance(baseline, str) else tuple(baseline or ())
    for name in given:
        if name not in run_names:
            raise ParameterError("baseline", "one of the runs " + ", ".join(run_names), name)
    if len(set(given)) != len(given):
        raise ParameterError("baseline", "each run once", list(given))
    return given


def _pairs(baselines: tuple[str, ...], run_names: tuple[str, ...]) -> list[tuple[int, int]]:
    """``(run, reference)`` row indices of the compared pairs: every run against each
    baseline, a pair of two baselines once; without baselines, all pairs."""
    n = len(run_names)
    if not baselines:
        return [(j, i) for i in range(n) for j in range(i + 1, n)]
    pairs: list[tuple[int, int]] = []
    done: list[int] = []
    for b in (run_names.index(name) for name in baselines):
        pairs += [(j, b) for j in range(n) if j != b and j not in done]
        done.append(b)
    return pairs


def pair_statistics(x, y, tests, alternative, n_permutations, seed, confidence, ci):
    """``({test: p-value}, (low, high))`` of one pair: the pairwise tests (``scope``
    ``"pair"``, not tukey) and the interval of the mean difference; a pure function of
    its arguments (the randomised tests of every pair use the same ``seed``), so pairs
    may be computed in any order or place (a backend's ``starmap``,
    :mod:`cranfield.core.backends`)."""
    pvalues = {
        t: st.STAT_TESTS[t].behaviour(x, y, alternative, n_permutations, seed) for t in tests
    }
    return pvalues, st.mean_difference_ci(x, y, confidence, ci, n_permutations, seed)


def compare(
    scores: Mapping,
    baseline: str | Sequence[str] | None = None,
    tests: Sequence[str] | str = ("t",),
    correction: str = "holm",
    alpha: float = 0.05,
    *,
    runs: Sequence[str] | None = None,
    queries: Sequence | None = None,
    complete: bool = False,
    confidence: float = 0.95,
    ci: str = "t",
    alternative: str = "two-sided",
    n_permutations: int = 10000,
    seed: int = 0,
    engine: str = "local",
    client=None,
    scheduler: str | None = None,
) -> Comparison:
    r"""Compare runs measure by measure.

    Parameters
    ----------
    scores
        ``{measure: {run: {qid: value}}}`` or ``{measure: runs x queries array}`` (then
        ``runs`` and optionally ``queries`` name the rows and columns); see
        :func:`align_scores`.
    baseline
        A run name, or several: every other run is compared with each baseline (a pair of
        two baselines once, the earlier baseline as its reference); ``None`` compares all
        pairs (the earlier run in input order is the reference of each pair). The
        correction runs over all compared pairs of a measure, whatever their baseline.
    tests
        Any of ``t`` (paired t-test), ``wilcoxon``, ``sign``, ``randomization``
        (Fisher's randomisation test), ``bootstrap``, ``tukey`` (Tukey HSD over all runs of
        the measure, two-way design). The first one decides ``significant``.
    correction
        ``holm`` (default), ``bonferroni``, ``bh`` or ``none``, applied per measure and per
        test over the compared pairs. Tukey's p-values are already family-wise and are not
        corrected again.
    alpha
        Significance level for ``significant``.
    complete
        Score queries missing from a run as 0 instead of failing.
    confidence, ci
        Level and method (``t`` or ``bootstrap`` percentile) of the interval of the mean
        difference.
    alternative
        ``two-sided``, ``greater`` (run better than baseline) or ``less``; not for tukey.
    n_permutations, seed
        Random sign flips / bootstrap resamples and the seed of the randomised tests.
    engine, client, scheduler
        ``"dask"`` computes the pairs' tests and intervals in Dask workers (``client``:
        a ``distributed.Client``, or ``scheduler``: its address; default the current
        client or a ``LocalCluster``); the numbers are the same as with ``"local"``.
    """
    tests = _canonical_tests(tests)
    st.adjust_pvalues([], correction)  # validates the name
    if not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise ParameterError("alpha", "a number strictly between 0 and 1", alpha)
    if ci not in ("t", "bootstrap"):
        raise ParameterError("ci", "one of t, bootstrap", ci)
    if alternative not in ("two-sided", "greater", "less"):
        raise ParameterError("alternative", "one of two-sided, greater, less", alternative)
    for t in tests:
        allowed = st.STAT_TESTS[t].alternatives
        if alternative not in allowed:
            alone = " or ".join(map(repr, allowed))
            raise ParameterError("alternative", f"{alone} with the {t} test", alternative)
    if not isinstance(confidence, (int, float)) or not 0 < confidence < 1:
        raise ParameterError("confidence", "a number strictly between 0 and 1", confidence)
    st._check_count("n_permutations", n_permutations)
    st._check_seed(seed)
    aligned = align_scores(scores, runs, queries, complete)
    run_names = next(iter(aligned.values()))[0]
    baselines = _baselines(baseline, run_names)
    pairs = _pairs(baselines, run_names)

    pair_tests = tuple(t for t in tests if st.STAT_TESTS[t].scope == "pair")
    jobs = [(m[i], m[j]) for _, _, m in aligned.values() for i, j in pairs]
    settings = (pair_tests, alternative, n_permutations, seed, confidence, ci)
    from ..core.backends import backend

    stats = backend(engine).starmap(
        pair_statistics,
        [(x, y, *settings) for x, y in jobs],
        client=client,
        scheduler=scheduler,
    )
    rows: list[ComparisonRow] = []
    means: dict[str, dict[str, float]] = {}
    for n_measure, (measure, (_, qids, m)) in enumerate(aligned.items()):
        mean = m.mean(axis=1)
        means[measure] = {r: float(v) for r, v in zip(run_names, mean, strict=True)}
        raw = {t: np.empty(len(pairs)) for t in tests}
        # tests over all runs at once (tukey): family-wise already, not corrected again
        whole = {t: st.STAT_TESTS[t].behaviour(m) for t in tests if t not in pair_tests}
        mine = stats[n_measure * len(pairs) : (n_measure + 1) * len(pairs)]
        for k, (i, j) in enumerate(pairs):
            for t in tests:
                raw[t][k] = whole[t][i, j] if t in whole else mine[k][0][t]
        adj = {t: raw[t] if t in whole else st.adjust_pvalues(raw[t], correction) for t in tests}
        for k, (i, j) in enumerate(pairs):
            x, y = m[i], m[j]
            diff = float(mean[i] - mean[j])
            low, high = mine[k][1]
            p_first = adj[tests[0]][k]
            rows.append(
                ComparisonRow(
                    measure=measure,
                    run=run_names[i],
                    baseline=run_names[j],
                    n_queries=len(qids),
                    mean_run=float(mean[i]),
                    mean_baseline=float(mean[j]),
                    diff=diff,
                    rel_diff=diff / float(mean[j]) if mean[j] != 0 else math.nan,
                    pvalues={t: float(raw[t][k]) for t in tests},
                    pvalues_adjusted={t: float(adj[t][k]) for t in tests},
                    effect_size=st.cohens_d(x, y),
                    ci_low=low,
                    ci_high=high,
                    wins=int(np.sum(x > y)),
                    ties=int(np.sum(x == y)),
                    losses=int(np.sum(x < y)),
                    significant=bool(p_first < alpha),
                )
            )
    return Comparison(
        rows=tuple(rows),
        means=means,
        runs=run_names,
        measures=tuple(aligned),
        queries={me: q for me, (_, q, _) in aligned.items()},
        baselines=baselines,
        tests=tests,
        correction=correction,
        alpha=float(alpha),
        confidence=float(confidence),
        ci=ci,
        settings={"alternative": alternative, "n_permutations": n_permutations, "seed": seed},
    )
