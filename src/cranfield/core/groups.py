"""Per-group breakdowns: a topic-to-group file (topic type, difficulty, language...)
and every run's means per group beside the overall ones.

A group file is a table (TSV, CSV, Parquet... through the one table reader) with a topic
column (``query_id``, ``qid``, ``topic`` or ``topic_id``) and a ``group`` column; a topic
may be in several groups (one row each). A group's mean is the measure's own aggregate
(mean, geometric mean, sum) of the per-query values of its topics -- the overall
aggregate restricted to them (macro averaging; micro averages pool counts and are not
broken down).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .results import Results, RunResult, aggregate

__all__ = ["TopicGroups", "read_groups", "by_group", "select_topics"]

TOPIC_COLUMNS = ("query_id", "qid", "topic", "topic_id")


@dataclass(frozen=True)
class TopicGroups:
    """Topic-group pairs: ``topics[i]`` is in ``groups[i]``; ``names`` in the order they
    first appear; ``lines[i]`` the source line of pair i (None for binary formats)."""

    topics: np.ndarray
    groups: np.ndarray
    names: tuple[str, ...]
    source: str
    lines: np.ndarray | None = None

    def check_topics(self, known) -> None:
        """Every topic named must be one of ``known`` (the evaluated topics): the first
        that is not is an error naming its line."""
        unknown = ~np.isin(self.topics, np.asarray(list(known), dtype=object))
        if unknown.any():
            i = int(np.flatnonzero(unknown)[0])
            line = None if self.lines is None else int(self.lines[i])
            where = f"row {i + 1}: " if line is None else ""
            raise InputError(
                f"{where}topic {self.topics[i]!r} is not among the evaluated topics "
                f"({int(unknown.sum())} such row(s))",
                self.source,
                line,
            )


def read_groups(path_or_file, ids=TOPIC_COLUMNS, what: str = "topic") -> TopicGroups:
    """Read a group file (see the module docstring); ``ids``: the names the id column may
    have, ``what`` the ids' name in messages (``user``/``item`` groups of
    :mod:`cranfield.rec` read the same shape)."""
    from .io.table import read_table

    t = read_table(path_or_file, strings=True)
    lower = {c.lower().strip(): c for c in t.table.column_names}
    topic = next((lower[c] for c in ids if c in lower), None)
    if topic is None:
        raise t.missing(" or ".join(ids), what)
    if "group" not in lower:
        raise t.missing("group")
    group = lower["group"]
    t.require({topic: "any", group: "any"})
    topics = np.asarray(t.column(topic).cast("string").to_pylist(), dtype=object)
    groups = np.asarray(t.column(group).cast("string").to_pylist(), dtype=object)
    pairs = np.char.add(topics.astype(str), np.char.add("\x00", groups.astype(str)))
    _, first, counts = np.unique(pairs, return_index=True, return_counts=True)
    if (counts > 1).any():
        i = int(np.sort(first[counts > 1])[0])
        again = int(np.flatnonzero(pairs == pairs[i])[1])
        raise t.error(again, f"{what} {topics[i]!r} is listed in group {groups[i]!r} twice")
    names = tuple(dict.fromkeys(groups.tolist()))
    return TopicGroups(topics, groups, names, t.source, t.lines)


def by_group(results: Results, groups: TopicGroups) -> dict[str, Results]:
    """``{group: Results}``: each run's values on the group's topics and their aggregates
    (the measure's own, as :func:`cranfield.evaluate` computes them); runs without a
    topic of the group get ``None`` aggregates there."""
    out = {}
    for name in groups.names:
        members = groups.topics[groups.groups == name]
        runs = []
        for r in results.runs:
            mask = np.isin(np.asarray(r.query_ids, dtype=object), members)
            ids = [q for q, keep in zip(r.query_ids, mask, strict=True) if keep]
            values = {
                m: np.asarray(v, dtype=object if m.definition.kind == "str" else None)[mask]
                for m, v in r.values.items()
            }
            aggs = {
                m: aggregate(values[m].astype(np.float64), m.definition.aggregate)
                if m.definition.kind != "str" and mask.any()
                else None
                for m in results.measures
            }
            runs.append(RunResult(r.name, ids, values, aggs))
        out[name] = Results(results.measures, runs, results.options)
    return out


def select_topics(scores: dict, groups: TopicGroups, name: str) -> dict:
    """Per-query scores ``{measure: {run: {qid: value}}}`` (the input of
    :func:`cranfield.compare.compare`) restricted to the topics of group ``name``."""
    members = set(groups.topics[groups.groups == name].tolist())
    return {
        m: {r: {q: v for q, v in by_q.items() if q in members} for r, by_q in by_run.items()}
        for m, by_run in scores.items()
    }
