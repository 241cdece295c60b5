"""Systems run with several random seeds (or trained on several folds): one system, many
runs.

A system's result on a topic is the mean over its seeds of the per-topic values; the
paired tests of :func:`cranfield.compare.compare` then run on these per-topic means,
topics being the sampling unit (averaging over seeds first takes the seed noise out of
each topic's value instead of counting every seed as another topic, which would treat
correlated runs as independent evidence). What the random seeds add is reported beside it:
the mean over topics of the run of each seed, their standard deviation (``ddof=1``), range
and t confidence interval over seeds,

.. math:: \\bar m \\pm t_{1-\\alpha/2,\\,k-1}\\, s_m / \\sqrt k ,

for :math:`k` seeds with means :math:`m_1 \\dots m_k` -- the spread a reader needs to
judge a difference between systems against the variation of one system under another
seed (Reimers & Gurevych 2017, "Reporting Score Distributions Makes a Difference",
EMNLP; Bouthillier et al. 2021, "Accounting for Variance in Machine Learning
Benchmarks", MLSys).

Every seed of a system is averaged over the topics all its seeds have (the others are
named in a note), so the system's mean is both the mean of the means of its seeds and the mean
of its per-topic means.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError

__all__ = [
    "SeedSpread",
    "merge_seeds",
    "parse_system",
    "result_spreads",
    "spread",
    "spread_table",
    "systems_of",
]


@dataclass(frozen=True)
class SeedSpread:
    """One system and measure over its seeds: ``seed_means[i]`` is the mean over the
    ``topics`` common to every seed of run ``runs[i]``; ``mean``, ``sd`` (``ddof=1``,
    ``nan`` for one seed), ``min``, ``max`` and the t interval ``ci`` over its seeds."""

    system: str
    measure: str
    runs: tuple[str, ...]
    seed_means: tuple[float, ...]
    topics: int
    mean: float
    sd: float
    min: float
    max: float
    ci: tuple[float, float]

    def to_row(self) -> dict:
        return {
            "system": self.system,
            "measure": self.measure,
            "seeds": len(self.runs),
            "topics": self.topics,
            "mean": self.mean,
            "sd": self.sd,
            "min": self.min,
            "max": self.max,
            "ci_low": self.ci[0],
            "ci_high": self.ci[1],
            "runs": list(self.runs),
            "seed_means": list(self.seed_means),
        }


def parse_system(text: str) -> tuple[str, list[str]]:
    """``NAME=RUN[,RUN...]`` (the ``--system`` option) as ``(name, [run, ...])``."""
    name, sep, members = str(text).partition("=")
    items = [m.strip() for m in members.split(",") if m.strip()]
    if not sep or not name.strip() or not items:
        raise ParameterError("--system", "NAME=RUN[,RUN...] (run names, files or patterns)", text)
    return name.strip(), items


def systems_of(
    specs: Sequence[str], names: Sequence[str], paths: Sequence[str] = ()
) -> dict[str, list[str]]:
    """``{system: [run name, ...]}`` of ``--system`` values: each item a run name, one
    of the run files ``paths`` (``paths[i]`` is run ``names[i]``), or a shell pattern
    (``dense_seed*``) matching run names or files; each run in one system at most."""
    out: dict[str, list[str]] = {}
    taken: dict[str, str] = {}
    for spec in specs:
        system, items = parse_system(spec)
        if system in out:
            raise ParameterError("--system", "each system name once", system)
        members: list[str] = []
        for item in items:
            hits = [
                n
                for i, n in enumerate(names)
                if fnmatch.fnmatchcase(n, item)
                or (i < len(paths) and fnmatch.fnmatchcase(str(paths[i]), item))
            ]
            if not hits:
                raise ParameterError(
                    "--system", "run names or files among " + ", ".join(names), item
                )
            members += [h for h in hits if h not in members]
        for run in members:
            if run in taken:
                raise ParameterError("--system", f"run {run} in one system only", spec)
            taken[run] = system
        out[system] = members
    clash = set(out) & (set(names) - set(taken))
    if clash:
        raise ParameterError("--system", "a name no other run has", sorted(clash)[0])
    return out


def spread(
    system: str,
    measure: str,
    runs: Sequence[str],
    seed_values,
    topics: int,
    confidence: float = 0.95,
) -> SeedSpread:
    """The :class:`SeedSpread` of one system's value under each seed (``seed_values[i]``
    of run ``runs[i]``): mean, sd (``ddof=1``), range and t interval over its seeds."""
    from .stats import mean_difference_ci

    values = np.asarray(seed_values, dtype=np.float64)
    k = len(values)
    finite = bool(np.isfinite(values).all())
    sd = float(np.std(values, ddof=1)) if k > 1 else float("nan")
    ci = (
        mean_difference_ci(values, np.zeros(k), confidence)
        if k > 1 and finite
        else (float("nan"), float("nan"))
    )
    return SeedSpread(
        system,
        measure,
        tuple(runs),
        tuple(values.tolist()),
        topics,
        float(values.mean()),
        sd,
        float(values.min()),
        float(values.max()),
        (float(ci[0]), float(ci[1])),
    )


def result_spreads(
    results, systems: Mapping[str, Sequence[str]], confidence: float = 0.95
) -> list[SeedSpread]:
    """Per system and numeric measure of a :class:`cranfield.core.results.Results`, the
    :func:`spread` of the own aggregates of its seeds (GMAP a geometric mean, sums sums);
    ``topics``: how many topics all its seeds have."""
    by_name = {r.name: r for r in results.runs}
    rows = []
    for system, runs in systems.items():
        topics = len(set.intersection(*(set(by_name[r].query_ids) for r in runs)))
        for m in results.measures:
            if m.definition.kind == "str":
                continue
            values = [by_name[r].aggregates[m] for r in runs]
            values = [float("nan") if v is None else float(v) for v in values]
            rows.append(spread(system, str(m), runs, values, topics, confidence))
    return rows


def merge_seeds(
    scores: Mapping[str, Mapping[str, Mapping[str, float]]],
    systems: Mapping[str, Sequence[str]],
    confidence: float = 0.95,
) -> tuple[dict, list[SeedSpread], list[str]]:
    """Replace the runs of each system by the system's per-topic means over its seeds.

    Parameters
    ----------
    scores
        Per-query scores ``{measure: {run: {query_id: value}}}`` (the input of
        :func:`cranfield.compare.compare`).
    systems
        ``{system: [run, ...]}``: the runs (seeds, folds) of each system.
    confidence
        Level of the t interval of the system's mean over seeds.

    Returns
    -------
    (scores, spreads, notes)
        The scores with each system's runs replaced by ``{query_id: mean over seeds}``
        at the place of its first run (the other runs unchanged), a
        :class:`SeedSpread` per system and measure, and notes naming topics left out
        because some seed has no value for them.
    """
    if not 0 < confidence < 1:
        raise ParameterError("confidence", "a number strictly between 0 and 1", confidence)
    first = {runs[0]: s for s, runs in systems.items() if runs}
    member = {r for runs in systems.values() for r in runs}
    merged: dict = {}
    spreads: list[SeedSpread] = []
    notes: list[str] = []
    for measure, by_run in scores.items():
        out = {}
        for run, values in by_run.items():
            if run not in member:
                out[run] = dict(values)
                continue
            if run not in first:
                continue
            system = first[run]
            runs = list(systems[system])
            missing = [r for r in runs if r not in by_run]
            if missing:
                raise ParameterError("--system", f"runs with {measure} values", missing)
            common = set.intersection(*(set(by_run[r]) for r in runs))
            dropped = set().union(*(set(by_run[r]) for r in runs)) - common
            if dropped:
                notes.append(
                    f"system {system}, {measure}: {len(dropped)} topic(s) left out that some "
                    f"seed has no value for ({', '.join(sorted(dropped)[:5])}"
                    f"{', ...' if len(dropped) > 5 else ''})"
                )
            topics = sorted(common)
            matrix = np.array([[by_run[r][q] for q in topics] for r in runs], dtype=np.float64)
            matrix = matrix.reshape(len(runs), len(topics))
            per_topic = matrix.mean(axis=0) if topics else np.zeros(0)
            out[system] = dict(zip(topics, per_topic.tolist(), strict=True))
            seed_means = matrix.mean(axis=1) if topics else np.full(len(runs), np.nan)
            spreads.append(spread(system, measure, runs, seed_means, len(topics), confidence))
        merged[measure] = out
    return merged, spreads, notes


def spread_table(spreads: Sequence[SeedSpread], fmt: str = "text", digits: int = 4) -> str:
    """The spreads as a table (one row per system and measure) in ``fmt`` (text,
    markdown, csv, tsv, latex, html: :func:`cranfield.output.table`)."""
    from ..output import number_cell, table

    head = ["system", "measure", "seeds", "topics", "mean", "sd", "min", "max", "ci_low", "ci_high"]
    full = fmt in ("csv", "tsv")
    body = [
        [s.system, s.measure, str(len(s.runs)), str(s.topics)]
        + [repr(v) if full else number_cell(v, digits) for v in (s.mean, s.sd, s.min, s.max, *s.ci)]
        for s in spreads
    ]
    return table(head, body, fmt, left=2)
