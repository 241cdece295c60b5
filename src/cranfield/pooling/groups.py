"""Groups of runs (participants) and the per-group run limit.

A campaign pools at most N runs per participant (TREC usually asks each group to rank
its runs by priority and judges the first ones). The group of a run comes from a
mapping file (``run group [priority]`` lines) or from the run name up to a separator
(``uni-bm25`` -> ``uni`` with ``-``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..errors import InputError, ParameterError


def read_groups(path: str) -> tuple[dict[str, str], dict[str, int]]:
    """``({run: group}, {run: priority})`` from ``run group [priority]`` lines
    (whitespace-separated; priority an integer, smaller = pooled first); blank and
    ``#`` lines skipped."""
    groups: dict[str, str] = {}
    priority: dict[str, int] = {}
    with open(path, encoding="utf-8") as fh:
        for no, line in enumerate(fh, start=1):
            fields = line.split()
            if not fields or fields[0].startswith("#"):
                continue
            if len(fields) not in (2, 3):
                raise InputError(
                    f"expected 2 or 3 fields (run group [priority]), got {len(fields)}", path, no
                )
            run = fields[0]
            if run in groups and groups[run] != fields[1]:
                raise InputError(f"run {run!r} is given two groups", path, no)
            groups[run] = fields[1]
            if len(fields) == 3:
                try:
                    priority[run] = int(fields[2])
                except ValueError:
                    raise InputError(
                        f"priority must be an integer, got {fields[2]!r}", path, no
                    ) from None
    return groups, priority


def resolve_groups(names: list[str], groups: Mapping[str, str] | str | None) -> dict[str, str]:
    """``{run: group}``: each run its own group (None), the part of the run name before
    a separator (a string such as ``"-"``), or a mapping that names every run."""
    if groups is None:
        return {n: n for n in names}
    if isinstance(groups, str):
        if not groups:
            raise ParameterError("group separator", "a non-empty string", groups)
        return {n: n.split(groups, 1)[0] for n in names}
    missing = [n for n in names if n not in groups]
    if missing:
        raise InputError(f"no group given for run(s) {', '.join(map(repr, missing))}")
    return {n: str(groups[n]) for n in names}


def limit_runs(
    runs: Sequence,
    per_group: int,
    groups: Mapping[str, str] | str | None,
    priority: Mapping[str, int] | None = None,
) -> list:
    """The runs to pool when each group may contribute at most ``per_group`` runs.

    Within a group, runs are chosen by ``priority`` (smaller first; runs without one
    come after those with one) and then in the order given. The chosen runs keep the
    order given.
    """
    if isinstance(per_group, bool) or not isinstance(per_group, int) or per_group < 1:
        raise ParameterError("runs per group", "an integer >= 1", per_group)
    names = [r.name for r in runs]
    group_of = resolve_groups(names, groups)
    priority = priority or {}
    ranked = sorted(
        range(len(runs)),
        key=lambda i: (names[i] not in priority, priority.get(names[i], 0), i),
    )
    taken: dict[str, int] = {}
    chosen = set()
    for i in ranked:  # a loop over runs (few)
        g = group_of[names[i]]
        if taken.get(g, 0) < per_group:
            taken[g] = taken.get(g, 0) + 1
            chosen.add(i)
    return [runs[i] for i in sorted(chosen)]
