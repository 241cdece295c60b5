"""Read per-query score tables and result tables written by cranfield or other tools.

Per-query tables (:func:`read_per_query`) come in two shapes:

- delimited text with a header naming the columns ``run``, ``qid`` (or ``query``),
  ``measure`` and ``value`` in any order, tab- or comma-separated; one file may hold
  many runs;
- ``trec_eval -q`` output: whitespace-separated ``measure qid value`` lines, one file
  per run. The run is named by the file's ``runid all NAME`` line, else by the file
  name; the ``all`` lines (aggregates) are skipped.

Result tables (:func:`read_result_table`) hold one score per run and measure: a header
with ``run``, ``measure`` and ``value`` columns.
"""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Mapping

from ..errors import InputError
from .correlation import kendall_tau, rbo, spearman_rho, tau_ap

__all__ = ["read_per_query", "read_result_table", "correlate_tables"]

_QID_COLUMNS = ("qid", "query", "query_id")


def _lines(path: str) -> list[str]:
    with open(path, encoding="utf-8") as f:
        return f.read().splitlines()


def _value(text: str, source: str, line: int) -> float:
    try:
        v = float(text)
    except ValueError:
        raise InputError(f"expected a number, got {text!r}", source, line) from None
    if math.isnan(v):
        raise InputError("value is NaN", source, line)
    return v


def _delimited(lines: list[str], source: str, needed: dict[str, tuple[str, ...]]):
    """Yield (line number, {column: text}) of a delimited table with a header."""
    header = lines[0]
    delim = "\t" if "\t" in header else ","
    names = [h.strip().lower() for h in next(csv.reader([header], delimiter=delim))]
    cols = {}
    for key, options in needed.items():
        found = [names.index(o) for o in options if o in names]
        if not found:
            raise InputError(f"header lacks a {'/'.join(options)} column", source, 1)
        cols[key] = found[0]
    for no, fields in enumerate(csv.reader(lines[1:], delimiter=delim), start=2):
        if not fields or all(not f.strip() for f in fields):
            continue
        if len(fields) != len(names):
            raise InputError(f"expected {len(names)} fields, got {len(fields)}", source, no)
        yield no, {k: fields[i].strip() for k, i in cols.items()}


def _is_header(line: str) -> bool:
    lowered = line.lower().replace(",", " ").replace("\t", " ").split()
    return "measure" in lowered and "value" in lowered


def read_per_query(paths) -> dict[str, dict[str, dict[str, float]]]:
    """Read per-query scores from files into ``{measure: {run: {qid: value}}}``.

    See the module docstring for the accepted formats. A score given twice for the same
    run, measure and query is an error.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    out: dict[str, dict[str, dict[str, float]]] = {}

    def put(measure, run, qid, value, source, line):
        cell = out.setdefault(measure, {}).setdefault(run, {})
        if qid in cell:
            raise InputError(
                f"duplicate score for run {run!r}, measure {measure!r}, query {qid!r}", source, line
            )
        cell[qid] = value

    for path in paths:
        source = str(path)
        lines = _lines(path)
        first = next((i for i, s in enumerate(lines) if s.strip()), None)
        if first is None:
            raise InputError("file is empty", source)
        lines = lines[first:]
        if _is_header(lines[0]):
            needed = {
                "run": ("run",),
                "qid": _QID_COLUMNS,
                "measure": ("measure",),
                "value": ("value",),
            }
            for no, row in _delimited(lines, source, needed):
                put(
                    row["measure"],
                    row["run"],
                    row["qid"],
                    _value(row["value"], source, no + first),
                    source,
                    no + first,
                )
            continue
        run = os.path.splitext(os.path.basename(source))[0]
        rows = []
        for no, text in enumerate(lines, start=first + 1):
            fields = text.split()
            if not fields:
                continue
            if len(fields) != 3:
                raise InputError(
                    f"expected 3 fields (measure qid value) or a header with run, qid, "
                    f"measure, value columns; got {len(fields)} fields",
                    source,
                    no,
                )
            if fields[0] == "runid":
                run = fields[2]
                continue
            if fields[1] == "all":
                continue
            rows.append((no, fields))
        for no, (measure, qid, value) in rows:
            put(measure, run, qid, _value(value, source, no), source, no)
    if not out:
        raise InputError("no per-query scores found", ", ".join(str(p) for p in paths))
    return out


def read_result_table(path) -> dict[str, dict[str, float]]:
    """Read a result table (header with ``run``, ``measure``, ``value``) into
    ``{measure: {run: value}}``."""
    source = str(path)
    lines = [s for s in _lines(path)]
    first = next((i for i, s in enumerate(lines) if s.strip()), None)
    if first is None:
        raise InputError("file is empty", source)
    lines = lines[first:]
    if not _is_header(lines[0]):
        raise InputError(
            "expected a header line naming run, measure and value columns", source, first + 1
        )
    out: dict[str, dict[str, float]] = {}
    needed = {"run": ("run",), "measure": ("measure",), "value": ("value",)}
    for no, row in _delimited(lines, source, needed):
        cell = out.setdefault(row["measure"], {})
        if row["run"] in cell:
            raise InputError(
                f"duplicate value for run {row['run']!r}, measure {row['measure']!r}",
                source,
                no + first,
            )
        cell[row["run"]] = _value(row["value"], source, no + first)
    if not out:
        raise InputError("no rows", source)
    return out


def correlate_tables(
    a: Mapping[str, float], b: Mapping[str, float], p: float = 0.9
) -> dict[str, float]:
    """Correlation of two system orderings given as ``{run: score}`` mappings.

    Both mappings must score the same runs. Returns Kendall's tau-b, tau_AP (``a`` is the
    reference ordering; ``nan`` when ``b`` has tied scores), Spearman's rho and RBO_ext
    with persistence ``p`` of the two rankings by decreasing score (ties broken by run
    name).
    """
    if set(a) != set(b):
        only_a = sorted(set(a) - set(b))
        only_b = sorted(set(b) - set(a))
        raise InputError(
            f"the two tables score different runs: only in the first {only_a}, "
            f"only in the second {only_b}"
        )
    runs = sorted(a)
    x = [a[r] for r in runs]
    y = [b[r] for r in runs]
    try:
        tap = tau_ap(x, y)
    except InputError:
        tap = math.nan
    rank_a = sorted(runs, key=lambda r: (-a[r], r))
    rank_b = sorted(runs, key=lambda r: (-b[r], r))
    return {
        "kendall_tau": kendall_tau(x, y),
        "tau_ap": tap,
        "spearman_rho": spearman_rho(x, y),
        "rbo": rbo(rank_a, rank_b, p),
    }
